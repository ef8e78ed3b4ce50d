package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestRoutingKeyRotation: the newest key signs; a rotation keeps the
// previous keys valid for the grace period only.
func TestRoutingKeyRotation(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		ids := func(at time.Time) []int64 {
			keys, err := s.RoutingKeys(ctx, at)
			if err != nil {
				t.Fatal(err)
			}
			var out []int64
			for _, k := range keys {
				out = append(out, k.ID)
			}
			return out
		}
		if got := ids(t0); got != nil {
			t.Fatalf("a new database has keys %v", got)
		}
		first, err := s.RotateRoutingKey(ctx, []byte("first secret"), t0, 0)
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.RotateRoutingKey(ctx, []byte("second secret"), t0.Add(time.Hour), 24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := ids(t0.Add(2*time.Hour)), []int64{second.ID, first.ID}; !slices.Equal(got, want) {
			t.Errorf("within the grace period: keys %v, want %v (newest first)", got, want)
		}
		if got, want := ids(t0.Add(26*time.Hour)), []int64{second.ID}; !slices.Equal(got, want) {
			t.Errorf("after the grace period: keys %v, want %v", got, want)
		}
		keys, _ := s.RoutingKeys(ctx, t0.Add(2*time.Hour))
		if string(keys[0].Secret) != "second secret" || keys[0].ExpiresAt != nil {
			t.Errorf("signing key = %+v, want the second, with no end", keys[0])
		}
		// A rotation without grace ends every earlier key at once.
		third, _ := s.RotateRoutingKey(ctx, []byte("third secret"), t0.Add(3*time.Hour), 0)
		if got, want := ids(t0.Add(3*time.Hour)), []int64{third.ID}; !slices.Equal(got, want) {
			t.Errorf("after a rotation without grace: keys %v, want %v", got, want)
		}
	})
}

// TestRoutingRecord: decisions are kept with their subsamples, filtered,
// counted per subsample and pruned with the refresh log.
func TestRoutingRecord(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		decisions := []domain.RoutingDecision{
			{At: t0, PanelistID: "P1", Intended: 100, Chosen: 100, Outcome: domain.RoutedIntended, Reason: "sent as invited"},
			{At: t0.Add(time.Minute), PanelistID: "P2", Intended: 100, Chosen: 200, Outcome: domain.RoutedNext, Reason: "100 is full"},
			{At: t0.Add(2 * time.Minute), PanelistID: "P1", Chosen: 100, Outcome: domain.RoutedNext, Reason: "best"},
			{At: t0.Add(3 * time.Minute), PanelistID: "P3", Outcome: domain.RoutedNone, Reason: "no survey"},
		}
		if err := s.RecordRoutings(ctx, decisions); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name   string
			filter store.RoutingFilter
			want   []string // reasons, newest first
		}{
			{"all", store.RoutingFilter{}, []string{"no survey", "best", "100 is full", "sent as invited"}},
			{"panelist", store.RoutingFilter{PanelistID: "P1"}, []string{"best", "sent as invited"}},
			{"subsample, intended or chosen", store.RoutingFilter{SubsampleID: 200}, []string{"100 is full"}},
			{"outcome", store.RoutingFilter{Outcome: domain.RoutedNone}, []string{"no survey"}},
			{"time", store.RoutingFilter{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)}, []string{"best", "100 is full"}},
		} {
			got, total, err := s.Routings(ctx, tt.filter, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			var reasons []string
			for _, d := range got {
				reasons = append(reasons, d.Reason)
			}
			if !slices.Equal(reasons, tt.want) || total != len(tt.want) {
				t.Errorf("%s: %v (%d in all), want %v", tt.name, reasons, total, tt.want)
			}
		}
		page, total, _ := s.Routings(ctx, store.RoutingFilter{}, 2, 1)
		if len(page) != 2 || page[0].Reason != "best" || total != 4 {
			t.Errorf("second page of 2: %+v (%d in all)", page, total)
		}
		if d := page[1]; d.PanelistID != "P2" || d.Intended != 100 || d.Chosen != 200 || d.Outcome != domain.RoutedNext || !d.At.Equal(t0.Add(time.Minute)) {
			t.Errorf("a decision read back = %+v", d)
		}
		clicks, redirects, err := s.RoutingCounts(ctx, 100, t0.Add(time.Minute))
		if err != nil || clicks != 1 || redirects != 1 {
			t.Errorf("subsample 100 since the second minute: %d clicks, %d redirects, %v; want 1 and 1", clicks, redirects, err)
		}
		if _, err := s.SaveEvents(ctx, snapshotAt(t0.Add(2*time.Hour+90*time.Second), 5), 2*time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, total, _ := s.Routings(ctx, store.RoutingFilter{}, 0, 0); total != 2 {
			t.Errorf("after a refresh keeping two hours: %d decisions, want the 2 of the last two hours", total)
		}
	})
}

