package checks_test

import (
	"slices"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestCountsAddUp: "The overview reconciles every count it shows, and
// says in one line what makes two counts differ" (issue 28).
func TestCountsAddUp(t *testing.T) {
	report := func(id int64, status string, listed bool, state rules.State) checks.SubsampleReport {
		return checks.SubsampleReport{SubsampleRow: store.SubsampleRow{SubsampleID: id, Name: "S", Status: status, Live: listed},
			Verdict: rules.Verdict{State: state}}
	}
	tests := []struct {
		name                      string
		reports                   []checks.SubsampleReport
		open, listed              int
		openUnlisted, listedOther []int64
	}{
		{"nothing", nil, 0, 0, nil, nil},
		{"every Live one listed: the counts agree", []checks.SubsampleReport{
			report(1, domain.StatusLive, true, rules.Sendable), report(2, domain.StatusLiveForTesting, true, rules.Testing),
			report(3, domain.StatusComplete, false, rules.NotSendable)}, 2, 2, nil, nil},
		{"a Live subsample live-details does not list is open, not listed", []checks.SubsampleReport{
			report(1, domain.StatusLive, true, rules.Sendable), report(2, domain.StatusLive, false, rules.NotSendable)}, 2, 1, []int64{2}, nil},
		{"one live-details lists with another status is listed, not open", []checks.SubsampleReport{
			report(1, domain.StatusLive, true, rules.Sendable), report(4, domain.StatusPending, true, rules.NotSendable)}, 1, 2, nil, []int64{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := checks.CountsOf(tt.reports)
			byStatus, bySendability := 0, 0
			for _, n := range c.ByStatus {
				byStatus += n
			}
			for _, n := range c.BySendability {
				bySendability += n
			}
			if c.Total != len(tt.reports) || byStatus != c.Total || bySendability != c.Listed {
				t.Errorf("total %d, by status %d, by sendability %d, listed %d: they do not add up", c.Total, byStatus, bySendability, c.Listed)
			}
			if c.Open != tt.open || c.Listed != tt.listed || c.Open-len(c.OpenUnlisted)+len(c.ListedNotOpen) != c.Listed {
				t.Errorf("open %d, listed %d; want %d, %d, their difference explained by %v and %v", c.Open, c.Listed, tt.open, tt.listed, c.OpenUnlisted, c.ListedNotOpen)
			}
			ids := func(s []checks.CountedSubsample) (out []int64) {
				for _, x := range s {
					out = append(out, x.ID)
				}
				return out
			}
			if got := ids(c.OpenUnlisted); !slices.Equal(got, tt.openUnlisted) {
				t.Errorf("open but not listed: %v, want %v", got, tt.openUnlisted)
			}
			if got := ids(c.ListedNotOpen); !slices.Equal(got, tt.listedOther) {
				t.Errorf("listed with another status: %v, want %v", got, tt.listedOther)
			}
		})
	}
}
