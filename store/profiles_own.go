package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// OwnProfileHeader is the exact CSV header of a profile file in the
// supplier's own codes (JSON uses the same field names).
const OwnProfileHeader = "panelistId,code,value"

// ownProfileFields are the columns of OwnProfileHeader, in order.
var ownProfileFields = [3]string{"panelistId", "code", "value"}

// OwnProfileImportReport says what an import of own-code profiles read
// and what the mapping made of it.
type OwnProfileImportReport struct {
	Records int `json:"records"` // valid records read
	// Answers counts the distinct (panelist, code, value) the file gives,
	// once committed; Translated of them the mapping translated into the
	// provider's ids and applied, Untranslated the rest, kept as sent (a
	// mapping imported later translates them): those no row covers for
	// the panelist's country, and those covered but not applied (a birth
	// date that is not one, answers that disagree, a question answered in
	// the provider's ids).
	Answers      int `json:"answers"`
	Translated   int `json:"translated"`
	Untranslated int `json:"untranslated"`
	// Panelists counts the panelists of the file, translated again.
	Panelists int         `json:"panelists"`
	Errors    []LineError `json:"errors"`   // the first bad lines, at most 100 listed
	BadLines  int         `json:"badLines"` // total number of bad lines, even beyond those listed
}

// ImportOwnProfilesCSV imports a CSV profile file in the supplier's own
// codes: the header OwnProfileHeader, then one answer per line. A file is
// accepted and read as ImportProfilesCSV reads one. A line is bad when it
// does not have 3 columns, when its panelistId is bad
// (domain.ParsePanelistID), or when its code or value is empty, longer than
// 128 bytes or holds a control character (domain.ParseOwnCode). A value is
// not judged here: what the mapping cannot translate (an unmapped code, a
// birth date that is not one) is kept untranslated and counted.
//
// For each (panelist, code) pair in the file, the values earlier imports
// stored for that pair are replaced by the file's; the file's own values of
// a pair add up (a multi-valued code over several lines). Each panelist of
// the file is then translated again with the stored mapping, for their
// country in the panel: the provider answers the mapping reaches are
// written into their profile, where every reader of profiles matches them
// (those the translation before wrote and this one does not reach are
// removed). Answers imported by provider ids are kept and win: a question
// that holds some gets no translated answer, and the own answers that
// would have given it one are counted as untranslated.
//
// All or nothing, in one transaction, as ImportProfilesCSV: if any line is
// bad nothing is written, and the report lists the bad lines with
// ErrInvalidImport wrapped in the error.
func (s *Store) ImportOwnProfilesCSV(ctx context.Context, r io.Reader) (OwnProfileImportReport, error) {
	return s.importOwnProfiles(ctx, "CSV own profile file", "line", func(im *ownImport) error {
		return readImportCSV(r, ownProfileFields[:], OwnProfileHeader, im)
	})
}

// ImportOwnProfilesJSON imports a JSON profile file in the supplier's own
// codes: an array of objects with the fields of OwnProfileHeader (strings
// or numbers). Element numbers take the place of line numbers; otherwise
// it behaves as ImportOwnProfilesCSV.
func (s *Store) ImportOwnProfilesJSON(ctx context.Context, r io.Reader) (OwnProfileImportReport, error) {
	return s.importOwnProfiles(ctx, "JSON own profile file", "element", func(im *ownImport) error {
		return readImportJSON[jsonOwnProfileRecord](r, "own profile", ownProfileFields[:], OwnProfileHeader, im)
	})
}

// ImportOwnProfiles imports records given as values, as
// ImportOwnProfilesCSV does; record numbers (from 1) take the place of line
// numbers.
func (s *Store) ImportOwnProfiles(ctx context.Context, records iter.Seq[domain.OwnProfileRecord]) (OwnProfileImportReport, error) {
	return s.importOwnProfiles(ctx, "own profile records", "record", func(im *ownImport) error {
		n := 0
		for r := range records {
			n++
			if err := im.addFields(n, []string{r.PanelistID, r.Code, r.Value}); err != nil {
				return err
			}
		}
		if n == 0 {
			im.bad(0, "no records")
		}
		return nil
	})
}

// ownBatch is how many records one pair of statements writes.
const ownBatch = 64

