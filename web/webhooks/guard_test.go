package webhooks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fieldboard/store"
	"fieldboard/web/webhooks"
)

// TestGuardRefusesInsideAddresses: at subscription, loopback, private,
// link-local, metadata, shared, multicast and unspecified addresses are
// refused, literal or resolved (localhost), as are URLs that are not http
// or https or that carry credentials; --allow-private-webhooks lets the
// inside ones through.
func TestGuardRefusesInsideAddresses(t *testing.T) {
	ctx := context.Background()
	inside := []string{
		"http://127.0.0.1/hook", "http://127.1.2.3:8080/", "http://[::1]/", "http://localhost:9000/hook",
		"http://10.0.0.5/", "http://172.16.3.4/", "http://192.168.1.1/", "http://[fd00::1]/",
		"http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://100.64.0.1/",
		"http://0.0.0.0/", "http://[::]/", "http://224.0.0.1/", "http://[::ffff:127.0.0.1]/",
	}
	for _, u := range inside {
		err := webhooks.Guard{}.CheckURL(ctx, u)
		if !errors.Is(err, webhooks.ErrInsideAddress) {
			t.Errorf("%s: %v, want it refused as an inside address", u, err)
		}
		if err := (webhooks.Guard{AllowPrivate: true}).CheckURL(ctx, u); err != nil {
			t.Errorf("%s with private addresses allowed: %v", u, err)
		}
	}
	for _, u := range []string{"ftp://93.184.216.34/", "93.184.216.34/hook", "https://user:pw@93.184.216.34/", "https:///x", "http://93.184.216.34/#frag"} {
		if err := (webhooks.Guard{AllowPrivate: true}).CheckURL(ctx, u); err == nil {
			t.Errorf("%s was accepted", u)
		}
	}
	for _, u := range []string{"https://93.184.216.34/hook", "http://8.8.8.8:8080/x?y=1", "https://[2606:4700::1111]/"} {
		if err := (webhooks.Guard{}).CheckURL(ctx, u); err != nil {
			t.Errorf("%s: %v", u, err)
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
		if d.Status != store.DeliveryPending || d.LastStatusCode != 0 || !strings.Contains(d.LastError, "inside address") {
			t.Errorf("delivery to loopback: %+v, want refused and retried", d)
		}
	}
}
