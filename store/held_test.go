package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestHoldCandidates: the one statement finds the panelists with a
// verdict (98, 99) registered at or after the window's start, and those
// named (held by hand), each with their country and every complete and
// verdict of theirs (those before the window too, the completes the
// verdicts reverse), newest first; not a panelist whose only verdict is
// older, nor one with completes and no verdict.
func TestHoldCandidates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importPanel(t, s, panelCSV("A,FR,fr-fr", "B,DE,", "C,US,en-us", "H,US,en-us"))
		rec := func(id string, subsample, status int64, at time.Time) domain.HistoryRecord {
			return domain.HistoryRecord{PanelistID: id, SubsampleID: subsample, StatusID: status, RegisteredAt: at, EventID: 10 + subsample}
		}
		since := day(10)
		importRecords(t, s, []domain.HistoryRecord{
			rec("A", 1, domain.ReturnComplete, day(2)), // before the window, reversed in it
			rec("A", 1, domain.ReturnErroneousComplete, since),
			rec("A", 2, domain.ReturnScreenOut, day(12)), // not asked for
			rec("A", 3, domain.ReturnComplete, day(11)),
			rec("B", 1, domain.ReturnComplete, day(1)),
			rec("B", 1, domain.ReturnPotentiallyUnengaged, since.Add(-time.Millisecond)), // just before the window
			rec("C", 4, domain.ReturnComplete, day(15)),                                  // a complete, no verdict
			rec("N", 5, domain.ReturnComplete, day(11)),                                  // not on the panel
			rec("N", 5, domain.ReturnPotentiallyUnengaged, day(12)),
		})
		statuses := []int64{domain.ReturnComplete, domain.ReturnErroneousComplete, domain.ReturnPotentiallyUnengaged}
		verdicts := []int64{domain.ReturnErroneousComplete, domain.ReturnPotentiallyUnengaged}
		got, err := s.HoldCandidates(ctx, verdicts, statuses, since, []string{"H", "C"})
		if err != nil {
			t.Fatal(err)
		}
		want := []store.HoldCandidate{
			{PanelistID: "A", Country: "FR", Records: []domain.HistoryRecord{
				rec("A", 3, domain.ReturnComplete, day(11)), rec("A", 1, domain.ReturnErroneousComplete, since), rec("A", 1, domain.ReturnComplete, day(2))}},
			{PanelistID: "C", Country: "US", Records: []domain.HistoryRecord{rec("C", 4, domain.ReturnComplete, day(15))}},
			{PanelistID: "H", Country: "US"},
			{PanelistID: "N", Records: []domain.HistoryRecord{rec("N", 5, domain.ReturnPotentiallyUnengaged, day(12)), rec("N", 5, domain.ReturnComplete, day(11))}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("HoldCandidates =\n%+v\nwant\n%+v", got, want)
		}
		// The quality hold off (no verdicts): only the panelists named.
		if got, err := s.HoldCandidates(ctx, nil, statuses, since, []string{"H"}); err != nil || len(got) != 1 || got[0].PanelistID != "H" {
			t.Errorf("HoldCandidates without verdicts = %+v, %v; want H alone", got, err)
		}
		if got, err := s.HoldCandidates(ctx, verdicts, statuses, day(20), nil); err != nil || len(got) != 0 {
			t.Errorf("HoldCandidates after every verdict, none named = %+v, %v; want none", got, err)
		}
	})
}
