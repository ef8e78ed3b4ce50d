// Package store keeps Fieldboard's database: the provider snapshots, the
// refresh log, the quota history and the supplier's imports. It owns every
// SQL statement and the schema, which is created by the numbered
// migrations embedded below.
//
// The database is a SQLite file by default (one process, nothing else to
// run) or, given a postgres:// URL, a PostgreSQL database that several
// instances share. What differs between the two is in one place, the
// dialect (dialect.go); the store's API is the same on both.
//
// A snapshot is written in one transaction, so readers see either the
// previous snapshot or the new one, never half.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// migrations holds each dialect's migrations, migrations/<dialect>/NNN_name.sql:
// the same numbers in each, bringing both to the same tables and columns.
//
//go:embed migrations
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
	dialect dialect
	// writer runs every write, reader every read outside a write's
	// transaction; on SQLite writer is a single connection (dialect_sqlite.go),
	// on PostgreSQL they are one pool.
	writer *sqlx.DB
	reader *sqlx.DB
	hot    hotStatements
	// tokens are the bearer tokens TokenOf found lately (auth.go).
	tokens *tokenCache
	// routingInserts write the router's record (routing.go).
	routingInserts *routingInserts
	// returns write the returns, many to a transaction (returns.go).
	returns *returnWrites
	// stopCheckpoints ends the dialect's checkpoints (Close).
	stopCheckpoints func()
	// fence, when set, is the lease the refresh's writes are made under
	// (Fenced).
	fence *Lease
}

// hotStatements are the reads every request or panelist check makes,
// prepared once on the reader pool (database/sql keeps each prepared per
// connection): the driver would otherwise parse them again for each
// request, a tenth of a next-survey answer's time.
type hotStatements struct {
	historyOf, profileOf, panelOf, panelistRows, panelistRowsWithKey, snapshotVersion, tokenOf, routingKeys *sqlx.Stmt
	// leaseOf and routingCounts are read by every page that shows the
	// refresh (LeaseOf), and a subsample's page (RoutingCounts).
	leaseOf, routingCounts *sqlx.Stmt
	// lastSend and panelistRowsWithSend are read by every return
	// (LastSend, PanelistRowsWithSend).
	lastSend, panelistRowsWithSend *sqlx.Stmt
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
		{&h.panelistRows, panelistRowsQuery},
		{&h.panelistRowsWithKey, panelistRowsWithKeyQuery},
		{&h.snapshotVersion, `SELECT version FROM snapshot_version WHERE id = 1`},
		{&h.tokenOf, tokenOfQuery},
		{&h.routingKeys, routingKeysQuery},
		{&h.leaseOf, leaseOfQuery},
		{&h.routingCounts, routingCountsQuery},
		{&h.lastSend, lastSendQuery},
		{&h.panelistRowsWithSend, panelistRowsWithSendQuery},
	} {
		stmt, err := reader.PreparexContext(ctx, st.query)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", st.query, err)
		}
		*st.stmt = stmt
	}
	return nil
}

// Open opens the database target names and brings its schema up to date:
// a postgres:// or postgresql:// URL names a PostgreSQL database (which
// must exist; its tables are created), anything else the path of a SQLite
// file (created when missing).
func Open(ctx context.Context, target string) (*Store, error) {
	if target == "" {
		return nil, errors.New("open database: no path given")
	}
	d, shown, err := dialectOf(target)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	writer, reader, err := d.open(target)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	st := &Store{dialect: d, writer: writer, reader: reader, tokens: &tokenCache{}, routingInserts: &routingInserts{}, returns: &returnWrites{}}
	if err := writer.PingContext(ctx); err != nil {
		st.Close()
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	if err := migrate(ctx, writer, d); err != nil {
		st.Close()
		return nil, fmt.Errorf("migrate database %s: %w", shown, err)
	}
	if err := st.hot.prepare(ctx, reader); err != nil {
		st.Close()
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	st.stopCheckpoints = d.checkpoints(reader)
	return st, nil
}

// Close closes the pools.
func (s *Store) Close() error {
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
	}
	if s.reader == s.writer {
		return s.writer.Close()
	}
	return errors.Join(s.reader.Close(), s.writer.Close())
}

// migrate applies, in order and each in its own transaction, every embedded
// migration not yet recorded in the database. Each applied migration has
// its row, so one that lands after a higher-numbered one was applied (005
// after 006) is still applied.
//
// On PostgreSQL several instances may start at once: each migration's
// transaction serializes on the migrations, so the second to come waits,
// then finds it applied.
func migrate(ctx context.Context, db *sqlx.DB, d dialect) error {
	err := inTx(ctx, db, func(tx *sqlx.Tx) error {
		if err := d.serialize(ctx, tx, "migrations"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`)
		return err
	})
	if err != nil {
		return err
	}
	var applied []int
	if err := db.SelectContext(ctx, &applied, `SELECT version FROM schema_version`); err != nil {
		return err
	}
	all, err := migrationsOf(d.name())
	if err != nil {
		return err
	}
	for _, m := range all {
		if slices.Contains(applied, m.version) {
			continue
		}
		base, version := path.Base(m.file), m.version
		body, err := migrations.ReadFile(m.file)
		if err != nil {
			return err
		}
		err = inTx(ctx, db, func(tx *sqlx.Tx) error {
			if err := d.serialize(ctx, tx, "migrations"); err != nil {
				return err
			}
			var done int
			if err := tx.GetContext(ctx, &done, `SELECT COUNT(*) FROM schema_version WHERE version = ?`, version); err != nil || done > 0 {
				return err
			}
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

// migration is one file of a dialect's migrations.
type migration struct {
	version int
	file    string // its path in migrations
}

// migrationsOf lists the migrations of the dialect called name, by number.
func migrationsOf(name string) ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/"+name+"/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []migration
	for _, file := range names {
		version, err := strconv.Atoi(strings.SplitN(path.Base(file), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with its number", file)
		}
		out = append(out, migration{version, file})
	}
	return out, nil
}

// inTx runs fn in a transaction that is committed when fn returns nil and
// rolled back otherwise.
func inTx(ctx context.Context, db interface {
	BeginTxx(context.Context, *sql.TxOptions) (*sqlx.Tx, error)
}, fn func(tx *sqlx.Tx) error) error {
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

// Checkpoint makes the database's files hold everything written: on
// SQLite it copies the write-ahead log into the database file and
// truncates it, so the file's size is the database's size; on PostgreSQL,
// which checkpoints on its own, it does nothing.
func (s *Store) Checkpoint(ctx context.Context) error {
	if err := s.dialect.checkpoint(ctx, s.writer); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
