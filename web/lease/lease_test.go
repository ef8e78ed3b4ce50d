package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web/lease"
)

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func holder(st *store.Store, id string, ttl time.Duration) *lease.Holder {
	return &lease.Holder{Store: st, ID: id, TTL: ttl, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// TestTenureIsKeptWhileRenewed: a tenure outlives several TTLs while it
// renews, the other instance cannot take it meanwhile, and takes it at
// once after Release. The TTL leaves each renewal two seconds (two
// thirds of it), which a loaded machine gives a lone UPDATE; at 900 ms
// a renewal had 600 ms.
func TestTenureIsKeptWhileRenewed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { tenureIsKeptWhileRenewed(t, d.Target(t)) })
}

func tenureIsKeptWhileRenewed(t *testing.T, path string) {
	ctx := context.Background()
	const ttl = 3 * time.Second
	a, b := holder(openStore(t, path), "a", ttl), holder(openStore(t, path), "b", ttl)
	tenure, _, err := a.Take(ctx, store.LeaseWebhooks)
	if err != nil || tenure == nil {
		t.Fatalf("a's Take: %v, %v", tenure, err)
	}
	// Until the lease as first taken would have run out twice over: it
	// holds only because it was renewed.
	for outlived := tenure.Lease().ExpiresAt.Add(ttl); time.Now().Before(outlived); {
		time.Sleep(ttl / 4)
		other, held, err := b.Take(ctx, store.LeaseWebhooks)
		if err != nil || other != nil || held.Holder != "a" {
			t.Fatalf("b's Take while a renews: %v, %+v, %v; want a's lease", other, held, err)
		}
		if tenure.Context().Err() != nil {
			t.Fatalf("a's tenure ended while it renewed: %v", context.Cause(tenure.Context()))
		}
	}
	tenure.Release()
	next, _, err := b.Take(ctx, store.LeaseWebhooks)
	if err != nil || next == nil {
		t.Fatalf("b's Take after a released: %v, %v", next, err)
	}
	next.Release()
}

// TestTenureEndsWhenItCannotRenew: while the database makes every
// renewal wait (on SQLite another connection holds the file's write lock;
// on PostgreSQL another transaction holds the lease's row, as a database
// out of reach or a failover would keep it from answering), a's renewals
// cannot go through, and its tenure ends with ErrLost before the lease
// runs out: before another instance could take it.
func TestTenureEndsWhenItCannotRenew(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		target := d.Target(t)
		a := holder(openStore(t, target), "a", 3*time.Second)
		tenure, _, err := a.Take(ctx, store.LeaseRefresh)
		if err != nil || tenure == nil {
			t.Fatalf("a's Take: %v, %v", tenure, err)
		}
		defer tenure.Release()
		expires := tenure.Lease().ExpiresAt

		unblock := blockLeaseWrites(t, d.Name, target)
		<-tenure.Context().Done()
		ended := time.Now()
		unblock()
		if !errors.Is(context.Cause(tenure.Context()), lease.ErrLost) {
			t.Fatalf("a's tenure ended with %v, want ErrLost", context.Cause(tenure.Context()))
		}
		if !ended.Before(expires) {
			t.Errorf("a gave up at %v, after its lease ran out at %v: another could have taken it while a still worked", ended, expires)
		}
	})
}

// blockLeaseWrites makes every write to the leases of the database target
// names wait until the function it returns is called.
func blockLeaseWrites(t *testing.T, dialect, target string) (unblock func()) {
	t.Helper()
	ctx := context.Background()
	if dialect == "postgres" {
		tx, err := storetest.Raw(t, target).BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT name FROM leases WHERE name = $1 FOR UPDATE`, store.LeaseRefresh); err != nil {
			t.Fatal(err)
		}
		return func() { tx.Rollback() }
	}
	db, err := sql.Open("sqlite", "file:"+target+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

func TestNewIDNamesTheHostAndProcess(t *testing.T) {
	a, b := lease.NewID(), lease.NewID()
	if a == b || strings.Count(a, ":") < 2 {
		t.Errorf("NewID gave %q and %q: want host:pid:random, different each time", a, b)
	}
}