// ownImport is the state of one own-code profile import: the records
// waiting to be written, ownBatch at a time.
type ownImport struct {
	lineTally
	ctx      context.Context
	tx       *sqlx.Tx
	importID int64
	pending  []domain.OwnProfileRecord
	// stored: own_profiles held rows before the import, which the
	// records may replace; into an empty table nothing is removed.
	stored bool
	// replace and write are the statements of a full batch.
	replace, write *sql.Stmt
}

// ownStatements are the two statements that write n records: the first
// removes what earlier imports stored for each record's (panelist, code)
// (its parameters: this import's id, then each record's panelist and
// code), the second inserts the records (panelist, code, value, import
// id each), a record given twice once. The pairs are ORed equalities,
// each a lookup of the primary key on both databases (PostgreSQL read a
// row-value IN list by scanning the table, whose statistics an import
// into it leaves behind).
func ownStatements(n int) (replace, write string) {
	list := func(row string) string { return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ") }
	pairs := strings.TrimSuffix(strings.Repeat("(panelist_id = ? AND code = ?) OR ", n), " OR ")
	return `DELETE FROM own_profiles WHERE import_id <> ? AND (` + pairs + `)`,
		`INSERT INTO own_profiles (panelist_id, code, value, import_id) VALUES ` + list("(?, ?, ?, ?)") + ` ON CONFLICT (panelist_id, code, value) DO NOTHING`
}

// flush writes the pending records, unless a line was bad.
func (im *ownImport) flush() error {
	batch := im.pending
	im.pending = im.pending[:0]
	if len(batch) == 0 || im.badLines > 0 {
		return nil
	}
	del, ins := []any{im.importID}, make([]any, 0, 4*len(batch))
	for _, r := range batch {
		del = append(del, r.PanelistID, r.Code)
		ins = append(ins, r.PanelistID, r.Code, r.Value, im.importID)
	}
	var err error
	if len(batch) == ownBatch {
		if im.stored {
			_, err = im.replace.ExecContext(im.ctx, del...)
		}
		if err == nil {
			_, err = im.write.ExecContext(im.ctx, ins...)
		}
	} else {
		replace, write := ownStatements(len(batch))
		if im.stored {
			_, err = im.tx.ExecContext(im.ctx, replace, del...)
		}
		if err == nil {
			_, err = im.tx.ExecContext(im.ctx, write, ins...)
		}
	}
	if err != nil {
		return fmt.Errorf("write the records of panelist %s and on: %w", domain.QuoteField(batch[0].PanelistID), err)
	}
	return nil
}

// importOwnProfiles runs read as an import (runImport) under a new row of
// profile_imports: each record first removes what earlier imports stored
// for its (panelist, code), then is written under this import, ownBatch
// records at a time; once the
// file is read, the file's panelists are translated again and the summary
// of unmapped codes refreshed. It serializes with the profile imports: both
// write the profiles rows.
func (s *Store) importOwnProfiles(ctx context.Context, what, unit string, read func(*ownImport) error) (OwnProfileImportReport, error) {
	im := &ownImport{ctx: ctx}
	var report OwnProfileImportReport
	err := s.runImport(ctx, what, unit, "profile import", &im.lineTally, func(_ *sqlx.Conn, tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &im.importID, `INSERT INTO profile_imports (imported_at, records) VALUES (?, 0) RETURNING import_id`, time.Now()); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		im.tx, im.pending = tx, make([]domain.OwnProfileRecord, 0, ownBatch)
		if err := tx.GetContext(ctx, &im.stored, `SELECT EXISTS (SELECT 1 FROM own_profiles)`); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		replace, write := ownStatements(ownBatch)
		var err error
		if im.replace, err = tx.PrepareContext(ctx, replace); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer im.replace.Close()
		if im.write, err = tx.PrepareContext(ctx, write); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer im.write.Close()
		if err := read(im); err != nil {
			return err
		}
		if err := im.flush(); err != nil {
			return err
		}
		if im.badLines > 0 {
			return nil // rolled back
		}
		if _, err := tx.ExecContext(ctx, `UPDATE profile_imports SET records = ? WHERE import_id = ?`, im.records, im.importID); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		tr, err := newTranslation(ctx, tx, im.importID)
		if err != nil {
			return err
		}
		defer tr.close()
		if err := tr.run(`SELECT DISTINCT panelist_id FROM own_profiles WHERE import_id = ` + fmt.Sprint(im.importID) +
			` AND panelist_id > ? ORDER BY panelist_id LIMIT ?`); err != nil {
			return err
		}
		report.Panelists = tr.panelists
		if err := tx.QueryRowxContext(ctx, `SELECT COUNT(*), COUNT(CASE WHEN state = 0 THEN 1 END) FROM own_profiles WHERE import_id = ?`,
			im.importID).Scan(&report.Answers, &report.Translated); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		report.Untranslated = report.Answers - report.Translated
		return nil
	})
	if err != nil {
		report = OwnProfileImportReport{}
	}
	report.Records, report.Errors, report.BadLines = im.records, im.errors, im.badLines
	return report, err
}

