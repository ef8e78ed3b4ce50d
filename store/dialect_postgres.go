package store

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// postgres is the dialect of a PostgreSQL database, for a supplier who
// runs several Fieldboard instances on one database: reached through
// pgx's database/sql driver, as a postgres:// or postgresql:// URL (any
// parameter pgx reads, such as sslmode or search_path, may be given).
//
// PostgreSQL writes from many connections at once and every transaction
// reads a consistent snapshot, so one pool serves as writer and reader.
// What the single writer gives on SQLite is asked for where it matters:
// claims lock the rows they take (FOR UPDATE SKIP LOCKED), and the
// routing keys and the profile and panel imports serialize on advisory
// locks, across instances. The page-cache tuning and the checkpoint are
// SQLite's alone; PostgreSQL manages its own.
type postgres struct{}

func (postgres) name() string { return "postgres" }

// open opens one pool of at most twice as many connections as there are
// CPUs (at least 4): each is a server process, and the instances sharing
// the database share its max_connections.
func (postgres) open(target string) (writer, reader *sqlx.DB, err error) {
	config, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(rebindingConnector{stdlib.GetConnector(*config, stdlib.OptionAfterConnect(timesInUTC))})
	db.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)*2))
	db.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)*2))
	pool := sqlx.NewDb(db, "pgx")
	return pool, pool, nil
}

// timesInUTC makes conn read times in UTC, as they are read from SQLite,
// rather than in the machine's zone.
func timesInUTC(_ context.Context, conn *pgx.Conn) error {
	conn.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID,
		Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC}})
	return nil
}

// rebindingConnector makes pgx connections that take the store's ?
// placeholders: each statement's are rewritten to $1, $2, ... on its way
// to pgx. (No statement of the store holds a ? in a literal.)
type rebindingConnector struct{ driver.Connector }

func (c rebindingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("pgx gave a %T, not a *stdlib.Conn", conn)
	}
	return rebindingConn{pc}, nil
}

// rebindingConn is a pgx connection whose statements are rebound; every
// other method is pgx's.
type rebindingConn struct{ *stdlib.Conn }

func rebind(query string) string { return sqlx.Rebind(sqlx.DOLLAR, query) }

func (c rebindingConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c rebindingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c rebindingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c rebindingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

func (postgres) textList() string {
	return `(SELECT value FROM json_array_elements_text(CAST(? AS json)))`
}

func (postgres) findText(haystack, needle string) string {
	return "strpos(" + haystack + ", " + needle + ")"
}

// snapshotTx: PostgreSQL's default isolation takes a new snapshot for
// each statement; REPEATABLE READ keeps the first for the transaction.
func (postgres) snapshotTx() *sql.TxOptions {
	return &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
}

func (postgres) lockRows(alias string) string { return " FOR UPDATE OF " + alias + " SKIP LOCKED" }

// serialize takes a transaction-level advisory lock keyed by name.
func (postgres) serialize(ctx context.Context, tx *sqlx.Tx, name string) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(?))`, "fieldboard "+name); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	return nil
}

func (postgres) uniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// checkpoint does nothing: PostgreSQL checkpoints on its own, and the
// CHECKPOINT statement is for its superusers.
func (postgres) checkpoint(context.Context, *sqlx.DB) error { return nil }

// checkpoints: PostgreSQL checkpoints on its own.
func (postgres) checkpoints(*sqlx.DB) func() { return func() {} }

func (postgres) tableOptions() string { return "" }

func (postgres) insertInTx() string { return "INSERT" }

func (postgres) beginImport(context.Context, *sqlx.Conn, *sqlx.Tx) (func(context.Context) error, error) {
	return func(context.Context) error { return nil }, nil
}

// copyFrom loads rows into table with COPY, on conn, inside the
// transaction open on it.
func copyFrom(ctx context.Context, conn *sqlx.Conn, table string, columns []string, rows pgx.CopyFromSource) error {
	return onPgx(conn, func(pc *pgx.Conn) error {
		_, err := pc.CopyFrom(ctx, pgx.Identifier{table}, columns, rows)
		if err != nil {
			return fmt.Errorf("copy into %s: %w", table, err)
		}
		return nil
	})
}

// onPgx runs fn on the pgx connection under conn (sqlx's, from
// database/sql's pool), for what database/sql cannot do: COPY, and rows
// streamed as raw values.
func onPgx(conn *sqlx.Conn, fn func(pc *pgx.Conn) error) error {
	return conn.Raw(func(dc any) error {
		c, ok := dc.(rebindingConn)
		if !ok {
			return fmt.Errorf("not a pgx connection (%T)", dc)
		}
		return fn(c.Conn.Conn())
	})
}

// pgHistoryBatch is how many records one COPY of a history import loads
// (about 3 MB of them wait in memory): each COPY is a round trip during
// which the file is not read. 3,000,000 records were loaded into the
// temporary table in 3.1-3.6 s 4,096 at a time, 2.3-2.5 s so.
const pgHistoryBatch = 32768

// pgHistory loads a history import's records with COPY into a temporary
// table, history_import, without keys; finish then adds them to history
// in one INSERT of those not stored yet (COPY itself cannot skip a
// duplicate: it would fail).
type pgHistory struct {
	conn *sqlx.Conn
	tx   *sqlx.Tx
	row  [7]any
}

var historyColumnList = []string{"panelist_id", "subsample_id", "status_id", "registered_at", "event_id", "category_id", "research_type_id"}

func (postgres) historyLoader(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, straight bool) (historyLoader, error) {
	if straight {
		var stored bool
		if err := tx.GetContext(ctx, &stored, `SELECT EXISTS (SELECT 1 FROM history)`); err != nil {
			return nil, fmt.Errorf("start import: %w", err)
		}
		if !stored {
			return pgHistoryStraight{conn}, nil
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE history_import (LIKE history) ON COMMIT DROP`); err != nil {
		return nil, fmt.Errorf("start import: %w", err)
	}
	return &pgHistory{conn: conn, tx: tx}, nil
}

