//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
// file into an empty database, against the floor: the fastest plain load
// of the same rows into the same schema (historyFloor). Both read the file
// from the page cache (it is read once beforehand) and must store the same
// number of rows; the ratio is the floor's time over Fieldboard's, the
// share of the floor's throughput Fieldboard keeps while it validates,
// streams and reports.
func historyImport(t *testing.T, s sizes) Row {
	ctx := context.Background()
	path := historyCSV(t, s)
	dir := t.TempDir()
	warmFile(t, path)

	var stored int64
	ours := func() time.Duration {
		db := filepath.Join(dir, "import.db")
		removeDatabase(t, db)
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
		if stored, err = st.CountHistory(ctx); err != nil {
			t.Fatal(err)
		}
		return took
	}
	floor := func(batch int) time.Duration {
		db := filepath.Join(dir, "floor.db")
		removeDatabase(t, db)
		took, rows := historyFloor(t, path, db, batch)
		if rows != stored {
			t.Fatalf("history import stored %d rows, the floor (%d rows an INSERT) %d: want the same", stored, batch, rows)
		}
		return took
	}
	// The machine is shared: each side runs twice, interleaved, and keeps
	// its best; the floor is the faster of its two batch sizes.
	var oursBest, floorBest time.Duration
	for i, batch := range floorBatches {
		took := ours()
		floorTook := floor(batch)
		t.Logf("history import round %d: %v; floor at %d rows an INSERT: %v", i+1, took.Round(time.Millisecond), batch, floorTook.Round(time.Millisecond))
		if i == 0 {
			oursBest, floorBest = took, floorTook
		}
		oursBest, floorBest = min(oursBest, took), min(floorBest, floorTook)
	}
	ratio := floorBest.Seconds() / oursBest.Seconds()
	return Row{Figure: fmt.Sprintf("7 history import of %d CSV records (throughput against the floor: the faster plain load, %d or %d rows an INSERT)", s.history, floorBatches[0], floorBatches[1]),
		Value: ms(oursBest), Unit: "ms", Floor: ms(floorBest), Ratio: round(ratio), Target: ">= 0.7 x floor", Met: ratio >= 0.7}
}

// importCacheKiB is the writer's page cache during the store's imports
// (store.importCacheKiB), which the floor gets too.
const importCacheKiB = 64 << 10

// floorBatches are how many rows each of the floor's INSERTs writes, one
// size a round: Fieldboard's 64, and 1,024. Tried on the scenario's file,
// 1 row an INSERT took twice as long and 16 a third longer; 64 to 4,096
// were within the shared machine's noise of each other.
var floorBatches = [2]int{64, 1024}

// historyFloor loads the history CSV at path into a new database at db,
// as plainly as it can be done fast: the store's schema, its pragmas and
// its import page cache; one transaction; one prepared INSERT OR IGNORE of
// batch rows at a time (the last few one by one); each line split on its
// commas and its time read from the file's fixed layout by hand, with no
// validation, no line numbers and no report. It returns the time from the
// first line read to the commit, and the rows stored.
func historyFloor(t *testing.T, path, db string, batch int) (time.Duration, int64) {
	ctx := context.Background()
	st, err := store.Open(ctx, db) // the same schema
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"+
		fmt.Sprintf("&_pragma=cache_size(%d)", -importCacheKiB))
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

	insert := func(n int) string {
		return `INSERT OR IGNORE INTO history (panelist_id, subsample_id, status_id, registered_at, event_id, category_id, research_type_id) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", n), ", ")
	}
	start := time.Now()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	many, err := tx.PrepareContext(ctx, insert(batch))
	if err != nil {
		t.Fatal(err)
	}
	one, err := tx.PrepareContext(ctx, insert(1))
	if err != nil {
		t.Fatal(err)
	}
	args := make([]any, 0, 7*batch)
	lines := bufio.NewReaderSize(f, 1<<16)
	if _, err := lines.ReadSlice('\n'); err != nil { // the header
		t.Fatal(err)
	}
	for {
		line, err := lines.ReadSlice('\n')
		if len(line) > 1 {
			args = appendHistoryRow(args, line)
			if len(args) == cap(args) {
				if _, err := many.ExecContext(ctx, args...); err != nil {
					t.Fatal(err)
				}
				args = args[:0]
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < len(args); i += 7 {
		if _, err := one.ExecContext(ctx, args[i:i+7]...); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	var rows int64
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM history`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	return took, rows
}

// appendHistoryRow appends the seven values of one line of the scenario's
// history file (historyCSV writes it: no quotes, the time as
// 2006-01-02T15:04:05.000 in UTC) to args, as the store keeps them.
func appendHistoryRow(args []any, line []byte) []any {
	var f [7][]byte
	for i := range 6 {
		comma := bytes.IndexByte(line, ',')
		f[i], line = line[:comma], line[comma+1:]
	}
	f[6] = bytes.TrimRight(line, "\r\n")
	at := f[3]
	registered := time.Date(digits(at[0:4]), time.Month(digits(at[5:7])), digits(at[8:10]),
		digits(at[11:13]), digits(at[14:16]), digits(at[17:19]), digits(at[20:23])*int(time.Millisecond), time.UTC)
	return append(args, string(f[0]), int64(digits(f[1])), int64(digits(f[2])), registered.UnixMilli(),
		int64(digits(f[4])), int64(digits(f[5])), int64(digits(f[6])))
}

// digits reads a run of decimal digits, unchecked.
func digits(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

// removeDatabase removes the database at path and its WAL files, if any.
func removeDatabase(t *testing.T, path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// warmFile reads the file at path once, so that the runs after it read it
// from the page cache alike.
func warmFile(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
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
