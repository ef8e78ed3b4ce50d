package webhooks_test

import (
	"context"
	"errors"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"fieldboard/store"
	"fieldboard/web/webhooks"
	"fieldboard/web/webhooks/dnstest"
)

// insideAddresses are the addresses a webhook may not reach, by the
// IANA Special-Purpose Address Registries' entries that are not globally
// reachable, and IPv6 addresses that carry one to an IPv4 host, as URL
// hosts.
var insideAddresses = []struct{ name, host string }{
	{"loopback", "127.0.0.1"},
	{"loopback, not the first", "127.1.2.3:8080"},
	{"IPv6 loopback", "[::1]"},
	{"a name that resolves to loopback", "localhost:9000"},
	{"private 10/8", "10.0.0.5"},
	{"private 172.16/12", "172.16.3.4"},
	{"private 192.168/16", "192.168.1.1"},
	{"unique-local fc00::/7", "[fd00::1]"},
	{"unique-local: AWS's IPv6 metadata service", "[fd00:ec2::254]"},
	{"link-local: the metadata service", "169.254.169.254"},
	{"IPv6 link-local", "[fe80::1]"},
	{"IPv6 link-local with a zone", "[fe80::1%25eth0]"},
	{"shared address space 100.64/10", "100.64.0.1"},
	{"unspecified", "0.0.0.0"},
	{"IPv6 unspecified", "[::]"},
	{"multicast", "224.0.0.1"},
	{"IPv6 multicast", "[ff02::1]"},
	{"IPv4-mapped loopback", "[::ffff:127.0.0.1]"},
	{"IPv4-mapped metadata", "[::ffff:169.254.169.254]"},
	{"0.0.0.0/8 this network", "0.1.2.3"},
	{"192.0.0.0/24 IETF protocol assignments: Oracle Cloud's old metadata address", "192.0.0.192"},
	{"192.0.0.0/24 IETF protocol assignments: DS-Lite", "192.0.0.1"},
	{"192.0.2.0/24 documentation", "192.0.2.10"},
	{"198.18.0.0/15 benchmarking", "198.19.0.1"},
	{"198.51.100.0/24 documentation", "198.51.100.7"},
	{"203.0.113.0/24 documentation", "203.0.113.99"},
	{"240.0.0.0/4 reserved", "240.1.2.3"},
	{"255.255.255.255 limited broadcast", "255.255.255.255"},
	{"fec0::/10 site-local", "[fec0::1]"},
	{"100::/64 discard-only", "[100::1]"},
	{"2001::/23 IETF protocol assignments: Teredo", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]"},
	{"2001::/23 IETF protocol assignments: benchmarking", "[2001:2::1]"},
	{"2001:db8::/32 documentation", "[2001:db8::1]"},
	{"3fff::/20 documentation", "[3fff::1]"},
	{"64:ff9b:1::/48 local-use NAT64", "[64:ff9b:1::a9fe:a9fe]"},
	{"NAT64 64:ff9b::/96 carrying the metadata service", "[64:ff9b::a9fe:a9fe]"},
	{"NAT64 64:ff9b::/96 carrying loopback", "[64:ff9b::127.0.0.1]"},
	{"6to4 2002::/16 carrying the metadata service", "[2002:a9fe:a9fe::]"},
	{"6to4 2002::/16 carrying a private address", "[2002:c0a8:101::1]"},
	{"IPv4-compatible ::/96 carrying loopback", "[::127.0.0.1]"},
	{"IPv4-compatible ::/96 carrying this network", "[::0.0.0.2]"},
}

