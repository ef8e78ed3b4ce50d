package demo

import (
	"sync"
	"time"
)

// Day is how much of the simulator's world the demo's first start
// replays: the simulator is created this long before the start, and its
// world played from then to now (Replay).
const Day = 24 * time.Hour

// Clock is the demo's clock: the simulator's, and during the replay the
// refresher's, the checks service's and the webhook worker's. It starts
// Day before its creation and stands at each time the replay sets, never
// past its creation; released (Release), it follows the real clock, which
// is then past every time it stood at, so nothing sees time go back.
type Clock struct {
	real       func() time.Time
	start, end time.Time

	mu       sync.Mutex
	at       time.Time
	released bool
}

// NewClock returns a clock standing Day before real's now.
func NewClock(real func() time.Time) *Clock {
	now := real()
	return &Clock{real: real, start: now.Add(-Day), end: now, at: now.Add(-Day)}
}

// Now is the time the replay stands at, or the real time once released.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return c.real()
	}
	return c.at
}

// Start and End are the first and last times the replay may stand at:
// Day before the clock's creation, and its creation.
func (c *Clock) Start() time.Time { return c.start }
func (c *Clock) End() time.Time   { return c.end }

// set moves the clock to t, forward only and never past End.
func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.end) {
		t = c.end
	}
	if t.After(c.at) {
		c.at = t
	}
}

// Release hands the clock over to the real time.
func (c *Clock) Release() {
	c.mu.Lock()
	c.released = true
	c.mu.Unlock()
}
