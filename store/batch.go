package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// batchRows is how many rows one INSERT of a snapshot writes: a statement
// per row costs a round trip each on PostgreSQL and a pass through
// database/sql each on SQLite. A snapshot of 1,500 live subsamples with 10
// quotas each took 1.7 s row by row on PostgreSQL over a local socket, and
// 0.36 s so; 0.24 s and 0.12 s on SQLite.
const batchRows = 64

// inserter writes the rows of one INSERT statement batchRows at a time,
// in the order they were added: a full batch by one prepared statement,
// what is left at flush by one statement of that many rows. One statement
// must not write a row twice through ON CONFLICT DO UPDATE (PostgreSQL
// refuses it): the rows of such an inserter are of distinct keys. An error
// names the table, not the row, which a batch does not tell.
type inserter struct {
	tx    *sqlx.Tx
	table string
	// head is the statement up to VALUES, row one row's placeholders and
	// tail what follows the rows (ON CONFLICT ...).
	head, row, tail string
	width           int // parameters of a row
	full            *sql.Stmt
	args            []any
}

// newInserter returns the inserter of INSERT INTO table (columns) VALUES
// row, row, ... tail, row being (?, ?, ...) or expressions of ?.
func newInserter(tx *sqlx.Tx, table, columns, row, tail string) *inserter {
	return &inserter{tx: tx, table: table, head: `INSERT INTO ` + table + ` (` + columns + `) VALUES `, row: row, tail: tail,
		width: strings.Count(row, "?")}
}

func (w *inserter) statement(rows int) string {
	return w.head + strings.TrimSuffix(strings.Repeat(w.row+", ", rows), ", ") + " " + w.tail
}

// add adds a row of the inserter's width, and writes the batch when it is
// full.
func (w *inserter) add(ctx context.Context, values ...any) error {
	w.args = append(w.args, values...)
	if len(w.args) == batchRows*w.width {
		return w.flush(ctx)
	}
	return nil
}

// flush writes the rows added and not written yet.
func (w *inserter) flush(ctx context.Context) error {
	rows := len(w.args) / w.width
	if rows == 0 {
		return nil
	}
	var err error
	if rows == batchRows {
		if w.full == nil {
			if w.full, err = w.tx.PrepareContext(ctx, w.statement(batchRows)); err != nil {
				return fmt.Errorf("%s: prepare: %w", w.table, err)
			}
		}
		_, err = w.full.ExecContext(ctx, w.args...)
	} else {
		_, err = w.tx.ExecContext(ctx, w.statement(rows), w.args...)
	}
	clear(w.args)
	w.args = w.args[:0]
	if err != nil {
		return fmt.Errorf("%s: %w", w.table, err)
	}
	return nil
}

// close releases the prepared statement; rows not flushed are dropped.
func (w *inserter) close() {
	if w.full != nil {
		w.full.Close()
	}
}

// rowWriter writes the rows of one table in a transaction: an inserter,
// or on PostgreSQL a copier (pgCopier) of the rows newFreshRows takes.
type rowWriter interface {
	// add adds a row of the writer's columns, and may write it.
	add(ctx context.Context, values ...any) error
	// flush writes the rows added and not written yet.
	flush(ctx context.Context) error
	// close releases what the writer holds; rows not flushed are dropped.
	close()
}

// newFreshRows returns the writer of rows into table (columns, row and
// tail as newInserter's) that holds none of their keys in the
// transaction: it deleted them, and snapshot writes take turns
// (dialect.serialize). A table's key is its first key columns; with key
// above 0 a row whose key was added before is dropped, as tail's ON
// CONFLICT DO NOTHING drops it, and with key 0 the rows are of distinct
// keys (tail is ""). The dialect chooses the way: an inserter on SQLite,
// a COPY on PostgreSQL.
func newFreshRows(d dialect, conn *sqlx.Conn, tx *sqlx.Tx, table, columns, row, tail string, key int) rowWriter {
	return d.freshRows(conn, tx, table, columns, row, tail, key)
}

// newUpsertRows returns the writer of rows into table (columns, row and
// tail as newInserter's), tail an ON CONFLICT clause that decides what a
// row whose key is stored does; the rows are of distinct keys. The dialect chooses the way: an inserter on SQLite; on
// PostgreSQL a COPY into a temporary table and one INSERT ... SELECT
// with tail.
func newUpsertRows(d dialect, conn *sqlx.Conn, tx *sqlx.Tx, table, columns, row, tail string) rowWriter {
	return d.upsertRows(conn, tx, table, columns, row, tail)
}

// flushAll flushes inserters in order, the first error stopping it.
func flushAll(ctx context.Context, inserters ...rowWriter) error {
	for _, w := range inserters {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func closeInserters(inserters ...rowWriter) {
	for _, w := range inserters {
		w.close()
	}
}
