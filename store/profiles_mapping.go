package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// MappingHeader is the exact CSV header of the supplier's mapping file.
const MappingHeader = "code,value,questionId,answerId,country"

// mappingFields are the columns of MappingHeader, in order.
var mappingFields = [5]string{"code", "value", "questionId", "answerId", "country"}

// maxMappingRows bounds a mapping file: the mapping is held in memory.
const maxMappingRows = 100_000

// ErrNoLibrary is returned (wrapped) by a mapping import before the first
// refresh stored the question library: a mapping is checked against it.
var ErrNoLibrary = errors.New("no question library is stored yet: a mapping is checked against it; import the mapping after the first refresh")

// MappingImportReport says what a mapping import read and what the new
// mapping made of the stored own answers.
type MappingImportReport struct {
	Records int `json:"records"` // mapping rows read (the whole mapping, once committed)
	// Panelists counts the panelists with own answers, all translated
	// again; Changed of them got another profile.
	Panelists int `json:"panelists"`
	Changed   int `json:"changed"`
	// Translated and Untranslated count every stored own answer, as the
	// new mapping translates it or not.
	Translated   int         `json:"translated"`
	Untranslated int         `json:"untranslated"`
	Errors       []LineError `json:"errors"`   // the first bad lines, at most 100 listed
	BadLines     int         `json:"badLines"` // total number of bad lines, even beyond those listed
}

// BadLinesOf the own profile and mapping import reports, as for the
// others (imports.go).
func (r OwnProfileImportReport) BadLinesOf() ([]LineError, int) { return r.Errors, r.BadLines }
func (r MappingImportReport) BadLinesOf() ([]LineError, int)    { return r.Errors, r.BadLines }

// ImportMappingCSV imports the supplier's mapping file: the header
// MappingHeader, then one row per line, read as ImportProfilesCSV reads a
// file. The file is the supplier's whole table: an import REPLACES the
// whole stored mapping, it does not add to it. Each line is checked by
// domain.MappingValidator against the stored question library (a question
// or answer id unknown in its country's locales is a bad line, and the
// reason says which); with no library stored yet the import is refused
// with ErrNoLibrary.
//
// Inside the same transaction every panelist with own answers is
// translated again with the new mapping: a mapping imported later applies
// to the own profiles imported earlier, and the answers the old mapping
// reached that the new one does not are removed from the profiles.
//
// All or nothing: if any line is bad nothing is written, and the report
// lists the bad lines (with their numbers) with ErrInvalidImport wrapped in
// the error.
func (s *Store) ImportMappingCSV(ctx context.Context, r io.Reader) (MappingImportReport, error) {
	im := &mappingImport{}
	var report MappingImportReport
	err := s.runImport(ctx, "CSV mapping file", "line", "profile import", &im.lineTally, func(_ *sqlx.Conn, tx *sqlx.Tx) error {
		entries, err := libraryEntries(ctx, tx)
		if err != nil {
			return err
		}
		lib := domain.NewMappingLibrary(entries)
		if lib.Empty() {
			return ErrNoLibrary
		}
		im.validator = domain.NewMappingValidator(lib)
		if err := readImportCSV(r, mappingFields[:], MappingHeader, im); err != nil {
			return err
		}
		if im.badLines > 0 {
			return nil // rolled back
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM profile_mapping`); err != nil {
			return fmt.Errorf("replace the mapping: %w", err)
		}
		ins := newInserter(tx, "profile_mapping", `code, value, question_id, answer_id, country`, `(?, ?, ?, ?, ?)`, ``)
		defer closeInserters(ins)
		for _, row := range im.rows {
			if err := ins.add(ctx, row.Code, row.Value, row.QuestionID, row.AnswerID, row.Country); err != nil {
				return fmt.Errorf("write the mapping: %w", err)
			}
		}
		if err := ins.flush(ctx); err != nil {
			return fmt.Errorf("write the mapping: %w", err)
		}
		tr, err := newTranslation(ctx, tx, 0)
		if err != nil {
			return err
		}
		defer tr.close()
		if err := tr.run(`SELECT panelist_id FROM own_translations WHERE panelist_id > ? ORDER BY panelist_id LIMIT ?`); err != nil {
			return err
		}
		report.Panelists, report.Changed = tr.panelists, tr.changed
		if err := tx.QueryRowxContext(ctx, `SELECT COUNT(*), COUNT(CASE WHEN state = 0 THEN 1 END) FROM own_profiles`).
			Scan(&report.Untranslated, &report.Translated); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		report.Untranslated -= report.Translated
		return nil
	})
	if err != nil {
		report = MappingImportReport{}
	}
	report.Records, report.Errors, report.BadLines = im.records, im.errors, im.badLines
	return report, err
}

// mappingImport is the state of one mapping import: the rows read so far.
type mappingImport struct {
	lineTally
	validator *domain.MappingValidator
	rows      []domain.MappingRow
}

// addFields checks one line; it makes mappingImport a lineSink.
func (im *mappingImport) addFields(line int, f []string) error {
	row, reason := im.validator.Check(line, [5]string(f))
	switch {
	case reason != "":
		im.bad(line, reason)
	case len(im.rows) == maxMappingRows:
		im.bad(line, fmt.Sprintf("the mapping has more than %d rows", maxMappingRows))
	default:
		im.rows = append(im.rows, row)
		im.records++
	}
	return nil
}

// libraryEntries reads every question (with its type) and answer of the
// stored library, by locale, for checking mapping rows and translating.
func libraryEntries(ctx context.Context, q sqlx.QueryerContext) ([]domain.LibraryEntry, error) {
	var out []domain.LibraryEntry
	err := sqlx.SelectContext(ctx, q, &out, `SELECT locale, question_id AS questionid, 0 AS answerid, type FROM questions
		UNION ALL SELECT locale, question_id, answer_id, '' FROM answers`)
	if err != nil {
		return nil, fmt.Errorf("read the question library: %w", err)
	}
	return out, nil
}

// ProfileMapping returns the stored mapping, the supplier's whole table as
// its last import gave it, by code, value, country ("" first), question
// and answer.
func (s *Store) ProfileMapping(ctx context.Context) ([]domain.MappingRow, error) {
	rows, err := mappingRows(ctx, s.reader)
	if rows == nil && err == nil {
		rows = []domain.MappingRow{}
	}
	return rows, err
}
