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
	// QuotaUnknown: an answer the cells ask is missing, or a cell is not
	// understood. Never a fit on missing data.
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
	Undecided []int64 // quota ids of the cells that could not be decided or are not understood
	Reason    string  // one or two sentences
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
// between goroutines. The zero value has no cells: everybody fits.
type QuotaCells struct {
	tables   []quotaTable
	cells    []quotaCell // grouped by table, in the provider's order within each
	needsAge bool        // some cell asks the age question
}

type quotaTable struct {
	id     int64
	name   string
	lo, hi int  // the table's cells are cells[lo:hi]
	hard   bool // some understood cell of the table is a hard quota
}

type quotaCell struct {
	quotaID   int64
	name      string // quotaName, trimmed; may be empty
	remaining int64  // remainingExclusive + remainingShared, never below 0
	hard      bool
	conds     []cellCond // all must hold
	broken    string     // why the cell is not understood; "" when it is
}

// cellCond is one question of a cell: one of the panelist's answers must be
// listed in ids or, for the age question, the age must lie in one of ages.
type cellCond struct {
	question int64
	ids      []int64
	ages     []ageRange
}

// ageRange is rangeStart..rangeEnd, both ends included.
type ageRange struct{ from, to int }

// cellOutcome is how one cell stands for one panelist.
type cellOutcome uint8

const (
	cellNo            cellOutcome = iota // some condition surely fails
	cellYes                              // every condition holds
	cellUndecided                        // none fails, but an answer it asks is missing
	cellNotUnderstood                    // the cell itself is not understood
)

// CompileQuotas prepares a subsample's quotas for matching. The total
// quota (domain.Quota.IsTotal) is left out: sendability covers it.
//
// A cell is not understood, and never guessed at, when its quotaType is
// neither hard nor counting; when it has no questions; when a question's
// operator is not OR (any case, spaces trimmed; an empty operator is not
// understood); when a question lists no answers; when an answer is neither
// an answer id nor a range, or both; when a range is asked on a question
// other than the age question (-1), or an answer id on the age question;
// or when a range's ends are not whole numbers (spaces trimmed) or its
// start is after its end.
func CompileQuotas(quotas []domain.Quota) QuotaCells {
	c := QuotaCells{tables: make([]quotaTable, 0, 4)}
	// First pass: the tables, how many cells each holds, and how much room
	// the conditions need, so the second pass allocates each slice once.
	var nConds, nIDs, nAges int
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			continue
		}
		t := c.tableIndex(q.TableID)
		if t < 0 {
			t = len(c.tables)
			c.tables = append(c.tables, quotaTable{id: q.TableID, name: strings.TrimSpace(q.TableName)})
		}
		c.tables[t].hi++
		nConds += len(q.Questions)
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
		conds: make([]cellCond, 0, nConds),
		ids:   make([]int64, 0, nIDs),
		ages:  make([]ageRange, 0, nAges),
	}
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			continue
		}
		t := &c.tables[c.tableIndex(q.TableID)]
		cell := b.compile(q)
		c.cells[t.hi] = cell
		t.hi++
		t.hard = t.hard || (cell.hard && cell.broken == "")
		for _, k := range cell.conds {
			c.needsAge = c.needsAge || k.question == domain.AgeRangeQuestionID
		}
	}
	return c
}

// tableIndex is the position of table id in c.tables, -1 when absent. A
// subsample has a handful of tables, so a scan beats a map.
func (c *QuotaCells) tableIndex(id int64) int {
	for t := range c.tables {
		if c.tables[t].id == id {
			return t
		}
	}
	return -1
}

// condBuffers hold every cell's conditions back to back. Their capacities
// are counted beforehand, so appending never moves them and the cells'
// subslices stay valid.
type condBuffers struct {
	conds []cellCond
	ids   []int64
	ages  []ageRange
}

// compile turns one quota into a cell.
func (b *condBuffers) compile(q *domain.Quota) quotaCell {
	cell := quotaCell{quotaID: q.QuotaID, name: strings.TrimSpace(q.QuotaName), remaining: max(q.Remaining(), 0)}
	notUnderstood := func(why string) {
		if cell.broken == "" {
			cell.broken = why
		}
	}
	switch {
	case strings.EqualFold(q.QuotaType, domain.QuotaTypeHard):
		cell.hard = true
	case strings.EqualFold(q.QuotaType, domain.QuotaTypeCounting):
	default:
		notUnderstood("its quota type " + strconv.Quote(q.QuotaType) + " is neither hard nor counting")
	}
	if len(q.Questions) == 0 {
		notUnderstood("it has no conditions")
	}
	first := len(b.conds)
	for _, qq := range q.Questions {
		question := func() string { return "question " + strconv.FormatInt(qq.ID, 10) }
		if !strings.EqualFold(strings.TrimSpace(qq.Operator), "OR") {
			notUnderstood(question() + " has the operator " + strconv.Quote(qq.Operator) + "; only OR is understood")
		}
		if len(qq.Answers) == 0 {
			notUnderstood(question() + " lists no answers")
		}
		k := cellCond{question: qq.ID}
		firstID, firstAge := len(b.ids), len(b.ages)
		for _, a := range qq.Answers {
			switch {
			case a.IsRange() && a.ID != nil:
				notUnderstood(question() + " has an answer that is both an id and a range")
			case a.IsRange() && qq.ID != domain.AgeRangeQuestionID:
				notUnderstood(question() + " has a range answer; only age ranges (question -1) are understood")
			case a.IsRange():
				r, ok := parseAgeRange(a)
				if !ok {
					notUnderstood("the range " + rangeText(a) + " is not two whole numbers, lowest first")
					continue
				}
				b.ages = append(b.ages, r)
			case a.ID == nil:
				notUnderstood(question() + " has an answer with neither an id nor a range")
			case qq.ID == domain.AgeRangeQuestionID:
				notUnderstood("the age question lists an answer id, not a range")
			default:
				b.ids = append(b.ids, *a.ID)
			}
		}
		k.ids = b.ids[firstID:len(b.ids):len(b.ids)]
		k.ages = b.ages[firstAge:len(b.ages):len(b.ages)]
		b.conds = append(b.conds, k)
	}
	cell.conds = b.conds[first:len(b.conds):len(b.conds)]
	return cell
}

