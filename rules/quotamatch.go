package rules

import (
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// QuotaVerdict says whether a panelist fits a subsample's quota cells.
type QuotaVerdict string

// The quota verdicts, from the one that wins over all others to the one
// that wins over none.
const (
	// QuotaFull: the panelist falls in a cell that needs no more completes
	// and would be turned back.
	QuotaFull QuotaVerdict = "quota_full"
	// QuotaOffTarget: the panelist falls in no cell of a table that holds
	// hard quotas.
	QuotaOffTarget QuotaVerdict = "off_target"
	// QuotaUnknown: an answer the cells ask is missing, or a cell that is
	// not understood may hold the panelist. Never a fit on missing data.
	QuotaUnknown QuotaVerdict = "unknown"
	// QuotaFits: every cell the panelist falls in has room, and every table
	// of hard quotas has a cell for the panelist.
	QuotaFits QuotaVerdict = "fits"
)

// Label is the verdict as a coordinator reads it.
func (v QuotaVerdict) Label() string {
	switch v {
	case QuotaFits:
		return "Fits"
	case QuotaFull:
		return "Quota full"
	case QuotaOffTarget:
		return "Off target"
	}
	return "Unknown"
}

// rank orders the verdicts for combining tables: the higher one wins.
func (v QuotaVerdict) rank() int {
	switch v {
	case QuotaFull:
		return 3
	case QuotaOffTarget:
		return 2
	case QuotaUnknown:
		return 1
	}
	return 0
}

// TableMatch is the verdict of one quota table (one dimension: Gender,
// Age, Region) for one panelist.
type TableMatch struct {
	TableID   int64
	TableName string
	Verdict   QuotaVerdict
	Cells     []int64 // quota ids of the cells the panelist surely falls in
	// Undecided are the quota ids of the cells the panelist may fall in:
	// an answer they ask is missing, or they are not understood. A cell
	// that is not understood but asks an understood question the panelist
	// surely fails is in neither list.
	Undecided []int64
	Reason    string // sentences
}

// QuotaMatch is the quota verdict of one panelist on one subsample, with
// one TableMatch per table in the provider's order. The total quota has no
// table here: sendability covers it.
type QuotaMatch struct {
	Verdict QuotaVerdict
	Tables  []TableMatch
}

// QuotaCells are one subsample's quotas, compiled once per snapshot so that
// many panelists can be matched against them cheaply: cells grouped by
// table, ranges parsed, cells that are not understood marked with why. A
// QuotaCells is never changed after CompileQuotas and is safe to share
// between goroutines (those of a CellCompiler once it compiles no more).
// The zero value has no cells: everybody fits.
type QuotaCells struct {
	tables   []quotaTable
	cells    []quotaCell // grouped by table, in the provider's order within each
	held     *cellsHeld  // the cells' conditions and words
	needsAge bool        // some cell asks the age question
}

// quotaCell is one cell, without a pointer: a decided snapshot holds tens
// of thousands, which the collector would otherwise scan on every cycle.
// Its conditions and words are places in the cellsHeld of its QuotaCells.
type quotaCell struct {
	quotaID   int64
	remaining int64 // remainingExclusive + remainingShared, never below 0
	kind      quotaKind
	// name is the quotaName, trimmed (may be empty), broken why the cell
	// is not understood (0, "", when it is): places in cellsHeld.texts.
	name, broken uint32
	// conds, all of which must hold, are cellsHeld.conds[from:to].
	from, to uint32
}

// cellsHeld are the conditions and the words of cells, shared by the
// cells a CellCompiler compiles: conditions are appended and texts added
// while it compiles, never changed.
type cellsHeld struct {
	conds []cellCond
	texts []string          // place 0 is ""
	place map[string]uint32 // of each text in texts
}

// conds are cell's conditions.
func (h *cellsHeld) condsOf(cell *quotaCell) []cellCond {
	return h.conds[cell.from:cell.to:cell.to]
}

// text is the text at place: "" at 0.
func (h *cellsHeld) text(place uint32) string {
	if place == 0 {
		return ""
	}
	return h.texts[place]
}

// add is the place of s in texts, added when it is not there.
func (h *cellsHeld) add(s string) uint32 {
	if s == "" {
		return 0
	}
	if p, ok := h.place[s]; ok {
		return p
	}
	if h.place == nil {
		h.place = map[string]uint32{}
		h.texts = append(h.texts[:0], "")
	}
	p := uint32(len(h.texts))
	h.texts = append(h.texts, s)
	h.place[s] = p
	return p
}

// cellCond is one question of a cell: one of the panelist's answers must be
// listed in ids or, for the age question, the age must lie in one of ages.
// A broken condition is not understood and never evaluated; its cell is
// not understood either.
type cellCond struct {
	question int64
	ids      []int64
	ages     []ageRange
	broken   bool
}

// cellOutcome is how one cell stands for one panelist.
type cellOutcome uint8

const (
	cellNo            cellOutcome = iota // some understood condition surely fails
	cellYes                              // every condition holds
	cellUndecided                        // none fails, but an answer it asks is missing
	cellNotUnderstood                    // none of its understood conditions fails, but the cell is not understood
)

// CompileQuotas prepares a subsample's quotas for matching. The total
// quota (domain.Quota.IsTotal) is left out: sendability covers it.
//
// A cell is not understood, and never guessed at, when its quotaType is
// neither hard nor counting (kindOf); when one of its remaining counts is
// negative while their sum is positive (negativePart: it is then taken
// for full); when it has no questions; or when one of its questions is
// not understood: its operator is not OR (any case, spaces trimmed; an
// empty operator, NOT, AND and the like are not understood); it lists no
// answers; an answer is neither an answer id nor a range, or both; a range
// is asked on a question other than the age question (-1), or an answer id
// on the age question; or a range is not understood (parseAgeRange); or
// its table's cells give the table two names (quotaTable.twoNames). The
// other questions of such a cell are still understood: one the panelist
// surely fails keeps them out of the cell.
func CompileQuotas(quotas []domain.Quota) QuotaCells {
	var none *CellCompiler
	return none.Compile(quotas)
}

// A CellCompiler compiles the quotas of many subsamples, as CompileQuotas
// does, and holds once the conditions of the cells that ask the same list
// of questions: the same slice, as quotas whose questions were made one
// share it (the cells of many subsamples ask the same gender or age
// band), and the words of every cell once (cellsHeld). The cells it
// compiles keep those conditions, and are not to be matched before it
// has compiled the last; a nil CellCompiler shares nothing. It is not
// safe for concurrent use; its zero value is ready.
type CellCompiler struct {
	compiled map[*domain.QuotaQuestion]sharedConds
	held     *cellsHeld
}

// sharedConds are the conditions compiled from a list of questions
// (cellsHeld.conds[from:to]), how many questions it held, and why it is
// not understood ("" when it is).
type sharedConds struct {
	questions int
	from, to  uint32
	why       string
}

// shared is what was compiled from questions, if it was.
func (cc *CellCompiler) shared(questions []domain.QuotaQuestion) (sharedConds, bool) {
	if cc == nil || len(questions) == 0 {
		return sharedConds{}, false
	}
	s, ok := cc.compiled[&questions[0]]
	return s, ok && s.questions == len(questions)
}

// keep holds what was compiled from questions.
func (cc *CellCompiler) keep(questions []domain.QuotaQuestion, from, to uint32, why string) {
	if cc == nil || len(questions) == 0 {
		return
	}
	if cc.compiled == nil {
		cc.compiled = map[*domain.QuotaQuestion]sharedConds{}
	}
	cc.compiled[&questions[0]] = sharedConds{questions: len(questions), from: from, to: to, why: why}
}

// Compile is CompileQuotas, the conditions of lists of questions already
// compiled taken from cc.
func (cc *CellCompiler) Compile(quotas []domain.Quota) QuotaCells {
	var c QuotaCells
	if cc != nil {
		if cc.held == nil {
			cc.held = &cellsHeld{}
		}
		c.held = cc.held
	} else {
		c.held = &cellsHeld{}
	}
	c.tables = groupTables(quotas, c.held)
	// First pass: the tables (groupTables), how many cells each holds, and
	// how much room the conditions need, so the second pass allocates each
	// slice once.
	var nIDs, nAges int
	var counted map[*domain.QuotaQuestion]bool // lists of questions counted, with cc
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			continue
		}
		if _, ok := cc.shared(q.Questions); ok {
			continue
		}
		if cc != nil && len(q.Questions) > 0 {
			if counted[&q.Questions[0]] {
				continue
			}
			if counted == nil {
				counted = map[*domain.QuotaQuestion]bool{}
			}
			counted[&q.Questions[0]] = true
		}
		for _, qq := range q.Questions {
			for _, a := range qq.Answers {
				if a.IsRange() {
					nAges++
				} else {
					nIDs++
				}
			}
		}
	}
	next := 0
	for t := range c.tables {
		n := c.tables[t].hi
		c.tables[t].lo, c.tables[t].hi = next, next
		next += n
	}
	c.cells = make([]quotaCell, next)
	b := condBuffers{
		held: c.held,
		ids:  make([]int64, 0, nIDs),
		ages: make([]ageRange, 0, nAges),
	}
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			continue
		}
		t := &c.tables[tableIndex(c.tables, q.TableID)]
		cell := b.compile(q, cc)
		if why := t.twoNames(c.held); why != "" && cell.broken == 0 {
			cell.broken = c.held.add(why)
		}
		c.cells[t.hi] = cell
		t.hi++
		for _, k := range c.held.condsOf(&cell) {
			c.needsAge = c.needsAge || k.question == domain.AgeRangeQuestionID
		}
	}
	return c
}