// TestGuardRefusesInsideAddresses: at subscription, the addresses that
// are not globally reachable are refused, literal or resolved
// (localhost), IPv6 ones that carry an inside IPv4 address too, as are
// URLs that are not http or https, that carry credentials, or whose port
// is outside 1 to 65535 (allowed private addresses or not);
// --allow-private-webhooks lets the inside ones through; outside
// addresses, the registries' global exceptions and IPv6 ones carrying an
// outside IPv4 address pass.
func TestGuardRefusesInsideAddresses(t *testing.T) {
	ctx := context.Background()
	for _, c := range insideAddresses {
		u := "http://" + c.host + "/hook"
		err := webhooks.Guard{}.CheckURL(ctx, u)
		if !errors.Is(err, webhooks.ErrInsideAddress) {
			t.Errorf("%s, %s: %v, want it refused as an inside address", c.name, u, err)
		}
		if err := (webhooks.Guard{AllowPrivate: true}).CheckURL(ctx, u); err != nil {
			t.Errorf("%s, %s with private addresses allowed: %v", c.name, u, err)
		}
	}
	if err := (webhooks.Guard{}).CheckURL(ctx, "http://[64:ff9b::a9fe:a9fe]/"); err == nil || !strings.Contains(err.Error(), "carries 169.254.169.254") {
		t.Errorf("a NAT64 address's refusal: %v, want it to name the IPv4 address it carries", err)
	}
	for _, u := range []string{"ftp://93.184.216.34/", "93.184.216.34/hook", "https://user:pw@93.184.216.34/", "https:///x", "http://93.184.216.34/#frag"} {
		if err := (webhooks.Guard{AllowPrivate: true}).CheckURL(ctx, u); err == nil {
			t.Errorf("%s was accepted", u)
		}
	}
	for _, c := range []struct{ url, port string }{
		{"http://93.184.216.34:0/hook", "0"},
		{"https://93.184.216.34:99999/hook", "99999"},
		{"https://93.184.216.34:65536/hook", "65536"},
		{"http://[2606:4700::1111]:0/", "0"},
		{"http://127.0.0.1:0/hook", "0"}, // with private addresses allowed too
		{"http://hooks.example:000/hook", "000"},
	} {
		for _, g := range []webhooks.Guard{{}, {AllowPrivate: true}} {
			want := "the port must be from 1 to 65535, not " + c.port
			if err := g.CheckURL(ctx, c.url); err == nil || err.Error() != want {
				t.Errorf("%s (private allowed: %v): %v, want %q", c.url, g.AllowPrivate, err, want)
			}
		}
	}
	for _, u := range []string{"http://127.0.0.1:1/", "http://127.0.0.1:65535/", "http://127.0.0.1:/", "http://127.0.0.1:08080/"} {
		if err := (webhooks.Guard{AllowPrivate: true}).CheckURL(ctx, u); err != nil {
			t.Errorf("%s with private addresses allowed: %v, want accepted (ports 1 to 65535, or none)", u, err)
		}
	}
	for _, c := range []struct{ name, url string }{
		{"IPv4", "https://93.184.216.34/hook"},
		{"IPv4 with a port and a query", "http://8.8.8.8:8080/x?y=1"},
		{"IPv6", "https://[2606:4700::1111]/"},
		{"192.0.0.9/32 PCP anycast, a global exception of 192.0.0.0/24", "http://192.0.0.9/"},
		{"2001:4:112::/48 AS112, a global exception of 2001::/23", "http://[2001:4:112::1]/"},
		{"NAT64 carrying an outside address", "http://[64:ff9b::808:808]/"},
		{"6to4 carrying an outside address", "http://[2002:5db8:d822::1]/"},
		{"IPv4-compatible carrying an outside address", "http://[::8.8.8.8]/"},
		{"IPv4-mapped outside address", "http://[::ffff:8.8.8.8]/"},
	} {
		if err := (webhooks.Guard{}).CheckURL(ctx, c.url); err != nil {
			t.Errorf("%s, %s: %v", c.name, c.url, err)
		}
	}
}

