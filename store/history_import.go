package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// HistoryHeader is the exact CSV header of a history file (JSON uses the
// same field names).
const HistoryHeader = "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId"

// historyFields are the columns of HistoryHeader, in order.
var historyFields = [7]string{"panelistId", "subsampleId", "statusId", "registeredAt", "eventId", "categoryId", "researchTypeId"}

// ImportReport says what an import read and wrote.
type ImportReport struct {
	Records    int         `json:"records"`    // valid records read
	Inserted   int         `json:"inserted"`   // new rows written (Records minus duplicates already stored or repeated in the file)
	Duplicates int         `json:"duplicates"` // valid records already stored, or repeated in the file
	Errors     []LineError `json:"errors"`     // the first bad lines, at most 100 listed
	BadLines   int         `json:"badLines"`   // total number of bad lines, even beyond those listed
}

// ImportHistoryCSV imports a CSV history file: the header HistoryHeader,
// then one record per line. Zone-less registration times are in loc (UTC
// when nil).
//
// What a spreadsheet's export has is accepted: a UTF-8 byte order mark
// before the header, CRLF line ends, quoted fields, blank lines (skipped)
// and no line break after the last line. Everything else that is not a
// valid record is a bad line: a file that is empty or holds only the
// header, a first line that is not the header, a line with another number
// of columns, a line longer than 64 KiB, a field that fails validation
// (an id that is not a whole number in range, a status that is not a
// respondent return code, a date that does not parse, lies more than a
// day ahead or before 2001-09-09). Line numbers count every line from 1,
// the header's and blank ones included, as an editor shows them.
//
// The file is read and validated line by line and written in one
// transaction, a batch of records at a time (the dialect's historyLoader:
// INSERTs of 64 records on SQLite, COPY on PostgreSQL), so memory does not
// grow with it. Every line is validated; if any is bad the transaction is
// rolled back, nothing is written, and the report lists the bad lines with
// ErrInvalidImport wrapped in the error. The writer connection is held
// while r is read, so r should be quick to read (a file, not a slow
// upload).
func (s *Store) ImportHistoryCSV(ctx context.Context, r io.Reader, loc *time.Location) (ImportReport, error) {
	return s.importHistory(ctx, "CSV history file", "line", loc, rewinder(r), func(im *historyImport) error {
		return readImportCSV(r, historyFields[:], HistoryHeader, im)
	})
}

// ImportHistoryJSON imports a JSON history file: an array of objects with
// the fields of HistoryHeader. Numbers may also be given as strings. The
// array is decoded one element at a time; otherwise it behaves as
// ImportHistoryCSV.
func (s *Store) ImportHistoryJSON(ctx context.Context, r io.Reader, loc *time.Location) (ImportReport, error) {
	return s.importHistory(ctx, "JSON history file", "element", loc, rewinder(r), func(im *historyImport) error {
		return readImportJSON[jsonHistoryRecord](r, "history", historyFields[:], HistoryHeader, im)
	})
}

// ImportHistory writes records that are already valid, in one transaction,
// skipping those already stored.
func (s *Store) ImportHistory(ctx context.Context, records []domain.HistoryRecord) (ImportReport, error) {
	rewind := func() error { return nil } // the records are there to read again
	return s.importHistory(ctx, "history records", "record", nil, rewind, func(im *historyImport) error {
		for _, r := range records {
			im.records++
			row := historyRow{r.PanelistID, r.SubsampleID, r.StatusID, r.RegisteredAt.UnixMilli(), r.EventID, r.CategoryID, r.ResearchTypeID}
			if err := im.insert(&row); err != nil {
				return fmt.Errorf("at record %d: %w", im.records, err)
			}
		}
		return nil
	})
}