// addFields validates one line (in OwnProfileHeader's order) and writes it
// while no line has been bad; it makes ownImport a lineSink. Only a
// database error is returned.
func (im *ownImport) addFields(line int, f []string) error {
	var reasons []string
	panelistID, err := domain.ParsePanelistID(f[0])
	if err != nil {
		reasons = append(reasons, fmt.Sprintf("panelistId %v", err))
	}
	code, reason := domain.ParseOwnCode("code", f[1])
	if reason != "" {
		reasons = append(reasons, reason)
	}
	value, reason := domain.ParseOwnCode("value", f[2])
	if reason != "" {
		reasons = append(reasons, reason)
	}
	if reasons != nil {
		im.bad(line, strings.Join(reasons, "; "))
		return nil
	}
	im.records++
	if im.badLines > 0 {
		return nil // the file is rejected: validate the rest, write nothing more
	}
	im.pending = append(im.pending, domain.OwnProfileRecord{PanelistID: panelistID, Code: code, Value: value})
	if len(im.pending) == ownBatch {
		return im.flush()
	}
	return nil
}

// jsonOwnProfileRecord is one element of a JSON own profile file.
type jsonOwnProfileRecord struct {
	PanelistID jsonScalar `json:"panelistId"`
	Code       jsonScalar `json:"code"`
	Value      jsonScalar `json:"value"`
}

// texts makes jsonOwnProfileRecord a jsonRecord.
func (e *jsonOwnProfileRecord) texts(record []string) string {
	return jsonTexts(record, ownProfileFields[:], e.PanelistID, e.Code, e.Value)
}

// UnmappedCode is a (code, value) of the own profiles that no mapping row
// covers for the country of the panelists carrying it, and how many do.
type UnmappedCode struct {
	Code  string `json:"code" db:"code"`
	Value string `json:"value" db:"value"`
	// Country is the panelists' country ("" for those with none on file,
	// who get only the mapping's general rows).
	Country   string `json:"country" db:"country"`
	Panelists int64  `json:"panelists" db:"panelists"`
}

// CountOwnProfiles returns how many panelists have answers in the
// supplier's own codes, translated or not.
func (s *Store) CountOwnProfiles(ctx context.Context) (int64, error) {
	var n int64
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM own_translations`); err != nil {
		return 0, fmt.Errorf("count own profiles: %w", err)
	}
	return n, nil
}

// UnmappedCodes lists the own answers no mapping row covers, per
// country (the one their panelist's last translation used), the most
// carried first: the rows the translation marked unmapped (state 1, a
// partial index of its own). A birth date a row covers but that is not a
// date is not listed: it is covered, only wrong.
func (s *Store) UnmappedCodes(ctx context.Context) ([]UnmappedCode, error) {
	out := []UnmappedCode{}
	if err := s.reader.SelectContext(ctx, &out, `
		SELECT o.code, o.value, COALESCE(t.country, '') AS country, COUNT(*) AS panelists
		FROM own_profiles o LEFT JOIN own_translations t ON t.panelist_id = o.panelist_id
		WHERE o.state = 1 GROUP BY o.code, o.value, COALESCE(t.country, '')
		ORDER BY panelists DESC, o.code, o.value, country`); err != nil {
		return nil, fmt.Errorf("unmapped codes: %w", err)
	}
	return out, nil
}