// condBuffers hold the answers and ages of every cell's conditions back
// to back, and the conditions themselves in held. The capacities of ids
// and ages are counted beforehand, so appending never moves them and the
// conditions' subslices stay valid.
type condBuffers struct {
	held *cellsHeld
	ids  []int64
	ages []ageRange
}

// compile turns one quota into a cell, its conditions taken from cc when
// it compiled the quota's questions already, and kept there when not.
func (b *condBuffers) compile(q *domain.Quota, cc *CellCompiler) quotaCell {
	cell := quotaCell{quotaID: q.QuotaID, name: b.held.add(strings.TrimSpace(q.QuotaName)), remaining: roomOf(q),
		kind: kindOf(q.QuotaType)}
	notUnderstood := func(why string) {
		if cell.broken == 0 {
			cell.broken = b.held.add(why)
		}
	}
	if cell.kind == kindOther {
		notUnderstood("its quota type " + strconv.Quote(q.QuotaType) + " is neither hard nor counting")
	}
	if why := negativePart(q); why != "" {
		notUnderstood(why)
	}
	if len(q.Questions) == 0 {
		notUnderstood("it has no conditions")
	}
	if s, ok := cc.shared(q.Questions); ok {
		if s.why != "" {
			notUnderstood(s.why)
		}
		cell.from, cell.to = s.from, s.to
		return cell
	}
	questionsWhy := "" // the first reason its questions give
	first := len(b.held.conds)
	for _, qq := range q.Questions {
		k := cellCond{question: qq.ID}
		question := func() string { return "question " + strconv.FormatInt(qq.ID, 10) }
		broken := func(reason string) {
			k.broken = true
			if questionsWhy == "" {
				questionsWhy = reason
			}
			notUnderstood(reason)
		}
		if !strings.EqualFold(strings.TrimSpace(qq.Operator), "OR") {
			broken(question() + " has the operator " + strconv.Quote(qq.Operator) + "; only OR is understood")
		}
		if len(qq.Answers) == 0 {
			broken(question() + " lists no answers")
		}
		firstID, firstAge := len(b.ids), len(b.ages)
		for _, a := range qq.Answers {
			switch {
			case a.IsRange() && a.ID != nil:
				broken(question() + " has an answer that is both an id and a range")
			case a.IsRange() && qq.ID != domain.AgeRangeQuestionID:
				broken(question() + " has a range answer; only age ranges (question -1) are understood")
			case a.IsRange():
				r, why := parseAgeRange(a)
				if why != "" {
					broken("the range " + rangeText(a) + " " + why)
					continue
				}
				b.ages = append(b.ages, r)
			case a.ID == nil:
				broken(question() + " has an answer with neither an id nor a range")
			case qq.ID == domain.AgeRangeQuestionID:
				broken("the age question lists an answer id, not a range")
			default:
				b.ids = append(b.ids, *a.ID)
			}
		}
		k.ids = b.ids[firstID:len(b.ids):len(b.ids)]
		k.ages = b.ages[firstAge:len(b.ages):len(b.ages)]
		b.held.conds = append(b.held.conds, k)
	}
	cell.from, cell.to = uint32(first), uint32(len(b.held.conds))
	cc.keep(q.Questions, cell.from, cell.to, questionsWhy)
	return cell
}

