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

// wait returns how long key must wait before trying again; 0 when it may.
func (l *limiter) wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	recent := l.recent(key, now)
	if len(recent) < l.max {
		return 0
	}
	return recent[0].Add(l.window).Sub(now)
}

// fail records a failed attempt of key.
func (l *limiter) fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures[key] = append(l.recent(key, now), now)
	if now.Sub(l.swept) > l.window {
		for k := range l.failures {
			if len(l.recent(k, now)) == 0 {
				delete(l.failures, k)
			}
		}
		l.swept = now
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
