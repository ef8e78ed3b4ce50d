package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fieldboard/rules/domain"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
)

// HistoryHeader is the exact CSV header of a history file (JSON uses the
// same field names).
const HistoryHeader = "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId"

// historyFields are the columns of HistoryHeader, in order.
var historyFields = [7]string{"panelistId", "subsampleId", "statusId", "registeredAt", "eventId", "categoryId", "researchTypeId"}

// LineError is one bad line of a history file. Line is 1-based and counts
// the header as line 1; for JSON it is the 1-based index of the array
// element. Line 0 stands for the file as a whole (a JSON file that is not
// an array).
type LineError struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// ImportReport says what an import read and wrote.
type ImportReport struct {
	Records    int         `json:"records"`    // valid records read
	Inserted   int         `json:"inserted"`   // new rows written (Records minus duplicates already stored or repeated in the file)
	Duplicates int         `json:"duplicates"` // valid records already stored, or repeated in the file
	Errors     []LineError `json:"errors"`     // the first bad lines, at most 100 listed
	BadLines   int         `json:"badLines"`   // total number of bad lines, even beyond those listed
}

// ErrInvalidImport is returned (wrapped) when any line of a history file is
// bad. Nothing of the file is then written; the report lists the bad lines.
var ErrInvalidImport = errors.New("history file rejected")

const (
	// maxListedErrors bounds ImportReport.Errors.
	maxListedErrors = 100
	// maxLineBytes caps a line of a CSV history file, so that a file with
	// no line breaks cannot eat memory: such a line is reported as bad.
	maxLineBytes = 64 << 10
	// maxJSONElementBytes caps how far the JSON decoder may read beyond the
	// start of one array element.
	maxJSONElementBytes = 1 << 20
	// futureSlack is how far in the future a record may be registered
	// (clocks differ; a day more is a mistake).
	futureSlack = 24 * time.Hour
)

// minRegisteredAt is the earliest registration time the store can keep:
// the driver reads DATETIME integers below 1e12 as seconds rather than
// milliseconds, so earlier times would not read back as written.
var minRegisteredAt = time.UnixMilli(1e12 + 1)

// insertBatch is how many records one INSERT writes: a statement per
// record would spend more time in database/sql and the driver than in
// SQLite.
const insertBatch = 64

