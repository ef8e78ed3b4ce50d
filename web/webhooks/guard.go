package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"syscall"
)

// Guard keeps deliveries off addresses that are not globally reachable,
// those of the network Fieldboard runs in among them: loopback, private,
// link-local (the cloud metadata service at 169.254.169.254 among them),
// shared (CGNAT), unspecified, multicast, reserved, documentation and the
// other special-purpose prefixes that are not globally reachable, and an
// IPv6 address that carries one of those to an IPv4 host. They are refused
// when a subscription is made and again at each connection, after DNS
// resolution (so a name that later resolves inside is refused too).
// AllowPrivate lets them through (serve --allow-private-webhooks; the
// tests); Allow lets through exactly the address and port pairs it lists
// (the demo's own receiver) and no other port of their hosts. Resolver
// resolves the host names, at subscription and at each connection
// [net.DefaultResolver].
//
// A refusal never says what a name resolved to, nor which resolver was
// asked (a lookup's error names it), whether to the page, the command
// line or a delivery's recorded error: whoever may add a webhook could
// otherwise map the names and addresses of the network Fieldboard runs
// in. A name that resolves inside and one that does not resolve are
// refused alike, so that neither tells whether an inside name exists.
type Guard struct {
	AllowPrivate bool
	Allow        []netip.AddrPort
	Resolver     *net.Resolver
}

// ErrInsideAddress is the refusal of an address that is not globally
// reachable.
var ErrInsideAddress = errors.New("not a public address (loopback, private, link-local, metadata, shared, reserved, documentation, multicast or unspecified: not globally reachable)")

// HostError refuses a host name that does not resolve, here, to public
// addresses only. Its message names the host alone; Cause says what
// resolved, or why nothing did, for the server's log only.
type HostError struct {
	Host  string
	Cause error
}

func (e *HostError) Error() string {
	return e.Host + " is not a public address, or could not be resolved"
}

// Unwrap is Cause: errors.Is(err, ErrInsideAddress) holds for a name that
// resolved inside.
func (e *HostError) Unwrap() error { return e.Cause }

func (g Guard) resolver() *net.Resolver {
	if g.Resolver == nil {
		return net.DefaultResolver
	}
	return g.Resolver
}

// notGlobalIPv4 are the IPv4 prefixes that are not globally reachable:
// those of the IANA IPv4 Special-Purpose Address Registry, and multicast.
// globalIPv4 are the registry's exceptions within them.
var (
	notGlobalIPv4 = prefixes(
		"0.0.0.0/8",       // "this network": 0.0.0.0 reaches this host
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // shared address space (CGNAT)
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local, the cloud metadata service 169.254.169.254 among them
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments, Oracle Cloud's old metadata service 192.0.0.192 among them
		"192.0.2.0/24",    // documentation (TEST-NET-1)
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation (TEST-NET-2)
		"203.0.113.0/24",  // documentation (TEST-NET-3)
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, the limited broadcast 255.255.255.255 among them
	)
	globalIPv4 = prefixes("192.0.0.9/32", "192.0.0.10/32") // PCP and TURN anycast
)

// IPv6 is globally reachable within globalUnicastIPv6 only (the IANA IPv6
// Address Space: loopback, unspecified, unique-local fc00::/7, link-local
// fe80::/10, site-local fec0::/10, discard-only 100::/64, multicast,
// the local-use NAT64 prefix 64:ff9b:1::/48 and the unassigned space all
// lie outside it), but for the prefixes of the IPv6 Special-Purpose
// Address Registry in notGlobalIPv6, with their exceptions in globalIPv6.
var (
	globalUnicastIPv6 = netip.MustParsePrefix("2000::/3")
	notGlobalIPv6     = prefixes(
		"2001::/23",     // IETF protocol assignments: Teredo, benchmarking, deprecated ORCHID
		"2001:db8::/32", // documentation
		"3fff::/20",     // documentation
	)
	globalIPv6 = prefixes("2001:1::1/128", "2001:1::2/128", "2001:1::3/128", // PCP, TURN and DNS-SD SRP anycast
		"2001:3::/32", "2001:4:112::/48", "2001:20::/28", "2001:30::/28") // AMT, AS112, ORCHIDv2, drone remote ids
)