func (l *pgHistory) batch() int { return pgHistoryBatch }

func (l *pgHistory) write(ctx context.Context, rows []historyRow) (int, error) {
	err := copyFrom(ctx, l.conn, "history_import", historyColumnList, pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
		r := &rows[i]
		l.row = [7]any{r.panelistID, r.subsampleID, r.statusID, time.UnixMilli(r.registeredAt).UTC(), r.eventID, r.categoryID, r.researchTypeID}
		return l.row[:], nil
	}))
	return 0, err
}

// finish adds the records not stored yet by one plain INSERT of those
// whose key history does not hold: INSERT ... ON CONFLICT DO NOTHING
// looks the key up before each row and again as it writes it (3,000,000
// records into an empty history took 7.9-10.0 s so, 3.4-7.0 s without
// ON CONFLICT on the shared machine), and the import took 2.6 times as
// long as a plain COPY of 10,000,000 records (figure 7p).
// A record twice in the file, or one an import beside this one wrote
// meanwhile, makes that INSERT fail on the key; it is then undone (to a
// savepoint) and the records go in by ON CONFLICT DO NOTHING, which
// skips them.
func (l *pgHistory) finish(ctx context.Context) (int, error) {
	if _, err := l.tx.ExecContext(ctx, `SAVEPOINT history_import`); err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	res, err := l.tx.ExecContext(ctx, `INSERT INTO history (`+historyColumns+`)
		SELECT `+historyColumns+` FROM history_import i WHERE NOT EXISTS (SELECT 1 FROM history h
			WHERE h.panelist_id = i.panelist_id AND h.subsample_id = i.subsample_id
			AND h.status_id = i.status_id AND h.registered_at = i.registered_at)`)
	if err == nil {
		if _, err := l.tx.ExecContext(ctx, `RELEASE SAVEPOINT history_import`); err != nil {
			return 0, fmt.Errorf("insert: %w", err)
		}
		n, err := res.RowsAffected()
		return int(n), err
	}
	if !(postgres{}).uniqueViolation(err) {
		return 0, fmt.Errorf("insert: %w", err)
	}
	if _, err := l.tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT history_import`); err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	res, err = l.tx.ExecContext(ctx, `INSERT INTO history (`+historyColumns+`)
		SELECT `+historyColumns+` FROM history_import ON CONFLICT DO NOTHING`)
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (l *pgHistory) close() {}

// errHistoryConflict fails a history import that wrote records straight
// into history when one of them was there already.
var errHistoryConflict = errors.New("a record is stored already or repeated")

// pgHistoryStraight loads a history import's records with COPY straight
// into history, for an import into an empty history whose input can be
// read again (importHistory): no record can be stored already, and one
// repeated in the input, or written meanwhile by an import beside it,
// fails the COPY on history's key (errHistoryConflict), and the import
// runs again through pgHistory. The checked load writes every record
// twice, into its temporary table and then into history: 300,000
// records took it 1.6 times as long as a plain COPY of them (figure 7p's
// small scenario), the straight load as long.
type pgHistoryStraight struct{ conn *sqlx.Conn }

func (l pgHistoryStraight) batch() int { return pgHistoryBatch }

func (l pgHistoryStraight) write(ctx context.Context, rows []historyRow) (int, error) {
	var row [7]any
	err := copyFrom(ctx, l.conn, "history", historyColumnList, pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
		r := &rows[i]
		row = [7]any{r.panelistID, r.subsampleID, r.statusID, time.UnixMilli(r.registeredAt).UTC(), r.eventID, r.categoryID, r.researchTypeID}
		return row[:], nil
	}))
	if (postgres{}).uniqueViolation(err) {
		return 0, fmt.Errorf("%w: %w", errHistoryConflict, err)
	}
	if err != nil {
		return 0, err
	}
	return len(rows), nil
}

func (l pgHistoryStraight) finish(context.Context) (int, error) { return 0, nil }
func (l pgHistoryStraight) close()                              {}

// pgProfiles loads a profile import's merged rows with COPY into a
// temporary table, profile_import, numbered in the order they come;
// finish then writes them over the panelists' rows in one INSERT. While
// the file comes in panelist order, no panelist is there twice and stored
// rows are looked up in profiles alone. Once it does not, the table gets
// an index, lookups take a panelist's latest row there before the stored
// one, and finish writes each panelist's latest.
type pgProfiles struct {
	conn     *sqlx.Conn
	tx       *sqlx.Tx
	importID int64
	// unordered: the import went out of panelist order, and the table
	// has its index.
	unordered bool
	row       [2]any
}

func (postgres) profileLoader(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, importID int64) (profileLoader, error) {
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE profile_import (
		seq BIGINT GENERATED ALWAYS AS IDENTITY, panelist_id TEXT COLLATE "C" NOT NULL, answers BYTEA NOT NULL) ON COMMIT DROP`); err != nil {
		return nil, fmt.Errorf("start import: %w", err)
	}
	return &pgProfiles{conn: conn, tx: tx, importID: importID}, nil
}

