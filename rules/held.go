package rules

import (
	"cmp"
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// Holds are the hands' words on panelists (holds, in force or run out,
// and releases), by panelist id.
func (o *OurRules) Holds() []domain.PanelistHold {
	if o == nil {
		return nil
	}
	out := make([]domain.PanelistHold, 0, len(o.holds))
	for _, h := range o.holds {
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b domain.PanelistHold) int { return cmp.Compare(a.PanelistID, b.PanelistID) })
	return out
}

// QualitySpan is what a quality hold stands on at a moment: the reversed
// completes it counts, oldest reversal first, and the span of the hold
// when they are enough to hold.
type QualitySpan struct {
	Counted []CompleteRecord
	// Since is when the reversal that brought those counted to the
	// policy's number was registered (the Reversals-th oldest counted): the
	// hold may be older, on reversals that have since left the window.
	Since time.Time
	// Until is the last instant the hold lasts if no reversal comes: the
	// reversals leave the window oldest first, each Days after it was
	// registered, and the count falls below the policy's number once the
	// one at Until has left (the window's first instant is included).
	Until time.Time
}

// QualityHoldSpan is the span of the quality hold of this history under
// q at now, counting the reversals registered after released (when not
// nil), as HeldWhy counts them; Since and Until are zero when they are
// fewer than q.Reversals. It says nothing of whether the panelist is
// held: HeldWhy decides that.
func QualityHoldSpan(history []domain.HistoryRecord, q QualityHoldPolicy, released *time.Time, now time.Time) QualitySpan {
	if q.Off() {
		return QualitySpan{}
	}
	_, cutoff := windowStart(int64(q.Days), now)
	if released != nil && !released.Before(cutoff) {
		cutoff = released.Add(time.Nanosecond)
	}
	var counted []CompleteRecord
	for _, c := range CompletesOf(history) {
		if c.Reversed() && !c.At.IsZero() && !c.ReversedAt.Before(cutoff) && !c.ReversedAt.After(now) {
			counted = append(counted, c)
		}
	}
	slices.SortStableFunc(counted, func(a, b CompleteRecord) int { return a.ReversedAt.Compare(b.ReversedAt) })
	if len(counted) < q.Reversals {
		return QualitySpan{Counted: counted}
	}
	days := time.Duration(q.Days) * 24 * time.Hour
	return QualitySpan{
		Counted: counted,
		Since:   counted[q.Reversals-1].ReversedAt,
		Until:   counted[len(counted)-q.Reversals].ReversedAt.Add(days),
	}
}