// AgeOn is the panelist's age in whole years on the day of now: the year
// is counted on the birthday itself. A Feb 29 birthday is counted on Mar 1
// in common years, a day late rather than early, so a panelist is never
// made older than they are. The dates are taken as written in each time's
// own location: pass now already in the provider's time zone. AgeOn is -1
// when birth is zero or after now's day.
func AgeOn(birth, now time.Time) int {
	if birth.IsZero() {
		return -1
	}
	by, bm, bd := birth.Date()
	ny, nm, nd := now.Date()
	age := ny - by
	if nm < bm || (nm == bm && nd < bd) {
		age--
	}
	if age < 0 {
		return -1
	}
	return age
}

// Verdict is the panelist's quota verdict alone, as Match would give it,
// without the reasons: it allocates nothing, for bulk checks.
//
// A cell is closed when remainingExclusive + remainingShared is 0 (or
// less; roomOf), open otherwise. The panelist surely falls in an
// understood cell when every condition holds, surely not when one fails,
// and may fall in it when none fails but an answer it asks is missing (the
// birth date for the age question). The panelist may fall in a cell that
// is not understood unless one of its understood questions surely fails;
// they never surely fall in one. Within one table, the first of these
// decides:
//
//  1. the panelist surely falls in a closed cell: quota_full, whatever the
//     other cells say (the provider turns back a respondent counted into a
//     full cell);
//  2. the panelist may fall in a closed cell for want of an answer:
//     unknown, even when they surely fall in an open cell too. That cell
//     is understood and may well hold the panelist as well: cells of one
//     table may overlap (Women within Age);
//  3. the panelist may fall in a closed cell that is not understood (a
//     range that does not read, an operator other than OR, a quota type
//     other than hard or counting, a negative count): unknown, even when
//     they surely fall in an open cell too, for the same reason as 2: what
//     is not understood may well hold the panelist, and a full cell turns
//     them back;
//  4. the panelist surely falls in an open cell: fine, whatever open cells
//     that are not understood say (an open cell turns nobody back);
//  5. the table surely holds no hard quota (every cell counting): fine.
//     The panelist falls in no cell, which such a table allows, or may
//     fall only in open cells, which have room and turn nobody back;
//  6. the panelist may fall in an open cell, for want of an answer or
//     because it is not understood: unknown, as the panelist may be
//     counted there or be in no cell of a table of hard quotas;
//  7. the panelist falls in no cell of a table that holds a hard quota:
//     off_target;
//  8. else the panelist falls in no cell of a table whose cells have a
//     quotaType that is neither hard nor counting: unknown, as such cells
//     may be hard quotas, which would turn the panelist back as off
//     target.
//
// A table holds a hard quota when one of its cells has the quotaType hard
// (kindOf), and may hold one when a cell has a quotaType that is neither
// hard nor counting (quotaTable.mayBeHard). Across tables the verdict is
// quota_full if any table says so, else off_target, else unknown, else
// fits.
func (c *QuotaCells) Verdict(p domain.Profile, now time.Time) QuotaVerdict {
	age := c.ageOf(p, now)
	verdict := QuotaFits
	for t := range c.tables {
		tv := c.tally(&c.tables[t], p, age).verdict(&c.tables[t])
		if tv.rank() > verdict.rank() {
			verdict = tv
			if verdict == QuotaFull {
				break
			}
		}
	}
	return verdict
}

