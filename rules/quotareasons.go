package rules

// The sentences a quota match gives per table, for coordinators.

import (
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// NoProfile explains the quota verdict of a panelist without a profile.
const NoProfile = "No profile on file for this panelist: whether they fit an open quota cell is unknown."

// Explain says why a panelist's quota verdict on c is not fits: NoProfile
// for a panelist with no profile at all, else the sentence of each table
// that is not fine, naming questions and answers in words ("GENDER: Female
// falls"), by their ids where words lacks them or is nil ("answer 105 to
// question 43 falls").
func (c *QuotaCells) Explain(p domain.Profile, now time.Time, words *QuotaWords) []string {
	if len(p.Answers) == 0 && p.BirthDate.IsZero() {
		return []string{NoProfile}
	}
	var out []string
	for _, t := range c.match(p, now, words).Tables {
		if t.Verdict != QuotaFits && t.Reason != "" {
			out = append(out, t.Reason)
		}
	}
	return out
}

// explainer builds the tables of a Match.
type explainer struct {
	p     domain.Profile
	age   int
	words *QuotaWords   // nil: questions and answers by their ids
	outs  []cellOutcome // per cell of the QuotaCells
	ids   []int64       // backing of every TableMatch's Cells and Undecided
}

// tableView is one table's cells with their outcomes for the panelist.
type tableView struct {
	cells []quotaCell
	held  *cellsHeld
	outs  []cellOutcome
}

// pick selects the cells of a table a reason names.
type pick uint8

const (
	pickFull       pick = iota // matched, no room
	pickOpen                   // matched, room
	pickUndecided              // an answer is missing
	pickBroken                 // not understood, and the panelist may fall in it
	pickBrokenFull             // pickBroken, no room
	pickBrokenOpen             // pickBroken, room
	pickOtherKind              // a quotaType that is neither hard nor counting
	pickAll
)

func (k pick) has(cell *quotaCell, o cellOutcome) bool {
	switch k {
	case pickFull:
		return o == cellYes && cell.remaining == 0
	case pickOpen:
		return o == cellYes && cell.remaining > 0
	case pickUndecided:
		return o == cellUndecided
	case pickBroken:
		return o == cellNotUnderstood
	case pickBrokenFull:
		return o == cellNotUnderstood && cell.remaining == 0
	case pickBrokenOpen:
		return o == cellNotUnderstood && cell.remaining > 0
	case pickOtherKind:
		return cell.kind == kindOther
	}
	return true
}

// explain is one table's verdict with its cells and reason.
func (x *explainer) explain(c *QuotaCells, t *quotaTable) TableMatch {
	v := tableView{cells: c.cells[t.lo:t.hi], held: c.held, outs: x.outs[t.lo:t.hi]}
	var s tableTally
	for i := range v.cells {
		v.outs[i] = v.cells[i].outcome(c.held, x.p, x.age)
		s.add(&v.cells[i], v.outs[i])
	}
	tm := TableMatch{TableID: t.id, TableName: c.held.text(t.name), Verdict: s.verdict(t)}
	tm.Cells = x.collect(v, pickFull, pickOpen)
	tm.Undecided = x.collect(v, pickUndecided, pickBroken)

	var b strings.Builder
	b.Grow(128)
	switch tm.Verdict {
	case QuotaFull:
		x.subject(&b, v, pickFull)
		b.WriteString(" in ")
		cellList(&b, v, pickFull, "and")
		if v.count(pickFull) == 1 {
			b.WriteString(", which is full.")
		} else {
			b.WriteString(", which are full.")
		}
	case QuotaOffTarget:
		x.subject(&b, v, pickAll)
		b.WriteString(" in no cell of " + tableLabel(v.held, t) + " (")
		cellNames(&b, v, pickAll, "or")
		b.WriteString("), which holds hard quotas.")
	case QuotaFits:
		switch open := v.count(pickOpen); {
		case open == 1:
			x.subject(&b, v, pickOpen)
			b.WriteString(" in ")
			cellList(&b, v, pickOpen, "and")
			b.WriteString(", which needs ")
			writeInt(&b, v.first(pickOpen).remaining)
			b.WriteString(" more.")
		case open > 1:
			x.subject(&b, v, pickOpen)
			b.WriteString(" in ")
			cellList(&b, v, pickOpen, "and")
			b.WriteString(", which all have room.")
		default:
			// A table of counting cells only (Verdict's step 5).
			undecided, broken := v.count(pickUndecided), v.count(pickBrokenOpen)
			if undecided > 0 {
				x.missing(&b, v)
				b.WriteString(", but that changes nothing: the cells of " + tableLabel(v.held, t) + " that ask it have room and only count.")
			}
			if broken > 0 {
				sentence(&b)
				notUnderstood(&b, v, pickBrokenOpen)
				if broken == 1 {
					b.WriteString(", but that changes nothing: it has room and " + tableLabel(v.held, t) + " holds no hard quota.")
				} else {
					b.WriteString(", but that changes nothing: they have room and " + tableLabel(v.held, t) + " holds no hard quota.")
				}
			}
			if undecided == 0 && broken == 0 {
				// Every cell counting (Verdict's step 5).
				x.subject(&b, v, pickAll)
				b.WriteString(" in no cell of " + tableLabel(v.held, t) + ", which is fine: its cells only count.")
			}
		}
	case QuotaUnknown:
		x.unknown(&b, v, t)
	}
	tm.Reason = b.String()
	return tm
}

// unknown writes why a table is unknown for the panelist (Verdict's
// steps 2, 3, 6 and 8): the closed cells not understood they may fall in,
// whatever else holds; else, when they surely fall in no open cell, the
// open cells not understood they may fall in; the answers missing; and,
// when nothing of that is said, that the table may hold hard quotas.
func (x *explainer) unknown(b *strings.Builder, v tableView, t *quotaTable) {
	full, open := v.count(pickBrokenFull), 0
	if full == 0 && v.count(pickOpen) == 0 && t.mayBeHard() {
		open = v.count(pickBrokenOpen)
	}
	for i := range v.cells {
		cell := &v.cells[i]
		if (full > 0 && pickBrokenFull.has(cell, v.outs[i])) || (open > 0 && pickBrokenOpen.has(cell, v.outs[i])) {
			sentence(b)
			b.WriteString("Cell ")
			cellName(b, v.held, cell)
			b.WriteString(" is not understood: " + v.held.text(cell.broken) + ".")
		}
	}
	switch {
	case full > 0:
		b.WriteString(" The panelist may fall in ")
		cellList(b, v, pickBrokenFull, "or")
		if full == 1 {
			b.WriteString(", which is full")
		} else {
			b.WriteString(", which are full")
		}
		if v.count(pickOpen) > 0 {
			b.WriteString("; that they fall in ")
			cellList(b, v, pickOpen, "and")
			b.WriteString(", with room, does not settle it: cells of one table may overlap, and a full one turns them back")
		}
		b.WriteByte('.')
	case open > 0:
		b.WriteString(" The panelist may fall in ")
		cellList(b, v, pickBrokenOpen, "or")
		b.WriteString(", or in no cell of " + tableLabel(v.held, t) + ", ")
		hardness(b, v, t)
		b.WriteByte('.')
	}
	if v.count(pickUndecided) > 0 {
		sentence(b)
		x.missing(b, v)
		b.WriteString(": cannot tell whether the panelist falls in ")
		cellList(b, v, pickUndecided, "or")
		b.WriteByte('.')
	}
	if b.Len() == 0 {
		// Step 8: in no cell of a table that may hold hard quotas.
		x.subject(b, v, pickAll)
		b.WriteString(" in no cell of " + tableLabel(v.held, t) + " (")
		cellNames(b, v, pickAll, "or")
		b.WriteString("), ")
		hardness(b, v, t)
		b.WriteString(": whether " + tableLabel(v.held, t) + " takes a panelist in none of its cells is not known.")
	}
}

// hardness writes what makes a table one of hard quotas, or possibly
// one: "which holds hard quotas", "which may hold hard quotas (cell Male
// has a quota type that is neither hard nor counting)".
func hardness(b *strings.Builder, v tableView, t *quotaTable) {
	if t.hard {
		b.WriteString("which holds hard quotas")
		return
	}
	b.WriteString("which may hold hard quotas (")
	cellList(b, v, pickOtherKind, "and")
	if v.count(pickOtherKind) == 1 {
		b.WriteString(" has a quota type that is neither hard nor counting)")
	} else {
		b.WriteString(" have a quota type that is neither hard nor counting)")
	}
}

// collect appends the quota ids of the picked cells to x.ids and returns
// them, nil when none.
func (x *explainer) collect(v tableView, picks ...pick) []int64 {
	start := len(x.ids)
	for _, k := range picks {
		for i := range v.cells {
			if k.has(&v.cells[i], v.outs[i]) {
				x.ids = append(x.ids, v.cells[i].quotaID)
			}
		}
	}
	if len(x.ids) == start {
		return nil
	}
	return x.ids[start:len(x.ids):len(x.ids)]
}

func (v tableView) count(k pick) int {
	n := 0
	for i := range v.cells {
		if k.has(&v.cells[i], v.outs[i]) {
			n++
		}
	}
	return n
}

func (v tableView) first(k pick) *quotaCell {
	for i := range v.cells {
		if k.has(&v.cells[i], v.outs[i]) {
			return &v.cells[i]
		}
	}
	return nil
}

// eachQuestion calls fn once for every question id the picked cells ask,
// in order.
func (v tableView) eachQuestion(k pick, fn func(question int64)) {
	for i := range v.cells {
		if !k.has(&v.cells[i], v.outs[i]) {
			continue
		}
		for j, cond := range v.held.condsOf(&v.cells[i]) {
			if !v.asked(k, i, j, cond.question) {
				fn(cond.question)
			}
		}
	}
}

// asked reports whether a picked cell before cell i, condition j, asks
// question.
func (v tableView) asked(k pick, i, j int, question int64) bool {
	for ci := 0; ci <= i; ci++ {
		if !k.has(&v.cells[ci], v.outs[ci]) {
			continue
		}
		for cj, cond := range v.held.condsOf(&v.cells[ci]) {
			if ci == i && cj >= j {
				break
			}
			if cond.question == question {
				return true
			}
		}
	}
	return false
}

// listed reports whether a picked cell lists answer for question.
func (v tableView) listed(k pick, question, answer int64) bool {
	for i := range v.cells {
		if !k.has(&v.cells[i], v.outs[i]) {
			continue
		}
		for _, cond := range v.held.condsOf(&v.cells[i]) {
			if cond.question == question && containsID(cond.ids, answer) {
				return true
			}
		}
	}
	return false
}

// subject writes what the panelist answered to the questions of the
// picked cells, and the verb: "Age 40 falls", "Answers 3, 4 to question 12
// fall". Of a multi-punch answer only the ids the cells list are named,
// when the cells list any.
func (x *explainer) subject(b *strings.Builder, v tableView, k pick) {
	phrases, plural := 0, false
	v.eachQuestion(k, func(q int64) {
		if phrases++; phrases > 1 {
			b.WriteString(" and ")
		}
		first := phrases == 1
		if q == domain.AgeRangeQuestionID {
			if x.age < 0 {
				lead(b, "no birth date", first)
			} else {
				lead(b, "age ", first)
				writeInt(b, int64(x.age))
			}
			return
		}
		answers := x.p.Answers[q]
		label := x.words.question(q)
		n := 0
		for _, a := range answers {
			if v.listed(k, q, a) {
				n++
			}
		}
		onlyListed := n > 0
		if !onlyListed {
			n = len(answers)
		}
		if label != "" {
			// "GENDER: Female", "no answer to GENDER".
			if n == 0 {
				lead(b, "no answer to ", first)
				b.WriteString(label)
				return
			}
			plural = plural || n > 1
			b.WriteString(label)
			sep := ": "
			for _, a := range answers {
				if !onlyListed || v.listed(k, q, a) {
					b.WriteString(sep)
					b.WriteString(x.words.answer(q, a))
					sep = ", "
				}
			}
			return
		}
		switch n {
		case 0:
			lead(b, "no answer", first)
		case 1:
			lead(b, "answer ", first)
		default:
			lead(b, "answers ", first)
			plural = true
		}
		sep := ""
		for _, a := range answers {
			if !onlyListed || v.listed(k, q, a) {
				b.WriteString(sep)
				writeInt(b, a)
				sep = ", "
			}
		}
		b.WriteString(" to question ")
		writeInt(b, q)
	})
	if plural || phrases > 1 {
		b.WriteString(" fall")
	} else {
		b.WriteString(" falls")
	}
}

// missing writes the answers the undecided cells lack: "No birth date",
// "No answer to question 12".
func (x *explainer) missing(b *strings.Builder, v tableView) {
	phrases := 0
	v.eachQuestion(pickUndecided, func(q int64) {
		age := q == domain.AgeRangeQuestionID
		if (age && x.age >= 0) || (!age && len(x.p.Answers[q]) > 0) {
			return
		}
		if phrases++; phrases > 1 {
			b.WriteString(" and ")
		}
		switch label := x.words.question(q); {
		case age:
			lead(b, "no birth date", phrases == 1)
		case label != "":
			lead(b, "no answer to ", phrases == 1)
			b.WriteString(label)
		default:
			lead(b, "no answer to question ", phrases == 1)
			writeInt(b, q)
		}
	})
}

// sentence separates a sentence from the one before it, if any.
func sentence(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
}

// notUnderstood writes "Cell A is not understood" or "Cells A and B are
// not understood".
func notUnderstood(b *strings.Builder, v tableView, k pick) {
	if v.count(k) == 1 {
		b.WriteString("Cell ")
		cellNames(b, v, k, "and")
		b.WriteString(" is not understood")
		return
	}
	b.WriteString("Cells ")
	cellNames(b, v, k, "and")
	b.WriteString(" are not understood")
}

// lead writes a phrase, its first letter upper-cased when it opens the
// sentence. The phrases are lower-case ASCII.
func lead(b *strings.Builder, phrase string, opens bool) {
	if !opens {
		b.WriteString(phrase)
		return
	}
	b.WriteByte(phrase[0] - 'a' + 'A')
	b.WriteString(phrase[1:])
}

// cellList writes "cell 35-54" or "cells Female and Male".
func cellList(b *strings.Builder, v tableView, k pick, conj string) {
	if v.count(k) == 1 {
		b.WriteString("cell ")
	} else {
		b.WriteString("cells ")
	}
	cellNames(b, v, k, conj)
}

// cellNames writes "A", "A and B", "A, B and C".
func cellNames(b *strings.Builder, v tableView, k pick, conj string) {
	n, total := 0, v.count(k)
	for i := range v.cells {
		if !k.has(&v.cells[i], v.outs[i]) {
			continue
		}
		switch n++; {
		case n == 1:
		case n == total:
			b.WriteString(" " + conj + " ")
		default:
			b.WriteString(", ")
		}
		cellName(b, v.held, &v.cells[i])
	}
}

// cellName writes the cell's quotaName, or else what it lists: "35-54",
// "18-24/55-99", "65 or older", "answers 1/2", "answer 7 & 18-34"; "quota
// 123" for a cell that is not understood.
func cellName(b *strings.Builder, h *cellsHeld, cell *quotaCell) {
	if cell.name != 0 {
		b.WriteString(h.text(cell.name))
		return
	}
	conds := h.condsOf(cell)
	if cell.broken != 0 || len(conds) == 0 {
		b.WriteString("quota ")
		writeInt(b, cell.quotaID)
		return
	}
	for i, k := range conds {
		if i > 0 {
			b.WriteString(" & ")
		}
		if k.question == domain.AgeRangeQuestionID {
			for j, r := range k.ages {
				if j > 0 {
					b.WriteByte('/')
				}
				writeRange(b, r)
			}
			continue
		}
		if len(k.ids) == 1 {
			b.WriteString("answer ")
		} else {
			b.WriteString("answers ")
		}
		for j, id := range k.ids {
			if j > 0 {
				b.WriteByte('/')
			}
			writeInt(b, id)
		}
	}
}

// writeRange writes an age range: "35-54", "65 or older", "34 or younger".
func writeRange(b *strings.Builder, r ageRange) {
	switch {
	case r.to == noUpper:
		writeInt(b, int64(r.from))
		b.WriteString(" or older")
	case r.from == noLower:
		writeInt(b, int64(r.to))
		b.WriteString(" or younger")
	default:
		writeInt(b, int64(r.from))
		b.WriteByte('-')
		writeInt(b, int64(r.to))
	}
}

func tableLabel(h *cellsHeld, t *quotaTable) string {
	if t.name != 0 {
		return h.text(t.name)
	}
	return "table " + strconv.FormatInt(t.id, 10)
}

func writeInt(b *strings.Builder, n int64) {
	var buf [20]byte
	b.Write(strconv.AppendInt(buf[:0], n, 10))
}

func containsID(ids []int64, id int64) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}
