package checks

import (
	"context"
	"strconv"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// Our caps (rules.OurRules.Caps) count the sends into a subsample, its
// entrants or its completes in the hour or the day, and each panelist's
// sends in the day: UTC hours and days, alike on every instance and
// command whatever the time zone its pages show. A send is counted in the
// decision that makes it: it uses a place its instance took under the cap
// from the database (store.TakeCapPlaces: counted and taken in one
// serialized transaction, so two instances never both take the last
// place). An instance takes places a few at a time (capBlock: one for a
// cap below 200, at most 256), keeps those not yet used for its next sends
// in the window, and takes a place back into that stock when the
// decision sends nobody: a place it holds when the window ends is lost,
// so a cap may be reached with a few sends fewer than it allows, never
// more. The entrants and the completes are the returns recorded against
// the subsample's sends in the window (every return, and those with a
// complete): they are what came back, not what a decision takes, so a cap
// on them is read, not taken, and may be passed by the sends in flight
// when it is reached. A cap that cannot be counted refuses: when in
// doubt, do not send.

// capBlock is how many places an instance takes at once under a cap of
// limit: a hundredth of it, at least one and at most 256, so that a busy
// router writes once per block of sends, not once per send, a small cap
// is shared between instances send by send, and an instance never holds
// more than a hundredth of a cap unused.
func capBlock(limit int) int { return max(1, min(256, limit/100)) }

// capStock is an instance's places taken under the caps and not yet used,
// by rule and window, and the windows whose caps the database said are
// reached (which stay so: a place is never given back to the database).
// One decision at a time takes places from the database (refill), so a
// burst of decisions in a fresh window takes one block, not one each.
type capStock struct {
	refill  sync.Mutex
	mu      sync.Mutex
	places  map[capWindow]int
	reached map[capWindow]bool
}

// capWindow is one cap rule's window.
type capWindow struct {
	ruleID int64
	window string
}

// maxCapWindows bounds the windows a stock keeps: past it, the stock is
// emptied (its places are lost, which refuses, never sends: the windows
// of past hours hold the most of them).
const maxCapWindows = 4096

// has reports whether the stock holds a place under w: the cap has room.
func (c *capStock) has(w capWindow) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.places[w] > 0
}

// take takes one place under w: from the stock, else a block from the
// database (fill, which says how many it took), one decision at a time.
// It reports false when the cap is reached.
func (c *capStock) take(w capWindow, fill func() (int, error)) (bool, error) {
	if c.use(w) {
		return true, nil
	}
	c.refill.Lock()
	defer c.refill.Unlock()
	if c.use(w) { // filled while this decision waited
		return true, nil
	}
	c.mu.Lock()
	reached := c.reached[w]
	c.mu.Unlock()
	if reached {
		return false, nil
	}
	got, err := fill()
	if err != nil || got == 0 {
		if err == nil {
			c.mu.Lock()
			if c.reached == nil || len(c.reached) >= maxCapWindows {
				c.reached = map[capWindow]bool{}
			}
			c.reached[w] = true
			c.mu.Unlock()
		}
		return false, err
	}
	c.put(w, got-1)
	return true, nil
}

// use takes one place of the stock under w, and reports whether there was
// one.
func (c *capStock) use(w capWindow) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.places[w] == 0 {
		return false
	}
	c.places[w]--
	return true
}

// put adds n places under w to the stock.
func (c *capStock) put(w capWindow, n int) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.places == nil || len(c.places) >= maxCapWindows {
		c.places = map[capWindow]int{}
	}
	c.places[w] += n
}

// capTaker takes or reads the places of our caps for one decision, and
// gives back those taken for a send that was not made.
type capTaker struct {
	s     *Service
	ctx   context.Context
	ours  *rules.OurRules
	now   time.Time
	taken []capWindow
}

// panelist takes (take) or reads a place under each of our caps per
// panelist for panelistID; "" when every cap has room, else the sentence
// of the first that has none.
func (c *capTaker) panelist(panelistID string, take bool) string {
	for _, r := range c.ours.PanelistCaps() {
		if why := c.one(r, panelistID, 0, take); why != "" {
			return why
		}
	}
	return ""
}

// subsample takes (take) or reads a place under each of our caps on the
// subsample; "" when every cap has room, else the sentence of the first
// that has none (the places this call took under the others given back).
func (c *capTaker) subsample(subsampleID int64, take bool) string {
	caps := c.ours.Caps(subsampleID)
	if len(caps) == 0 {
		return ""
	}
	mark := len(c.taken)
	for _, r := range caps {
		if why := c.one(r, "", subsampleID, take); why != "" {
			c.giveBackFrom(mark)
			return why
		}
	}
	return ""
}

// one takes or reads a place under the cap r.
func (c *capTaker) one(r domain.PolicyRule, panelistID string, subsampleID int64, take bool) string {
	window, since := rules.CapWindow(r, panelistID, c.now, time.UTC)
	limit := int(r.Amount)
	var n int
	var err error
	switch {
	case r.Unit == "entrants" || r.Unit == "completes":
		n, err = c.s.Store.ReturnsSince(c.ctx, subsampleID, since, r.Unit == "completes")
	case take:
		w := capWindow{ruleID: r.ID, window: window}
		var ok bool
		ok, err = c.s.caps.take(w, func() (int, error) {
			return c.s.Store.TakeCapPlaces(c.ctx, r.ID, window, limit, capBlock(limit))
		})
		if ok {
			c.taken = append(c.taken, w)
			return ""
		}
		n = limit
	case c.s.caps.has(capWindow{ruleID: r.ID, window: window}):
		return "" // a place this instance holds: room, without a read
	default:
		n, err = c.s.Store.CapTaken(c.ctx, r.ID, window)
	}
	if err != nil {
		return "Our cap on " + capSubject(r) + " could not be counted (" + err.Error() + "), so no send is made under it now."
	}
	if n >= limit {
		return rules.CapReached(r, n, c.now)
	}
	return ""
}

// capSubject names what a cap counts on.
func capSubject(r domain.PolicyRule) string {
	if r.Scope == "panelist" {
		return "each panelist's sends"
	}
	return "subsample " + r.Target + "'s " + r.Unit + " (rule " + strconv.FormatInt(r.ID, 10) + ")"
}

// giveBackFrom puts the places taken from the mark-th on back in the
// instance's stock, for its next send in the window.
func (c *capTaker) giveBackFrom(mark int) {
	for _, w := range c.taken[mark:] {
		c.s.caps.put(w, 1)
	}
	c.taken = c.taken[:mark]
}

// giveBack gives back every place taken.
func (c *capTaker) giveBack() { c.giveBackFrom(0) }
