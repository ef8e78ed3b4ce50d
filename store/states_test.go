package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestChangeFeedIsWrittenWithItsSnapshot: each events snapshot hands its
// detector exactly the states the previous one stored, every field kept;
// what the detector finds is the feed, counted by kind for the last
// refresh, listed newest first, filtered, paged after an id, and pruned
// with the refresh log.
func TestChangeFeedIsWrittenWithItsSnapshot(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		var seen map[int64]store.SubsampleState
		save := func(at time.Time, states map[int64]store.SubsampleState) {
			t.Helper()
			snap := snapshotAt(at, 40)
			snap.States = states
			snap.Detect = func(previous, next map[int64]store.SubsampleState) (map[int64]store.SubsampleState, []domain.Change) {
				seen = previous
				return rules.Detect(previous, next, at)
			}
			if _, err := s.SaveEvents(ctx, snap, 2*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		cpi := 2.5
		end := t0.Add(20 * time.Hour)
		first := map[int64]store.SubsampleState{
			1: {Status: "Live", Sendability: "sendable", EventID: 10, Country: "US", CPI: &cpi, Currency: "USD", FieldEnd: &end, QuotasRead: true, ClosedQuotas: []string{"7"}, AtRisk: "40 completes left"},
			2: {Status: "Live", Sendability: "unknown", EventID: 10, Country: "US"},
			4: {Status: "Live", Sendability: "sendable", EventID: 11, Country: "FR"},
		}
		// The first refresh of an empty database is the baseline: its
		// detector sees no previous states (nil), it records no change, and
		// the overview is told so.
		save(t0.Add(-time.Minute), map[int64]store.SubsampleState{9: {Status: "Complete", Sendability: "not_sendable", EventID: 12, Country: "DE"}})
		if seen != nil {
			t.Errorf("the baseline's detector saw previous states %v, want nil", seen)
		}
		if counts, err := s.ChangeCounts(ctx); err != nil || len(counts) != 0 {
			t.Errorf("the baseline recorded %v, %v; want no change", counts, err)
		}
		if baseline, err := s.EventsBaseline(ctx); err != nil || !baseline {
			t.Errorf("after the first refresh EventsBaseline = %v, %v; want true", baseline, err)
		}

		// The next refresh compares with the baseline's states (9 left the
		// list, closed already); subsamples 1, 2 and 4 are new to it.
		save(t0, first)
		if seen == nil || len(seen) != 1 {
			t.Errorf("the second refresh's detector saw previous states %v, want the baseline's", seen)
		}
		if baseline, err := s.EventsBaseline(ctx); err != nil || baseline {
			t.Errorf("after the second refresh EventsBaseline = %v, %v; want false", baseline, err)
		}
		counts, err := s.ChangeCounts(ctx)
		if err != nil || counts[domain.ChangeNew] != 3 || counts[domain.ChangeFieldEndNear] != 1 || counts[domain.ChangeAtRisk] != 1 {
			t.Errorf("first refresh: %v, %v; want 3 new and subsample 1's field end near and its pace at risk", counts, err)
		}

		cpi2 := 3.0
		save(t0.Add(3*time.Minute), map[int64]store.SubsampleState{
			1: {Status: "Live", Sendability: "sendable", EventID: 10, Country: "US", CPI: &cpi2, Currency: "USD", FieldEnd: &end, QuotasRead: true},
			2: {Status: "Live", Sendability: "sendable", EventID: 10, Country: "US"},
			// 4 left the event list
		})
		for id, want := range first {
			if got := seen[id]; !reflect.DeepEqual(got, want) && !(want.ClosedQuotas == nil && reflect.DeepEqual(got, withClosed(want))) {
				t.Errorf("subsample %d read back as %+v, stored %+v", id, got, want)
			}
		}
		counts, _ = s.ChangeCounts(ctx)
		want := map[domain.ChangeKind]int{domain.ChangeCPI: 1, domain.ChangeQuotaReopened: 1, domain.ChangeSendable: 1, domain.ChangeClosed: 1}
		if !reflect.DeepEqual(counts, want) {
			t.Errorf("second refresh: %v, want %v", counts, want)
		}

		all, total, err := s.Changes(ctx, store.ChangeFilter{}, 0, 0)
		// Seven of the first refresh (1 new, sendable, its field end near,
		// at risk; 2 new; 4 new, sendable), four of the second.
		if err != nil || total != 11 || len(all) != 11 || all[0].ChangeID < all[10].ChangeID {
			t.Fatalf("the feed holds %d (%d), %v; want the 11 changes, newest first", len(all), total, err)
		}
		cpiChange, _, _ := s.Changes(ctx, store.ChangeFilter{Kind: domain.ChangeCPI}, 0, 0)
		if len(cpiChange) != 1 || cpiChange[0].Before != "2.5 USD" || cpiChange[0].After != "3 USD" || cpiChange[0].EventID != 10 || cpiChange[0].Country != "US" || !cpiChange[0].At.Equal(t0.Add(3*time.Minute)) {
			t.Errorf("the CPI change reads %+v", cpiChange)
		}
		if fr, n, _ := s.Changes(ctx, store.ChangeFilter{Country: "FR", EventID: 11}, 0, 0); n != 3 || fr[0].Kind != domain.ChangeClosed {
			t.Errorf("France, event 11: %+v (%d), want subsample 4 closed, sendable and new", fr, n)
		}
		if late, n, _ := s.Changes(ctx, store.ChangeFilter{Since: t0.Add(time.Minute)}, 2, 1); n != 4 || len(late) != 2 {
			t.Errorf("since the first minute, second page of 2: %d of %d", len(late), n)
		}
		after, err := s.ChangesAfter(ctx, all[9].ChangeID, 3)
		if err != nil || len(after) != 3 || after[0].ChangeID != all[8].ChangeID || after[2].ChangeID != all[6].ChangeID {
			t.Errorf("3 changes after the first: %+v, %v", after, err)
		}

		// Pruned with the refresh log: a refresh three hours on keeps two.
		save(t0.Add(3*time.Hour), map[int64]store.SubsampleState{})
		if old, _, _ := s.Changes(ctx, store.ChangeFilter{Until: t0.Add(time.Hour)}, 0, 0); len(old) != 0 {
			t.Errorf("after the retention window the feed still holds %d changes of the first refresh", len(old))
		}
	})
}

// withClosed is s with an empty list of closed quotas where it had none.
func withClosed(s store.SubsampleState) store.SubsampleState {
	s.ClosedQuotas = []string{}
	return s
}
