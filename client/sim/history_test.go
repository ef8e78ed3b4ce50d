package sim

import (
	"testing"
	"time"

	"fieldboard/rules/domain"
)

func TestHistoryFitsTheWorld(t *testing.T) {
	s := New(Options{Seed: 2, Subsamples: 60, Now: func() time.Time { return testStart }})
	collect := func() []domain.HistoryRecord {
		var out []domain.HistoryRecord
		for r := range s.History(9, 1000, 90) {
			out = append(out, r)
		}
		return out
	}
	records := collect()
	if len(records) != 1000 {
		t.Fatalf("got %d records, want exactly 1000", len(records))
	}
	panelists, statuses := map[string]int{}, map[int64]int{}
	last := ""
	for _, r := range records {
		if r.PanelistID < last {
			t.Fatalf("records not grouped by panelist: %s after %s", r.PanelistID, last)
		}
		last = r.PanelistID
		panelists[r.PanelistID]++
		statuses[r.StatusID]++
		sub, ok := s.world.byID[r.SubsampleID]
		if !ok || sub.event.id != r.EventID || sub.event.rtype.id != r.ResearchTypeID {
			t.Fatalf("record %+v does not match the world's subsample", r)
		}
		if domain.ReturnCodeName(r.StatusID) == "" {
			t.Fatalf("record has unknown status %d", r.StatusID)
		}
		if age := testStart.Sub(r.RegisteredAt); age < 0 || age > 2*366*24*time.Hour {
			t.Fatalf("record registered %v before the world's creation, want within two years", age)
		}
	}
	if len(panelists) != 90 {
		t.Errorf("records cover %d panelists, want 90", len(panelists))
	}
	for _, code := range []int64{domain.ReturnComplete, domain.ReturnScreenOut, domain.ReturnAbandon, domain.ReturnQuotaFull} {
		if statuses[code] == 0 {
			t.Errorf("no record with status %d in %v", code, statuses)
		}
	}
	again := collect()
	for i := range records {
		if records[i] != again[i] {
			t.Fatalf("record %d differs between two runs with the same seed", i)
		}
	}
}