// importHistory runs read as an import (runImport): the records it adds
// are written by the dialect's historyLoader a batch at a time, each
// unless already stored.
//
// rewind, when not nil, makes the input read from its start again: the
// loader may then write the records straight into history, unchecked
// (straight), and a record that turns out to be stored already, or
// repeated in the input, fails that import (errHistoryConflict), which is
// rolled back and run again from the input's start, checked.
func (s *Store) importHistory(ctx context.Context, what, unit string, loc *time.Location, rewind func() error, read func(*historyImport) error) (ImportReport, error) {
	report, err := s.importHistoryOnce(ctx, what, unit, loc, rewind != nil, read)
	if rewind != nil && errors.Is(err, errHistoryConflict) {
		if err := rewind(); err != nil {
			return ImportReport{}, fmt.Errorf("import %s: read it again: %w", what, err)
		}
		report, err = s.importHistoryOnce(ctx, what, unit, loc, false, read)
	}
	return report, err
}

// rewinder returns what reads r from where it is now again, or nil when r
// cannot be read again (it is not an io.Seeker: an upload's stream).
func rewinder(r io.Reader) func() error {
	seeker, ok := r.(io.Seeker)
	if !ok {
		return nil
	}
	start, err := seeker.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil
	}
	return func() error {
		_, err := seeker.Seek(start, io.SeekStart)
		return err
	}
}

// importHistoryOnce is one run of importHistory.
func (s *Store) importHistoryOnce(ctx context.Context, what, unit string, loc *time.Location, straight bool, read func(*historyImport) error) (ImportReport, error) {
	if loc == nil {
		loc = time.UTC
	}
	im := &historyImport{ctx: ctx, loc: loc, latest: time.Now().Add(futureSlack)}
	err := s.runImport(ctx, what, unit, "", &im.lineTally, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		loader, err := s.dialect.historyLoader(ctx, conn, tx, straight)
		if err != nil {
			return err
		}
		defer loader.close()
		im.loader, im.pending = loader, make([]historyRow, 0, loader.batch())
		if err := read(im); err != nil {
			return err
		}
		if err := im.flush(); err != nil {
			return err
		}
		if im.badLines > 0 {
			return nil // rolled back
		}
		added, err := loader.finish(ctx)
		im.inserted += added
		if err != nil {
			return err
		}
		return supersedeReturns(im.ctx, tx)
	})
	return im.report(err == nil), err
}

// historyImport is the state of one history import: what it read, the
// records waiting to be written and how many rows were added.
type historyImport struct {
	lineTally
	ctx      context.Context
	loc      *time.Location
	latest   time.Time // records registered after it are in the future
	inserted int       // rows written so far

	loader  historyLoader
	pending []historyRow // up to loader.batch()
}

// historyRow is a valid record as stored.
type historyRow struct {
	panelistID     string
	subsampleID    int64
	statusID       int64
	registeredAt   int64 // Unix milliseconds
	eventID        int64
	categoryID     int64
	researchTypeID int64
}

// report says what the import read and, if it was committed, wrote.
func (im *historyImport) report(committed bool) ImportReport {
	r := ImportReport{Records: im.records, Errors: im.errors, BadLines: im.badLines}
	if committed {
		r.Inserted, r.Duplicates = im.inserted, im.records-im.inserted
	}
	return r
}

// add validates the fields of one line (in HistoryHeader's order) and
// inserts the record while no line has been bad. Only a database error is
// returned.
func (im *historyImport) add(line int, f *[7]string) error {
	row, reason := parseHistoryFields(f, im.loc, im.latest)
	if reason != "" {
		im.bad(line, reason)
		return nil
	}
	im.records++
	if im.badLines > 0 {
		return nil // the file is rejected: validate the rest, write nothing more
	}
	if err := im.insert(&row); err != nil {
		return fmt.Errorf("at line %d: %w", line, err)
	}
	return nil
}

// addFields makes historyImport a lineSink.
func (im *historyImport) addFields(line int, record []string) error {
	f := [7]string(record)
	return im.add(line, &f)
}

// insert queues a record and writes the queue once it is full.
func (im *historyImport) insert(r *historyRow) error {
	im.pending = append(im.pending, *r)
	if len(im.pending) == cap(im.pending) {
		return im.flush()
	}
	return nil
}

// flush writes the queued records, unless a line was bad: the file is
// then rejected and the queue dropped.
func (im *historyImport) flush() error {
	rows := im.pending
	im.pending = im.pending[:0]
	if im.badLines > 0 || len(rows) == 0 {
		return nil
	}
	added, err := im.loader.write(im.ctx, rows)
	im.inserted += added
	return err
}