// TestRoutingRecordOfABigBatch: a batch of decisions longer than one
// statement's rows is kept whole, in order, each with its fields (no
// subsample kept as none, cells).
func TestRoutingRecordOfABigBatch(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		var decisions []domain.RoutingDecision
		for i := range 2*64 + 8 + 5 { // every statement size: 64, 8 and 1 rows
			d := domain.RoutingDecision{At: t0.Add(time.Duration(i) * time.Second), PanelistID: fmt.Sprintf("P%d", i),
				Chosen: int64(1000 + i), Outcome: domain.RoutedAnswer, Reason: fmt.Sprintf("reason %d", i), Cells: fmt.Sprintf("%d,%d", i, i+1)}
			if i%3 == 0 {
				d.Intended, d.Outcome = int64(2000+i), domain.RoutedIntended
			}
			if i%7 == 0 {
				d.Chosen, d.Cells, d.Outcome = 0, "", domain.RoutedNone
			}
			decisions = append(decisions, d)
		}
		if err := s.RecordRoutings(ctx, decisions); err != nil {
			t.Fatal(err)
		}
		got, total, err := s.Routings(ctx, store.RoutingFilter{}, 0, 0)
		if err != nil || total != len(decisions) || len(got) != len(decisions) {
			t.Fatalf("%d decisions read back (%d in all), %v; want %d", len(got), total, err, len(decisions))
		}
		slices.Reverse(got) // newest first
		for i, d := range got {
			want := decisions[i]
			if d.PanelistID != want.PanelistID || d.Intended != want.Intended || d.Chosen != want.Chosen || d.Outcome != want.Outcome ||
				d.Reason != want.Reason || d.Cells != want.Cells || !d.At.Equal(want.At) {
				t.Fatalf("decision %d read back = %+v, want %+v", i, d, want)
			}
			if i > 0 && d.DecisionID <= got[i-1].DecisionID {
				t.Fatalf("decision %d has id %d, after %d: not in the order recorded", i, d.DecisionID, got[i-1].DecisionID)
			}
		}
	})
}

// TestRoutingRecordKeepsNoSubsampleAsNull: a decision without an
// intended or chosen subsample, or a send it followed, is stored with
// none (NULL) in that column, not 0, whatever the size of the statement
// that wrote it: the record's readers ask IS NOT NULL (a return's last
// send, the outcomes' sends).
func TestRoutingRecordKeepsNoSubsampleAsNull(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		target := db.Target(t)
		if db.Name == "sqlite" {
			target = storetest.MigratedSQLitePath(t)
		}
		s, ctx := openAt(t, target), context.Background()
		for _, n := range []int{1, 8, 64} { // each statement size
			batch := make([]domain.RoutingDecision, n)
			for i := range batch {
				batch[i] = domain.RoutingDecision{At: t0, PanelistID: fmt.Sprintf("P%d", i), Outcome: domain.RoutedNone, Reason: "no survey"}
			}
			batch[0].Intended, batch[0].Chosen, batch[0].After, batch[0].Outcome = 100, 200, 7, domain.RoutedNext
			if err := s.RecordRoutings(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		var none, some int
		err := storetest.Raw(t, target).QueryRowContext(ctx, `SELECT
			COUNT(CASE WHEN intended_subsample IS NULL AND chosen_subsample IS NULL AND after_decision IS NULL THEN 1 END),
			COUNT(CASE WHEN intended_subsample = 100 AND chosen_subsample = 200 AND after_decision = 7 THEN 1 END) FROM routing_decisions`).Scan(&none, &some)
		if err != nil || none != 1+8+64-3 || some != 3 {
			t.Errorf("%d decisions stored without subsamples and %d with them (%v); want %d and 3", none, some, err, 1+8+64-3)
		}
	})
}