func (l *pgProfiles) lookUp(ctx context.Context, ids []any, written bool, found func(string, storedProfile)) error {
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = id.(string)
	}
	if !written {
		rows, err := l.tx.QueryContext(ctx, `SELECT panelist_id, import_id, answers FROM profiles WHERE panelist_id = ANY(?)`, list)
		if err != nil {
			return err
		}
		return scanStoredProfiles(rows, found)
	}
	if !l.unordered {
		if _, err := l.tx.ExecContext(ctx, `CREATE INDEX ON profile_import (panelist_id, seq)`); err != nil {
			return err
		}
		l.unordered = true
	}
	rows, err := l.tx.QueryContext(ctx, `SELECT DISTINCT ON (panelist_id) panelist_id, import_id, answers FROM (
			SELECT panelist_id, CAST(? AS BIGINT) AS import_id, answers, seq FROM profile_import WHERE panelist_id = ANY(?)
			UNION ALL
			SELECT panelist_id, import_id, answers, 0 FROM profiles WHERE panelist_id = ANY(?)
		) AS latest ORDER BY panelist_id, seq DESC`, l.importID, list, list)
	if err != nil {
		return err
	}
	return scanStoredProfiles(rows, found)
}

func (l *pgProfiles) write(ctx context.Context, rows []profileRow) error {
	return copyFrom(ctx, l.conn, "profile_import", []string{"panelist_id", "answers"}, pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
		l.row = [2]any{rows[i].panelistID, rows[i].answers}
		return l.row[:], nil
	}))
}

func (l *pgProfiles) finish(ctx context.Context) error {
	latest := `SELECT panelist_id, CAST(? AS BIGINT), answers FROM profile_import`
	if l.unordered {
		latest = `SELECT DISTINCT ON (panelist_id) panelist_id, CAST(? AS BIGINT), answers FROM profile_import ORDER BY panelist_id, seq DESC`
	}
	if _, err := l.tx.ExecContext(ctx, `INSERT INTO profiles (panelist_id, import_id, answers) `+latest+`
		ON CONFLICT (panelist_id) DO UPDATE SET import_id = excluded.import_id, answers = excluded.answers`, l.importID); err != nil {
		return fmt.Errorf("write profiles: %w", err)
	}
	return nil
}

func (l *pgProfiles) close() {}