// parseAgeRange reads rangeStart..rangeEnd; both must be whole numbers,
// the start not after the end.
func parseAgeRange(a domain.QuotaAnswer) (ageRange, bool) {
	if a.RangeStart == nil || a.RangeEnd == nil {
		return ageRange{}, false
	}
	from, err1 := strconv.Atoi(strings.TrimSpace(*a.RangeStart))
	to, err2 := strconv.Atoi(strings.TrimSpace(*a.RangeEnd))
	if err1 != nil || err2 != nil || from > to {
		return ageRange{}, false
	}
	return ageRange{from, to}, true
}

// rangeText writes a range as the provider sent it, for a reason.
func rangeText(a domain.QuotaAnswer) string {
	end := func(s *string) string {
		if s == nil {
			return "(none)"
		}
		return strconv.Quote(*s)
	}
	return end(a.RangeStart) + " to " + end(a.RangeEnd)
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
// Within one table:
//   - the panelist surely falls in a closed cell (remainingExclusive +
//     remainingShared is 0): quota_full, whatever the other cells say;
//   - else a cell is not understood: unknown;
//   - else a closed cell cannot be decided (the panelist lacks an answer it
//     asks, or the birth date for the age question): unknown, as the
//     panelist may fall in it;
//   - else the panelist surely falls in an open cell: fine;
//   - else (in no cell for sure) a table that holds a hard quota is
//     unknown when some cell cannot be decided, off_target otherwise;
//   - a table of counting cells only is fine when the panelist falls in
//     none of them: a missing answer can only put the panelist into an
//     open cell that merely counts, which changes nothing.
//
// A cell in which one condition surely fails is decided (the panelist is
// not in it) even when another of its conditions lacks an answer. Across
// tables the verdict is quota_full if any table says so, else off_target,
// else unknown, else fits.
func (c *QuotaCells) Verdict(p domain.Profile, now time.Time) QuotaVerdict {
	age := c.ageOf(p, now)
	verdict := QuotaFits
	for t := range c.tables {
		tv := c.tally(&c.tables[t], p, age).verdict(c.tables[t].hard)
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
	m := QuotaMatch{Verdict: QuotaFits}
	if len(c.tables) == 0 {
		return m
	}
	// One backing array each for the outcomes and the quota ids of every
	// table: a cell is in a table's Cells or Undecided, never both.
	x := explainer{p: p, age: c.ageOf(p, now), outs: make([]cellOutcome, len(c.cells)),
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

// ageOf is the panelist's age when a cell asks it, -1 otherwise.
func (c *QuotaCells) ageOf(p domain.Profile, now time.Time) int {
	if !c.needsAge {
		return -1
	}
	return AgeOn(p.BirthDate, now)
}

// tableTally is what one table's cells say of one panelist.
type tableTally struct {
	closedMatch, openMatch         bool
	closedUndecided, openUndecided bool
	notUnderstood                  bool
}

func (c *QuotaCells) tally(t *quotaTable, p domain.Profile, age int) tableTally {
	var s tableTally
	for i := t.lo; i < t.hi; i++ {
		s.add(&c.cells[i], c.cells[i].outcome(p, age))
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
		s.notUnderstood = true
	}
}

// verdict is the table's verdict; the precedence is Verdict's.
func (s tableTally) verdict(hard bool) QuotaVerdict {
	switch {
	case s.closedMatch:
		return QuotaFull
	case s.notUnderstood, s.closedUndecided:
		return QuotaUnknown
	case s.openMatch, !hard:
		return QuotaFits
	case s.openUndecided:
		return QuotaUnknown
	}
	return QuotaOffTarget
}

func (cell *quotaCell) outcome(p domain.Profile, age int) cellOutcome {
	if cell.broken != "" {
		return cellNotUnderstood
	}
	undecided := false
	for i := range cell.conds {
		switch cell.conds[i].holds(p, age) {
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