// TestFirstRoutingKeyIsMadeOnce: many first uses at once make one key,
// and none retires another.
func TestFirstRoutingKeyIsMadeOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		ids := make(chan int64, 8)
		for i := range 8 {
			go func() {
				key, err := s.FirstRoutingKey(ctx, []byte{byte(i)}, t0)
				if err != nil {
					t.Error(err)
				}
				ids <- key.ID
			}()
		}
		first := <-ids
		for range 7 {
			if id := <-ids; id != first {
				t.Errorf("first uses made keys %d and %d", first, id)
			}
		}
		if keys, _ := s.RoutingKeys(ctx, t0.Add(time.Hour)); len(keys) != 1 || keys[0].ExpiresAt != nil {
			t.Errorf("after 8 first uses: keys %+v, want one, current", keys)
		}
	})
}

// TestSigningKey: the first use makes a key of a random 32-byte secret,
// the next ones sign with it, and after a rotation with the new one; a
// negative grace is refused.
func TestSigningKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		first, err := s.SigningKey(ctx, t0)
		if err != nil || len(first.Secret) != 32 {
			t.Fatalf("first signing key = %+v, %v; want one made, of 32 bytes", first, err)
		}
		if again, err := s.SigningKey(ctx, t0.Add(time.Minute)); err != nil || again.ID != first.ID || string(again.Secret) != string(first.Secret) {
			t.Errorf("second signing key = %+v, %v; want the first again", again, err)
		}
		if _, err := s.RotateRoutingKey(ctx, store.NewRoutingSecret(), t0, -time.Second); err == nil {
			t.Error("a rotation with a negative grace was done")
		}
		rotated, err := s.RotateRoutingKey(ctx, store.NewRoutingSecret(), t0.Add(time.Hour), 0)
		if err != nil {
			t.Fatal(err)
		}
		if now, err := s.SigningKey(ctx, t0.Add(2*time.Hour)); err != nil || now.ID != rotated.ID || string(now.Secret) == string(first.Secret) {
			t.Errorf("signing key after a rotation = %+v, %v; want the new one, %d", now, err, rotated.ID)
		}
	})
}

// TestInstancesMakeOneFirstRoutingKey: instances on one database asking
// for the first key at once all get the same one, and none is refused. On
// SQLite two Stores on one file are two writers, as two processes are:
// each reads the keys, finds none and writes one, and the second to write
// was refused "database is locked" (SQLITE_BUSY) at once, since SQLite
// does not wait for a transaction that read to become a writer. Several
// rounds, the keys deleted behind the stores' backs before each, for the
// two to meet.
func TestInstancesMakeOneFirstRoutingKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		target := d.Target(t)
		a, b := openAt(t, target), openAt(t, target)
		raw := storetest.Raw(t, target)
		for round := range 30 {
			if _, err := raw.ExecContext(context.Background(), `DELETE FROM routing_keys`); err != nil {
				t.Fatal(err)
			}
			instancesMakeOneFirstRoutingKey(t, a, b, round)
		}
	})
}