// Match is the panelist's quota verdict with, per table, the cells matched
// and the reason in words. It decides as Verdict does; the reasons cost a
// few allocations per table, so bulk checks call Verdict and Match only
// for what is shown.
func (c *QuotaCells) Match(p domain.Profile, now time.Time) QuotaMatch {
	return c.match(p, now, nil)
}

// match is Match, its reasons naming questions and answers in words'
// (nil: by their ids).
func (c *QuotaCells) match(p domain.Profile, now time.Time, words *QuotaWords) QuotaMatch {
	m := QuotaMatch{Verdict: QuotaFits}
	if len(c.tables) == 0 {
		return m
	}
	// One backing array each for the outcomes and the quota ids of every
	// table: a cell is in a table's Cells or Undecided, never both.
	x := explainer{p: p, age: c.ageOf(p, now), words: words, outs: make([]cellOutcome, len(c.cells)),
		ids: make([]int64, 0, len(c.cells))}
	m.Tables = make([]TableMatch, 0, len(c.tables))
	for t := range c.tables {
		tm := x.explain(c, &c.tables[t])
		if tm.Verdict.rank() > m.Verdict.rank() {
			m.Verdict = tm.Verdict
		}
		m.Tables = append(m.Tables, tm)
	}
	return m
}

// AppendCells appends to dst the quota ids of the cells the panelist
// surely falls in, table by table in the provider's order, each table's
// full cells before its open ones: the Cells of every table of Match, in
// that order, without the sentences Match writes.
func (c *QuotaCells) AppendCells(dst []int64, p domain.Profile, now time.Time) []int64 {
	age := c.ageOf(p, now)
	for t := range c.tables {
		cells := c.cells[c.tables[t].lo:c.tables[t].hi]
		// Each cell once: the full ones (pickFull), then the open ones
		// (pickOpen).
		for _, open := range [2]bool{false, true} {
			for i := range cells {
				if cell := &cells[i]; (cell.remaining > 0) == open && cell.outcome(c.held, p, age) == cellYes {
					dst = append(dst, cell.quotaID)
				}
			}
		}
	}
	return dst
}

