//go:build bench

package bench

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver, for the floors

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// The figures on PostgreSQL (issue 17): 1p, 2p, 6p, 7p and 10p are figures
// 1, 2, 6, 7 and 10 measured in the same run on the PostgreSQL cluster
// that FIELDBOARD_TEST_POSTGRES names (make bench runs under
// scripts/with-postgres, which starts a throwaway cluster for the run and
// removes it after), each against a floor measured on that cluster: every
// database of theirs is a schema of its own there, dropped when the run
// ends.

// postgresCluster returns the URL of the cluster the figures on
// PostgreSQL run on, or why there is none.
func postgresCluster() (cluster, why string) {
	if cluster = os.Getenv(storetest.PostgresEnv); cluster == "" {
		return "", storetest.PostgresEnv + " is not set (make bench runs under scripts/with-postgres, which starts a throwaway cluster when PostgreSQL is installed)"
	}
	return cluster, ""
}

// notRunOnPostgres are the rows of the figures on PostgreSQL that want
// asks for, each saying why it did not run.
func notRunOnPostgres(want figures, why string) []Row {
	var rows []Row
	for _, f := range []struct {
		number int
		figure string
	}{
		{1, "1p full refresh on PostgreSQL"},
		{2, "2p write one snapshot on PostgreSQL"},
		{6, "6p bulk check on PostgreSQL"},
		{7, "7p history import on PostgreSQL"},
		{10, "10p send list on PostgreSQL"},
		{12, "12p next-survey answer on PostgreSQL, two serve instances sharing it"},
		{13, "13p invitation link click on PostgreSQL, two serve instances sharing it"},
		{15, "15p outcomes of a month on PostgreSQL"},
		{16, "16p invoice of a month on PostgreSQL"},
		{17, "17p what to profile next on PostgreSQL"},
	} {
		// Figure 1 comes with 2, and 12p and 13p together.
		if want.any(f.number) || f.number == 1 && want.any(2) || (f.number == 12 || f.number == 13) && want.any(12, 13) {
			rows = append(rows, Row{Figure: f.figure, NotRun: why})
		}
	}
	return rows
}

// onEngine names a figure measured on the database target names: as it
// is on SQLite; on PostgreSQL its number takes a p and its name says so
// ("7 history import ..." is "7p history import ... on PostgreSQL").
func onEngine(target, figure string) string {
	if !store.IsPostgres(target) {
		return figure
	}
	number, rest, _ := strings.Cut(figure, " ")
	return number + "p " + rest + " on PostgreSQL"
}

// engineOf names the engine of the database target names.
func engineOf(target string) string {
	if store.IsPostgres(target) {
		return "PostgreSQL"
	}
	return "SQLite"
}