// insertHistory returns the statement that adds n records, each unless the
// same (panelist, subsample, status, time) is already stored.
func insertHistory(n int) string {
	return `INSERT OR IGNORE INTO history
	(panelist_id, subsample_id, status_id, registered_at, event_id, category_id, research_type_id) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?), ", n), ", ")
}

// importCacheKiB is the page cache of the writer during an import, instead
// of SQLite's 2 MiB: inserts land all over the history's key, and a larger
// cache spills and rereads far fewer pages. It is bounded, so memory still
// does not grow with the file.
const importCacheKiB = 64 << 10

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
// day ahead or before 2001-09-09). Line numbers count every line from 1, the header's and blank
// ones included, as an editor shows them.
//
// The file is read and validated line by line and written in one
// transaction, insertBatch records per INSERT, so memory does not grow with
// it. Every line is validated; if any is bad
// the transaction is rolled back, nothing is written, and the report lists
// the bad lines with ErrInvalidImport wrapped in the error. The writer
// connection is held while r is read, so r should be quick to read (a file,
// not a slow upload).
func (s *Store) ImportHistoryCSV(ctx context.Context, r io.Reader, loc *time.Location) (ImportReport, error) {
	return s.importHistory(ctx, "CSV history file", loc, func(im *historyImport) error { return im.readCSV(r) })
}

// ImportHistoryJSON imports a JSON history file: an array of objects with
// the fields of HistoryHeader. Numbers may also be given as strings. The
// array is decoded one element at a time; otherwise it behaves as
// ImportHistoryCSV.
func (s *Store) ImportHistoryJSON(ctx context.Context, r io.Reader, loc *time.Location) (ImportReport, error) {
	return s.importHistory(ctx, "JSON history file", loc, func(im *historyImport) error { return im.readJSON(r) })
}

// ImportHistory writes records that are already valid, in one transaction,
// skipping those already stored.
func (s *Store) ImportHistory(ctx context.Context, records []domain.HistoryRecord) (ImportReport, error) {
	return s.importHistory(ctx, "history records", nil, func(im *historyImport) error {
		for _, r := range records {
			im.report.Records++
			row := historyRow{r.PanelistID, r.SubsampleID, r.StatusID, r.RegisteredAt.UnixMilli(), r.EventID, r.CategoryID, r.ResearchTypeID}
			if err := im.insert(&row); err != nil {
				return fmt.Errorf("at record %d: %w", im.report.Records, err)
			}
		}
		return nil
	})
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

// errRejected rolls the import's transaction back when a line was bad.
var errRejected = errors.New("rejected")

// importHistory runs read in one transaction on the writer and commits
// what it inserted unless a line was bad. what names the import in errors.
func (s *Store) importHistory(ctx context.Context, what string, loc *time.Location, read func(*historyImport) error) (ImportReport, error) {
	if loc == nil {
		loc = time.UTC
	}
	im := &historyImport{ctx: ctx, loc: loc, latest: time.Now().Add(futureSlack)}
	var restoreCache string // the statement that gives the writer its own page cache back
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		var err error
		if restoreCache, err = growPageCache(ctx, tx); err != nil {
			return err
		}
		if im.insertOne, err = tx.PrepareContext(ctx, insertHistory(1)); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer im.insertOne.Close()
		if im.insertMany, err = tx.PrepareContext(ctx, insertHistory(insertBatch)); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer im.insertMany.Close()
		if err := read(im); err != nil {
			return err
		}
		if im.report.BadLines > 0 {
			return errRejected
		}
		if err := im.flush(); err != nil {
			return err
		}
		return bumpVersion(ctx, tx) // what the checks decide on changed
	})
	err = s.restorePageCache(ctx, restoreCache, err)
	switch {
	case errors.Is(err, errRejected):
		im.report.Inserted, im.report.Duplicates = 0, 0
		unit := "line"
		if strings.HasPrefix(what, "JSON") {
			unit = "element"
		}
		first := im.report.Errors[0]
		where := fmt.Sprintf("%s %d", unit, first.Line)
		if first.Line == 0 {
			where = "the file"
		}
		if im.report.BadLines > 1 {
			unit += "s"
		}
		return im.report, fmt.Errorf("import %s: %w: %d bad %s; %s: %s",
			what, ErrInvalidImport, im.report.BadLines, unit, where, first.Reason)
	case err != nil:
		im.report.Inserted, im.report.Duplicates = 0, 0
		return im.report, fmt.Errorf("import %s: %w", what, err)
	}
	im.report.Duplicates = im.report.Records - im.report.Inserted
	return im.report, nil
}

// historyImport is the state of one import: the prepared insert and the
// report so far.
type historyImport struct {
	ctx    context.Context
	loc    *time.Location
	latest time.Time // records registered after it are in the future
	report ImportReport

	// Records are written insertBatch at a time by insertMany; the last
	// few by insertOne.
	insertOne, insertMany *sql.Stmt
	pending               [insertBatch]historyRow
	npending              int
	args                  [insertBatch * 7]any
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

// bad records a bad line; only the first maxListedErrors are listed.
func (im *historyImport) bad(line int, reason string) {
	im.report.BadLines++
	if len(im.report.Errors) < maxListedErrors {
		im.report.Errors = append(im.report.Errors, LineError{Line: line, Reason: reason})
	}
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
	im.report.Records++
	if im.report.BadLines > 0 {
		return nil // the file is rejected: validate the rest, write nothing more
	}
	if err := im.insert(&row); err != nil {
		return fmt.Errorf("at line %d: %w", line, err)
	}
	return nil
}

// insert queues a record and writes the queue once it is full.
func (im *historyImport) insert(r *historyRow) error {
	im.pending[im.npending] = *r
	im.npending++
	if im.npending == insertBatch {
		return im.flush()
	}
	return nil
}

// flush writes the queued records.
func (im *historyImport) flush() error {
	rows := im.pending[:im.npending]
	im.npending = 0
	if len(rows) == insertBatch {
		for i := range rows {
			r, a := &rows[i], im.args[i*7:i*7+7]
			a[0], a[1], a[2], a[3], a[4], a[5], a[6] = r.panelistID, r.subsampleID, r.statusID, r.registeredAt, r.eventID, r.categoryID, r.researchTypeID
		}
		return im.exec(im.insertMany, im.args[:])
	}
	for i := range rows {
		r := &rows[i]
		if err := im.exec(im.insertOne, []any{r.panelistID, r.subsampleID, r.statusID, r.registeredAt, r.eventID, r.categoryID, r.researchTypeID}); err != nil {
			return err
		}
	}
	return nil
}

func (im *historyImport) exec(stmt *sql.Stmt, args []any) error {
	res, err := stmt.ExecContext(im.ctx, args...)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	im.report.Inserted += int(n)
	return nil
}

// readCSV reads a CSV history file line by line (readImportCSV).
func (im *historyImport) readCSV(r io.Reader) error {
	return readImportCSV(r, historyFields[:], HistoryHeader, im)
}

// addFields and counts make historyImport readImportCSV's sink.
func (im *historyImport) addFields(line int, record []string) error {
	f := [7]string(record)
	return im.add(line, &f)
}

func (im *historyImport) counts() (records, badLines int) {
	return im.report.Records, im.report.BadLines
}

// lineFeed hands the csv.Reader one line at a time: the line, then io.EOF
// until the next line is set.
type lineFeed struct{ line []byte }

func (f *lineFeed) Read(p []byte) (int, error) {
	if len(f.line) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.line)
	f.line = f.line[n:]
	return n, nil
}

// readJSON reads a JSON array of history records (readImportJSON).
func (im *historyImport) readJSON(r io.Reader) error {
	return readImportJSON(r, "history", HistoryHeader, im.bad, func(index int, e *jsonHistoryRecord) error {
		if reason := e.kindErrors(); reason != "" {
			im.bad(index, reason)
			return nil
		}
		f := e.fields()
		return im.add(index, &f)
	})
}

var errElementTooLarge = errors.New("element too large")

// cappedReader fails once limit bytes have been read, so that one huge
// JSON element cannot eat memory.
type cappedReader struct {
	r     io.Reader
	read  int64
	limit int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.read >= c.limit {
		return 0, errElementTooLarge
	}
	if room := c.limit - c.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

// jsonHistoryRecord is one element of a JSON history file.
type jsonHistoryRecord struct {
	PanelistID     jsonScalar `json:"panelistId"`
	SubsampleID    jsonScalar `json:"subsampleId"`
	StatusID       jsonScalar `json:"statusId"`
	RegisteredAt   jsonScalar `json:"registeredAt"`
	EventID        jsonScalar `json:"eventId"`
	CategoryID     jsonScalar `json:"categoryId"`
	ResearchTypeID jsonScalar `json:"researchTypeId"`
}

func (e *jsonHistoryRecord) fields() [7]string {
	return [7]string{e.PanelistID.text, e.SubsampleID.text, e.StatusID.text, e.RegisteredAt.text,
		e.EventID.text, e.CategoryID.text, e.ResearchTypeID.text}
}

// kindErrors names the fields that hold an object, an array or a boolean.
func (e *jsonHistoryRecord) kindErrors() string {
	var reasons []string
	for i, v := range []jsonScalar{e.PanelistID, e.SubsampleID, e.StatusID, e.RegisteredAt, e.EventID, e.CategoryID, e.ResearchTypeID} {
		if v.wrongKind {
			reasons = append(reasons, historyFields[i]+" must be a string or a number")
		}
	}
	return strings.Join(reasons, "; ")
}

// jsonScalar is a string or number field kept as its text, so that the
// JSON and CSV files are validated alike. null leaves it empty.
type jsonScalar struct {
	text      string
	wrongKind bool
}

func (s *jsonScalar) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || string(b) == "null":
		s.text = ""
	case b[0] == '"':
		if bytes.IndexByte(b, '\\') < 0 {
			s.text = string(b[1 : len(b)-1])
			return nil
		}
		return json.Unmarshal(b, &s.text)
	case b[0] == '-' || ('0' <= b[0] && b[0] <= '9'):
		s.text = string(b)
	default:
		s.wrongKind = true
	}
	return nil
}

// parseHistoryFields validates the fields of one record, in HistoryHeader's
// order. It returns the record, or the reasons it is bad.
func parseHistoryFields(f *[7]string, loc *time.Location, latest time.Time) (historyRow, string) {
	var row historyRow
	var reasons []string
	fail := func(format string, args ...any) { reasons = append(reasons, fmt.Sprintf(format, args...)) }

	var err error
	if row.panelistID, err = domain.ParsePanelistID(f[0]); err != nil {
		fail("panelistId %v", err)
	}

	var ok bool
	if row.subsampleID, ok = parseID(f[1], 1); !ok {
		fail("subsampleId must be a positive integer, not %s", quoteField(f[1]))
	}
	if row.statusID, ok = parseID(f[2], 0); !ok || domain.ReturnCodeName(row.statusID) == "" {
		fail("statusId must be a respondent return code (2, 3, 82, 83, 92, 98 or 99), not %s", quoteField(f[2]))
	}
	if at, err := domain.ParseLocalTime(strings.TrimSpace(f[3]), loc); err != nil {
		fail("registeredAt: %v", err)
	} else if at.After(latest) {
		fail("registeredAt %s is more than a day in the future", strings.TrimSpace(f[3]))
	} else if at.Before(minRegisteredAt) {
		fail("registeredAt %s is before %s, earlier than the history can hold", strings.TrimSpace(f[3]), minRegisteredAt.UTC().Format(time.DateOnly))
	} else {
		row.registeredAt = at.UnixMilli()
	}
	if row.eventID, ok = parseID(f[4], 1); !ok {
		fail("eventId must be a positive integer, not %s", quoteField(f[4]))
	}
	if row.categoryID, ok = parseID(f[5], 0); !ok {
		fail("categoryId must be an integer of 0 or more (0 when unknown), not %s", quoteField(f[5]))
	}
	if row.researchTypeID, ok = parseID(f[6], 0); !ok {
		fail("researchTypeId must be an integer of 0 or more (0 when unknown), not %s", quoteField(f[6]))
	}
	if reasons != nil {
		return historyRow{}, strings.Join(reasons, "; ")
	}
	return row, ""
}

// parseID parses a decimal integer of at least min, spaces around allowed.
func parseID(s string, min int64) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil && n >= min
}

func quoteField(s string) string {
	if s == "" {
		return "an empty field"
	}
	return clip(strconv.Quote(s), 60)
}

// clip shortens s to about n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
