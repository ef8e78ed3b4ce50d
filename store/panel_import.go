package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// PanelHeader is the exact CSV header of a panel file (JSON uses the same
// field names).
const PanelHeader = "panelistId,country,locale"

// panelFields are the columns of PanelHeader, in order.
var panelFields = [3]string{"panelistId", "country", "locale"}

// PanelImportReport says what a panel import read and wrote.
type PanelImportReport struct {
	Records int `json:"records"` // valid records read
	// Written counts the panel rows written: the file's panelists, each
	// once, however many lines name them (the last one counts).
	Written int `json:"written"`
	// Replaced counts the panelists of the file who had a row before this
	// import: their earlier country and locale were replaced, even when
	// the file gives the same again. They are counted in Written too.
	Replaced int         `json:"replaced"`
	Errors   []LineError `json:"errors"`   // the first bad lines, at most 100 listed
	BadLines int         `json:"badLines"` // total number of bad lines, even beyond those listed
}

// panelBatch is how many records one INSERT writes.
const panelBatch = 64

// ImportPanelCSV imports a CSV panel file: the header PanelHeader, then
// one panelist per line. A file is accepted and read as ImportHistoryCSV
// reads a history file (byte order mark, CRLF, quotes, blank lines; line
// numbers as an editor shows them). A line is bad when it does not have 3
// columns or when domain.ParsePanelMember refuses it: an empty, too long
// or otherwise bad panelistId, a country that is not two letters, a locale
// not in the language-country form, or of another country than the line's.
//
// A panelist's row holds the country and locale of the last line that
// names them, in this file or, failing that, in an earlier import.
//
// The file is read, validated and written line by line in one transaction
// on the writer, so memory does not grow with it. If any line is bad the
// transaction is rolled back, nothing is written, and the report lists the
// bad lines with ErrInvalidImport wrapped in the error. The writer is held
// while r is read: r should be quick to read (a file, not a slow upload).
func (s *Store) ImportPanelCSV(ctx context.Context, r io.Reader) (PanelImportReport, error) {
	return s.importPanel(ctx, "CSV panel file", "line", func(im *panelImport) error {
		return readImportCSV(r, panelFields[:], PanelHeader, im)
	})
}

// ImportPanelJSON imports a JSON panel file: an array of objects with the
// fields of PanelHeader, strings or numbers (a panelist id may be a
// number). The array is decoded one element at a time, and element
// numbers take the place of line numbers; otherwise it behaves as
// ImportPanelCSV.
func (s *Store) ImportPanelJSON(ctx context.Context, r io.Reader) (PanelImportReport, error) {
	return s.importPanel(ctx, "JSON panel file", "element", func(im *panelImport) error {
		return readImportJSON[jsonPanelRecord](r, "panel", panelFields[:], PanelHeader, im)
	})
}

// ImportPanel imports records given as values, validated and written as
// ImportPanelCSV does; record numbers (from 1) take the place of line
// numbers.
func (s *Store) ImportPanel(ctx context.Context, records iter.Seq[domain.PanelMember]) (PanelImportReport, error) {
	return s.importPanel(ctx, "panel records", "record", func(im *panelImport) error {
		n := 0
		for m := range records {
			n++
			f := [3]string{m.PanelistID, m.Country, m.Locale}
			if err := im.add(n, &f); err != nil {
				return err
			}
		}
		if n == 0 {
			im.bad(0, "no records")
		}
		return nil
	})
}