// pgSchema creates an empty schema, bench_NAME_RANDOM, in cluster and
// returns the URL whose search_path is that schema, so every table the
// store creates lands there. It is dropped when the test ends, or before
// by dropSchema.
func pgSchema(t *testing.T, cluster, name string) string {
	u, err := url.Parse(cluster)
	if err != nil {
		t.Fatalf("%s: %v", storetest.PostgresEnv, err)
	}
	var random [4]byte
	rand.Read(random[:])
	schema := "bench_" + name + "_" + hex.EncodeToString(random[:])
	admin(t, cluster, `CREATE SCHEMA `+schema)
	t.Cleanup(func() { admin(t, cluster, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`) })
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// schemaOf is the schema of a URL pgSchema made.
func schemaOf(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

// dropSchema drops the schema of target, a URL pgSchema made, at once: a
// figure that makes several large databases drops each when done.
func dropSchema(t *testing.T, cluster, target string) {
	admin(t, cluster, `DROP SCHEMA `+schemaOf(t, target)+` CASCADE`)
}

// admin runs one statement on cluster, on a connection of its own.
func admin(t *testing.T, cluster, statement string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, cluster)
	if err != nil {
		t.Fatalf("connect to %s: %v", store.Describe(cluster), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, statement); err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
}

// pgConnect opens one pgx connection to target, closed when the test ends.
func pgConnect(t *testing.T, target string) *pgx.Conn {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, target)
	if err != nil {
		t.Fatalf("connect to %s: %v", store.Describe(target), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// postgresScenario copies the SQLite scenario at path, table by table and
// row by row, into a new schema of cluster made by the store's
// migrations, and returns its URL: 6p and 10p run on the same data as 6
// and 10. Times become timestamptz and flags booleans, as the schema on
// PostgreSQL has them. The tables are then vacuumed and analyzed, as
// autovacuum leaves a database that has been up a while after a load.
func postgresScenario(t *testing.T, cluster, path string) string {
	target := pgSchema(t, cluster, "scenario")
	copyScenario(t, path, target)
	return target
}

// copyScenario copies the SQLite scenario at path into the empty
// database target names (postgresScenario).
func copyScenario(t *testing.T, path, target string) {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	src, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var tables []string
	rows, err := src.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_version' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	conn := pgConnect(t, target)
	start := time.Now()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	copied := map[string]int64{}
	for _, table := range tables {
		columns, kinds := pgColumns(t, conn, table)
		if len(columns) == 0 {
			t.Fatalf("the scenario's table %s is not in the schema on PostgreSQL", table)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM `+table); err != nil {
			t.Fatal(err)
		}
		rows, err := src.QueryContext(ctx, `SELECT "`+strings.Join(columns, `", "`)+`" FROM `+table)
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		n, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, &sqliteRows{rows: rows, kinds: kinds, values: make([]any, len(kinds))})
		rows.Close()
		if err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
		copied[table] = n
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The scenario holds no row a sequence would number next, but the
	// identity columns start after the ids copied all the same.
	if _, err := conn.Exec(ctx, `DO $$ DECLARE c record; BEGIN
		FOR c IN SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES' LOOP
			EXECUTE format('SELECT setval(pg_get_serial_sequence(%L, %L), GREATEST(1, (SELECT COALESCE(MAX(%I), 0) FROM %I)))', c.table_name, c.column_name, c.column_name, c.table_name);
		END LOOP; END $$`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
	t.Logf("the scenario copied to PostgreSQL in %v: %d history records, %d profiles, %d panelists of the panel, %d live subsamples",
		time.Since(start).Round(time.Millisecond), copied["history"], copied["profiles"], copied["panel"], copied["live_subsamples"])
}

// pgColumns returns the columns of table in the current schema of conn,
// and the type of each.
func pgColumns(t *testing.T, conn *pgx.Conn, table string) (columns, kinds []string) {
	rows, err := conn.Query(context.Background(), `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var column, kind string
		if err := rows.Scan(&column, &kind); err != nil {
			t.Fatal(err)
		}
		columns, kinds = append(columns, column), append(kinds, kind)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return columns, kinds
}

// sqliteRows gives the rows of a SQLite query to a COPY, each value as
// the PostgreSQL column of its kind takes it: SQLite keeps times as Unix
// milliseconds and flags as 0 and 1.
type sqliteRows struct {
	rows   *sql.Rows
	kinds  []string
	values []any
	err    error
}

func (r *sqliteRows) Next() bool { return r.err == nil && r.rows.Next() }

func (r *sqliteRows) Values() ([]any, error) {
	raw := make([]any, len(r.kinds))
	pointers := make([]any, len(raw))
	for i := range raw {
		pointers[i] = &raw[i]
	}
	if err := r.rows.Scan(pointers...); err != nil {
		r.err = err
		return nil, err
	}
	for i, v := range raw {
		switch r.kinds[i] {
		case "timestamp with time zone":
			if ms, ok := v.(int64); ok {
				v = time.UnixMilli(ms).UTC()
			}
		case "boolean":
			if n, ok := v.(int64); ok {
				v = n != 0
			}
		case "text":
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
		case "double precision":
			if n, ok := v.(int64); ok {
				v = float64(n)
			}
		}
		r.values[i] = v
	}
	return r.values, nil
}

func (r *sqliteRows) Err() error { return errors.Join(r.err, r.rows.Err()) }

// historyImportPostgres is 7p: `ImportHistoryCSV` of the scenario's
// history file into an empty database on PostgreSQL, against the floor: a
// plain COPY of the same rows into the same schema (historyCopy). Each
// runs twice, interleaved, each time into a new schema, and keeps its
// best; both must store the same number of rows. The ratio is the
// floor's time over Fieldboard's, as in figure 7.
func historyImportPostgres(t *testing.T, s sizes, cluster string) Row {
	ctx := context.Background()
	path := historyCSV(t, s)
	warmFile(t, path)
	var stored int64
	ours := func() time.Duration {
		target := pgSchema(t, cluster, "import")
		defer dropSchema(t, cluster, target)
		st, err := store.Open(ctx, target)
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
	floor := func() time.Duration {
		target := pgSchema(t, cluster, "copy")
		defer dropSchema(t, cluster, target)
		took, rows := historyCopy(t, path, target)
		if rows != stored {
			t.Fatalf("history import on PostgreSQL stored %d rows, the plain COPY %d: want the same", stored, rows)
		}
		return took
	}
	var oursBest, floorBest time.Duration
	for i := range 2 {
		took := ours()
		floorTook := floor()
		t.Logf("history import on PostgreSQL, round %d: %v; plain COPY: %v", i+1, took.Round(time.Millisecond), floorTook.Round(time.Millisecond))
		if i == 0 {
			oursBest, floorBest = took, floorTook
		}
		oursBest, floorBest = min(oursBest, took), min(floorBest, floorTook)
	}
	ratio := floorBest.Seconds() / oursBest.Seconds()
	return Row{Figure: fmt.Sprintf("7p history import of %d CSV records on PostgreSQL (throughput against the floor: a plain COPY of the same rows)", s.history),
		Value: ms(oursBest), Unit: "ms", Floor: ms(floorBest), Ratio: round(ratio), Target: ">= 0.7 x floor", Met: ratio >= 0.7}
}

// historyCopy loads the history CSV at path into the history table of the
// empty database target names (its schema made by the store), as plainly
// as PostgreSQL loads rows: one COPY in one transaction, each line split
// on its commas and its time read from the file's fixed layout by hand,
// with no validation, no line numbers and no report. It returns the time
// from the first line read to the commit, and the rows stored.
func historyCopy(t *testing.T, path, target string) (time.Duration, int64) {
	ctx := context.Background()
	st, err := store.Open(ctx, target) // the same schema
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn := pgConnect(t, target)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	lines := bufio.NewReaderSize(f, 1<<16)
	if _, err := lines.ReadSlice('\n'); err != nil { // the header
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.CopyFrom(ctx, pgx.Identifier{"history"},
		[]string{"panelist_id", "subsample_id", "status_id", "registered_at", "event_id", "category_id", "research_type_id"},
		&csvRows{lines: lines, values: make([]any, 0, 7)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return time.Since(start), rows
}

// csvRows gives the lines of the scenario's history file to a COPY.
type csvRows struct {
	lines  *bufio.Reader
	values []any
	err    error
}

func (r *csvRows) Next() bool {
	for r.err == nil {
		line, err := r.lines.ReadSlice('\n')
		if err != nil && err != io.EOF {
			r.err = err
			return false
		}
		if len(line) > 1 {
			r.values = appendHistoryRow(r.values[:0], line)
			r.values[3] = time.UnixMilli(r.values[3].(int64)).UTC()
			return true
		}
		if err == io.EOF {
			return false
		}
	}
	return false
}

func (r *csvRows) Values() ([]any, error) { return r.values, nil }
func (r *csvRows) Err() error             { return r.err }

// snapshotWritePostgres is 2p: figure 2's writes on PostgreSQL, into the
// database 1p refreshed (target): snapshotWrites snapshots 3 minutes
// apart, each written as a refresh writes it (saveSnapshot, change feed,
// pacing and webhooks included), the median. Its floor is the plainest
// write of the same rows into a copy of that database made before the
// first write: after each of Fieldboard's writes, the rows it left in the
// tables a snapshot replaces, and the rows it added to those a snapshot
// adds to, are read back, and the floor writes them in one transaction,
// a TRUNCATE of the former and a COPY into each table. Both must then
// hold the same rows in every table written.
func snapshotWritePostgres(t *testing.T, s sizes, cluster, target string) Row {
	ctx := context.Background()
	clock := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC) // simOptions' creation time: 1p's snapshot
	var mu sync.Mutex
	opts := simOptions(s)
	opts.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	c, err := client.New(client.Config{BaseURL: serve(t, sim.New(opts))})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	addWebhooks(t, st, clock)
	floorTarget := pgSchema(t, cluster, "floor")
	floorStore, err := store.Open(ctx, floorTarget) // the same schema
	if err != nil {
		t.Fatal(err)
	}
	floorStore.Close()
	conn := pgConnect(t, target)
	ours, floor := schemaOf(t, target), schemaOf(t, floorTarget)
	copySchema(t, conn, ours, floor)

	var took, tookFloor []time.Duration
	var snap store.EventsSnapshot
	changes := 0
	for range snapshotWrites {
		mu.Lock()
		clock = clock.Add(3 * time.Minute)
		mu.Unlock()
		snap = readSnapshot(t, c)
		marks := appendMarks(t, conn, ours)
		took = append(took, saveSnapshot(t, st, &snap, true, &changes))
		written := writtenRows(t, conn, ours, marks)
		tookFloor = append(tookFloor, plainWrite(t, conn, floor, written))
	}
	for _, table := range writtenTables() {
		a, b := tableDigest(t, conn, ours, table), tableDigest(t, conn, floor, table)
		if a != b {
			t.Fatalf("2p: after the writes, table %s holds %s in Fieldboard's database and %s in the floor's: want the same rows", table, a, b)
		}
	}
	median, medianFloor := medianOf(took), medianOf(tookFloor)
	t.Logf("snapshot writes on PostgreSQL: %v; the plain writes of the same rows: %v; %d changes found", took, tookFloor, changes)
	ratio := median.Seconds() / medianFloor.Seconds()
	return Row{Figure: fmt.Sprintf("2p write one snapshot (%d subsamples, %d live; median of %d, 3 minutes apart; change feed included) on PostgreSQL (floor: a TRUNCATE and a COPY of the same rows)",
		len(snap.Summaries), len(snap.Live), snapshotWrites),
		Value: ms(median), Unit: "ms", Floor: ms(medianFloor), Ratio: round(ratio), Target: "<= 2 x floor", Met: ratio <= 2}
}

// replacedTables are the tables a snapshot write leaves holding the
// snapshot's rows alone, or whose rows it may write again whoever they
// are of (those it keeps of earlier snapshots, the categories, topics
// and invoice parties, are among them: the floor writes them as they are
// after the write).
var replacedTables = []string{"subsamples", "live_subsamples", "live_categories", "live_countries", "live_locales",
	"categories", "quotas", "eligibility_rules", "subsample_fetches", "subsample_states", "subsample_topics",
	"subsample_categories", "invoice_parties", "datasets", "snapshot_version"}

// appendedTables are the tables a snapshot write adds rows to, each with
// the column its new rows are above the old ones in.
var appendedTables = []struct{ table, column string }{
	{"refresh_runs", "run_id"}, {"quota_history", "at"}, {"price_history", "from_at"}, {"changes", "change_id"},
	{"webhook_deliveries", "delivery_id"},
}

func writtenTables() []string {
	tables := slices.Clone(replacedTables)
	for _, a := range appendedTables {
		tables = append(tables, a.table)
	}
	return tables
}

// copySchema makes every table of schema to hold the rows of the same
// table of schema from (the store made both, so their columns line up).
func copySchema(t *testing.T, conn *pgx.Conn, from, to string) {
	ctx := context.Background()
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name != 'schema_version'`, to)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		for _, statement := range []string{`DELETE FROM ` + to + `.` + table, `INSERT INTO ` + to + `.` + table + ` SELECT * FROM ` + from + `.` + table} {
			if _, err := conn.Exec(ctx, statement); err != nil {
				t.Fatalf("%s: %v", statement, err)
			}
		}
	}
}

// appendMarks reads, for each appended table of schema, the highest value
// of its column (nil in an empty table).
func appendMarks(t *testing.T, conn *pgx.Conn, schema string) []any {
	marks := make([]any, len(appendedTables))
	for i, a := range appendedTables {
		if err := conn.QueryRow(context.Background(), `SELECT MAX(`+a.column+`) FROM `+schema+`.`+a.table).Scan(&marks[i]); err != nil {
			t.Fatal(err)
		}
	}
	return marks
}

// tableRows are rows read back from a table, to be written again.
type tableRows struct {
	table   string
	replace bool
	columns []string
	rows    [][]any
}

// writtenRows reads back what a snapshot write left in schema: every row
// of the replaced tables, and the rows of the appended ones above marks.
func writtenRows(t *testing.T, conn *pgx.Conn, schema string, marks []any) []tableRows {
	read := func(table string, replace bool, query string, args ...any) tableRows {
		rows, err := conn.Query(context.Background(), query, args...)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out := tableRows{table: table, replace: replace}
		for _, f := range rows.FieldDescriptions() {
			out.columns = append(out.columns, f.Name)
		}
		if out.rows, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() }); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return out
	}
	var out []tableRows
	for _, table := range replacedTables {
		out = append(out, read(table, true, `SELECT * FROM `+schema+`.`+table))
	}
	for i, a := range appendedTables {
		query := `SELECT * FROM ` + schema + `.` + a.table
		if marks[i] == nil {
			out = append(out, read(a.table, false, query))
		} else {
			out = append(out, read(a.table, false, query+` WHERE `+a.column+` > $1`, marks[i]))
		}
	}
	return out
}

