package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"fieldboard/rules/domain"
)

// sqlite is the dialect of a SQLite file, the default: one process, no
// server.
//
// SQLite allows one writer at a time, so the store holds two pools over
// the same file: a single-connection writer, so writes queue in Go instead
// of failing with "database is locked", and a reader pool that WAL mode
// lets run beside the writer, query_only so that nothing there writes.
//
// The writer begins its transactions IMMEDIATE: each takes the file's
// write lock at BEGIN, waiting for it (the busy timeout) while another
// process holds it. Several processes may share the file (instances on
// one machine), and a transaction begun DEFERRED that reads before it
// writes is refused "database is locked" (SQLITE_BUSY) at once, without
// the wait, when another process wrote meanwhile: SQLite cannot make a
// writer of a transaction whose snapshot is stale. (Within one process
// the single writer already kept the transactions apart.)
type sqlite struct{}

func (sqlite) name() string { return "sqlite" }

func (sqlite) open(path string) (writer, reader *sqlx.DB, err error) {
	dsn := sqliteDSN(path)
	// The writer's commits never copy the log into the file
	// (wal_autocheckpoint 0): checkpoints does, in the background.
	if writer, err = sqlx.Open("sqlite", dsn+"&_txlock=immediate&_pragma=wal_autocheckpoint(0)"); err != nil {
		return nil, nil, err
	}
	writer.SetMaxOpenConns(1)
	if reader, err = sqlx.Open("sqlite", dsn+"&_pragma=query_only(1)"); err != nil {
		writer.Close()
		return nil, nil, err
	}
	reader.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)*2))
	reader.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)*2))
	return writer, reader, nil
}

// sqliteDSN builds the driver's DSN: WAL so readers never wait for the
// writer, a busy timeout for the moments they still must, and times stored
// as Unix milliseconds.
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_time_integer_format", "unix_milli")
	q.Set("_inttotime", "1")
	return "file:" + path + "?" + q.Encode()
}

func (sqlite) textList() string { return `(SELECT value FROM json_each(?))` }

func (sqlite) findText(haystack, needle string) string {
	return "instr(" + haystack + ", " + needle + ")"
}

// snapshotTx: a SQLite transaction reads one snapshot from its first read
// on, whatever commits meanwhile (WAL).
func (sqlite) snapshotTx() *sql.TxOptions { return &sql.TxOptions{ReadOnly: true} }

// lockRows: the single writer already claims alone.
func (sqlite) lockRows(string) string { return "" }

// serialize: the single writer already writes one transaction at a time.
func (sqlite) serialize(context.Context, *sqlx.Tx, string) error { return nil }

