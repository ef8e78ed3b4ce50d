package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// A dialect is what differs between the two databases the store runs on,
// SQLite (dialect_sqlite.go) and PostgreSQL (dialect_postgres.go), and
// nothing else: every statement of the store is written once, in the SQL
// both understand, with ? placeholders (PostgreSQL's connections rebind
// them to $1, $2, ...), ON CONFLICT for upserts and "insert or ignore",
// RETURNING for generated ids, true and false for flags and
// string_agg(... ORDER BY ...) for lists. What cannot be written once is
// asked of the dialect: how to connect, the schema's migrations (the same
// numbers in migrations/sqlite and migrations/postgres), a list of texts
// bound as one parameter, a consistent read, row locks for claims, locks
// that serialize a kind of write across instances, the bulk loading of
// the imports (COPY on PostgreSQL; on SQLite batched INSERTs, in SQLite's
// own OR IGNORE and OR REPLACE, twice as quick there as ON CONFLICT), the
// scan of every profile (one streamed query on PostgreSQL, chunks on SQLite) and
// the tuning only SQLite has (its pragmas, its page cache during an
// import, its single writer).
type dialect interface {
	// name is the dialect's name, that of its migrations' folder.
	name() string
	// open opens the writer and the reader pools on the database target
	// names (a path, a URL). Where one pool serves both, they are the
	// same.
	open(target string) (writer, reader *sqlx.DB, err error)
	// textList is a subquery of one column, value, that lists the texts
	// of the JSON array of strings bound to its one parameter.
	textList() string
	// findText is the SQL of the position of needle in haystack (both
	// SQL expressions), from 1, or 0 when it is not there.
	findText(haystack, needle string) string
	// snapshotTx are the options of a read transaction whose statements
	// all see the same snapshot of the database.
	snapshotTx() *sql.TxOptions
	// lockRows is the clause, after ORDER BY and LIMIT, that locks the
	// rows of alias a select claims and skips those another transaction
	// holds ("" where writes are one at a time).
	lockRows(alias string) string
	// serialize makes tx wait until no other transaction that serializes
	// on the same name runs, on any instance, and holds that until tx
	// ends.
	serialize(ctx context.Context, tx *sqlx.Tx, name string) error
	// uniqueViolation reports whether err is the violation of a unique
	// constraint.
	uniqueViolation(err error) bool
	// checkpoint makes the database's files hold all it holds.
	checkpoint(ctx context.Context, writer *sqlx.DB) error
	// checkpoints keeps the database's log short in the background, on
	// the reader pool, until stop is called: never on a writer's commit,
	// which a respondent's return waits for.
	checkpoints(reader *sqlx.DB) (stop func())
	// tableOptions are the options of a temporary table keyed by its
	// primary key ("WITHOUT ROWID" on SQLite).
	tableOptions() string
	// insertInTx is the verb of an INSERT of many rows whose failure the
	// transaction around it undoes whole: on SQLite INSERT OR FAIL, which
	// spares the copy of every page the statement writes that an INSERT
	// keeps to undo itself alone (its statement journal).
	insertInTx() string
	// beginImport readies conn for an import in its transaction tx, and
	// returns what undoes it once tx has ended.
	beginImport(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx) (undo func(context.Context) error, err error)
	// historyLoader and profileLoader write an import's rows in tx, on
	// conn, the way the dialect loads many rows quickest. With straight,
	// the history loader may write records into history unchecked, and
	// fail with errHistoryConflict when one was stored already or is met
	// twice (importHistory then runs the import again, not straight).
	historyLoader(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, straight bool) (historyLoader, error)
	profileLoader(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, importID int64) (profileLoader, error)
	// scanProfiles reads every profile in panelist id order in the read
	// transaction tx, open on conn, and calls visit with each, with the
	// panelist's panel row when withPanel; with unprofiled too, it counts
	// there the panel's rows without a profile, by country and locale.
	// An error from visit is returned as it is.
	scanProfiles(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, withPanel bool, unprofiled map[PanelPlace]int64, visit profileVisit) error
	// scanCountries reads, in panelist id order in the read transaction
	// tx open on conn, the profiled panelists whose panel row's country
	// is one of countries, and calls visit with each and their panel row
	// (ScanPanelistsIn). An error from visit is returned as it is.
	scanCountries(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, countries []string, visit profileVisit) error
	// joinsHistory says whether scanCountriesHistory reads a scan's
	// profiles and history in one query; where it does not, the history
	// is read apart (ScanPanelistsWithHistory).
	joinsHistory() bool
	// scanCountriesHistory reads, in panelist id order in the read
	// transaction tx open on conn, the profiled panelists whose panel
	// row's country is one of countries (scanCountries) with their
	// records that join gives in columns (HistoryFilter.panelistRecords
	// of the panel rows p, with joinArgs), in one query: keep is called
	// with each panelist's panel row and packed profile, and kept, when
	// keep says so, with the panelist's row and records (in any order,
	// each once). An error from either is returned as it is.
	scanCountriesHistory(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, countries []string, join, columns string, joinArgs []any,
		keep func(m domain.PanelMember, blob []byte) (bool, error), kept func(m domain.PanelMember, records []domain.HistoryRecord) error) error
	// periodScan readies tx for ScanPeriod's query of p and returns it
	// and its arguments: the records of the pairs with one in the period,
	// sorted by panelist and subsample.
	periodScan(ctx context.Context, tx *sqlx.Tx, p Period) (query string, args []any, err error)
	// freshRows is newFreshRows's writer.
	freshRows(conn *sqlx.Conn, tx *sqlx.Tx, table, columns, row, tail string, key int) rowWriter
	// upsertRows is newUpsertRows's writer.
	upsertRows(conn *sqlx.Conn, tx *sqlx.Tx, table, columns, row, tail string) rowWriter
}

