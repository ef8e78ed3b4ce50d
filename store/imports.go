package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
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

const (
	// maxListedErrors bounds the bad lines an import report lists.
	maxListedErrors = 100
	// importCacheKiB is the page cache of the writer during an import,
	// instead of SQLite's 2 MiB: inserts land all over the table's key,
	// and a larger cache spills and rereads far fewer pages. It is
	// bounded, so memory still does not grow with the file.
	importCacheKiB = 64 << 10
)

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

// runImport runs one import in a transaction on the writer, with the
// writer's page cache grown for it and given back after. write reads the
// input, tallying it in lines, and writes the valid records as it goes
// until a line is bad; from then on it only validates the rest.
//
// If any line was bad, the transaction is rolled back, nothing is written,
// and the error wraps ErrInvalidImport and names the first bad line.
// Otherwise the import is committed and the snapshot version moves on:
// what the checks decide on changed. what names the import in errors
// ("CSV history file"), unit the parts of its input (line, element,
// record).
func (s *Store) runImport(ctx context.Context, what, unit string, lines *lineTally, write func(tx *sqlx.Tx) error) error {
	var restoreCache string // the statement that gives the writer its own page cache back
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		var err error
		if restoreCache, err = growPageCache(ctx, tx); err != nil {
			return err
		}
		if err := write(tx); err != nil {
			return err
		}
		if lines.badLines > 0 {
			return errRejected
		}
		return bumpVersion(ctx, tx)
	})
	err = s.restorePageCache(ctx, restoreCache, err)
	switch {
	case errors.Is(err, errRejected):
		return fmt.Errorf("import %s: %w", what, lines.rejection(unit))
	case err != nil:
		return fmt.Errorf("import %s: %w", what, err)
	}
	return nil
}

// growPageCache gives the writer importCacheKiB of page cache for an
// import, and returns the statement that gives it its own back ("" when it
// already had as much).
func growPageCache(ctx context.Context, tx *sqlx.Tx) (string, error) {
	var cacheSize int64
	if err := tx.GetContext(ctx, &cacheSize, `PRAGMA cache_size`); err != nil {
		return "", fmt.Errorf("page cache size: %w", err)
	}
	if cacheSize <= -importCacheKiB {
		return "", nil
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = %d`, -importCacheKiB)); err != nil {
		return "", fmt.Errorf("page cache size: %w", err)
	}
	return fmt.Sprintf(`PRAGMA cache_size = %d`, cacheSize), nil
}

// restorePageCache runs growPageCache's restoring statement, after the
// import's transaction, and returns err, or the restore's error if err is
// nil. The writer is a single connection: it is the one the import used.
func (s *Store) restorePageCache(ctx context.Context, restore string, err error) error {
	if restore == "" {
		return err
	}
	if _, cacheErr := s.writer.ExecContext(context.WithoutCancel(ctx), restore); cacheErr != nil && err == nil {
		return fmt.Errorf("page cache size: %w", cacheErr)
	}
	return err
}

// parseID parses a decimal integer of at least min, spaces around allowed.
func parseID(s string, min int64) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil && n >= min
}

// quoteField quotes a field's text for a message, clipped.
func quoteField(s string) string {
	if s == "" {
		return "an empty field"
	}
	return domain.Clip(strconv.Quote(s), 60)
}

// BadLinesOf the three import reports: the bad lines listed (up to
// maxListedErrors) and how many there were, for an answer that rejects the
// file.
func (r ImportReport) BadLinesOf() ([]LineError, int)        { return r.Errors, r.BadLines }
func (r ProfileImportReport) BadLinesOf() ([]LineError, int) { return r.Errors, r.BadLines }
func (r PanelImportReport) BadLinesOf() ([]LineError, int)   { return r.Errors, r.BadLines }
