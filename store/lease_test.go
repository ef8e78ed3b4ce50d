package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

const leaseTTL = 30 * time.Second

// acquire takes the refresh lease for holder at now, failing the test on
// an error.
func acquire(t *testing.T, s *store.Store, holder string, now time.Time) store.Lease {
	t.Helper()
	l, err := s.AcquireLease(context.Background(), store.LeaseRefresh, holder, now, leaseTTL)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLeaseHasOneHolderUntilItRunsOut(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.LeaseOf(ctx, store.LeaseRefresh); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("LeaseOf a lease never taken: %v, want ErrNotFound", err)
		}

		a := acquire(t, s, "a", t0)
		if !a.HeldBy("a", t0) || a.Token != 1 || !a.ExpiresAt.Equal(t0.Add(leaseTTL)) {
			t.Fatalf("a's first acquire = %+v, want a's until %v with token 1", a, t0.Add(leaseTTL))
		}
		if got := acquire(t, s, "b", t0.Add(leaseTTL-time.Millisecond)); got.Holder != "a" || got.HeldBy("b", t0) {
			t.Fatalf("b acquired a's running lease: %+v", got)
		}
		if got, err := s.LeaseOf(ctx, store.LeaseRefresh); err != nil || got != a {
			t.Fatalf("LeaseOf = %+v, %v; want a's as it was", got, err)
		}

		// a acquiring its own running lease renews it, same token.
		again := acquire(t, s, "a", t0.Add(10*time.Second))
		if again.Token != a.Token || !again.ExpiresAt.Equal(t0.Add(40*time.Second)) || !again.AcquiredAt.Equal(t0) {
			t.Fatalf("a re-acquiring its running lease = %+v; want token %d until +40s, acquired at t0", again, a.Token)
		}

		// Once it runs out, b takes it with a new token.
		late := t0.Add(40 * time.Second)
		b := acquire(t, s, "b", late)
		if !b.HeldBy("b", late) || b.Token != a.Token+1 || !b.AcquiredAt.Equal(late) {
			t.Fatalf("b after a's lease ran out = %+v, want b's with token %d", b, a.Token+1)
		}
		if _, err := s.RenewLease(ctx, again, late, leaseTTL); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a renewed the lease b took: %v, want ErrLeaseLost", err)
		}
		if err := s.ReleaseLease(ctx, again, late); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a released the lease b took: %v, want ErrLeaseLost", err)
		}
		if got, _ := s.LeaseOf(ctx, store.LeaseRefresh); got != b {
			t.Fatalf("after a's renew and release: %+v, want b's untouched %+v", got, b)
		}
		// a taking it back after b's ran out is a new tenure too.
		if back := acquire(t, s, "a", late.Add(leaseTTL)); back.Token != b.Token+1 {
			t.Fatalf("a taking it back = %+v, want token %d", back, b.Token+1)
		}
	})
}

func TestLeaseRenewal(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		a := acquire(t, s, "a", t0)
		renewed, err := s.RenewLease(ctx, a, t0.Add(20*time.Second), leaseTTL)
		if err != nil {
			t.Fatal(err)
		}
		if renewed.Token != a.Token || !renewed.ExpiresAt.Equal(t0.Add(50*time.Second)) {
			t.Fatalf("renewed = %+v, want token %d until +50s", renewed, a.Token)
		}
		// Still a's past its first expiry, thanks to the renewal.
		if got := acquire(t, s, "b", t0.Add(45*time.Second)); got.Holder != "a" {
			t.Fatalf("b took a renewed lease: %+v", got)
		}
		// A renewal that comes after the lease ran out fails even when nobody
		// took it: the holder must have stopped its work by then, and taking
		// the lease again is a new tenure.
		if _, err := s.RenewLease(ctx, renewed, t0.Add(50*time.Second), leaseTTL); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("renewing a lease that ran out: %v, want ErrLeaseLost", err)
		}
		if got := acquire(t, s, "a", t0.Add(50*time.Second)); got.Token != a.Token+1 {
			t.Fatalf("a taking its own run-out lease again = %+v, want a new token %d", got, a.Token+1)
		}
	})
}

func TestLeaseRelease(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		a := acquire(t, s, "a", t0)
		if err := s.ReleaseLease(ctx, a, t0.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := s.LeaseOf(ctx, store.LeaseRefresh)
		if err != nil || !got.Free(t0.Add(time.Second)) || got.Holder != "" {
			t.Fatalf("released lease = %+v, %v; want free", got, err)
		}
		if b := acquire(t, s, "b", t0.Add(2*time.Second)); !b.HeldBy("b", t0.Add(2*time.Second)) || b.Token != a.Token+1 {
			t.Fatalf("b after a released = %+v, want b's with a new token", b)
		}
		if _, err := s.RenewLease(ctx, a, t0.Add(3*time.Second), leaseTTL); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a renewed after releasing: %v, want ErrLeaseLost", err)
		}
	})
}

// TestLeaseHasOneHolderAcrossConnections races two stores on one database,
// as two instances are, for a free lease: exactly one gets it each time.
func TestLeaseHasOneHolderAcrossConnections(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		target := db.Target(t)
		var stores [2]*store.Store
		for i := range stores {
			stores[i] = openAt(t, target)
		}
		for round := range 20 {
			now := t0.Add(time.Duration(round) * time.Minute) // each round's lease is free: the last ran out
			var wg sync.WaitGroup
			var got [2]store.Lease
			for i, s := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					l, err := s.AcquireLease(ctx, store.LeaseRefresh, string(rune('a'+i)), now, leaseTTL)
					if err != nil {
						t.Error(err)
					}
					got[i] = l
				}()
			}
			wg.Wait()
			if got[0] != got[1] || got[0].Token != int64(round+1) {
				t.Fatalf("round %d: the two acquirers saw %+v and %+v; want one holder, token %d", round, got[0], got[1], round+1)
			}
		}
	})
}

// TestFencedWritesNeedTheLease: a refresh that lost its lease writes
// nothing, neither a snapshot nor a failure.
func TestFencedWritesNeedTheLease(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		a := acquire(t, s, "a", t0)
		if _, err := s.Fenced(a).SaveEvents(ctx, snapshotAt(t0, 40), 7*24*time.Hour); err != nil {
			t.Fatalf("a snapshot written under the lease: %v", err)
		}
		acquire(t, s, "b", t0.Add(leaseTTL)) // a's ran out; b takes it
		before, err := s.RecentRuns(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Fenced(a).SaveEvents(ctx, snapshotAt(t0.Add(time.Minute), 50), 7*24*time.Hour); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a snapshot written after the lease passed to b: %v, want ErrLeaseLost", err)
		}
		run := store.Run{Dataset: store.DatasetEvents, StartedAt: t0, FinishedAt: t0.Add(time.Minute)}
		if err := s.Fenced(a).RecordFailure(ctx, run, "", errors.New("boom")); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a failure recorded after the lease passed to b: %v, want ErrLeaseLost", err)
		}
		after, err := s.RecentRuns(ctx, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(before) {
			t.Fatalf("the refresh log went from %d runs to %d: a wrote without its lease", len(before), len(after))
		}
		rows, err := s.LiveRows(ctx)
		if err != nil || len(rows) != 1 || *rows[0].TotalAchieved != 40 {
			t.Fatalf("live rows = %+v, %v; want the snapshot written under the lease", rows, err)
		}
	})
}
