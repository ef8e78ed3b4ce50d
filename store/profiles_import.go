package store

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// ProfileHeader is the exact CSV header of a profile file (JSON uses the
// same field names).
const ProfileHeader = "panelistId,questionId,value"

// profileFields are the columns of ProfileHeader, in order.
var profileFields = [3]string{"panelistId", "questionId", "value"}

// ProfileImportReport says what a profile import read and wrote.
type ProfileImportReport struct {
	Records  int `json:"records"`  // valid records read
	Inserted int `json:"inserted"` // answers written (Records minus records repeated in the file)
	// Replaced counts the answers of earlier imports removed because the
	// file answers their question again for their panelist; an answer
	// given again is removed and written again, so it counts here and in
	// Inserted.
	Replaced int `json:"replaced"`
	// UnknownQuestions counts the valid records whose question is not in
	// the library (it differs per locale): a warning, they are written all
	// the same. UnknownQuestionIDs lists the first few such questions.
	UnknownQuestions   int         `json:"unknownQuestions"`
	UnknownQuestionIDs []int64     `json:"unknownQuestionIds"`
	Errors             []LineError `json:"errors"`   // the first bad lines, at most 100 listed
	BadLines           int         `json:"badLines"` // total number of bad lines, even beyond those listed
}

const (
	// maxListedUnknown bounds ProfileImportReport.UnknownQuestionIDs.
	maxListedUnknown = 20
	// profileBatch is how many panelists one INSERT writes (and one
	// SELECT looks up).
	profileBatch = 64
	// maxProfileAnswers caps the answers of one panelist, birth date
	// included, so that a file cannot make one panelist eat memory.
	maxProfileAnswers = 10_000
)

// ImportProfilesCSV imports a CSV profile file: the header ProfileHeader,
// then one record per line. known says whether a question id is in the
// provider's library (nil: every id is); a record of another question is
// accepted and counted in UnknownQuestions, since the library differs per
// locale. The age question (-1) is always known.
//
// A file is accepted and read as ImportHistoryCSV reads a history file
// (byte order mark, CRLF, quotes, blank lines; line numbers as an editor
// shows them). A line is bad when it does not have 3 columns, when its
// panelistId is empty, longer than 128 bytes or holds a control character,
// when its questionId is not -1 or a positive integer, or when its value is
// not a positive integer (an answer id) or, for question -1, not a birth
// date yyyy-MM-dd between 1900-01-01 and today (where today is furthest
// ahead, UTC+14), or another birth date than one given earlier in the file
// for the same panelist; and when it takes a panelist past 10,000 answers.
//
// For each (panelist, question) pair in the file, the answers earlier
// imports stored for that pair are replaced by the file's; the file's own
// records of a pair add up (several answers of a multi-punch question). A
// panelist's other questions are untouched.
//
// The file is read, validated and written line by line in one transaction
// on the writer, so memory does not grow with it. If any line is bad the
// transaction is rolled back, nothing is written, and the report lists the
// bad lines with ErrInvalidImport wrapped in the error. The writer is held
// while r is read: r should be quick to read (a file, not a slow upload).
func (s *Store) ImportProfilesCSV(ctx context.Context, r io.Reader, known func(questionID int64) bool) (ProfileImportReport, error) {
	return s.importProfiles(ctx, "CSV profile file", "line", known, func(im *profileImport) error {
		return readImportCSV(r, profileFields[:], ProfileHeader, im)
	})
}

// ImportProfilesJSON imports a JSON profile file: an array of objects with
// the fields of ProfileHeader. Ids and answer ids may be numbers or
// strings. The array is decoded one element at a time, and element numbers
// take the place of line numbers; otherwise it behaves as
// ImportProfilesCSV.
func (s *Store) ImportProfilesJSON(ctx context.Context, r io.Reader, known func(questionID int64) bool) (ProfileImportReport, error) {
	return s.importProfiles(ctx, "JSON profile file", "element", known, func(im *profileImport) error {
		return readImportJSON[jsonProfileRecord](r, "profile", profileFields[:], ProfileHeader, im)
	})
}

