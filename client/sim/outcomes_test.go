package sim

import (
	"slices"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestRecentHistoryFitsTheWorldAndThePanel: every record is on a
// subsample of the panelist's own country allocated to the supplier,
// within the days asked, a final status after an "In survey" one; and the
// three panelists from heldFrom each have three completes reversed.
func TestRecentHistoryFitsTheWorldAndThePanel(t *testing.T) {
	s := New(Options{Seed: 3, Subsamples: 240})
	panel := slices.Collect(s.Panel(3, 500))
	const days, heldFrom = 30, 7
	history := s.RecentHistory(3, panel, days, heldFrom)
	if len(history) < 500 {
		t.Fatalf("%d records for 500 panelists, want more", len(history))
	}
	countryOf := map[string]string{}
	for _, m := range panel {
		countryOf[m.PanelistID] = m.Country
	}
	live := map[int64]*subsample{} // or allocated once: a few entries are on closed ones
	for _, ss := range s.world.subs {
		if ss.allocated {
			live[ss.id] = ss
		}
	}
	created := s.world.created
	statuses := map[int64]int{}
	byPanelist := map[string][]domain.HistoryRecord{}
	for _, r := range history {
		ss := live[r.SubsampleID]
		switch {
		case ss == nil:
			t.Fatalf("%+v: not on a subsample allocated to the supplier", r)
		case ss.country.Code != countryOf[r.PanelistID]:
			t.Fatalf("%+v: on a subsample of %s, the panelist lives in %s", r, ss.country.Code, countryOf[r.PanelistID])
		case !r.RegisteredAt.Before(created) || r.RegisteredAt.Before(created.AddDate(0, 0, -days)):
			t.Fatalf("%+v: not in the %d days before %s", r, days, created)
		case r.EventID != ss.event.id:
			t.Fatalf("%+v: event %d, the subsample's is %d", r, r.EventID, ss.event.id)
		}
		statuses[r.StatusID]++
		byPanelist[r.PanelistID] = append(byPanelist[r.PanelistID], r)
	}
	for _, status := range []int64{2, 3, 82, 83, 92} {
		if statuses[status] == 0 {
			t.Errorf("no record of status %d: %v", status, statuses)
		}
	}
	if statuses[98]+statuses[99] <= 9 {
		t.Errorf("%d reversals, want more than the held panelists' 9", statuses[98]+statuses[99])
	}
	// Most completes were earned on subsamples with a price history, a
	// few on ones that closed before it began: unknown amounts.
	priced := map[int64]bool{}
	for _, p := range s.PriceHistory(3, days) {
		priced[p.SubsampleID] = true
	}
	completes, unpriced := 0, 0
	for _, r := range history {
		if r.StatusID == 3 {
			completes++
			if !priced[r.SubsampleID] {
				unpriced++
			}
		}
	}
	if unpriced == 0 || unpriced*10 > completes {
		t.Errorf("%d of %d completes have no price: want a few, under a tenth", unpriced, completes)
	}
	held := 0
	for _, records := range byPanelist {
		verdicts := 0
		for _, r := range records {
			if r.StatusID == 98 || r.StatusID == 99 {
				verdicts++
			}
		}
		if verdicts >= 3 {
			held++
		}
	}
	if held < 3 {
		t.Errorf("%d panelists held for quality, want at least the 3 from %d", held, heldFrom)
	}
}

// TestPriceHistoryEndsAtTheCurrentPrice: each live, priced subsample's
// history ends at the CPI live-details gives now, so the first refresh
// adds no point; some changed in the period.
func TestPriceHistoryEndsAtTheCurrentPrice(t *testing.T) {
	s := New(Options{Seed: 3, Subsamples: 240})
	points := s.PriceHistory(3, 30)
	last := map[int64]domain.PricePoint{}
	changed := 0
	for _, p := range points {
		if prev, ok := last[p.SubsampleID]; ok {
			changed++
			if !prev.From.Before(p.From) {
				t.Errorf("subsample %d: points not oldest first", p.SubsampleID)
			}
		}
		last[p.SubsampleID] = p
	}
	if changed == 0 {
		t.Error("no price changed in the period")
	}
	for _, ss := range s.world.subs {
		p, ok := last[ss.id]
		if ss.listedLive(0) && ss.cpi > 0 != ok {
			t.Errorf("subsample %d (live, CPI %v) has price history %v", ss.id, ss.cpi, ok)
		}
		if ok && (p.CPI != ss.cpi || p.Currency != ss.country.currency || !p.From.Before(s.world.created.Add(-time.Hour))) {
			t.Errorf("subsample %d ends at %+v, want %v %s", ss.id, p, ss.cpi, ss.country.currency)
		}
	}
}

// TestReturnsOfASend: a send returns "In survey" at its time and mostly
// a final status minutes later, on the subsample's event; the same send
// returns the same, and an unknown subsample nothing.
func TestReturnsOfASend(t *testing.T) {
	s := New(Options{Seed: 3, Subsamples: 60})
	ss := s.world.subs[0]
	at := testStart.Add(3 * time.Hour)
	finals := 0
	for i := range 50 {
		id := s.PanelistID(i)
		rs := s.Returns(3, id, ss.id, at)
		if !slices.Equal(rs, s.Returns(3, id, ss.id, at)) {
			t.Fatalf("%s: two draws of one send differ", id)
		}
		if rs[0].StatusID != domain.ReturnInSurvey || !rs[0].RegisteredAt.Equal(at) || rs[0].EventID != ss.event.id || rs[0].PanelistID != id {
			t.Fatalf("%s: first record %+v", id, rs[0])
		}
		if len(rs) == 2 {
			finals++
			if d := rs[1].RegisteredAt.Sub(at); d < 5*time.Minute || d >= 30*time.Minute || rs[1].StatusID == domain.ReturnInSurvey {
				t.Errorf("%s: final record %+v", id, rs[1])
			}
		}
	}
	if finals < 40 {
		t.Errorf("%d of 50 sends came back with a final status; want most", finals)
	}
	if rs := s.Returns(3, "P0000001", 1, at); rs != nil {
		t.Errorf("returns of an unknown subsample: %+v", rs)
	}
}