// TestGuardRefusesAtConnection: a subscription whose address is inside
// (made before, or a name that now resolves inside) gets nothing: the
// connection is refused after resolution and the attempt says why.
func TestGuardRefusesAtConnection(t *testing.T) {
	f := newFixture(t, webhooks.Guard{})
	r := newReceiver(t, 200)
	id := f.subscribe(r) // the store takes what it is given; the guard is the worker's
	f.refresh()
	f.sendDue()
	if n := len(r.requests()); n != 0 {
		t.Errorf("a loopback receiver got %d requests", n)
	}
	for _, d := range f.deliveries(id) {
		if d.Status != store.DeliveryPending || d.LastStatusCode != 0 || !strings.Contains(d.LastError, "not a public address") {
			t.Errorf("delivery to loopback: %+v, want refused and retried", d)
		}
	}
}

// TestGuardAllowsExactlyTheListedAddress: an address and port in Allow
// (the demo's own receiver on loopback) is let through, at subscription
// and at connection; the same host on another port, and every other
// inside address, is refused as before.
func TestGuardAllowsExactlyTheListedAddress(t *testing.T) {
	ctx := context.Background()
	allowed, other := newReceiver(t, 200), newReceiver(t, 200)
	guard := webhooks.Guard{Allow: []netip.AddrPort{netip.MustParseAddrPort(strings.TrimPrefix(allowed.URL, "http://"))}}
	if err := guard.CheckURL(ctx, allowed.URL+"/hook"); err != nil {
		t.Errorf("the listed address: %v", err)
	}
	for _, url := range []string{other.URL + "/hook", "http://127.0.0.1/hook", "http://10.0.0.5" + strings.TrimPrefix(allowed.URL, "http://127.0.0.1")} {
		if err := guard.CheckURL(ctx, url); !errors.Is(err, webhooks.ErrInsideAddress) {
			t.Errorf("%s: %v, want refused as an inside address", url, err)
		}
	}
	f := newFixture(t, guard)
	yes, no := f.subscribe(allowed), f.subscribe(other)
	f.refresh()
	f.sendDue()
	if n := len(allowed.requests()); n != 2 {
		t.Errorf("the listed receiver got %d requests, want the 2 changes", n)
	}
	for _, d := range f.deliveries(yes) {
		if d.Status != store.DeliveryDelivered {
			t.Errorf("delivery to the listed address: %+v", d)
		}
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("a receiver on another loopback port got %d requests", n)
	}
	for _, d := range f.deliveries(no) {
		if d.Status != store.DeliveryPending || !strings.Contains(d.LastError, "not a public address") {
			t.Errorf("delivery to another loopback port: %+v, want refused and retried", d)
		}
	}
}

