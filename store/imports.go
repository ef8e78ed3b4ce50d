package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// What the history and profile imports share: the transaction they run in
// (runImport), the account of their lines (lineTally) and the rejection of
// a file with a bad line. Each import keeps only what is its own: how it
// validates a record and how it writes one.

// LineError is one bad line of an import. Line is 1-based and counts the
// header as line 1; for JSON it is the 1-based index of the array element,
// for records given as values their 1-based position. Line 0 stands for
// the file as a whole (a JSON file that is not an array).
type LineError struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// ErrInvalidImport is returned (wrapped) when any line of an import is bad
// (a line of a CSV file, an element of a JSON file, a record given as a
// value). Nothing of the import is then written; its report lists the bad
// lines.
var ErrInvalidImport = errors.New("rejected")

// maxListedErrors bounds the bad lines an import report lists.
const maxListedErrors = 100

// lineTally is an import's account of what it read: the valid records,
// and the bad lines, the first maxListedErrors of them listed. Both
// imports embed it, which gives them a lineSink's bad and counts.
type lineTally struct {
	records  int         // valid records read
	badLines int         // bad lines, listed or not
	errors   []LineError // the first maxListedErrors bad lines
}

// bad records a bad line; only the first maxListedErrors are listed.
func (t *lineTally) bad(line int, reason string) {
	t.badLines++
	if len(t.errors) < maxListedErrors {
		t.errors = append(t.errors, LineError{Line: line, Reason: reason})
	}
}

// counts says how many valid records and bad lines were read so far.
func (t *lineTally) counts() (records, badLines int) {
	return t.records, t.badLines
}

// rejection is the error of an import with bad lines: ErrInvalidImport,
// with how many lines were bad and the first. unit is what the input's
// parts are called: line, element or record.
func (t *lineTally) rejection(unit string) error {
	first := t.errors[0]
	where := fmt.Sprintf("%s %d", unit, first.Line)
	if first.Line == 0 {
		where = "the file"
	}
	if t.badLines > 1 {
		unit += "s"
	}
	return fmt.Errorf("%w: %d bad %s; %s: %s", ErrInvalidImport, t.badLines, unit, where, first.Reason)
}

// errRejected rolls an import's transaction back when a line was bad.
var errRejected = errors.New("rejected")

// runImport runs one import in a transaction on a connection of the
// writer, readied by the dialect for it (on SQLite a larger page cache,
// given back after). write reads the input, tallying it in lines, and
// writes the valid records as it goes until a line is bad; from then on
// it only validates the rest. An import whose writes must not interleave
// with another's of its kind, on any instance, names the kind in
// serializeOn ("" for none).
//
// If any line was bad, the transaction is rolled back, nothing is written,
// and the error wraps ErrInvalidImport and names the first bad line.
// Otherwise the import is committed and the snapshot version moves on:
// what the checks decide on changed. what names the import in errors
// ("CSV history file"), unit the parts of its input (line, element,
// record).
func (s *Store) runImport(ctx context.Context, what, unit, serializeOn string, lines *lineTally, write func(conn *sqlx.Conn, tx *sqlx.Tx) error) error {
	err := s.importTx(ctx, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		if serializeOn != "" {
			if err := s.dialect.serialize(ctx, tx, serializeOn); err != nil {
				return err
			}
		}
		if err := write(conn, tx); err != nil {
			return err
		}
		if lines.badLines > 0 {
			return errRejected
		}
		return bumpVersion(ctx, tx)
	})
	switch {
	case errors.Is(err, errRejected):
		return fmt.Errorf("import %s: %w", what, lines.rejection(unit))
	case err != nil:
		return fmt.Errorf("import %s: %w", what, err)
	}
	return nil
}

// importTx runs fn in a transaction on a connection of the writer of its
// own (the bulk loading of PostgreSQL needs the connection), readied for
// an import by the dialect before and given back after.
func (s *Store) importTx(ctx context.Context, fn func(conn *sqlx.Conn, tx *sqlx.Tx) error) (err error) {
	conn, err := s.writer.Connx(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	undo, err := s.dialect.beginImport(ctx, conn, tx)
	if err != nil {
		tx.Rollback()
		return err
	}
	defer func() {
		if undoErr := undo(context.WithoutCancel(ctx)); undoErr != nil && err == nil {
			err = undoErr
		}
	}()
	if err := fn(conn, tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// parseID parses a decimal integer of at least min, spaces around allowed.
func parseID(s string, min int64) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil && n >= min
}

// BadLinesOf the three import reports: the bad lines listed (up to
// maxListedErrors) and how many there were, for an answer that rejects the
// file.
func (r ImportReport) BadLinesOf() ([]LineError, int)        { return r.Errors, r.BadLines }
func (r ProfileImportReport) BadLinesOf() ([]LineError, int) { return r.Errors, r.BadLines }
func (r PanelImportReport) BadLinesOf() ([]LineError, int)   { return r.Errors, r.BadLines }