// plainWrite writes written into schema in one transaction, a TRUNCATE of
// the replaced tables and a COPY into each table, and returns how long it
// took.
func plainWrite(t *testing.T, conn *pgx.Conn, schema string, written []tableRows) time.Duration {
	ctx := context.Background()
	var replaced []string
	for _, w := range written {
		if w.replace {
			replaced = append(replaced, schema+"."+w.table)
		}
	}
	start := time.Now()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `TRUNCATE `+strings.Join(replaced, ", ")); err != nil {
		t.Fatal(err)
	}
	for _, w := range written {
		if len(w.rows) == 0 {
			continue
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{schema, w.table}, w.columns, pgx.CopyFromRows(w.rows)); err != nil {
			t.Fatalf("copy into %s: %v", w.table, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// tableDigest is a table's row count and a digest of its rows, in an
// order of their own.
func tableDigest(t *testing.T, conn *pgx.Conn, schema, table string) string {
	var n int64
	var digest string
	if err := conn.QueryRow(context.Background(), `SELECT COUNT(*), COALESCE(md5(string_agg(r::text, '|' ORDER BY r::text)), '')
		FROM `+schema+`.`+table+` r`).Scan(&n, &digest); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d rows (md5 %s)", n, digest)
}

// sendListPostgres is 10p: figure 10's send list, `fieldboard targets`
// in its own process on the scenario's copy on PostgreSQL (target),
// against the cheapest correct answer by hand on the same database
// (floorSendList).
func sendListPostgres(t *testing.T, target string) Row {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	subsample := subsampleWithCells(t, st, 10)
	counts := countScenario(t, st)
	st.Close()
	took, listed, rss := runTargets(t, buildFieldboard(t), target, subsample)
	floor, floorListed := floorSendList(t, target, subsample)
	if floorListed != listed {
		t.Errorf("10p: the send list of subsample %d has %d panelists, the hand-written floor %d: want the same", subsample, listed, floorListed)
	}
	ratio := took.Seconds() / floor.Seconds()
	return Row{Figure: fmt.Sprintf("10p send list of subsample %d (%d panelists) over %d profiles and %d history records on PostgreSQL; peak RSS %.0f MiB (floor: one hand-written query and the quota matcher)",
		subsample, listed, counts.profiles, counts.history, rss),
		Value: ms(took), Unit: "ms", Floor: ms(floor), Ratio: round(ratio), Target: "<= 1.5 x floor, RSS <= 150 MB", Met: ratio <= 1.5 && rss*1.048576 <= 150}
}

// floorSendList is 10p's floor: the send list of subsample on the
// database target names, counted, as cheaply as it can be written by
// hand: one SQL query for the profiles of the panelists who fit the
// subsample's country and locale and whom no history record excludes
// (the conditions of figure 6's floor), then the quota matcher on each
// profile. Its subsample, rules, quotas and links are read beforehand.
// It returns the best of three runs and how many panelists it listed.
func floorSendList(t *testing.T, target string, subsample int64) (time.Duration, int) {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ruleSet, err := st.EligibilityRulesOf(ctx, subsample)
	if err != nil {
		t.Fatal(err)
	}
	quotas, err := st.QuotasOf(ctx, subsample)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := st.ReadSnapshot(ctx, subsample)
	if err != nil {
		t.Fatal(err)
	}
	reports, err := (&checks.Service{Store: st, Now: time.Now}).Subsamples(ctx, checks.SubsampleFilter{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	var eventID int64
	for _, r := range reports {
		if r.SubsampleID == subsample {
			eventID = r.EventID
		}
	}
	var locales []string
	for _, l := range snap.Links[subsample] {
		locales = append(locales, strings.ToLower(l.Name))
	}
	cells := rules.CompileQuotas(quotas)
	conn := openFloor(t, target)
	query := `SELECT pr.answers FROM profiles pr JOIN panel p ON p.panelist_id = pr.panelist_id WHERE ` + panelFits(snap.Countries[subsample], locales) + `
		AND NOT EXISTS (SELECT 1 FROM history h WHERE h.panelist_id = pr.panelist_id AND (` +
		exclusions(conn, ruleSet, rules.Target{SubsampleID: subsample, EventID: eventID}, now) + `))`
	listed := 0
	run := func() time.Duration {
		listed = 0
		start := time.Now()
		rows, err := conn.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		defer rows.Close()
		for rows.Next() {
			var blob []byte
			if err := rows.Scan(&blob); err != nil {
				t.Fatal(err)
			}
			p, err := store.DecodeProfile(blob)
			if err != nil {
				t.Fatal(err)
			}
			if cells.Verdict(p, now) == rules.QuotaFits {
				listed++
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	run()
	return best(3, run), listed
}