func instancesMakeOneFirstRoutingKey(t *testing.T, a, b *store.Store, round int) {
	t.Helper()
	ctx := context.Background()
	keys := make([]store.RoutingKey, 8)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range keys {
		s := []*store.Store{a, b}[i%2]
		wg.Go(func() {
			<-start
			key, err := s.FirstRoutingKey(ctx, []byte(fmt.Sprintf("secret of instance %d", i)), t0)
			if err != nil {
				t.Errorf("round %d, instance %d: %v", round, i, err)
			}
			keys[i] = key
		})
	}
	close(start)
	wg.Wait()
	for i, k := range keys {
		if k.ID != keys[0].ID || string(k.Secret) != string(keys[0].Secret) {
			t.Errorf("round %d: instance %d got key %d (%q), instance 0 key %d (%q); want one key for all", round, i, k.ID, k.Secret, keys[0].ID, keys[0].Secret)
		}
	}
	valid, err := a.RoutingKeys(ctx, t0)
	if err != nil || len(valid) != 1 {
		t.Errorf("round %d: keys valid after the first uses: %d, %v; want 1", round, len(valid), err)
	}
}

// TestChangeAndRoutingNamesFromTheSnapshot: the change feed and the
// router's record are read with the names the current snapshot gives
// their subsamples and events; an id no longer in it has no name, and an
// event none of whose subsamples is live has the name /events gives it,
// its first subsample's.
func TestChangeAndRoutingNamesFromTheSnapshot(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s, ctx := open(t, db), context.Background()
		save := func(at time.Time, states map[int64]store.SubsampleState) {
			t.Helper()
			snap := snapshotAt(at, 40)
			snap.States = states
			snap.Summaries = append(snap.Summaries, // an event with nothing live
				domain.SubsampleSummary{EventID: 20, SubsampleID: 201, SubsampleName: "FR wave 0", SubsampleStatus: domain.StatusComplete},
				domain.SubsampleSummary{EventID: 20, SubsampleID: 200, SubsampleName: "FR wave 1", SubsampleStatus: domain.StatusComplete})
			snap.Detect = func(previous, next map[int64]store.SubsampleState) (map[int64]store.SubsampleState, []domain.Change) {
				return rules.Detect(previous, next, at)
			}
			if _, err := s.SaveEvents(ctx, snap, 2*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		save(t0, map[int64]store.SubsampleState{}) // the baseline
		save(t0.Add(time.Minute), map[int64]store.SubsampleState{
			100: {Status: "Live", Sendability: "unknown", EventID: 10, Country: "US"},
			300: {Status: "Live", Sendability: "unknown", EventID: 30, Country: "DE"}, // not in the snapshot's lists
			201: {Status: "Complete", Sendability: "not_sendable", EventID: 20, Country: "FR"},
		})
		changes, _, err := s.Changes(ctx, store.ChangeFilter{Kind: domain.ChangeNew}, 0, 0)
		if err != nil || len(changes) != 3 {
			t.Fatalf("new subsamples: %+v, %v; want 100, 201 and 300", changes, err)
		}
		for _, c := range changes {
			want := map[int64][2]string{100: {"US wave 3", "Soft drinks tracker"}, 201: {"FR wave 0", "FR wave 1"}, 300: {"", ""}}[c.SubsampleID]
			if c.SubsampleName != want[0] || c.EventName != want[1] {
				t.Errorf("change of subsample %d names %q of event %q, want %q of %q", c.SubsampleID, c.SubsampleName, c.EventName, want[0], want[1])
			}
		}
		if err := s.RecordRoutings(ctx, []domain.RoutingDecision{
			{At: t0, PanelistID: "P1", Intended: 300, Chosen: 101, Outcome: domain.RoutedNext, Reason: "300 is gone"},
			{At: t0.Add(time.Second), PanelistID: "P2", Chosen: 100, Outcome: domain.RoutedNext, Reason: "best"},
		}); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.Routings(ctx, store.RoutingFilter{}, 0, 0)
		if err != nil || len(got) != 2 {
			t.Fatalf("routing record: %+v, %v", got, err)
		}
		if got[0].IntendedName != "" || got[0].ChosenName != "US wave 3" || got[1].IntendedName != "" || got[1].ChosenName != "GB wave 3" {
			t.Errorf("routing names: %+v", got)
		}
	})
}