// scanProfiles reads the profiles by one query, the profiles with their
// panel rows in a LEFT JOIN that PostgreSQL merges along both primary
// keys, streamed: PostgreSQL sends rows while visit decodes those before
// them, on the other core. Over 1,000,000 panelists on a busy machine
// this took 1.8-2.1 s, where a cursor took 5-7 s, with one FETCH of
// 10,000 rows a round trip or eight at a time (PostgreSQL's FETCH costs
// more a row than a query's own rows), and SQLite's chunks
// (scanInChunks), a query and a sorted range of the panel each, 2,000
// queries, about as much. The rows are read by pgx itself: its raw
// values are the row's bytes as they came (text and bytea alike in the
// binary format), where database/sql would copy each value into a new
// one.
//
// A visit that stops the scan early (a send list's limit) closes the
// connection rather than read the rest of the rows: PostgreSQL ends the
// query and the read transaction with it, and database/sql drops the
// connection from its pool (pgx's stdlib reports it invalid). Cancelling
// the query instead could cancel the connection's next statement when
// the query has just ended.
//
// The panel's rows without a profile are counted from the profiled ones
// the scan reads and one more query in the same transaction
// (countUnprofiled).
func (postgres) scanProfiles(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, withPanel bool, unprofiled map[PanelPlace]int64, visit profileVisit) error {
	query := `SELECT panelist_id, answers, NULL, NULL FROM profiles ORDER BY panelist_id`
	if withPanel {
		query = `SELECT pr.panelist_id, pr.answers, p.country, p.locale
			FROM profiles pr LEFT JOIN panel p ON p.panelist_id = pr.panelist_id ORDER BY pr.panelist_id`
	}
	profiled := map[PanelPlace]int64{} // with a panel row, when counting unprofiled
	err := onPgx(conn, func(pc *pgx.Conn) error {
		rows, err := pc.Query(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		codes := textCodes{}
		for rows.Next() {
			v := rows.RawValues()
			m := domain.PanelMember{PanelistID: string(v[0]), Country: codes.ofBytes(v[2]), Locale: codes.ofBytes(v[3])}
			if unprofiled != nil && v[2] != nil { // NULL: no panel row
				profiled[PanelPlace{m.Country, m.Locale}]++
			}
			if err := visit(m, v[1]); err != nil {
				pc.Close(context.WithoutCancel(ctx))
				return err
			}
		}
		return rows.Err()
	})
	if err != nil || !withPanel || unprofiled == nil {
		return err
	}
	return countUnprofiled(ctx, tx, profiled, unprofiled) // on conn, given back by Raw
}

// scanCountries reads the panelists of countries by one query, streamed
// as scanProfiles streams its one: the countries' panel rows by the
// panel's index on country, sorted by panelist id, each joined to its
// profile. A visit that stops early closes the connection, as there.
func (postgres) scanCountries(ctx context.Context, conn *sqlx.Conn, _ *sqlx.Tx, countries []string, visit profileVisit) error {
	return onPgx(conn, func(pc *pgx.Conn) error {
		rows, err := pc.Query(ctx, `SELECT p.panelist_id, pr.answers, p.country, p.locale
			FROM panel p JOIN profiles pr ON pr.panelist_id = p.panelist_id
			WHERE p.country = ANY($1) ORDER BY p.panelist_id`, countries)
		if err != nil {
			return err
		}
		defer rows.Close()
		codes := textCodes{}
		for rows.Next() {
			v := rows.RawValues()
			m := domain.PanelMember{PanelistID: string(v[0]), Country: codes.ofBytes(v[2]), Locale: codes.ofBytes(v[3])}
			if err := visit(m, v[1]); err != nil {
				pc.Close(context.WithoutCancel(ctx))
				return err
			}
		}
		return rows.Err()
	})
}

// joinsHistory: on PostgreSQL a send list's profiles and history come
// from one query (scanCountriesHistory).
func (postgres) joinsHistory() bool { return true }

// scanCountriesHistory reads the panelists of countries and their
// records by one query, streamed as scanCountries streams its one: the
// countries' panel rows joined to their profiles and, by history's
// primary key, to their records that join gives
// (HistoryFilter.panelistRecords: a panelist without one comes once,
// without a record), sorted by panelist. PostgreSQL reads the records of every panelist of the
// countries, in parallel workers, as figure 10p's floor does; keep
// decides here whose records are handed over. One query, not a query
// of history per batch of panelists from inside the scan: PostgreSQL
// then reads the records in parallel workers rather than one batch
// after another on one core (bench/README.md, figure 10p).
//
// The transaction's planner is set as figure 10p's floor sets its
// session: no JIT (it compiled for a quarter of a second before each
// run) and random_page_cost 1.1, the history and the profiles being
// read by their keys from memory, which makes the profiles of the
// country's panelists read by key rather than the whole table hashed (a
// quarter of the query's time). The sort holds every row with its
// profile: work_mem is raised so that a country of tens of thousands of
// panelists sorts in memory rather than on disk. A kept visit that stops
// the scan closes the connection, as scanCountries does.
//
// While the quality hold is on, the completes and verdicts come only of
// the subsamples with a verdict since the hold's window
// (HistoryFilter.panelistRecords), by plain joins, which keep the
// parallel plan, looking each panelist's verdicts up once. A record that comes more than once (a panelist's
// row comes once per pair of the two joins' records) is handed over
// once.
func (postgres) scanCountriesHistory(ctx context.Context, conn *sqlx.Conn, tx *sqlx.Tx, countries []string, join, columns string, joinArgs []any,
	keep func(m domain.PanelMember, blob []byte) (bool, error), kept func(m domain.PanelMember, records []domain.HistoryRecord) error) error {
	for _, set := range []string{`SET LOCAL work_mem = '64MB'`, `SET LOCAL jit = off`, `SET LOCAL random_page_cost = 1.1`} {
		if _, err := tx.ExecContext(ctx, set); err != nil {
			return err
		}
	}
	query := rebind(`SELECT p.panelist_id, pr.answers, p.country, p.locale, ` + columns + `
		FROM panel p JOIN profiles pr ON pr.panelist_id = p.panelist_id
		` + join + `
		WHERE p.country = ANY(?) ORDER BY p.panelist_id`)
	args := append(slices.Clone(joinArgs), countries)
	return onPgx(conn, func(pc *pgx.Conn) error {
		rows, err := pc.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		codes := textCodes{}
		var m domain.PanelMember
		var records []domain.HistoryRecord
		dest := make([]any, len(rows.FieldDescriptions()))
		started, keeping := false, false
		hand := func() error {
			if !keeping {
				return nil
			}
			if len(records) > 1 {
				slices.SortFunc(records, recordKeyOrder)
				records = slices.Compact(records)
			}
			if err := kept(m, records); err != nil {
				pc.Close(context.WithoutCancel(ctx))
				return err
			}
			return nil
		}
		for rows.Next() {
			v := rows.RawValues()
			if !started || m.PanelistID != string(v[0]) {
				if started {
					if err := hand(); err != nil {
						return err
					}
				}
				started, records = true, nil
				m = domain.PanelMember{PanelistID: string(v[0]), Country: codes.ofBytes(v[2]), Locale: codes.ofBytes(v[3])}
				if keeping, err = keep(m, v[1]); err != nil {
					pc.Close(context.WithoutCancel(ctx))
					return err
				}
			}
			if !keeping {
				continue
			}
			for k := 4; k+6 <= len(v); k += 6 {
				if v[k] == nil { // NULL: no record
					continue
				}
				r := domain.HistoryRecord{PanelistID: m.PanelistID}
				clear(dest)
				dest[k], dest[k+1], dest[k+2], dest[k+3], dest[k+4], dest[k+5] = &r.SubsampleID, &r.StatusID, &r.RegisteredAt, &r.EventID, &r.CategoryID, &r.ResearchTypeID
				if err := rows.Scan(dest...); err != nil {
					return err
				}
				records = append(records, r)
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if started {
			return hand()
		}
		return nil
	})
}

// periodScan: on PostgreSQL the records whose pair has one in the
// period, by a semi-join (periodRecordsQuery), without JIT, as the
// floors of figures 15p and 16p run theirs (it compiled for 0.7 s before
// each run), and with a work_mem that holds more of the period's pairs
// (a month of the bench scenario is 1,300,000 of them, which spilled to
// disk by the hundred megabytes in 4 MB).
func (postgres) periodScan(ctx context.Context, tx *sqlx.Tx, p Period) (string, []any, error) {
	for _, set := range []string{`SET LOCAL jit = off`, `SET LOCAL work_mem = '128MB'`} {
		if _, err := tx.ExecContext(ctx, set); err != nil {
			return "", nil, err
		}
	}
	query, args := periodRecordsQuery(p)
	return query, args, nil
}

// freshRows writes by one COPY at flush (pgCopier): the rows of a
// snapshot's tables went by INSERTs of 64 rows, at 7.5 µs a row where a
// COPY takes 4, and made the snapshot write 5.8 times as long as a plain
// one (figure 2p). A COPY into a table whose rows the same transaction
// deleted still costs more than one into an empty table: each key's
// unique check meets the deleted entries (the 21,205 quotas of the bench
// scenario took 220-300 ms so, 150 ms after a TRUNCATE, which readers
// of the snapshot cannot be made to wait for).
func (postgres) freshRows(conn *sqlx.Conn, _ *sqlx.Tx, table, columns, _, _ string, key int) rowWriter {
	c := &pgCopier{conn: conn, table: table, key: key}
	for column := range strings.SplitSeq(columns, ",") {
		c.columns = append(c.columns, strings.TrimSpace(column))
	}
	if key > 0 {
		c.seen = map[string]bool{}
	}
	return c
}

// pgCopier keeps the rows added until flush, which writes them by one
// COPY; with key above 0 it drops a row whose first key values it added
// before (newFreshRows).
type pgCopier struct {
	conn    *sqlx.Conn
	table   string
	columns []string
	key     int
	seen    map[string]bool
	rows    [][]any
}

func (c *pgCopier) add(_ context.Context, values ...any) error {
	if c.key > 0 {
		k := fmt.Sprint(values[:c.key]) // ids: "[1 2]"
		if c.seen[k] {
			return nil
		}
		c.seen[k] = true
	}
	c.rows = append(c.rows, slices.Clone(values))
	return nil
}

func (c *pgCopier) flush(ctx context.Context) error {
	if len(c.rows) == 0 {
		return nil
	}
	err := copyFrom(ctx, c.conn, c.table, c.columns, pgx.CopyFromRows(c.rows))
	c.rows = c.rows[:0]
	return err
}

func (c *pgCopier) close() {}

// upsertRows writes by one COPY into a temporary table of the columns and
// one INSERT ... SELECT of its rows with tail at flush (pgUpserter): one
// round trip for the rows where INSERTs of 64 rows take one each.
func (postgres) upsertRows(conn *sqlx.Conn, tx *sqlx.Tx, table, columns, _, tail string) rowWriter {
	c := &pgUpserter{tx: tx, tail: tail, columnList: columns}
	c.staged = pgCopier{conn: conn, table: "staged_" + table}
	for column := range strings.SplitSeq(columns, ",") {
		c.staged.columns = append(c.staged.columns, strings.TrimSpace(column))
	}
	c.target = table
	return c
}

// pgUpserter stages the rows added in a temporary table, staged_<table>,
// dropped when the transaction ends, and writes them into the table by
// one INSERT ... SELECT with the tail (ON CONFLICT ...). The rows are of
// distinct keys: which of two rows of one key an INSERT ... SELECT meets
// first is not said.
type pgUpserter struct {
	tx                       *sqlx.Tx
	target, columnList, tail string
	staged                   pgCopier
	made                     bool
}

func (c *pgUpserter) add(ctx context.Context, values ...any) error {
	return c.staged.add(ctx, values...)
}

func (c *pgUpserter) flush(ctx context.Context) error {
	if len(c.staged.rows) == 0 {
		return nil
	}
	if !c.made {
		if _, err := c.tx.ExecContext(ctx, `CREATE TEMP TABLE `+c.staged.table+` ON COMMIT DROP AS SELECT `+c.columnList+
			` FROM `+c.target+` WITH NO DATA`); err != nil {
			return fmt.Errorf("%s: stage: %w", c.target, err)
		}
		c.made = true
	}
	if err := c.staged.flush(ctx); err != nil {
		return err
	}
	if _, err := c.tx.ExecContext(ctx, `INSERT INTO `+c.target+` (`+c.columnList+`) SELECT `+c.columnList+` FROM `+c.staged.table+
		` `+c.tail); err != nil {
		return fmt.Errorf("%s: %w", c.target, err)
	}
	if _, err := c.tx.ExecContext(ctx, `TRUNCATE `+c.staged.table); err != nil {
		return fmt.Errorf("%s: stage: %w", c.target, err)
	}
	return nil
}

func (c *pgUpserter) close() {}

// recordKeyOrder orders one panelist's records by history's key, so a
// record repeated follows itself.
func recordKeyOrder(a, b domain.HistoryRecord) int {
	return cmp.Or(cmp.Compare(a.SubsampleID, b.SubsampleID), cmp.Compare(a.StatusID, b.StatusID), a.RegisteredAt.Compare(b.RegisteredAt))
}