// The IPv6 prefixes that carry an IPv4 address to an IPv4 host: the
// well-known NAT64 prefix (RFC 6052, the IPv4 in the last four bytes),
// 6to4 (RFC 3056, in bytes 2 to 5) and the deprecated IPv4-compatible
// addresses (RFC 4291, in the last four bytes; :: and ::1 are not).
// IPv4-mapped ones (::ffff:0:0/96) are netip's Is4In6.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	compatible = netip.MustParsePrefix("::/96")
)

func prefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

func within(list []netip.Prefix, ip netip.Addr) bool {
	return slices.ContainsFunc(list, func(p netip.Prefix) bool { return p.Contains(ip) })
}

// embeddedIPv4 is the IPv4 address that IPv6 address ip carries to an
// IPv4 host, if it carries one.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case !ip.Is6():
		return netip.Addr{}, false
	case ip.Is4In6():
		return ip.Unmap(), true
	case nat64.Contains(ip), compatible.Contains(ip) && ip != netip.IPv6Unspecified() && ip != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// globallyReachable says whether ip, or the IPv4 address it carries, is
// globally reachable. An IPv6 address with a zone is not (it is scoped to
// a link).
func globallyReachable(ip netip.Addr) bool {
	if v4, ok := embeddedIPv4(ip); ok {
		ip = v4
	}
	if ip.Is4() {
		return !within(notGlobalIPv4, ip) || within(globalIPv4, ip)
	}
	return globalUnicastIPv6.Contains(ip) && (!within(notGlobalIPv6, ip) || within(globalIPv6, ip))
}

// checkIP refuses an inside address unless they are allowed, or it is
// listed in Allow with port.
func (g Guard) checkIP(ip netip.Addr, port uint16) error {
	if g.AllowPrivate || globallyReachable(ip) || slices.Contains(g.Allow, netip.AddrPortFrom(ip.Unmap(), port)) {
		return nil
	}
	if v4, ok := embeddedIPv4(ip); ok {
		return fmt.Errorf("%s (which carries %s) is %w", ip, v4, ErrInsideAddress)
	}
	return fmt.Errorf("%s is %w", ip, ErrInsideAddress)
}

// CheckURL says whether raw may be subscribed: an absolute http or https
// URL without credentials, its port (when it names one) from 1 to 65535,
// whose host resolves to outside addresses only. A name refused is a
// *HostError.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL", raw)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q is not an http or https URL with a host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("the URL must not carry a user or password")
	}
	if u.Fragment != "" {
		return fmt.Errorf("the URL must not have a fragment (#)")
	}
	port := uint16(80)
	if u.Scheme == "https" {
		port = 443
	}
	if named := u.Port(); named != "" { // digits only, as url.Parse checks
		p, err := strconv.ParseUint(named, 10, 16)
		if err != nil || p == 0 {
			return fmt.Errorf("the port must be from 1 to 65535, not %s", named)
		}
		port = uint16(p)
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkIP(ip, port)
	}
	ips, err := g.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil {
		return &HostError{Host: host, Cause: fmt.Errorf("resolve %s: %w", host, err)}
	}
	for _, ip := range ips {
		if err := g.checkIP(ip, port); err != nil {
			return &HostError{Host: host, Cause: fmt.Errorf("%s resolves to %w", host, err)}
		}
	}
	return nil
}

// control is a net.Dialer's Control: it sees the address about to be
// connected to, resolved, and refuses an inside one.
func (g Guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook connection to %s: %w", address, err)
	}
	if err := g.checkIP(ap.Addr(), ap.Port()); err != nil {
		return fmt.Errorf("webhook connection refused: %w", err)
	}
	return nil
}
