package auth

import (
	"net"
	"time"
)

// limitWait is how long a key (a user name, an address) allowed max
// failures in failureWindow must wait before its next attempt, given its
// failures recent in the window, oldest first: 0 below max, else until
// all but max-1 of them left the window. The failures are kept in the
// database (store.ReserveSignIn), so that every instance on it counts the
// same ones: a lock triggered through one instance holds on all.
func limitWait(recent []time.Time, max int, now time.Time) time.Duration {
	if len(recent) < max {
		return 0
	}
	return recent[len(recent)-max].Add(failureWindow).Sub(now)
}

// AddressKey is what a limit per address counts (sign-in here, the
// invitation links in web): the IPv4 address, or
// the /64 of an IPv6 one. A subscriber is given a whole /64, whose every
// address would otherwise be a fresh one, without failures.
func AddressKey(address string) string {
	ip := net.ParseIP(address)
	if ip == nil || ip.To4() != nil {
		return address
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}
