package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// The tracks pacing reads: the points since a time and the last one
// before it (where the count stood then), with when the quotas were last
// read, which is later than the last change.
func TestQuotaTracksStartAtTheLastCountBeforeTheWindow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		saveReads(ctx, t, s, []quotaRead{{0, 40}, {3 * time.Minute, 40}, {6 * time.Minute, 41}, {2 * time.Hour, 41}, {3 * time.Hour, 45}, {4 * time.Hour, 45}})
		for _, tc := range []struct {
			since time.Duration
			want  []int64 // achieved at each point
		}{
			{-time.Hour, []int64{40, 41, 45}},
			{5 * time.Minute, []int64{40, 41, 45}},
			{time.Hour, []int64{41, 45}},
			{5 * time.Hour, []int64{45}},
		} {
			totals, err := s.TotalQuotaTracks(ctx, t0.Add(tc.since))
			if err != nil {
				t.Fatal(err)
			}
			track, ok := totals[100]
			if !ok || len(totals) != 1 {
				t.Fatalf("since %v: total tracks %+v, want subsample 100's only", tc.since, totals)
			}
			var got []int64
			for _, p := range track.Points {
				got = append(got, p.Achieved)
			}
			if track.QuotaID != 1 || !track.ReadAt.Equal(t0.Add(4*time.Hour)) || len(got) != len(tc.want) {
				t.Fatalf("since %v: track %+v, want quota 1 read at t0+4h, achieved %v", tc.since, track, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("since %v: achieved %v, want %v", tc.since, got, tc.want)
				}
			}
		}
		cells, err := s.QuotaTracks(ctx, 100, t0.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(cells) != 2 || len(cells[2].Points) != 1 || cells[2].Points[0].Achieved != 5 || len(cells[1].Points) != 2 {
			t.Errorf("tracks of every quota of subsample 100 = %+v, want the total's two points and the Female cell's one", cells)
		}
	})
}

// A snapshot's states decided beside its write (EventsSnapshot.Decide)
// are decided on the pacing of the snapshot it replaces, as a refresh
// that read the pacing first would decide them, and are the states the
// write stores; a Decide that fails fails the write, which then leaves
// the snapshot as it was.
func TestStatesDecidedBesideTheWriteSeeTheSnapshotReplaced(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		saveReads(ctx, t, s, []quotaRead{{0, 40}, {2 * time.Hour, 41}})
		decided := map[int64]store.SubsampleState{100: {Status: domain.StatusLive, Sendability: "sendable", AtRisk: "decided beside"}}
		snap := snapshotAt(t0.Add(3*time.Hour), 45)
		var seen store.QuotaTrack
		snap.Decide = func(ctx context.Context) (map[int64]store.SubsampleState, error) {
			totals, err := s.TotalQuotaTracks(ctx, t0.Add(-time.Hour))
			seen = totals[100]
			return decided, err
		}
		var detected map[int64]store.SubsampleState
		snap.Detect = func(previous, next map[int64]store.SubsampleState) (map[int64]store.SubsampleState, []domain.Change) {
			detected = next
			return next, nil
		}
		if _, err := s.SaveEvents(ctx, snap, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, p := range seen.Points {
			got = append(got, p.Achieved)
		}
		if !seen.ReadAt.Equal(t0.Add(2*time.Hour)) || len(got) != 2 || got[0] != 40 || got[1] != 41 {
			t.Errorf("Decide read the total quota's track %+v (achieved %v), want the snapshot replaced's: 40 then 41, read at t0+2h", seen, got)
		}
		if len(detected) != 1 || detected[100].AtRisk != "decided beside" {
			t.Errorf("the write detected changes towards %+v, want the states Decide returned", detected)
		}

		before, err := s.SnapshotVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		failing := snapshotAt(t0.Add(4*time.Hour), 50)
		failing.Decide = func(context.Context) (map[int64]store.SubsampleState, error) { return nil, errors.New("no pacing") }
		if _, err := s.SaveEvents(ctx, failing, 7*24*time.Hour); err == nil || !strings.Contains(err.Error(), "no pacing") {
			t.Errorf("a write whose Decide failed: %v, want its error", err)
		}
		if after, err := s.SnapshotVersion(ctx); err != nil || after != before {
			t.Errorf("after a write whose Decide failed the version is %d (%v), want %d: the snapshot as it was", after, err, before)
		}
	})
}

// quotaRead is a read of subsample 100's quotas: after t0, with the total
// quota's achieved count.
type quotaRead struct {
	after    time.Duration
	achieved int64
}

// saveReads writes a snapshot of each read, in order.
func saveReads(ctx context.Context, t *testing.T, s *store.Store, reads []quotaRead) {
	t.Helper()
	for _, read := range reads {
		if _, err := s.SaveEvents(ctx, snapshotAt(t0.Add(read.after), read.achieved), 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
}
