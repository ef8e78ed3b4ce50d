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
	// provider's ids, Untranslated the rest, kept as sent (a mapping
	// imported later translates them).
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
// removed; answers imported by provider ids are kept).
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

// ownImport is the state of one own-code profile import.
type ownImport struct {
	lineTally
	ctx            context.Context
	importID       int64
	replace, write *sql.Stmt
}

// importOwnProfiles runs read as an import (runImport) under a new row of
// profile_imports: each record first removes what earlier imports stored
// for its (panelist, code), then is written under this import; once the
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
		var err error
		if im.replace, err = tx.PrepareContext(ctx, `DELETE FROM own_profiles WHERE panelist_id = ? AND code = ? AND import_id <> ?`); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer im.replace.Close()
		if im.write, err = tx.PrepareContext(ctx, `INSERT INTO own_profiles (panelist_id, code, value, import_id) VALUES (?, ?, ?, ?)
			ON CONFLICT (panelist_id, code, value) DO NOTHING`); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer im.write.Close()
		if err := read(im); err != nil {
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
		if err := tr.run(`SELECT DISTINCT panelist_id FROM own_profiles WHERE import_id = ` + fmt.Sprint(im.importID) +
			` AND panelist_id > ? ORDER BY panelist_id LIMIT ?`); err != nil {
			return err
		}
		if err := tr.finish(); err != nil {
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
	if _, err := im.replace.ExecContext(im.ctx, panelistID, code, im.importID); err != nil {
		return fmt.Errorf("line %d: %w", line, err)
	}
	if _, err := im.write.ExecContext(im.ctx, panelistID, code, value, im.importID); err != nil {
		return fmt.Errorf("line %d: %w", line, err)
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
	Code      string `json:"code" db:"code"`
	Value     string `json:"value" db:"value"`
	Panelists int64  `json:"panelists" db:"panelists"`
}

// UnmappedCodes lists the own answers no mapping row covers, the most
// carried first: a summary the imports refresh (unmapped_codes), so this
// reads no profile. A birth date a row covers but that is not a date is
// not listed: it is covered, only wrong.
func (s *Store) UnmappedCodes(ctx context.Context) ([]UnmappedCode, error) {
	out := []UnmappedCode{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT code, value, panelists FROM unmapped_codes ORDER BY panelists DESC, code, value`); err != nil {
		return nil, fmt.Errorf("unmapped codes: %w", err)
	}
	return out, nil
}
