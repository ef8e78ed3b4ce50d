package rules_test

import (
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

func TestQualityHoldSpan(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	q := rules.QualityHoldPolicy{Reversals: 2, Days: 10}
	day := func(d int) time.Time { return now.AddDate(0, 0, -d) }
	reversed := func(subsample int64, at time.Time) []domain.HistoryRecord {
		return []domain.HistoryRecord{
			{PanelistID: "P", SubsampleID: subsample, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(-time.Hour)},
			{PanelistID: "P", SubsampleID: subsample, StatusID: domain.ReturnErroneousComplete, RegisteredAt: at},
		}
	}
	join := func(parts ...[]domain.HistoryRecord) (out []domain.HistoryRecord) {
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	released := day(5)
	for _, tc := range []struct {
		name         string
		history      []domain.HistoryRecord
		released     *time.Time
		counted      int
		since, until time.Time
	}{
		{"one reversal is counted, too few to hold: no span", reversed(1, day(3)), nil, 1, time.Time{}, time.Time{}},
		{"two hold since the second, until the first leaves the window", join(reversed(1, day(8)), reversed(2, day(3))), nil, 2, day(3), day(8).AddDate(0, 0, 10)},
		{"three hold since the second, until the second leaves the window", join(reversed(1, day(8)), reversed(2, day(6)), reversed(3, day(3))), nil, 3, day(6), day(6).AddDate(0, 0, 10)},
		{"a reversal on the window's first instant is counted", join(reversed(1, day(10)), reversed(2, day(3))), nil, 2, day(3), now},
		{"a reversal before the window is not", join(reversed(1, day(10).Add(-time.Second)), reversed(2, day(3))), nil, 1, time.Time{}, time.Time{}},
		{"a release counts only the reversals after it", join(reversed(1, day(8)), reversed(2, day(6)), reversed(3, day(3))), &released, 1, time.Time{}, time.Time{}},
		{"a reversal at the release's instant is before it", join(reversed(1, released), reversed(2, day(3))), &released, 1, time.Time{}, time.Time{}},
		{"a reversal still to come is not counted", join(reversed(1, day(3)), reversed(2, now.Add(time.Second))), nil, 1, time.Time{}, time.Time{}},
		{"a verdict with no complete reverses nothing", join(reversed(1, day(3)), []domain.HistoryRecord{{PanelistID: "P", SubsampleID: 9, StatusID: domain.ReturnPotentiallyUnengaged, RegisteredAt: day(2)}}), nil, 1, time.Time{}, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			span := rules.QualityHoldSpan(tc.history, q, tc.released, now)
			if len(span.Counted) != tc.counted || !span.Since.Equal(tc.since) || !span.Until.Equal(tc.until) {
				t.Errorf("span = %d counted, since %s, until %s; want %d, %s, %s", len(span.Counted), span.Since, span.Until, tc.counted, tc.since, tc.until)
			}
			// The span holds exactly when HeldWhy's quality hold does.
			held := (*rules.OurRules)(nil).HeldWhy("P", tc.history, q, now) != ""
			if tc.released != nil {
				held = rules.CompilePolicy(domain.Policy{Holds: map[string]domain.PanelistHold{"P": {PanelistID: "P", Kind: domain.ReleaseByHand, SetAt: *tc.released}}}).HeldWhy("P", tc.history, q, now) != ""
			}
			if held != !span.Until.IsZero() {
				t.Errorf("HeldWhy holds: %v; the span: until %s", held, span.Until)
			}
		})
	}
}
