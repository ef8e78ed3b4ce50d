package checks

import (
	"context"
	"fmt"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// The kinds of hold a panelist may be under (HeldPanelist.Kind).
const (
	HeldByHand     = "hand"
	HeldForQuality = "quality"
)

// HeldPanelist is a panelist held now, by hand or for quality, and why.
type HeldPanelist struct {
	PanelistID string
	Country    string // on the panel; "" when none is on file
	Kind       string // HeldByHand or HeldForQuality
	// Reason is the sentence every check of the panelist adds
	// (rules.OurRules.HeldWhy): the panelist page says the same.
	Reason string
	// Reversals are the reversed completes the quality hold counts now:
	// in its window, registered after the last release by hand. A
	// panelist held by hand may have some, fewer than hold them.
	Reversals int
	// Since is when the hold began: a hold by hand's time; for quality,
	// the reversal that brought those counted to the policy's number
	// (rules.QualitySpan).
	Since time.Time
	// Until is the hold's last instant if nothing changes: a hold by
	// hand's end (nil: until released); for quality, when enough counted
	// reversals have left the window, if no new one comes.
	Until *time.Time
	// By and Why are a hold by hand's: who set it, and why.
	By, Why string
	// Changes are the panelist's holds and releases by hand, newest
	// first.
	Changes []domain.PolicyChange
}

// PanelistHolds is what the hands and the quality hold say of one
// panelist now (HoldsOf).
type PanelistHolds struct {
	// Held is set when the panelist is held now.
	Held *HeldPanelist
	// Word is the latest hand's word on them (a hold, perhaps run out, or
	// a release), nil when none.
	Word *domain.PanelistHold
	// Changes are their holds and releases by hand, newest first.
	Changes []domain.PolicyChange
}

// HeldPanelists lists every panelist held now, in panelist id order: by
// hand (the current decisions' holds still running) or for quality,
// each decided by the one function every check asks
// (rules.OurRules.HeldWhy). The quality hold's candidates are only the
// panelists with a verdict registered in its window (a day before it, as
// the send list reads them), read with the panelists held by hand in one
// statement (store.HoldCandidates): the history is not read whole.
func (s *Service) HeldPanelists(ctx context.Context) ([]HeldPanelist, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the panelists held: %w", err)
	}
	now := s.now()
	var named []string
	for _, h := range d.ours.Holds() {
		if h.Kind == domain.HoldByHand {
			named = append(named, h.PanelistID)
		}
	}
	var verdicts []int64
	since := now
	if !s.QualityHold.Off() {
		verdicts = []int64{domain.ReturnErroneousComplete, domain.ReturnPotentiallyUnengaged}
		since = now.Add(-time.Duration(s.QualityHold.Days+1) * 24 * time.Hour)
	}
	candidates, err := s.Store.HoldCandidates(ctx, verdicts, rules.ReversalStatuses, since, named)
	if err != nil {
		return nil, fmt.Errorf("list the panelists held: %w", err)
	}
	changes, err := s.Store.HoldChanges(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the panelists held: %w", err)
	}
	changesOf := map[string][]domain.PolicyChange{}
	for _, c := range changes {
		changesOf[c.PanelistID] = append(changesOf[c.PanelistID], c)
	}
	out := []HeldPanelist{}
	for _, c := range candidates {
		if h := s.heldOf(d.ours, c.PanelistID, c.Records, now); h != nil {
			h.Country, h.Changes = c.Country, changesOf[c.PanelistID]
			out = append(out, *h)
		}
	}
	return out, nil
}

// HoldsOf says whether the panelist is held now and why, as their checks
// decide it (read as a check reads them, at one snapshot version), with
// the hands' word on them and its audit.
func (s *Service) HoldsOf(ctx context.Context, panelistID string) (PanelistHolds, error) {
	p, err := s.ReadPanelist(ctx, panelistID)
	if err != nil {
		return PanelistHolds{}, err
	}
	var out PanelistHolds
	if out.Held = s.heldOf(p.d.ours, panelistID, p.rows.History, s.now()); out.Held != nil {
		out.Held.Country = p.rows.Member.Country
	}
	if h, ok := p.d.ours.Hold(panelistID); ok {
		out.Word = &h
	}
	if out.Changes, err = s.Store.PanelistPolicyChanges(ctx, panelistID); err != nil {
		return PanelistHolds{}, err
	}
	if out.Held != nil {
		out.Held.Changes = out.Changes
	}
	return out, nil
}

// heldOf is the panelist of this history held now, nil when not: the
// reason and the kind are HeldWhy's and HeldByHand's, the span of a
// quality hold rules.QualityHoldSpan's.
func (s *Service) heldOf(ours *rules.OurRules, panelistID string, history []domain.HistoryRecord, now time.Time) *HeldPanelist {
	why := ours.HeldWhy(panelistID, history, s.QualityHold, now)
	if why == "" {
		return nil
	}
	span := rules.QualityHoldSpan(history, s.QualityHold, ours.Released(panelistID), now)
	h := &HeldPanelist{PanelistID: panelistID, Kind: HeldForQuality, Reason: why, Reversals: len(span.Counted)}
	if ours.HeldByHand(panelistID, now) != "" {
		word, _ := ours.Hold(panelistID)
		h.Kind, h.Since, h.Until, h.By, h.Why = HeldByHand, word.SetAt, word.Until, word.SetBy, word.Why
		return h
	}
	h.Since, h.Until = span.Since, &span.Until
	return h
}

// HoldPolicy is when the service holds a panelist for quality.
func (s *Service) HoldPolicy() rules.QualityHoldPolicy { return s.QualityHold }
