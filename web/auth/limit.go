package auth

import (
	"net"
	"sync"
	"time"
)

// limiter counts failed sign-ins per key (an address, a user name) in a
// sliding window and refuses a key that reached max, until enough of its
// failures left the window. Keys without a failure in the window are
// forgotten, so memory follows the attackers' keys of the last window.
type limiter struct {
	max    int
	window time.Duration

	mu       sync.Mutex
	failures map[string][]time.Time
	swept    time.Time
}

func newLimiter(max int, window time.Duration) *limiter {
	return &limiter{max: max, window: window, failures: map[string][]time.Time{}}
}

// reserve counts an attempt of key as failed before it is made, and
// returns how many failures key had in the window before it; or, when key
// has reached max, returns how long it must wait and counts nothing.
// Counting first, in the same locked step as the check, keeps parallel
// attempts from all passing the check: an attempt that succeeds is taken
// back with undo.
func (l *limiter) reserve(key string, now time.Time) (before int, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	recent := l.recent(key, now)
	if len(recent) >= l.max {
		// Free again when all but max-1 of its failures left the window.
		return len(recent), recent[len(recent)-l.max].Add(l.window).Sub(now)
	}
	l.add(key, recent, now)
	return len(recent), 0
}

// count counts a failure of key even when it has reached max (an attempt
// let through a lock that failed), which keeps it refused longer.
func (l *limiter) count(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(key, l.recent(key, now), now)
}

// add appends a failure at now to key's recent ones, and forgets the keys
// without a failure in the window once a window.
func (l *limiter) add(key string, recent []time.Time, now time.Time) {
	l.failures[key] = append(recent, now)
	if now.Sub(l.swept) > l.window {
		for k := range l.failures {
			if len(l.recent(k, now)) == 0 {
				delete(l.failures, k)
			}
		}
		l.swept = now
	}
}

// undo takes back one attempt of key counted at at.
func (l *limiter) undo(key string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.failures[key]
	for i := len(f) - 1; i >= 0; i-- {
		if f[i].Equal(at) {
			l.failures[key] = append(f[:i], f[i+1:]...)
			return
		}
	}
}

// forget clears key's failures (a user who signed in).
func (l *limiter) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.failures, key)
}

// recent drops key's failures older than the window and returns the rest.
func (l *limiter) recent(key string, now time.Time) []time.Time {
	f := l.failures[key]
	i := 0
	for i < len(f) && now.Sub(f[i]) >= l.window {
		i++
	}
	f = f[i:]
	if len(f) == 0 {
		delete(l.failures, key)
		return nil
	}
	l.failures[key] = f
	return f
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