// ImportProfiles imports records given as values, validated and written as
// ImportProfilesCSV does; record numbers (from 1) take the place of line
// numbers.
func (s *Store) ImportProfiles(ctx context.Context, records iter.Seq[domain.ProfileRecord], known func(questionID int64) bool) (ProfileImportReport, error) {
	return s.importProfiles(ctx, "profile records", "record", known, func(im *profileImport) error {
		n := 0
		for r := range records {
			n++
			f := [3]string{r.PanelistID, strconv.FormatInt(r.QuestionID, 10), r.Value}
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

// importProfiles runs read as an import (runImport): each panelist's
// records are merged with the stored profile and written as one row, under
// a new row of profile_imports, by the dialect's profileLoader (INSERTs of
// 64 rows on SQLite, COPY on PostgreSQL). Profile imports serialize, on
// PostgreSQL across instances too: each reads what the one before wrote.
func (s *Store) importProfiles(ctx context.Context, what, unit string, known func(int64) bool, read func(*profileImport) error) (ProfileImportReport, error) {
	im := &profileImport{ctx: ctx, known: known, latest: domain.LatestBirthDate(time.Now()), sorted: true}
	err := s.runImport(ctx, what, unit, "profile import", &im.lineTally, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &im.importID, `INSERT INTO profile_imports (imported_at, records) VALUES (?, 0) RETURNING import_id`, time.Now()); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		// Into an empty table, a file sorted by panelist needs no lookups.
		var stored bool
		if err := tx.GetContext(ctx, &stored, `SELECT EXISTS (SELECT 1 FROM profiles)`); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		im.lookAlways = stored
		loader, err := s.dialect.profileLoader(ctx, conn, tx, im.importID)
		if err != nil {
			return err
		}
		defer loader.close()
		im.loader = loader
		im.prepare()
		if err := read(im); err != nil {
			return err
		}
		if err := im.endGroup(); err != nil {
			return err
		}
		if err := im.writeBatch(); err != nil {
			return err
		}
		if im.badLines > 0 {
			return nil // rolled back
		}
		if err := loader.finish(ctx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE profile_imports SET records = ? WHERE import_id = ?`, im.records, im.importID); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		return nil
	})
	return im.report(err == nil), err
}

// profileImport is the state of one profile import. Records come in
// groups, the consecutive records of one panelist; a finished group joins
// the batch, and a full batch is merged with what is stored and written,
// one row per panelist.
type profileImport struct {
	lineTally
	ctx      context.Context
	known    func(int64) bool
	latest   int32 // the latest birth date accepted, yyyymmdd
	importID int64

	// What the import wrote so far (reported only once committed), and
	// the records of questions the library does not have.
	inserted, replaced int
	unknownQuestions   int
	unknownQuestionIDs []int64 // the first maxListedUnknown

	// lookAlways: profiles held rows before the import, so every panelist
	// is looked up. sorted: the groups so far came in ascending panelist
	// order, so none can have been written before by this import either.
	// Once a group breaks the order, every later batch is looked up.
	lookAlways, sorted bool

	loader profileLoader

	cur     profileGroup   // the group being read
	lastID  string         // the panelist of the previous group
	batch   []profileGroup // finished groups; their answer slices are reused
	stored  map[string]storedProfile
	buf     []byte       // packed rows of the batch
	ends    []int        // where each batch row ends in buf
	rows    []profileRow // the batch's rows, their answers in buf
	scratch []int64      // unpacked answers of one stored question
	given   []int64      // the answers of one question of a group
	args    []any
}

// profileGroup is the consecutive records of one panelist.
type profileGroup struct {
	panelistID string
	answers    []profileAnswer
}

// profileAnswer is one valid record: for the age question, answer is the
// birth date yyyymmdd.
type profileAnswer struct {
	question, answer int64
	line             int
}

// prepare makes the import's buffers.
func (im *profileImport) prepare() {
	im.batch = make([]profileGroup, 0, profileBatch)
	im.stored = make(map[string]storedProfile, profileBatch)
	im.args = make([]any, 0, profileBatch)
	im.rows = make([]profileRow, 0, profileBatch)
}

// report says what the import read and, if it was committed, wrote.
func (im *profileImport) report(committed bool) ProfileImportReport {
	r := ProfileImportReport{Records: im.records, UnknownQuestions: im.unknownQuestions, UnknownQuestionIDs: im.unknownQuestionIDs,
		Errors: im.errors, BadLines: im.badLines}
	if committed {
		r.Inserted, r.Replaced = im.inserted, im.replaced
	}
	return r
}

// addFields is add for a line of readImportCSV or an element of
// readImportJSON, which hand it as many fields as ProfileHeader has; it
// makes profileImport a lineSink.
func (im *profileImport) addFields(line int, record []string) error {
	return im.add(line, (*[3]string)(record))
}

// add validates the fields of one line (in ProfileHeader's order) and
// adds the record to its panelist's group while no line has been bad.
// Only a database error is returned.
func (im *profileImport) add(line int, f *[3]string) error {
	a, panelistID, reason := parseProfileFields(f, im.latest)
	if reason != "" {
		im.bad(line, reason)
		return nil
	}
	a.line = line
	// Once a line is bad the file is rejected: the rest is validated,
	// groups are still formed (to find a second birth date in a row), but
	// nothing more is written.
	if panelistID != im.cur.panelistID {
		if err := im.endGroup(); err != nil {
			return err
		}
		im.cur.panelistID = panelistID
	}
	if a.question == domain.AgeRangeQuestionID {
		for _, b := range im.cur.answers {
			if b.question == domain.AgeRangeQuestionID && b.answer != a.answer {
				im.bad(line, anotherBirthDate(panelistID, b.answer))
				return nil
			}
		}
	}
	if len(im.cur.answers) == maxProfileAnswers {
		im.bad(line, fmt.Sprintf("panelist %s has more than %d answers", domain.QuoteField(panelistID), maxProfileAnswers))
		return nil
	}
	im.cur.answers = append(im.cur.answers, a)
	im.records++
	if a.question != domain.AgeRangeQuestionID && im.known != nil && !im.known(a.question) {
		im.unknown(a.question)
	}
	return nil
}

func anotherBirthDate(panelistID string, earlier int64) string {
	return fmt.Sprintf("panelist %s has another birth date, %s, earlier in the file",
		domain.QuoteField(panelistID), domain.FormatBirthDate(int32(earlier)))
}

// unknown counts a record of a question the library does not have.
func (im *profileImport) unknown(questionID int64) {
	im.unknownQuestions++
	ids := im.unknownQuestionIDs
	if len(ids) >= maxListedUnknown {
		return
	}
	for _, id := range ids {
		if id == questionID {
			return
		}
	}
	im.unknownQuestionIDs = append(ids, questionID)
}

// endGroup moves the group being read into the batch, and writes the
// batch when it is full.
func (im *profileImport) endGroup() error {
	g := &im.cur
	if len(g.answers) == 0 || im.badLines > 0 {
		g.answers = g.answers[:0]
		return nil
	}
	sortAnswers(&g.answers)
	if im.lastID != "" && g.panelistID <= im.lastID {
		im.sorted = false
	}
	im.lastID = g.panelistID
	if !im.sorted {
		// The panelist may already be in the batch: add the answers up.
		for i := range im.batch {
			if b := &im.batch[i]; b.panelistID == g.panelistID {
				im.joinGroups(b, g)
				g.answers = g.answers[:0]
				return nil
			}
		}
	}
	// Take over the answer slice of the batch entry that comes next, so
	// that slices are reused from batch to batch.
	n := len(im.batch)
	im.batch = im.batch[:n+1]
	im.batch[n], *g = *g, profileGroup{answers: im.batch[n].answers[:0]}
	if n+1 == profileBatch {
		return im.writeBatch()
	}
	return nil
}

// sortAnswers orders a group's answers by question and answer and drops
// repeated ones, keeping the first line.
func sortAnswers(as *[]profileAnswer) {
	s := *as
	slices.SortStableFunc(s, func(a, b profileAnswer) int {
		if c := cmp.Compare(a.question, b.question); c != 0 {
			return c
		}
		return cmp.Compare(a.answer, b.answer)
	})
	*as = slices.CompactFunc(s, func(a, b profileAnswer) bool { return a.question == b.question && a.answer == b.answer })
}

// joinGroups adds g's answers to b, the same panelist's earlier group in
// the batch.
func (im *profileImport) joinGroups(b, g *profileGroup) {
	for _, x := range b.answers {
		if x.question != domain.AgeRangeQuestionID {
			break
		}
		for _, y := range g.answers {
			if y.question == domain.AgeRangeQuestionID && y.answer != x.answer {
				im.bad(y.line, anotherBirthDate(g.panelistID, x.answer))
				return
			}
		}
	}
	if len(b.answers)+len(g.answers) > maxProfileAnswers {
		im.bad(g.answers[0].line, fmt.Sprintf("panelist %s has more than %d answers", domain.QuoteField(g.panelistID), maxProfileAnswers))
		return
	}
	b.answers = append(b.answers, g.answers...)
	sortAnswers(&b.answers)
}