// historyLoader writes the valid records of a history import, each unless
// the same (panelist, subsample, status, time) is already stored or was
// written before in the import.
type historyLoader interface {
	// batch is how many records write is best given at once.
	batch() int
	// write writes records (at most batch) and returns how many rows it
	// added so far as it knows; finish says the rest.
	write(ctx context.Context, records []historyRow) (added int, err error)
	// finish ends the import's writing and returns how many more rows it
	// added.
	finish(ctx context.Context) (added int, err error)
	close()
}

// profileLoader reads and writes the profiles of a profile import, whose
// id it was given: a row it writes replaces the panelist's.
type profileLoader interface {
	// lookUp calls found with the stored row of each panelist of ids
	// that has one; ids holds profileBatch of them, the last repeated
	// when fewer. written says the import may have written some of them
	// already (it has seen the file out of order): they are read as the
	// import wrote them.
	lookUp(ctx context.Context, ids []any, written bool, found func(id string, st storedProfile)) error
	// write writes rows, one per panelist.
	write(ctx context.Context, rows []profileRow) error
	// finish ends the import's writing.
	finish(ctx context.Context) error
	close()
}

// profileRow is a panelist's merged profile, packed, as an import writes
// it.
type profileRow struct {
	panelistID string
	answers    []byte
}

// dialectOf chooses the dialect of target, the value of --db: a
// postgres:// or postgresql:// URL is a PostgreSQL database, anything
// else the path of a SQLite file. It returns the target as messages may
// show it (without a password), and an error when a URL does not parse.
func dialectOf(target string) (d dialect, shown string, err error) {
	scheme, _, ok := strings.Cut(target, "://")
	if !ok || (scheme != "postgres" && scheme != "postgresql") {
		return sqlite{}, target, nil
	}
	u, err := url.Parse(target)
	if err != nil {
		// Not err itself: it quotes the URL, password and all.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return postgres{}, scheme + "://...", fmt.Errorf("database URL %s://...: %w", scheme, err)
	}
	return postgres{}, u.Redacted(), nil
}

// IsPostgres reports whether target, the value of --db, names a
// PostgreSQL database (a postgres:// or postgresql:// URL) rather than a
// SQLite file.
func IsPostgres(target string) bool {
	d, _, _ := dialectOf(target)
	return d.name() == "postgres"
}

// Describe returns target as a message or a log may show it: a SQLite
// path as it is, a PostgreSQL URL without its password.
func Describe(target string) string {
	_, shown, _ := dialectOf(target)
	return shown
}
