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
// cap below 200, at most 1,024), keeps those not yet used for its next sends
// in the window (at most a block and a quarter), and takes a place back
// into that stock when the decision sends nobody: a place it holds when
// the window ends is lost, so a cap may be reached with a few sends fewer
// than it allows, never more. The entrants and the completes are the returns recorded against
// the subsample's sends in the window (every return, and those with a
// complete): they are what came back, not what a decision takes, so a cap
// on them is read, not taken, and may be passed by the sends in flight
// when it is reached. A cap that cannot be counted refuses: when in
// doubt, do not send.

// capBlock is how many places an instance takes at once under a cap of
// limit: a hundredth of it, at least one and at most 1,024, so that a busy
// router writes once per block of sends, not once per send, a small cap
// is shared between instances send by send, and an instance never holds
// more than a hundredth of a cap unused.
func capBlock(limit int) int { return max(1, min(1024, limit/100)) }

// capStock is an instance's places taken under the caps and not yet used,
// by rule and window, and the windows whose caps the database said are
// reached (which stay so: a place is never given back to the database).
// One fill at a time takes places from the database for a window, so a
// burst of decisions in a fresh window takes one block, not one each; and
// the stock is filled again in the background when it runs low, so a busy
// window's decisions rarely wait for the database.
type capStock struct {
	mu      sync.Mutex
	places  map[capWindow]int
	reached map[capWindow]bool
	filling map[capWindow]chan struct{} // a fill in flight, closed when done
	// roomAt is when a read last found room under a window's cap: a check
	// that sends nobody trusts it for capRoomFor, rather than reading
	// again on every answer (the router's later routes, the panelist
	// page). A fill of this instance forgets it.
	roomAt map[capWindow]time.Time
}

// capRoomFor is how long a read that found room under a cap is trusted by
// the checks that send nobody; a send never trusts it (it takes a place).
const capRoomFor = time.Second

// sawRoom notes that a read found room under w at now.
func (c *capStock) sawRoom(w capWindow, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	c.roomAt[w] = now
}

// roomSeen reports whether the instance knows w's cap has room without a
// read: it holds places under it, or a read found room less than
// capRoomFor ago and no fill of its own came since; and whether it knows
// the cap is reached.
func (c *capStock) roomSeen(w capWindow, now time.Time) (room, reached bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reached[w] {
		return false, true
	}
	at, ok := c.roomAt[w]
	return c.places[w] > 0 || ok && now.Sub(at) < capRoomFor && !now.Before(at), false
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

// capFillTimeout bounds a fill in the background.
const capFillTimeout = 5 * time.Second

// take takes one place under w, a cap whose blocks are block places: from
// the stock, else from the database (fill, which takes up to a block and
// says how many it took), waiting for a fill in flight rather than making
// another. It reports false when the cap is reached.
func (c *capStock) take(ctx context.Context, w capWindow, block int, fill func(ctx context.Context) (int, error)) (bool, error) {
	for {
		c.mu.Lock()
		c.init()
		if c.places[w] > 0 {
			c.places[w]--
			if c.places[w] < max(1, block/4) && c.filling[w] == nil && !c.reached[w] && block > 1 {
				// Low: filled again in the background, for the next ones.
				done := make(chan struct{})
				c.filling[w] = done
				go func() {
					ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), capFillTimeout)
					defer cancel()
					got, err := fill(ctx)
					c.filled(w, done, got, err, 0) // an error: the next decision fills
				}()
			}
			c.mu.Unlock()
			return true, nil
		}
		if c.reached[w] {
			c.mu.Unlock()
			return false, nil
		}
		if done := c.filling[w]; done != nil {
			c.mu.Unlock()
			<-done
			continue
		}
		done := make(chan struct{})
		c.filling[w] = done
		c.mu.Unlock()
		got, err := fill(ctx)
		c.filled(w, done, got, err, 1) // this decision keeps one
		if err != nil || got == 0 {
			return false, err
		}
		return true, nil
	}
}

// filled ends the fill done of w, which took got places (err: none), of
// which the decision that made it keeps keep.
func (c *capStock) filled(w capWindow, done chan struct{}, got int, err error, keep int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(done)
	c.init()
	delete(c.filling, w)
	delete(c.roomAt, w)
	switch {
	case err != nil:
	case got == 0:
		c.reached[w] = true
	default:
		c.places[w] += got - min(keep, got)
	}
}

// init makes the maps, or empties them past maxCapWindows; c.mu is held.
// A fill in flight is kept: its decision waits on it.
func (c *capStock) init() {
	if c.places == nil || len(c.places) >= maxCapWindows || len(c.reached) >= maxCapWindows || len(c.roomAt) >= maxCapWindows {
		c.places, c.reached, c.roomAt = map[capWindow]int{}, map[capWindow]bool{}, map[capWindow]time.Time{}
	}
	if c.filling == nil {
		c.filling = map[capWindow]chan struct{}{}
	}
}

// put adds n places under w to the stock.
func (c *capStock) put(w capWindow, n int) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
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
		block := capBlock(limit)
		ok, err = c.s.caps.take(c.ctx, w, block, func(ctx context.Context) (int, error) {
			return c.s.Store.TakeCapPlaces(ctx, r.ID, window, limit, block)
		})
		if ok {
			c.taken = append(c.taken, w)
			return ""
		}
		n = limit
	default:
		w := capWindow{ruleID: r.ID, window: window}
		switch room, reached := c.s.caps.roomSeen(w, time.Now()); {
		case room:
			return "" // room, without a read
		case reached:
			n = limit
		default:
			n, err = c.s.Store.CapTaken(c.ctx, r.ID, window)
			if err == nil && n < limit {
				c.s.caps.sawRoom(w, time.Now())
			}
		}
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

// CapState is one of our caps on a subsample, with what it counts now:
// the places taken in its window (sends), or the returns recorded in it
// (entrants, completes); Reached is CapReached's sentence once the count
// is at the cap, "" before.
type CapState struct {
	Rule    domain.PolicyRule
	Counted int
	Reached string
}

// CapsOn reads each of our caps on the subsample in its window now,
// taking nothing: what the subsample's page shows. A send's count is the
// places the instances took, some perhaps not used yet (capStock).
func (s *Service) CapsOn(ctx context.Context, subsampleID int64) ([]CapState, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var out []CapState
	for _, r := range d.ours.Caps(subsampleID) {
		window, since := rules.CapWindow(r, "", now, time.UTC)
		var n int
		if r.Unit == "entrants" || r.Unit == "completes" {
			n, err = s.Store.ReturnsSince(ctx, subsampleID, since, r.Unit == "completes")
		} else {
			n, err = s.Store.CapTaken(ctx, r.ID, window)
		}
		if err != nil {
			return nil, err
		}
		st := CapState{Rule: r, Counted: n}
		if n >= int(r.Amount) {
			st.Reached = rules.CapReached(r, n, now)
		}
		out = append(out, st)
	}
	return out, nil
}
