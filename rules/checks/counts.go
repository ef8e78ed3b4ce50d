package checks

import (
	"context"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// Counts are the counts of the current snapshot the overview shows, all
// taken from one decided snapshot so that they add up:
//
//	sum(ByStatus) == Total
//	sum(BySendability) == Listed
//	Open - len(OpenUnlisted) + len(ListedNotOpen) == Listed
//
// Open and Listed are the two counts that look alike and may differ: the
// subsamples whose status is Live or Live for testing, and those the
// provider's live list (live-details) holds, which are the ones decided
// sendable or not (the live list's count).
type Counts struct {
	Total         int
	ByStatus      map[string]int // every subsample, by status
	Open          int            // status Live or Live for testing
	Listed        int            // in live-details
	BySendability map[rules.State]int
	// OpenUnlisted are the subsamples whose status is Live or Live for
	// testing that live-details does not list (the supplier's allocation
	// withdrawn, say): not on the live list, not sendable. ListedNotOpen
	// are those it lists with another status.
	OpenUnlisted, ListedNotOpen []CountedSubsample
}

// CountedSubsample is a subsample named where two counts differ.
type CountedSubsample struct {
	ID     int64
	Name   string
	Status string
	State  rules.State
}

// Counts returns the counts of the current snapshot (CountsOf).
func (s *Service) Counts(ctx context.Context) (Counts, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return Counts{}, err
	}
	return CountsOf(d.reports), nil
}

// CountsOf counts reports as Counts says.
func CountsOf(reports []SubsampleReport) Counts {
	c := Counts{ByStatus: map[string]int{}, BySendability: map[rules.State]int{}}
	for _, r := range reports {
		c.Total++
		c.ByStatus[r.Status]++
		open := r.Status == domain.StatusLive || r.Status == domain.StatusLiveForTesting
		counted := CountedSubsample{ID: r.SubsampleID, Name: r.Name, Status: r.Status, State: r.Verdict.State}
		if open {
			c.Open++
		}
		if r.Live {
			c.Listed++
			c.BySendability[r.Verdict.State]++
		}
		switch {
		case open && !r.Live:
			c.OpenUnlisted = append(c.OpenUnlisted, counted)
		case !open && r.Live:
			c.ListedNotOpen = append(c.ListedNotOpen, counted)
		}
	}
	return c
}
