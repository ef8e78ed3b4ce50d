package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
)

// TestKilledRefreshKeepsPreviousSnapshot kills `fieldboard refresh`
// (SIGKILL) while it writes the events snapshot, and checks that the
// database still holds the previous snapshot, unchanged, and nothing of
// the one being written.
//
// The kill lands inside the write: the first write the child makes once
// it has asked for event/all is the events snapshot (the reference data
// is written before event/all; the library, read while the snapshot is
// written, is written after it commits). The test polls the database's
// write lock in that window. A first refresh, watched to its
// end, times how long the lock is held; each round then kills the child
// at a different depth of the write: as the lock is taken, a third of the
// way in, two thirds in. A round whose write committed before the kill
// landed proves nothing (the new snapshot must then be whole) and is run
// again. (store/crash_test.go kills a writer of synthetic snapshots the
// same way, by the store alone.)
func TestKilledRefreshKeepsPreviousSnapshot(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	// Each refresh reads the provider 10 minutes later than the one before:
	// quotas fill and statuses move, so half a snapshot differs from both.
	var requests phases
	var minutes atomic.Int64
	now := func() time.Time {
		return time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).Add(time.Duration(minutes.Load()) * time.Minute)
	}
	srv := httptest.NewServer(requests.watch(sim.New(sim.Options{Seed: 5, Subsamples: 400, Locales: 2, QuestionsPerLocale: 10, Now: now})))
	t.Cleanup(srv.Close)
	db := filepath.Join(t.TempDir(), "fb.db")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"refresh", "--upstream", srv.URL, "--db", db}, &out, &out); err != nil {
		t.Fatal(err)
	}
	lock := openLockProbe(t, db)
	// held: the write was seen holding the lock; released: then not.
	var held, released bool
	writing := func() bool {
		if requests.eventAll.Load() == 0 || released {
			return false
		}
		if lock.held(t) {
			held = true
			return true
		}
		released = held
		return false
	}
	start := func() (*exec.Cmd, chan error) {
		requests.reset()
		held, released = false, false
		minutes.Add(10)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childArgs+"=refresh\n--upstream\n"+srv.URL+"\n--db\n"+db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		return cmd, exited
	}

	// Time the write: from the first poll that finds the lock held to the last.
	_, exited := start()
	var first, last time.Time
	for done := false; !done; time.Sleep(100 * time.Microsecond) {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("the watched refresh failed: %v", err)
			}
			done = true
		default:
			if writing() {
				if first.IsZero() {
					first = time.Now()
				}
				last = time.Now()
			}
		}
	}
	if first.IsZero() {
		t.Fatal("the snapshot write was never seen holding the database: it is too short to kill inside")
	}
	write := last.Sub(first)

	const attempts = 6
	for _, depth := range []float64{0, 1.0 / 3, 2.0 / 3} {
		for attempt := 1; ; attempt++ {
			if attempt > attempts {
				t.Fatalf("in %d attempts no kill %.0f%% into the write (%v long) landed before it committed", attempts, depth*100, write)
			}
			before := snapshotOf(t, db)
			cmd, exited := start()
			var err error
			var seen, held time.Time
		watch:
			for {
				select {
				case err = <-exited:
					t.Fatalf("the child refresh ended (%v) before it was killed inside its write", err)
				default:
				}
				now := time.Now()
				over := false
				if writing() {
					held = now
					if seen.IsZero() {
						seen = now
					}
				} else {
					over = !seen.IsZero()
				}
				// Kill at the depth, or at once when the write is seen over:
				// it was shorter than timed, and the next round aims by it.
				if !seen.IsZero() && (over || now.Sub(seen) >= time.Duration(depth*float64(write))) {
					cmd.Process.Kill()
					err = <-exited
					if over {
						write = held.Sub(seen)
					}
					break watch
				}
				time.Sleep(100 * time.Microsecond)
			}
			if err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("the child refresh ended with %v, not killed", err)
			}
			after := snapshotOf(t, db)
			if after.Run != before.Run {
				t.Logf("%.0f%% into the write, attempt %d: it committed before the kill landed (run %d, then %d); again", depth*100, attempt, before.Run, after.Run)
				continue
			}
			if after.Data != before.Data {
				t.Fatalf("killed %.0f%% into the write: the database still names run %d, but its data changed: half a snapshot", depth*100, after.Run)
			}
			t.Logf("killed %.0f%% into the write (%v long): run %d and its %d live subsamples kept as they were", depth*100, write, after.Run, after.Live)
			break
		}
	}
}

// phases counts a refresh's requests to the provider that start a
// phase: event/all starts the events.
type phases struct {
	eventAll atomic.Int64
}

func (p *phases) reset() {
	p.eventAll.Store(0)
}

func (p *phases) watch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/event/all") {
			p.eventAll.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

// lockProbe asks SQLite, without waiting, whether another process holds
// the database's write lock.
type lockProbe struct{ conn *sql.Conn }

func openLockProbe(t *testing.T, path string) lockProbe {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return lockProbe{conn}
}

// held reports whether a writer holds the lock: BEGIN IMMEDIATE, which
// takes it, is refused as busy. When it is free, the probe lets go at once.
func (p lockProbe) held(t *testing.T) bool {
	t.Helper()
	ctx := context.Background()
	if _, err := p.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		if strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "locked") {
			return true
		}
		t.Fatalf("probe the write lock: %v", err)
	}
	if _, err := p.conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatalf("release the write lock: %v", err)
	}
	return false
}

// snapshot is what a reader sees of the current events snapshot: its run,
// how many live subsamples it holds, and all of its rows (every subsample,
// every live row, each live subsample's quotas) as JSON.
type snapshot struct {
	Run  int64
	Live int
	Data string
}

// snapshotOf opens the database and reads its current events snapshot,
// failing the test when a live subsample has no quota fetch (half a
// snapshot) or there is no current snapshot.
func snapshotOf(t *testing.T, db string) snapshot {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	states, err := st.Datasets(ctx)
	if err != nil || states[store.DatasetEvents].CurrentRunID == nil {
		t.Fatalf("no current events snapshot: %v", err)
	}
	subsamples, err := st.SubsampleRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live, err := st.LiveRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	data := []any{subsamples, live}
	for _, r := range live {
		if r.QuotasOK == nil {
			t.Fatalf("subsample %d is live without a quota fetch: half a snapshot", r.SubsampleID)
		}
		quotas, err := st.QuotasOf(ctx, r.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, quotas)
	}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{Run: *states[store.DatasetEvents].CurrentRunID, Live: len(live), Data: string(b)}
}
