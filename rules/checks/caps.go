package checks

import (
	"context"
	"strconv"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// Our caps (rules.OurRules.Caps) count the sends into a subsample, its
// entrants or its completes in the hour or the day, and each panelist's
// sends in the day: UTC hours and days, alike on every instance and
// command whatever the time zone its pages show. A send is counted in the
// decision that makes it, by one statement that counts it only below the
// cap (store.TakeCap): two instances never both take the last place. The
// entrants and the completes are the returns recorded against the
// subsample's sends in the window (every return, and those with a
// complete): they are what came back, not what a decision takes, so a cap
// on them is read, not taken, and may be passed by the sends in flight
// when it is reached. A cap that cannot be counted refuses: when in doubt,
// do not send.

// capTaker takes or reads the places of our caps for one decision, and
// gives back those taken for a send that was not made.
type capTaker struct {
	s     *Service
	ctx   context.Context
	ours  *rules.OurRules
	now   time.Time
	taken []takenPlace
}

// takenPlace is one place taken under a cap.
type takenPlace struct {
	ruleID int64
	window string
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
		var ok bool
		if ok, err = c.s.Store.TakeCap(c.ctx, r.ID, window, limit); err == nil {
			if ok {
				c.taken = append(c.taken, takenPlace{ruleID: r.ID, window: window})
				return ""
			}
			n = limit
		}
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

// giveBackFrom gives back the places taken from the mark-th on.
func (c *capTaker) giveBackFrom(mark int) {
	for _, t := range c.taken[mark:] {
		// Given back on a context of its own: a request gone must not
		// keep a place no send used.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 5*time.Second)
		_ = c.s.Store.GiveBackCap(ctx, t.ruleID, t.window) // lost: the cap counts one send too many, which refuses, never sends
		cancel()
	}
	c.taken = c.taken[:mark]
}

// giveBack gives back every place taken.
func (c *capTaker) giveBack() { c.giveBackFrom(0) }