func (sqlite) uniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// checkpoint copies the write-ahead log into the database file and
// truncates it, so the file's size is the database's size.
func (sqlite) checkpoint(ctx context.Context, writer *sqlx.DB) error {
	_, err := writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// checkpointEvery is how often the log is copied into the database file
// in the background (checkpoints).
const checkpointEvery = 200 * time.Millisecond

// checkpoints copies the write-ahead log into the database file every
// checkpointEvery, as far as no reader still needs it (PASSIVE), on a
// connection of the reader pool: it runs beside the writer instead of
// inside one of its commits, where SQLite's own checkpoint (every 1,000
// pages) would hold up that commit, and every write queued behind it, by
// tens of milliseconds. A checkpoint that fails is tried again at the
// next tick: the log holds what it did not copy.
func (sqlite) checkpoints(reader *sqlx.DB) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(checkpointEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_, _ = reader.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`) // one that fails is tried again at the next tick
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

func (sqlite) tableOptions() string { return "WITHOUT ROWID" }

// insertInTx: an INSERT of many rows in a transaction keeps a journal of
// its own, to undo itself alone, when a constraint could abort it midway
// (a NOT NULL column's check does, by default), and also (as measured)
// when its values are expressions rather than plain parameters. OR FAIL
// stops at the failing row without undoing, so with plain parameters no
// journal is kept, and the transaction's rollback undoes the rest.
func (sqlite) insertInTx() string { return "INSERT OR FAIL" }

// importCacheKiB is the page cache of the writer during an import,
// instead of SQLite's 2 MiB: inserts land all over the table's key, and a
// larger cache spills and rereads far fewer pages. It is bounded, so
// memory still does not grow with the file.
const importCacheKiB = 64 << 10

// beginImport gives the writer importCacheKiB of page cache for an
// import, and gives it its own back after (the writer is the one
// connection the import used).
func (sqlite) beginImport(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx) (func(context.Context) error, error) {
	var cacheSize int64
	if err := tx.GetContext(ctx, &cacheSize, `PRAGMA cache_size`); err != nil {
		return nil, fmt.Errorf("page cache size: %w", err)
	}
	if cacheSize <= -importCacheKiB {
		return func(context.Context) error { return nil }, nil
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, -importCacheKiB)); err != nil {
		return nil, fmt.Errorf("page cache size: %w", err)
	}
	return func(ctx context.Context) error {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, cacheSize)); err != nil {
			return fmt.Errorf("page cache size: %w", err)
		}
		return nil
	}, nil
}

// sqliteHistoryBatch is how many records one INSERT of a history import
// writes: a statement per record would spend more time in database/sql
// and the driver than in SQLite.
const sqliteHistoryBatch = 64

// insertHistory returns the statement that adds n records, each unless the
// same (panelist, subsample, status, time) is already stored. (OR IGNORE
// is SQLite's own: twice as quick here as ON CONFLICT DO NOTHING.)
func insertHistory(n int) string {
	return `INSERT OR IGNORE INTO history
	(panelist_id, subsample_id, status_id, registered_at, event_id, category_id, research_type_id) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", n), ", ")
}

// sqliteHistory writes a history import's records sqliteHistoryBatch at a
// time by insertMany, the last few by insertOne.
type sqliteHistory struct {
	insertOne, insertMany *sql.Stmt
	args                  [sqliteHistoryBatch * 7]any
}

func (sqlite) historyLoader(ctx context.Context, _ *sqlx.Conn, tx *sqlx.Tx, _ bool) (historyLoader, error) {
	l := &sqliteHistory{}
	var err error
	if l.insertOne, err = tx.PrepareContext(ctx, insertHistory(1)); err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if l.insertMany, err = tx.PrepareContext(ctx, insertHistory(sqliteHistoryBatch)); err != nil {
		l.insertOne.Close()
		return nil, fmt.Errorf("prepare: %w", err)
	}
	return l, nil
}

func (l *sqliteHistory) batch() int { return sqliteHistoryBatch }

func (l *sqliteHistory) write(ctx context.Context, rows []historyRow) (int, error) {
	if len(rows) == sqliteHistoryBatch {
		for i := range rows {
			r, a := &rows[i], l.args[i*7:i*7+7]
			a[0], a[1], a[2], a[3], a[4], a[5], a[6] = r.panelistID, r.subsampleID, r.statusID, r.registeredAt, r.eventID, r.categoryID, r.researchTypeID
		}
		return execCount(ctx, l.insertMany, l.args[:])
	}
	added := 0
	for i := range rows {
		r := &rows[i]
		n, err := execCount(ctx, l.insertOne, []any{r.panelistID, r.subsampleID, r.statusID, r.registeredAt, r.eventID, r.categoryID, r.researchTypeID})
		if err != nil {
			return added, err
		}
		added += n
	}
	return added, nil
}

func (l *sqliteHistory) finish(context.Context) (int, error) { return 0, nil }

func (l *sqliteHistory) close() {
	l.insertOne.Close()
	l.insertMany.Close()
}

// execCount runs stmt and returns how many rows it changed.
func execCount(ctx context.Context, stmt *sql.Stmt, args []any) (int, error) {
	res, err := stmt.ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	return int(n), nil
}

// sqliteProfiles writes a profile import's rows profileBatch at a time by
// insertMany, the last few by insertOne, and looks stored ones up
// profileBatch at a time: the import writes as it goes, so a row it wrote
// is read as any other.
type sqliteProfiles struct {
	lookup, insertOne, insertMany *sql.Stmt
	args                          []any
}

func (sqlite) profileLoader(ctx context.Context, _ *sqlx.Conn, tx *sqlx.Tx, importID int64) (profileLoader, error) {
	// The import id is a number of ours: it is written into the statements.
	insert := func(n int) string {
		row := fmt.Sprintf("(?, %d, ?)", importID)
		return `INSERT OR REPLACE INTO profiles (panelist_id, import_id, answers) VALUES ` +
			strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	}
	l := &sqliteProfiles{args: make([]any, 0, 2*profileBatch)}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&l.insertOne, insert(1)},
		{&l.insertMany, insert(profileBatch)},
		// A short batch repeats its last id, which IN ignores.
		{&l.lookup, `SELECT panelist_id, import_id, answers FROM profiles WHERE panelist_id IN (` + placeholders(profileBatch) + `)`},
	} {
		stmt, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("prepare: %w", err)
		}
		*p.stmt = stmt
	}
	return l, nil
}