// TestGuardRefusesSpecialPurposeAddressesAtConnection: a subscription
// stored with an address the guard refuses (added before the guard knew
// it, or with --allow-private on a server without it) gets no connection:
// the dialer refuses it before connecting, and the attempt says why.
func TestGuardRefusesSpecialPurposeAddressesAtConnection(t *testing.T) {
	ctx := context.Background()
	for _, host := range []string{"192.0.0.192", "0.1.2.3", "198.18.0.1", "[64:ff9b::a9fe:a9fe]", "[2002:a9fe:a9fe::]", "[::127.0.0.1]", "[fec0::1]"} {
		f := newFixture(t, webhooks.Guard{})
		id, err := f.store.AddWebhook(ctx, store.WebhookSubscription{URL: "http://" + host + ":9/hook", Secret: webhooks.NewSecret(), CreatedAt: f.now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.QueueWebhookTest(ctx, id, webhooks.NewTestMessageID(), f.now); err != nil {
			t.Fatal(err)
		}
		f.sendDue()
		for _, d := range f.deliveries(id) {
			if d.Status != store.DeliveryPending || d.Attempts != 1 || !strings.Contains(d.LastError, "not a public address") ||
				!strings.Contains(d.LastError, "nothing was sent") {
				t.Errorf("%s: %+v, want the connection refused by the guard", host, d)
			}
		}
	}
}

// resolvedAndResolver are what a refusal must not say: an IPv4 address,
// or an IPv6 one in brackets (what a name resolved to, the resolver's
// address, this server's), a lookup's own words, which name the resolver
// ("lookup x on 10.0.0.2:53: no such host"), or a DNS port.
var resolvedAndResolver = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|\[[0-9a-fA-F:]+\]|lookup|no such host|:53\b`)

// TestRefusalsNameNoAddressNorResolver: a host name refused at
// subscription, because it resolves to a private address (through DNS or
// the hosts file) or does not resolve, is refused alike, by its name
// alone: the refusal says neither what it resolved to nor which resolver
// was asked, which whoever may add a webhook could use to map the inside
// network. The detail stays in the error's Cause, for the log. (The
// names are resolved by a DNS server of the test's own on loopback.)
func TestRefusalsNameNoAddressNorResolver(t *testing.T) {
	dns := dnstest.Start(t, map[string]string{"db.inside.test": "10.1.2.3"})
	guard := webhooks.Guard{Resolver: dns.Resolver()}
	for _, c := range []struct{ name, host, detail string }{
		{"a name resolving to a private address", "db.inside.test", "10.1.2.3"},
		{"a name the hosts file resolves to loopback", "localhost", "127.0.0.1"},
		{"a name that does not resolve", "nowhere.inside.test", "no such host"},
	} {
		err := guard.CheckURL(context.Background(), "http://"+c.host+":8080/hook")
		var refused *webhooks.HostError
		if !errors.As(err, &refused) || resolvedAndResolver.MatchString(err.Error()) ||
			!strings.Contains(err.Error(), c.host+" is not a public address, or could not be resolved") {
			t.Errorf("%s: %v; want it refused by its name alone, without an address or the resolver", c.name, err)
		}
		if refused != nil && !strings.Contains(refused.Cause.Error(), c.detail) {
			t.Errorf("%s: the detail for the log is %q, want it to say %q", c.name, refused.Cause, c.detail)
		}
	}
}

// TestDeliveryErrorsNameNoAddress: a delivery's recorded error, which the
// webhooks page and webhook list show, names no address: not what the
// subscription's name resolves to now (refused by the guard), nor the
// resolver of a name that no longer resolves, nor the addresses of a
// connection that failed.
func TestDeliveryErrorsNameNoAddress(t *testing.T) {
	ctx := context.Background()
	dns := dnstest.Start(t, map[string]string{"db.inside.test": "10.1.2.3"})
	closedPort := newReceiver(t, 200)
	closedURL := closedPort.URL
	closedPort.Close() // nothing listens there any more: the connection is refused
	for _, c := range []struct {
		name, url string
		guard     webhooks.Guard
		want      string
	}{
		{"a name that now resolves to a private address", "http://db.inside.test:9/hook", webhooks.Guard{Resolver: dns.Resolver()},
			"no answer: the host is not a public address, or could not be resolved; nothing was sent"},
		{"a name that no longer resolves", "http://gone.inside.test:9/hook", webhooks.Guard{Resolver: dns.Resolver()},
			"no answer: the host is not a public address, or could not be resolved; nothing was sent"},
		{"a connection refused", closedURL + "/hook", webhooks.Guard{AllowPrivate: true}, "no answer: dial: connect: connection refused"},
	} {
		f := newFixture(t, c.guard)
		id, err := f.store.AddWebhook(ctx, store.WebhookSubscription{URL: c.url, Secret: webhooks.NewSecret(), CreatedAt: f.now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.QueueWebhookTest(ctx, id, webhooks.NewTestMessageID(), f.now); err != nil {
			t.Fatal(err)
		}
		f.sendDue()
		for _, d := range f.deliveries(id) {
			if d.Attempts != 1 || d.LastError != c.want || resolvedAndResolver.MatchString(d.LastError) {
				t.Errorf("%s: %d attempts, recorded %q; want %q", c.name, d.Attempts, d.LastError, c.want)
			}
		}
	}
}
