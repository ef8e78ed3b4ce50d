package checks_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// reversedAt is a complete on subsample and its reversal (a 98) at at.
func reversedAt(id string, subsample int64, at time.Time) []domain.HistoryRecord {
	return []domain.HistoryRecord{
		{PanelistID: id, SubsampleID: subsample, EventID: 100 + subsample, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(-time.Hour)},
		{PanelistID: id, SubsampleID: subsample, EventID: 100 + subsample, StatusID: domain.ReturnErroneousComplete, RegisteredAt: at},
	}
}

// pageHolds are the panelists of ids whose checks hold them (the panelist
// page's reason: the quality hold's exclusion every check adds), by id,
// with its sentence.
func pageHolds(ctx context.Context, t *testing.T, s *checks.Service, ids []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range ids {
		surveys, err := s.PanelistSurveys(ctx, id)
		if err != nil {
			t.Fatalf("PanelistSurveys(%s): %v", id, err)
		}
		if len(surveys) == 0 {
			t.Fatalf("PanelistSurveys(%s): no live subsample to check against", id)
		}
		for _, e := range surveys[0].Eligibility.Exclusions {
			if e.Kind == rules.KindQualityHold {
				out[id] = e.Reason
			}
		}
	}
	return out
}

// TestHeldListIsThePanelistPages: the held list holds exactly the
// panelists whose checks hold them, each with the very sentence of their
// checks, on a panel of panelists held for quality, by hand (for good,
// until a time to come, and both), released (and held again by reversals
// after the release), and whose hold by hand ran out; each with the
// kind, the reversals counted, since and until when.
func TestHeldListIsThePanelistPages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st)
		now0 := checkstest.ReadAt.Add(time.Minute)
		now := now0
		s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}

		mine := []string{"Q-early", "H-good", "H-until", "H-expires", "H-and-quality", "R-released", "R-back"}
		var panel []domain.PanelMember
		for _, id := range mine {
			panel = append(panel, domain.PanelMember{PanelistID: id, Country: "US", Locale: "en-us"})
		}
		if _, err := st.ImportPanel(ctx, slices.Values(panel)); err != nil {
			t.Fatal(err)
		}
		threeReversals := func(id string) []domain.HistoryRecord {
			return slices.Concat(reversedAt(id, 41, now0.AddDate(0, 0, -20)), reversedAt(id, 42, now0.AddDate(0, 0, -10)), reversedAt(id, 43, now0.AddDate(0, 0, -2)))
		}
		// Q-early's reversals all lie in the window's first days: the list
		// must find them though none is recent.
		early := slices.Concat(reversedAt("Q-early", 45, now0.AddDate(0, 0, -89)), reversedAt("Q-early", 46, now0.AddDate(0, 0, -88)),
			reversedAt("Q-early", 47, now0.AddDate(0, 0, -87)), reversedAt("Q-early", 48, now0.AddDate(0, 0, -86)))
		history := slices.Concat(early, threeReversals("H-and-quality"), threeReversals("R-released"), threeReversals("R-back"),
			reversedAt("H-good", 44, now0.AddDate(0, 0, -3)))
		if _, err := st.ImportHistory(ctx, history); err != nil {
			t.Fatal(err)
		}
		until := now0.Add(2 * time.Hour)
		expires := now0.Add(30 * time.Minute)
		for _, h := range []struct {
			id    string
			until *time.Time
		}{{"H-good", nil}, {"H-until", &until}, {"H-expires", &expires}, {"H-and-quality", nil}} {
			if err := s.HoldPanelist(ctx, h.id, h.until, "maria", "complaints from the client"); err != nil {
				t.Fatalf("HoldPanelist(%s): %v", h.id, err)
			}
		}
		for _, id := range []string{"R-released", "R-back"} {
			if err := s.ReleasePanelist(ctx, id, "maria", "the client withdrew the reversals"); err != nil {
				t.Fatalf("ReleasePanelist(%s): %v", id, err)
			}
		}

		everyone := append([]string{"P-held", "P-held-once-older", "P-two-reversed", "P-open", "P-full"}, mine...)
		check := func(t *testing.T, wantHeld map[string]string) []checks.HeldPanelist {
			t.Helper()
			list, err := s.HeldPanelists(ctx)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]string{}
			for _, h := range list {
				listed[h.PanelistID] = h.Reason
			}
			pages := pageHolds(ctx, t, s, everyone)
			if !maps.Equal(listed, pages) {
				t.Errorf("the held list\n%v\nis not the panelist pages'\n%v", listed, pages)
			}
			for id, kind := range wantHeld {
				i := slices.IndexFunc(list, func(h checks.HeldPanelist) bool { return h.PanelistID == id })
				if i < 0 || list[i].Kind != kind {
					t.Errorf("%s: want held, %s; the list says %+v", id, kind, list)
				}
			}
			if len(list) != len(wantHeld) {
				t.Errorf("held %d panelists, want %d: %v", len(list), len(wantHeld), slices.Collect(maps.Keys(listed)))
			}
			for _, h := range list {
				holds, err := s.HoldsOf(ctx, h.PanelistID)
				if err != nil || holds.Held == nil || holds.Held.Reason != h.Reason || holds.Held.Kind != h.Kind {
					t.Errorf("HoldsOf(%s) = %+v, %v; want the list's %q", h.PanelistID, holds.Held, err, h.Reason)
				}
			}
			return list
		}
		byID := func(list []checks.HeldPanelist, id string) checks.HeldPanelist {
			i := slices.IndexFunc(list, func(h checks.HeldPanelist) bool { return h.PanelistID == id })
			if i < 0 {
				t.Fatalf("%s not in the list", id)
			}
			return list[i]
		}

		t.Run("at first", func(t *testing.T) {
			list := check(t, map[string]string{"P-held": checks.HeldForQuality, "Q-early": checks.HeldForQuality, "H-good": checks.HeldByHand, "H-until": checks.HeldByHand,
				"H-expires": checks.HeldByHand, "H-and-quality": checks.HeldByHand})
			q := byID(list, "P-held")
			if q.Reversals != 3 || q.Country != "US" || q.Until == nil || !q.Until.Equal(now0) || !q.Since.Equal(checkstest.ReadAt.AddDate(0, 0, -1)) {
				t.Errorf("P-held: %d reversals, since %s, until %v; want 3, since its third reversal, until its oldest leaves the window (%s)", q.Reversals, q.Since, q.Until, now0)
			}
			// Four reversals, three hold: the hold lasts until the second
			// oldest leaves the window, and began with the third.
			if e := byID(list, "Q-early"); e.Reversals != 4 || e.Until == nil || !e.Until.Equal(now0.AddDate(0, 0, -88).AddDate(0, 0, 90)) || !e.Since.Equal(now0.AddDate(0, 0, -87)) {
				t.Errorf("Q-early: %d reversals, since %s, until %v; want 4, since the third, until the second leaves the window", e.Reversals, e.Since, e.Until)
			}
			h := byID(list, "H-until")
			if h.Until == nil || !h.Until.Equal(until) || h.By != "maria" || h.Why != "complaints from the client" || !h.Since.Equal(now0) || len(h.Changes) != 1 {
				t.Errorf("H-until: %+v", h)
			}
			if g := byID(list, "H-good"); g.Until != nil || g.Reversals != 1 {
				t.Errorf("H-good: until %v, %d reversals; want until released, 1", g.Until, g.Reversals)
			}
		})
		t.Run("a nanosecond after P-held's oldest reversal leaves the window", func(t *testing.T) {
			now = now0.Add(time.Nanosecond)
			check(t, map[string]string{"Q-early": checks.HeldForQuality, "H-good": checks.HeldByHand, "H-until": checks.HeldByHand, "H-expires": checks.HeldByHand, "H-and-quality": checks.HeldByHand})
		})
		t.Run("reversals after a release hold again; a hold by hand runs out", func(t *testing.T) {
			now = now0.Add(40 * time.Minute)
			if _, err := st.ImportHistory(ctx, slices.Concat(reversedAt("R-back", 51, now0.Add(10*time.Minute)),
				reversedAt("R-back", 52, now0.Add(11*time.Minute)), reversedAt("R-back", 53, now0.Add(12*time.Minute)))); err != nil {
				t.Fatal(err)
			}
			list := check(t, map[string]string{"Q-early": checks.HeldForQuality, "H-good": checks.HeldByHand, "H-until": checks.HeldByHand, "H-and-quality": checks.HeldByHand, "R-back": checks.HeldForQuality})
			if r := byID(list, "R-back"); r.Reversals != 3 || len(r.Changes) != 1 || r.Changes[0].Action != domain.ReleaseByHand {
				t.Errorf("R-back: %d reversals (want the 3 after the release), changes %+v", r.Reversals, r.Changes)
			}
		})
		t.Run("a release by hand lifts a hold by hand and the quality hold beneath", func(t *testing.T) {
			if err := s.ReleasePanelist(ctx, "H-and-quality", "maria", "checked"); err != nil {
				t.Fatal(err)
			}
			check(t, map[string]string{"Q-early": checks.HeldForQuality, "H-good": checks.HeldByHand, "H-until": checks.HeldByHand, "R-back": checks.HeldForQuality})
		})
	})
}