func (l *sqliteProfiles) lookUp(ctx context.Context, ids []any, _ bool, found func(string, storedProfile)) error {
	rows, err := l.lookup.QueryContext(ctx, ids...)
	if err != nil {
		return err
	}
	return scanStoredProfiles(rows, found)
}

// scanStoredProfiles reads rows of panelist_id, import_id, answers, and
// closes them.
func scanStoredProfiles(rows *sql.Rows, found func(string, storedProfile)) error {
	defer rows.Close()
	for rows.Next() {
		var id string
		var st storedProfile
		if err := rows.Scan(&id, &st.importID, &st.answers); err != nil {
			return err
		}
		found(id, st)
	}
	return rows.Err()
}

func (l *sqliteProfiles) write(ctx context.Context, rows []profileRow) error {
	if len(rows) == profileBatch {
		l.args = l.args[:0]
		for _, r := range rows {
			l.args = append(l.args, r.panelistID, r.answers)
		}
		if _, err := l.insertMany.ExecContext(ctx, l.args...); err != nil {
			return fmt.Errorf("write panelist %s: %w", rows[0].panelistID, err)
		}
		return nil
	}
	for _, r := range rows {
		if _, err := l.insertOne.ExecContext(ctx, r.panelistID, r.answers); err != nil {
			return fmt.Errorf("write panelist %s: %w", r.panelistID, err)
		}
	}
	return nil
}

func (l *sqliteProfiles) finish(context.Context) error { return nil }

func (l *sqliteProfiles) close() {
	for _, s := range []*sql.Stmt{l.lookup, l.insertOne, l.insertMany} {
		if s != nil {
			s.Close()
		}
	}
}

// scanProfiles reads the profiles in chunks (scanInChunks).
func (sqlite) scanProfiles(ctx context.Context, _ *sqlx.Conn, tx *sqlx.Tx, withPanel bool, unprofiled map[PanelPlace]int64, visit profileVisit) error {
	return scanInChunks(ctx, tx, withPanel, unprofiled, visit)
}

// scanCountries reads each country's rows in chunks and merges them
// (scanCountriesInChunks).
func (sqlite) scanCountries(ctx context.Context, _ *sqlx.Conn, tx *sqlx.Tx, countries []string, visit profileVisit) error {
	return scanCountriesInChunks(ctx, tx, countries, visit)
}

// joinsHistory: on SQLite the history of a scan's panelists is read
// apart, by chunks of ids on history's key (ScanPanelistsWithHistory): a
// join of the profiles and the history is one plan on one core.
func (sqlite) joinsHistory() bool { return false }

func (sqlite) scanCountriesHistory(context.Context, *sqlx.Conn, *sqlx.Tx, []string, string, string, []any,
	func(domain.PanelMember, []byte) (bool, error), func(domain.PanelMember, []domain.HistoryRecord) error) error {
	return errors.New("SQLite reads the history apart from the profiles")
}

// periodScan: on SQLite the period's pairs first, then each pair's
// records by history's key (periodPairsQuery); a semi-join would look up
// every record before the period's end.
func (sqlite) periodScan(_ context.Context, _ *sqlx.Tx, p Period) (string, []any, error) {
	query, args := periodPairsQuery(p)
	return query, args, nil
}

// upsertRows writes by an inserter.
func (sqlite) upsertRows(_ *sqlx.Conn, tx *sqlx.Tx, table, columns, row, tail string) rowWriter {
	return newInserter(tx, table, columns, row, tail)
}

// freshRows writes by an inserter, its tail dropping a row met again.
func (sqlite) freshRows(_ *sqlx.Conn, tx *sqlx.Tx, table, columns, row, tail string, _ int) rowWriter {
	return newInserter(tx, table, columns, row, tail)
}
