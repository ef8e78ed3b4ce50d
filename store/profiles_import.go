package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fieldboard/rules/domain"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
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

// ErrInvalidProfiles is returned (wrapped) when any line of a profile file
// is bad; nothing of the file is then written and the report lists the bad
// lines. errors.Is also matches it to ErrInvalidImport, so whatever handles
// a rejected history file handles a rejected profile file alike.
var ErrInvalidProfiles error = rejectedFile("profile file rejected")

type rejectedFile string

func (e rejectedFile) Error() string        { return string(e) }
func (e rejectedFile) Is(target error) bool { return target == ErrInvalidImport }

const (
	// maxListedUnknown bounds ProfileImportReport.UnknownQuestionIDs.
	maxListedUnknown = 20
	// profileBatch is how many panelists one INSERT writes (and one
	// SELECT looks up).
	profileBatch = 64
	// maxProfileAnswers caps the answers of one panelist, birth date
	// included, so that a file cannot make one panelist eat memory.
	maxProfileAnswers = 10_000
	// minBirthDate is the earliest birth date accepted, as yyyymmdd.
	minBirthDate = 1900_01_01
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
// bad lines with ErrInvalidProfiles (which is also ErrInvalidImport)
// wrapped in the error. The writer is held while r is read: r should be
// quick to read (a file, not a slow upload).
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
	return s.importProfiles(ctx, "JSON profile file", "element", known, func(im *profileImport) error { return im.readJSON(r) })
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

// importProfiles runs read in one transaction on the writer and commits
// what it wrote unless a line was bad. what names the import in errors,
// unit its lines.
func (s *Store) importProfiles(ctx context.Context, what, unit string, known func(int64) bool, read func(*profileImport) error) (ProfileImportReport, error) {
	im := &profileImport{ctx: ctx, known: known, latest: latestBirthDate(time.Now()), sorted: true}
	var restoreCache string
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		var err error
		if restoreCache, err = growPageCache(ctx, tx); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO profile_imports (imported_at, records) VALUES (?, 0)`, time.Now())
		if err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		if im.importID, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		// Into an empty table, a file sorted by panelist needs no lookups.
		var stored bool
		if err := tx.GetContext(ctx, &stored, `SELECT EXISTS (SELECT 1 FROM profiles)`); err != nil {
			return fmt.Errorf("start import: %w", err)
		}
		im.lookAlways = stored
		if err := im.prepare(tx); err != nil {
			return err
		}
		defer im.closeStatements()
		if err := read(im); err != nil {
			return err
		}
		if err := im.endGroup(); err != nil {
			return err
		}
		if err := im.writeBatch(); err != nil {
			return err
		}
		if im.report.BadLines > 0 {
			return errRejected
		}
		if _, err := tx.ExecContext(ctx, `UPDATE profile_imports SET records = ? WHERE import_id = ?`, im.report.Records, im.importID); err != nil {
			return fmt.Errorf("finish import: %w", err)
		}
		return bumpVersion(ctx, tx) // what the checks decide on changed
	})
	err = s.restorePageCache(ctx, restoreCache, err)
	switch {
	case errors.Is(err, errRejected):
		im.report.Inserted, im.report.Replaced = 0, 0
		first := im.report.Errors[0]
		where := fmt.Sprintf("%s %d", unit, first.Line)
		if first.Line == 0 {
			where = "the file"
		}
		if im.report.BadLines > 1 {
			unit += "s"
		}
		return im.report, fmt.Errorf("import %s: %w: %d bad %s; %s: %s",
			what, ErrInvalidProfiles, im.report.BadLines, unit, where, first.Reason)
	case err != nil:
		im.report.Inserted, im.report.Replaced = 0, 0
		return im.report, fmt.Errorf("import %s: %w", what, err)
	}
	return im.report, nil
}

// profileImport is the state of one profile import. Records come in
// groups, the consecutive records of one panelist; a finished group joins
// the batch, and a full batch is merged with what is stored and written,
// one row per panelist.
type profileImport struct {
	ctx      context.Context
	known    func(int64) bool
	latest   int32 // the latest birth date accepted, yyyymmdd
	importID int64
	report   ProfileImportReport

	// lookAlways: profiles held rows before the import, so every panelist
	// is looked up. sorted: the groups so far came in ascending panelist
	// order, so none can have been written before by this import either.
	// Once a group breaks the order, every later batch is looked up.
	lookAlways, sorted bool

	lookup, insertOne, insertMany *sql.Stmt

	cur     profileGroup   // the group being read
	lastID  string         // the panelist of the previous group
	batch   []profileGroup // finished groups; their answer slices are reused
	stored  map[string]storedProfile
	buf     []byte  // packed rows of the batch
	ends    []int   // where each batch row ends in buf
	scratch []int64 // unpacked answers of one stored question
	given   []int64 // the answers of one question of a group
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

// storedProfile is a panelist's row before the batch is written.
type storedProfile struct {
	importID int64
	answers  []byte
}

// prepare prepares the import's statements inside tx.
func (im *profileImport) prepare(tx *sqlx.Tx) error {
	// The import id is a number of ours: it is written into the statements.
	insert := func(n int) string {
		row := fmt.Sprintf("(?, %d, ?)", im.importID)
		return `INSERT OR REPLACE INTO profiles (panelist_id, import_id, answers) VALUES ` +
			strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&im.insertOne, insert(1)},
		{&im.insertMany, insert(profileBatch)},
		// A short batch repeats its last id, which IN ignores.
		{&im.lookup, `SELECT panelist_id, import_id, answers FROM profiles WHERE panelist_id IN (` + placeholders(profileBatch) + `)`},
	} {
		stmt, err := tx.PrepareContext(im.ctx, p.sql)
		if err != nil {
			im.closeStatements()
			return fmt.Errorf("prepare: %w", err)
		}
		*p.stmt = stmt
	}
	im.batch = make([]profileGroup, 0, profileBatch)
	im.stored = make(map[string]storedProfile, profileBatch)
	im.args = make([]any, 0, 2*profileBatch)
	return nil
}

func (im *profileImport) closeStatements() {
	for _, s := range []*sql.Stmt{im.lookup, im.insertOne, im.insertMany} {
		if s != nil {
			s.Close()
		}
	}
}

// counts says how many valid records and bad lines were read so far.
func (im *profileImport) counts() (records, badLines int) {
	return im.report.Records, im.report.BadLines
}

// bad records a bad line; only the first maxListedErrors are listed.
func (im *profileImport) bad(line int, reason string) {
	im.report.BadLines++
	if len(im.report.Errors) < maxListedErrors {
		im.report.Errors = append(im.report.Errors, LineError{Line: line, Reason: reason})
	}
}

// addFields is add for a CSV line, whose length readImportCSV checked.
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
		im.bad(line, fmt.Sprintf("panelist %s has more than %d answers", clip(strconv.Quote(panelistID), 60), maxProfileAnswers))
		return nil
	}
	im.cur.answers = append(im.cur.answers, a)
	im.report.Records++
	if a.question != domain.AgeRangeQuestionID && im.known != nil && !im.known(a.question) {
		im.unknown(a.question)
	}
	return nil
}

func anotherBirthDate(panelistID string, earlier int64) string {
	return fmt.Sprintf("panelist %s has another birth date, %s, earlier in the file",
		clip(strconv.Quote(panelistID), 60), formatBirthDate(int32(earlier)))
}

// unknown counts a record of a question the library does not have.
func (im *profileImport) unknown(questionID int64) {
	im.report.UnknownQuestions++
	ids := im.report.UnknownQuestionIDs
	if len(ids) >= maxListedUnknown {
		return
	}
	for _, id := range ids {
		if id == questionID {
			return
		}
	}
	im.report.UnknownQuestionIDs = append(ids, questionID)
}

// endGroup moves the group being read into the batch, and writes the
// batch when it is full.
func (im *profileImport) endGroup() error {
	g := &im.cur
	if len(g.answers) == 0 || im.report.BadLines > 0 {
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
		im.bad(g.answers[0].line, fmt.Sprintf("panelist %s has more than %d answers", clip(strconv.Quote(g.panelistID), 60), maxProfileAnswers))
		return
	}
	b.answers = append(b.answers, g.answers...)
	sortAnswers(&b.answers)
}

// writeBatch merges the batch with the stored profiles of its panelists
// and writes it.
func (im *profileImport) writeBatch() error {
	batch := im.batch
	im.batch = im.batch[:0]
	if len(batch) == 0 || im.report.BadLines > 0 {
		return nil
	}
	clear(im.stored)
	if im.lookAlways || !im.sorted {
		if err := im.lookUp(batch); err != nil {
			return err
		}
	}
	im.buf, im.ends = im.buf[:0], im.ends[:0]
	for i := range batch {
		g := &batch[i]
		st, ok := im.stored[g.panelistID]
		if err := im.merge(g, st, ok); err != nil {
			return err
		}
		im.ends = append(im.ends, len(im.buf))
	}
	if im.report.BadLines > 0 {
		return nil
	}
	row := func(i int) []any {
		start := 0
		if i > 0 {
			start = im.ends[i-1]
		}
		return []any{batch[i].panelistID, im.buf[start:im.ends[i]]}
	}
	if len(batch) == profileBatch {
		im.args = im.args[:0]
		for i := range batch {
			im.args = append(im.args, row(i)...)
		}
		if _, err := im.insertMany.ExecContext(im.ctx, im.args...); err != nil {
			return fmt.Errorf("write panelist %s: %w", batch[0].panelistID, err)
		}
		return nil
	}
	for i := range batch {
		if _, err := im.insertOne.ExecContext(im.ctx, row(i)...); err != nil {
			return fmt.Errorf("write panelist %s: %w", batch[i].panelistID, err)
		}
	}
	return nil
}

// lookUp reads the stored rows of the batch's panelists into im.stored.
func (im *profileImport) lookUp(batch []profileGroup) error {
	im.args = im.args[:0]
	for i := range profileBatch {
		im.args = append(im.args, batch[min(i, len(batch)-1)].panelistID)
	}
	rows, err := im.lookup.QueryContext(im.ctx, im.args...)
	if err != nil {
		return fmt.Errorf("look up stored profiles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var st storedProfile
		if err := rows.Scan(&id, &st.importID, &st.answers); err != nil {
			return fmt.Errorf("look up stored profiles: %w", err)
		}
		im.stored[id] = st
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look up stored profiles: %w", err)
	}
	return nil
}

// merge packs g's panelist's new profile onto im.buf: each question g
// answers replaces the stored one, unless this import wrote that one too,
// in which case the answers add up; the other stored questions are kept.
func (im *profileImport) merge(g *profileGroup, st storedProfile, stored bool) error {
	sameImport := stored && st.importID == im.importID
	r := profileReader{b: st.answers}
	var prev int64
	total := 0
	put := func(question int64, fresh bool, answers []int64) {
		im.buf = appendQuestion(im.buf, prev, question, fresh, answers)
		prev = question
		total += len(answers)
	}
	// The stored question read ahead, if any.
	sq, sFresh, sAnswers, sOK, err := r.next(im.scratch[:0])
	for gi := 0; gi < len(g.answers) || sOK; {
		if err != nil {
			break
		}
		var question int64
		switch {
		case gi == len(g.answers):
			question = sq
		case !sOK:
			question = g.answers[gi].question
		default:
			question = min(sq, g.answers[gi].question)
		}
		// The group's answers to question.
		gj := gi
		for gj < len(g.answers) && g.answers[gj].question == question {
			gj++
		}
		given := g.answers[gi:gj]
		newAnswers := im.given[:0]
		for _, a := range given {
			newAnswers = append(newAnswers, a.answer)
		}
		im.given = newAnswers
		switch {
		case len(given) == 0: // kept as stored
			put(question, sFresh && sameImport, sAnswers)
		case !sOK || sq != question: // a new question
			put(question, true, newAnswers)
			im.report.Inserted += len(newAnswers)
		case sameImport && sFresh: // answered earlier in this file: add up
			if question == domain.AgeRangeQuestionID && sAnswers[0] != newAnswers[0] {
				im.bad(given[0].line, anotherBirthDate(g.panelistID, sAnswers[0]))
				return nil
			}
			merged, added := unionSorted(sAnswers, newAnswers)
			put(question, true, merged)
			im.report.Inserted += added
		default: // answered by an earlier import: replace
			put(question, true, newAnswers)
			im.report.Inserted += len(newAnswers)
			im.report.Replaced += len(sAnswers)
		}
		gi = gj
		if sOK && sq == question {
			im.scratch = sAnswers[:0]
			sq, sFresh, sAnswers, sOK, err = r.next(im.scratch)
		}
	}
	if err != nil {
		return fmt.Errorf("panelist %s: %w", g.panelistID, err)
	}
	if total > maxProfileAnswers {
		im.bad(g.answers[0].line, fmt.Sprintf("panelist %s would have more than %d answers", clip(strconv.Quote(g.panelistID), 60), maxProfileAnswers))
	}
	return nil
}

// unionSorted returns the ascending union of two ascending lists, and how
// many of b were not in a.
func unionSorted(a, b []int64) ([]int64, int) {
	out := make([]int64, 0, len(a)+len(b))
	added := 0
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			added++
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out, added
}
