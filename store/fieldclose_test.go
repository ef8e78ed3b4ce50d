package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestFieldClosuresLiftWithTheCounts: a closure records the quota's counts
// as the snapshot has them and moves the snapshot version on; a second
// quota full keeps the first closure and its later end; a full refresh
// whose counts did not move keeps it, one whose counts moved lifts it, and
// a write after its end lifts it as lapsed, each said once in the feed.
// On both databases.
func TestFieldClosuresLiftWithTheCounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
		snapshot := func(when time.Time, achieved int64) store.EventsSnapshot {
			us := domain.Country{ID: 1, Code: "US", Name: "United States"}
			return store.EventsSnapshot{
				Run:       store.Run{Dataset: store.DatasetEvents, StartedAt: when.Add(-time.Minute), FinishedAt: when},
				Summaries: []domain.SubsampleSummary{{EventID: 1, SubsampleID: 10, SubsampleStatus: domain.StatusLive, SubsampleName: "S", Country: us}},
				Live: []domain.LiveSubsample{{EventID: 1, SubsampleID: 10, SubsampleStatus: domain.StatusLive, SubsampleName: "S",
					SurveyAPICompatibility: true, TargetedCPI: 2, TargetedCurrency: "USD", Countries: []domain.Country{us}}},
				Details: map[int64]store.SubsampleDetail{10: {FetchedAt: when, Quotas: []domain.Quota{
					{QuotaID: 2, TableID: 2, TableName: "Gender", QuotaName: " Women ", QuotaType: domain.QuotaTypeHard,
						AchievedInterviews: achieved, RemainingExclusive: 5, RemainingShared: 1},
					{QuotaID: 3, TableID: 2, TableName: "Gender", QuotaName: "Men", QuotaType: domain.QuotaTypeHard, RemainingExclusive: 5},
				}}},
			}
		}
		if _, err := st.SaveEvents(ctx, snapshot(at, 40), time.Hour); err != nil {
			t.Fatal(err)
		}
		before, err := st.SnapshotVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		closed, err := st.CloseFromField(ctx, 10, []int64{2, 99}, at.Add(time.Minute), at.Add(31*time.Minute))
		want := domain.FieldClosure{SubsampleID: 10, QuotaID: 2, QuotaName: "Women", At: at.Add(time.Minute), Until: at.Add(31 * time.Minute),
			Achieved: 40, RemainingExclusive: 5, RemainingShared: 1}
		if err != nil || len(closed) != 1 || closed[0] != want {
			t.Fatalf("CloseFromField(cells 2 and 99, the latter in no quota) = %+v, %v; want only %+v", closed, err, want)
		}
		if after, err := st.SnapshotVersion(ctx); err != nil || after == before {
			t.Errorf("the snapshot version after a closure: %d, %v; want it moved on from %d", after, err, before)
		}
		again, err := st.CloseFromField(ctx, 10, []int64{2}, at.Add(5*time.Minute), at.Add(35*time.Minute))
		want.Until = at.Add(35 * time.Minute)
		if err != nil || len(again) != 1 || again[0] != want {
			t.Errorf("a second quota full: %+v, %v; want the first closure to the later end, %+v", again, err, want)
		}
		read, err := st.ReadSnapshot(ctx, 10)
		if err != nil || !slices.Equal(read.FieldClosures[10], []domain.FieldClosure{want}) {
			t.Errorf("ReadSnapshot's closures: %+v, %v; want %+v", read.FieldClosures, err, want)
		}

		kinds := func() []string {
			t.Helper()
			changes, _, err := st.Changes(ctx, store.ChangeFilter{}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, c := range changes {
				if c.Kind == domain.ChangeQuotaClosedByField || c.Kind == domain.ChangeFieldClosureLifted {
					out = append(out, string(c.Kind))
				}
			}
			return out
		}
		if _, err := st.SaveEvents(ctx, snapshot(at.Add(10*time.Minute), 40), time.Hour); err != nil {
			t.Fatal(err)
		}
		if left, err := st.FieldClosures(ctx); err != nil || len(left) != 1 {
			t.Errorf("after a refresh of the same counts: %+v, %v; want the closure kept", left, err)
		}
		if _, err := st.SaveEvents(ctx, snapshot(at.Add(20*time.Minute), 41), time.Hour); err != nil {
			t.Fatal(err)
		}
		if left, err := st.FieldClosures(ctx); err != nil || len(left) != 0 {
			t.Errorf("after a refresh whose completes moved: %+v, %v; want it lifted", left, err)
		}
		if got, want := kinds(), []string{"quota.field_closure_lifted", "quota.closed_by_field"}; !slices.Equal(got, want) {
			t.Errorf("the feed, newest first: %v, want %v", got, want)
		}

		// Closed again, unmoved, and written after its end: lapsed.
		if _, err := st.CloseFromField(ctx, 10, []int64{2}, at.Add(21*time.Minute), at.Add(51*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SaveEvents(ctx, snapshot(at.Add(50*time.Minute), 41), time.Hour); err != nil {
			t.Fatal(err)
		}
		if left, _ := st.FieldClosures(ctx); len(left) != 1 {
			t.Errorf("a write a minute before the end lifted %+v", left)
		}
		if _, err := st.SaveEvents(ctx, snapshot(at.Add(51*time.Minute), 41), time.Hour); err != nil {
			t.Fatal(err)
		}
		if left, _ := st.FieldClosures(ctx); len(left) != 0 {
			t.Errorf("a write at the end kept %+v", left)
		}
		if got := kinds(); len(got) != 4 || got[0] != "quota.field_closure_lifted" || got[1] != "quota.closed_by_field" {
			t.Errorf("the feed, newest first: %v, want the lapse after the second closure", got)
		}
	})
}
