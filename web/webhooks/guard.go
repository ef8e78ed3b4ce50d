package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// Guard keeps deliveries off addresses inside the network Fieldboard runs
// in: loopback, private, link-local (the cloud metadata service at
// 169.254.169.254 among them), unspecified, multicast and shared (CGNAT)
// addresses are refused, when a subscription is made and again at each
// connection, after DNS resolution (so a name that later resolves inside
// is refused too). AllowPrivate lets them through (serve
// --allow-private-webhooks; the tests).
type Guard struct {
	AllowPrivate bool
}

// ErrInsideAddress is the refusal of an inside address.
var ErrInsideAddress = errors.New("an inside address (loopback, private, link-local, metadata, multicast or unspecified)")

var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// checkIP refuses an inside address unless they are allowed.
func (g Guard) checkIP(ip netip.Addr) error {
	ip = ip.Unmap()
	if g.AllowPrivate {
		return nil
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || sharedAddressSpace.Contains(ip) {
		return fmt.Errorf("%s is %w", ip, ErrInsideAddress)
	}
	return nil
}

// CheckURL says whether raw may be subscribed: an absolute http or https
// URL without credentials whose host resolves to outside addresses only.
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
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkIP(ip)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("%s does not resolve: %w", host, err)
	}
	for _, ip := range ips {
		if err := g.checkIP(ip); err != nil {
			return fmt.Errorf("%s resolves to %w", host, err)
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
	if err := g.checkIP(ap.Addr()); err != nil {
		return fmt.Errorf("webhook connection refused: %w", err)
	}
	return nil
}