// ageOf is the panelist's age when a cell asks it, -1 otherwise.
func (c *QuotaCells) ageOf(p domain.Profile, now time.Time) int {
	if !c.needsAge {
		return -1
	}
	return AgeOn(p.BirthDate, now)
}

// tableTally is what one table's cells say of one panelist.
type tableTally struct {
	closedMatch, openMatch         bool // surely in a closed, an open cell
	closedUndecided, openUndecided bool // may be in one, for want of an answer
	closedBroken, openBroken       bool // may be in one that is not understood
}

func (c *QuotaCells) tally(t *quotaTable, p domain.Profile, age int) tableTally {
	var s tableTally
	for i := t.lo; i < t.hi; i++ {
		s.add(&c.cells[i], c.cells[i].outcome(c.held, p, age))
	}
	return s
}

func (s *tableTally) add(cell *quotaCell, o cellOutcome) {
	open := cell.remaining > 0
	switch o {
	case cellYes:
		s.closedMatch = s.closedMatch || !open
		s.openMatch = s.openMatch || open
	case cellUndecided:
		s.closedUndecided = s.closedUndecided || !open
		s.openUndecided = s.openUndecided || open
	case cellNotUnderstood:
		s.closedBroken = s.closedBroken || !open
		s.openBroken = s.openBroken || open
	}
}

// verdict is the table's verdict; the precedence, step by step, is
// Verdict's.
func (s tableTally) verdict(t *quotaTable) QuotaVerdict {
	switch {
	case s.closedMatch: // 1
		return QuotaFull
	case s.closedUndecided, s.closedBroken: // 2, 3
		return QuotaUnknown
	case s.openMatch: // 4
		return QuotaFits
	case !t.mayBeHard(): // 5
		return QuotaFits
	case s.openUndecided, s.openBroken: // 6
		return QuotaUnknown
	case t.hard: // 7
		return QuotaOffTarget
	}
	return QuotaUnknown // 8
}

// outcome is how the cell stands for the panelist: cellNo when an
// understood condition surely fails, else cellNotUnderstood for a cell
// that is not understood, else cellUndecided when an answer is missing,
// else cellYes.
func (cell *quotaCell) outcome(h *cellsHeld, p domain.Profile, age int) cellOutcome {
	conds := h.condsOf(cell)
	if cell.broken != 0 {
		return brokenOutcome(conds, p, age)
	}
	undecided := false
	for i := range conds {
		switch conds[i].holds(p, age) {
		case cellNo:
			return cellNo
		case cellUndecided:
			undecided = true
		}
	}
	if undecided {
		return cellUndecided
	}
	return cellYes
}

// brokenOutcome is the outcome of a cell that is not understood, of
// conditions conds: cellNo when one of its understood conditions surely
// fails, else cellNotUnderstood.
func brokenOutcome(conds []cellCond, p domain.Profile, age int) cellOutcome {
	for i := range conds {
		if k := &conds[i]; !k.broken && k.holds(p, age) == cellNo {
			return cellNo
		}
	}
	return cellNotUnderstood
}

// holds is cellYes when one of the panelist's answers is listed (OR), or
// the age lies in a listed range; cellUndecided when there is no answer or
// no age.
func (k *cellCond) holds(p domain.Profile, age int) cellOutcome {
	if k.question == domain.AgeRangeQuestionID {
		if age < 0 {
			return cellUndecided
		}
		for _, r := range k.ages {
			if r.from <= age && age <= r.to {
				return cellYes
			}
		}
		return cellNo
	}
	answers := p.Answers[k.question]
	if len(answers) == 0 {
		return cellUndecided
	}
	for _, a := range answers {
		for _, id := range k.ids {
			if a == id {
				return cellYes
			}
		}
	}
	return cellNo
}
