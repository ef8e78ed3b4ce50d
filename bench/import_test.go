//go:build bench

package bench

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/store"
	"fieldboard/web/refresh"
)

// historyCSV writes the scenario's history as a CSV file in the cache
// folder, once.
func historyCSV(t *testing.T, s sizes) string {
	dir := filepath.Join(os.TempDir(), "fieldboard-bench", fmt.Sprintf("history-seed%d-sub%d-hist%d-pan%d", s.seed, s.subsamples, s.history, s.panelists))
	path := filepath.Join(dir, "history.csv")
	if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(store.HistoryHeader + "\n")
	simulator := sim.New(simOptions(s))
	for r := range simulator.History(s.seed, s.history, s.panelists) {
		fmt.Fprintf(w, "%s,%d,%d,%s,%d,%d,%d\n", r.PanelistID, r.SubsampleID, r.StatusID,
			r.RegisteredAt.UTC().Format("2006-01-02T15:04:05.000"), r.EventID, r.CategoryID, r.ResearchTypeID)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	return path
}

// historyImport is figure 7: `ImportHistoryCSV` of the scenario's history
// file into an empty database, against inserting the same rows with one
// prepared statement in one transaction, without validation.
func historyImport(t *testing.T, s sizes) Row {
	ctx := context.Background()
	path := historyCSV(t, s)
	dir := t.TempDir()

	ours := func() time.Duration {
		db := filepath.Join(dir, "import.db")
		os.Remove(db)
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		start := time.Now()
		report, err := st.ImportHistoryCSV(ctx, f, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if report.Records != s.history {
			t.Fatalf("imported %d records, want %d", report.Records, s.history)
		}
		return took
	}()

	floor := func() time.Duration {
		db := filepath.Join(dir, "floor.db")
		st, err := store.Open(ctx, db) // the same schema
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetMaxOpenConns(1)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		start := time.Now()
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO history (panelist_id, subsample_id, status_id, registered_at, event_id, category_id, research_type_id) VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<16), 1<<16)
		sc.Scan() // header
		for sc.Scan() {
			c := strings.Split(sc.Text(), ",")
			at, _ := time.Parse("2006-01-02T15:04:05.000", c[3])
			if _, err := stmt.ExecContext(ctx, c[0], atoi(c[1]), atoi(c[2]), at.UnixMilli(), atoi(c[4]), atoi(c[5]), atoi(c[6])); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}()

	ratio := floor.Seconds() / ours.Seconds()
	t.Logf("history import of %d records: %v (floor %v)", s.history, ours.Round(time.Millisecond), floor.Round(time.Millisecond))
	return Row{Figure: fmt.Sprintf("7 history import of %d CSV records (throughput against the floor)", s.history),
		Value: ms(ours), Unit: "ms", Floor: ms(floor), Ratio: round(ratio), Target: ">= 0.7 x floor", Met: ratio >= 0.7}
}

func atoi(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

// weekOfRefreshes is figure 9: the database after a week of refreshes
// every 3 minutes at the default retention (7 days). A week is 3,360
// refreshes; running them all would take most of an hour, so the figure
// is the scenario's database (history included) plus 3,360 times the
// growth of one refresh, measured over five refreshes with the
// simulator's clock moved 3 minutes each time, so quotas move as they do
// in field. The quota history is the only table that grows; it keeps a
// row per quota whose counts changed.
func weekOfRefreshes(t *testing.T, s sizes, scenario string) Row {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "week.db")
	copyFile(t, scenario, db)
	clock := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	opts := simOptions(s)
	opts.Now = now
	simulator := sim.New(opts)
	c, err := client.New(client.Config{BaseURL: serve(t, simulator)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r := refresh.New(c, st, refresh.Options{Concurrency: benchConcurrency, Logger: discardLogger(), Now: now})
	defer r.Close()
	// The pages in use, not the file's size: SQLite reuses free pages
	// before it grows the file, and the cached scenario has some.
	size := func() int64 {
		if err := st.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		return usedBytes(t, db)
	}
	refreshAt := func() {
		mu.Lock()
		clock = clock.Add(3 * time.Minute)
		mu.Unlock()
		if err := r.Refresh(ctx, refresh.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	// The first refreshes replace the cached snapshot's rows and settle
	// its pages; growth is measured after them, and a shrink counts as none.
	for range 3 {
		refreshAt()
	}
	base := size()
	const measured = 5
	for range measured {
		refreshAt()
	}
	perRefresh := max(0, float64(size()-base)/measured)
	const week = 7 * 24 * 60 / 3
	total := float64(base) + perRefresh*week
	t.Logf("database %.0f MiB, growing %.1f KiB a refresh", float64(base)/(1<<20), perRefresh/1024)
	gib := total / (1 << 30)
	return Row{Figure: fmt.Sprintf("9 database after a week of refreshes (%d), extrapolated from %d", week, measured),
		Value: round(gib), Unit: "GiB", Target: "<= 2 GB", Met: total <= 2e9}
}

// usedBytes is the size of the pages of the database at path that hold
// data: page_count minus freelist_count, times page_size.
func usedBytes(t *testing.T, path string) int64 {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pages, free, pageSize int64
	for q, v := range map[string]*int64{"PRAGMA page_count": &pages, "PRAGMA freelist_count": &free, "PRAGMA page_size": &pageSize} {
		if err := db.QueryRow(q).Scan(v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return (pages - free) * pageSize
}