// importPanel runs read as an import (runImport): the records it adds are
// written panelBatch at a time, each replacing its panelist's row.
//
// Into an empty table nothing is looked up: no panelist had a row, and
// the rows written are the table's rows at the end. Otherwise each
// panelist the file names is kept in a temporary table for the import,
// the first time with whether the panel held them then, before this
// import wrote them (remember); the table counts the rows written and
// replaced at the end. It is the database's: on SQLite, past a small page
// cache, it lives in a temporary file, so memory still does not grow with
// the file. Panel imports serialize, on PostgreSQL across instances too,
// so that the counts are this import's.
//
// A panelist with own-code answers whose country the import changed is
// translated again (translateMoved): the mapping's rows differ per
// country.
func (s *Store) importPanel(ctx context.Context, what, unit string, read func(*panelImport) error) (PanelImportReport, error) {
	im := &panelImport{ctx: ctx}
	err := s.runImport(ctx, what, unit, "panel import", &im.lineTally, func(_ *sqlx.Conn, tx *sqlx.Tx) error {
		var stored bool
		if err := tx.GetContext(ctx, &stored, `SELECT EXISTS (SELECT 1 FROM panel)`); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		if err := im.prepare(tx, stored, s.dialect.tableOptions()); err != nil {
			return err
		}
		defer im.closeStatements()
		if err := read(im); err != nil {
			return err
		}
		if err := im.flush(); err != nil {
			return err
		}
		if im.badLines > 0 {
			return nil // rolled back
		}
		if err := s.translateMoved(ctx, tx); err != nil {
			return err
		}
		if !stored {
			if err := tx.GetContext(ctx, &im.written, `SELECT COUNT(*) FROM panel`); err != nil {
				return fmt.Errorf("finish import: %w", err)
			}
			return nil
		}
		if err := tx.QueryRowxContext(ctx, `SELECT COUNT(*), COALESCE(SUM(stored), 0) FROM panel_import`).
			Scan(&im.written, &im.replaced); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DROP TABLE panel_import`); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		return nil
	})
	return im.report(err == nil), err
}

// panelImport is the state of one panel import: what it read, the
// prepared statements and what they wrote.
type panelImport struct {
	lineTally
	ctx context.Context

	// written and replaced are reported once the import is committed.
	written, replaced int

	// Records are written panelBatch at a time by insertMany, the last
	// few by insertOne. When the panel held rows before the import, each
	// batch's panelists are first remembered (rememberMany).
	insertOne, insertMany, rememberMany *sql.Stmt
	pending                             [panelBatch]domain.PanelMember
	npending                            int
	args                                []any
	last                                map[string]int // lastOfEach's
}

// prepare prepares the import's statements inside tx; with stored (the
// panel held rows before the import) it creates the temporary table of
// the file's panelists, with the dialect's tableOptions, and the
// statement that fills it.
func (im *panelImport) prepare(tx *sqlx.Tx, stored bool, tableOptions string) error {
	rows := func(n int, row string) string { return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") }
	const upsert = ` ON CONFLICT (panelist_id) DO UPDATE SET country = excluded.country, locale = excluded.locale`
	statements := []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&im.insertOne, `INSERT INTO panel (panelist_id, country, locale) VALUES (?, ?, ?)` + upsert},
		{&im.insertMany, `INSERT INTO panel (panelist_id, country, locale) VALUES ` + rows(panelBatch, "(?, ?, ?)") + upsert},
		// A short batch repeats its last id, which DO NOTHING ignores.
		// (WHERE true: SQLite would read ON CONFLICT as a join's ON.)
		{&im.rememberMany, `INSERT INTO panel_import (panelist_id, stored)
			SELECT column1, CASE WHEN EXISTS (SELECT 1 FROM panel WHERE panelist_id = column1) THEN 1 ELSE 0 END
			FROM (VALUES ` + rows(panelBatch, "(?)") + `) AS listed WHERE true ON CONFLICT DO NOTHING`},
	}
	if stored {
		if _, err := tx.ExecContext(im.ctx, `CREATE TEMP TABLE panel_import (panelist_id TEXT PRIMARY KEY, stored INTEGER NOT NULL) `+tableOptions); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
	} else {
		statements = statements[:2]
	}
	for _, p := range statements {
		stmt, err := tx.PrepareContext(im.ctx, p.sql)
		if err != nil {
			im.closeStatements()
			return fmt.Errorf("prepare: %w", err)
		}
		*p.stmt = stmt
	}
	im.args = make([]any, 0, 3*panelBatch)
	im.last = make(map[string]int, panelBatch)
	return nil
}

func (im *panelImport) closeStatements() {
	for _, s := range []*sql.Stmt{im.insertOne, im.insertMany, im.rememberMany} {
		if s != nil {
			s.Close()
		}
	}
}

// report says what the import read and, if it was committed, wrote.
func (im *panelImport) report(committed bool) PanelImportReport {
	r := PanelImportReport{Records: im.records, Errors: im.errors, BadLines: im.badLines}
	if committed {
		r.Written, r.Replaced = im.written, im.replaced
	}
	return r
}

// addFields makes panelImport a lineSink.
func (im *panelImport) addFields(line int, record []string) error {
	return im.add(line, (*[3]string)(record))
}

// add validates the fields of one line (in PanelHeader's order) and queues
// the record while no line has been bad. Only a database error is
// returned.
func (im *panelImport) add(line int, f *[3]string) error {
	m, problems := domain.ParsePanelMember(f[0], f[1], f[2])
	if len(problems) > 0 {
		im.bad(line, strings.Join(problems, "; "))
		return nil
	}
	im.records++
	if im.badLines > 0 {
		return nil // the file is rejected: validate the rest, write nothing more
	}
	im.pending[im.npending] = m
	im.npending++
	if im.npending == panelBatch {
		return im.flush()
	}
	return nil
}

// flush writes the queued records, unless a line was bad: the file is
// then rejected and the queue dropped.
func (im *panelImport) flush() error {
	batch := im.pending[:im.npending]
	im.npending = 0
	if len(batch) == 0 || im.badLines > 0 {
		return nil
	}
	if im.rememberMany != nil {
		if err := im.remember(batch); err != nil {
			return err
		}
	}
	batch = im.lastOfEach(batch)
	if len(batch) == panelBatch {
		im.args = im.args[:0]
		for i := range batch {
			im.args = append(im.args, batch[i].PanelistID, batch[i].Country, batch[i].Locale)
		}
		if _, err := im.insertMany.ExecContext(im.ctx, im.args...); err != nil {
			return fmt.Errorf("write panelist %s: %w", batch[0].PanelistID, err)
		}
		return nil
	}
	for _, m := range batch {
		if _, err := im.insertOne.ExecContext(im.ctx, m.PanelistID, m.Country, m.Locale); err != nil {
			return fmt.Errorf("write panelist %s: %w", m.PanelistID, err)
		}
	}
	return nil
}

// lastOfEach returns batch with each panelist once, as their last line
// gives them: one statement may not write a row twice (PostgreSQL
// refuses it).
func (im *panelImport) lastOfEach(batch []domain.PanelMember) []domain.PanelMember {
	clear(im.last)
	for i, m := range batch {
		im.last[m.PanelistID] = i
	}
	if len(im.last) == len(batch) {
		return batch
	}
	out := make([]domain.PanelMember, 0, len(im.last))
	for i, m := range batch {
		if im.last[m.PanelistID] == i {
			out = append(out, m)
		}
	}
	return out
}

// remember adds the panelists of batch, before it is written, to the
// temporary table of the file's panelists, each with whether the panel
// holds them; one the file named before keeps its first row, when the
// panel held them only if they were stored before the import.
func (im *panelImport) remember(batch []domain.PanelMember) error {
	im.args = im.args[:0]
	for i := range panelBatch {
		im.args = append(im.args, batch[min(i, len(batch)-1)].PanelistID)
	}
	if _, err := im.rememberMany.ExecContext(im.ctx, im.args...); err != nil {
		return fmt.Errorf("look up stored panelists: %w", err)
	}
	return nil
}

// jsonPanelRecord is one element of a JSON panel file.
type jsonPanelRecord struct {
	PanelistID jsonScalar `json:"panelistId"`
	Country    jsonScalar `json:"country"`
	Locale     jsonScalar `json:"locale"`
}

// texts makes jsonPanelRecord a jsonRecord.
func (e *jsonPanelRecord) texts(record []string) string {
	return jsonTexts(record, panelFields[:], e.PanelistID, e.Country, e.Locale)
}
