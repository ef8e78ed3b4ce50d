// Package store keeps Fieldboard's SQLite database: the provider snapshots,
// the refresh log and the quota history. It owns every SQL statement and the
// schema, which is created by the numbered migrations embedded below.
//
// SQLite allows one writer at a time, so the Store holds two pools over the
// same file: a single-connection writer, so writes queue in Go instead of
// failing with "database is locked", and a reader pool that WAL mode lets
// run beside the writer. A snapshot is written in one transaction, so
// readers see either the previous snapshot or the new one, never half.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// ErrNotFound is returned when the row asked for does not exist.
var ErrNotFound = errors.New("not found")

// notFound turns sql.ErrNoRows into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// Store is the database. Its methods are safe for concurrent use.
type Store struct {
	writer *sqlx.DB
	reader *sqlx.DB
	hot    hotStatements
	// fence, when set, is the lease the refresh's writes are made under
	// (Fenced).
	fence *Lease
}

// hotStatements are the reads every request or panelist check makes,
// prepared once on the reader pool (database/sql keeps each prepared per
// connection): the driver would otherwise parse them again for each
// request, a tenth of a next-survey answer's time.
type hotStatements struct {
	historyOf, profileOf, panelOf, snapshotVersion, tokenOf, routingKeys *sqlx.Stmt
}

// prepare prepares the hot statements on the reader pool.
func (h *hotStatements) prepare(ctx context.Context, reader *sqlx.DB) error {
	for _, st := range []struct {
		stmt  **sqlx.Stmt
		query string
	}{
		{&h.historyOf, historyOfQuery},
		{&h.profileOf, `SELECT answers FROM profiles WHERE panelist_id = ?`},
		{&h.panelOf, `SELECT panelist_id, country, locale FROM panel WHERE panelist_id = ?`},
		{&h.snapshotVersion, `SELECT version FROM snapshot_version WHERE id = 1`},
		{&h.tokenOf, `SELECT name, created_at FROM api_tokens WHERE secret_hash = ?`},
		{&h.routingKeys, routingKeysQuery},
	} {
		stmt, err := reader.PreparexContext(ctx, st.query)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", st.query, err)
		}
		*st.stmt = stmt
	}
	return nil
}

// Open opens (creating if needed) the database file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open database: no path given")
	}
	dsn := dataSourceName(path)
	writer, err := sqlx.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	if err := migrate(ctx, writer); err != nil {
		writer.Close()
		return nil, fmt.Errorf("migrate database %s: %w", path, err)
	}
	reader, err := sqlx.Open("sqlite", dsn+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	reader.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)*2))
	reader.SetMaxIdleConns(max(4, runtime.GOMAXPROCS(0)*2))
	st := &Store{writer: writer, reader: reader}
	if err := st.hot.prepare(ctx, reader); err != nil {
		st.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return st, nil
}

// dataSourceName builds the driver's DSN: WAL so readers never wait for the
// writer, a busy timeout for the moments they still must, and times stored
// as Unix milliseconds.
func dataSourceName(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_time_integer_format", "unix_milli")
	q.Set("_inttotime", "1")
	return "file:" + path + "?" + q.Encode()
}

// Close closes both pools.
func (s *Store) Close() error {
	return errors.Join(s.reader.Close(), s.writer.Close())
}

// migrate applies, in order and each in its own transaction, every embedded
// migration not yet recorded in the database. Each applied migration has
// its row, so one that lands after a higher-numbered one was applied (005
// after 006) is still applied.
func migrate(ctx context.Context, db *sqlx.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var applied []int
	if err := db.SelectContext(ctx, &applied, `SELECT version FROM schema_version`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with its number", base)
		}
		if slices.Contains(applied, version) {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = inTx(ctx, db, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, version)
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return nil
}

// inTx runs fn in a transaction that is committed when fn returns nil and
// rolled back otherwise.
func inTx(ctx context.Context, db *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Checkpoint copies the write-ahead log into the database file and
// truncates it, so the file's size is the database's size.
func (s *Store) Checkpoint(ctx context.Context) error {
	if _, err := s.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
