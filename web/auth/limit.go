package auth

import (
	"sync"
	"time"
)

// limiter counts failed sign-ins per key (an address, a user name) in a
// sliding window and refuses a key that reached max, until its oldest
// failure leaves the window. Keys without a failure in the window are
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
// returns 0; or, when key has reached max, returns how long it must wait
// and counts nothing. Counting first, in the same locked step as the
// check, keeps parallel attempts from all passing the check: an attempt
// that succeeds is taken back with undo.
func (l *limiter) reserve(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	recent := l.recent(key, now)
	if len(recent) >= l.max {
		return recent[0].Add(l.window).Sub(now)
	}
	l.failures[key] = append(recent, now)
	if now.Sub(l.swept) > l.window {
		for k := range l.failures {
			if len(l.recent(k, now)) == 0 {
				delete(l.failures, k)
			}
		}
		l.swept = now
	}
	return 0
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
