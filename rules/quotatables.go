package rules

// How matching and sendability read quota tables and quota types.

import (
	"strconv"
	"strings"

	"fieldboard/rules/domain"
)

// quotaTable is one quota table: the cells of one tableId.
type quotaTable struct {
	id     int64
	name   uint32 // a place in cellsHeld.texts, as otherName
	lo, hi int    // the table's cells are cells[lo:hi]
	// hard: some cell of the table has the quotaType hard (kindOf),
	// whether or not its conditions are understood. A cell of a type that
	// is neither hard nor counting does not make its table hard: nothing
	// says what it would turn back.
	hard bool
	// otherKind: some cell of the table has a quotaType that is neither
	// hard nor counting. Without a hard cell, such a table may or may not
	// be one of hard quotas: nothing says what its cells would turn back,
	// so a panelist in none of its cells is not known to be taken.
	otherKind bool
	open      bool // some cell of the table has room (roomOf > 0)
	// otherName is a second name the table's cells give it ("" when
	// every cell names it alike, any case, or not at all): one number,
	// two names, may be two tables, and which cells form one is not known.
	otherName uint32
}

// twoNames says why the table's cells are not understood when they give
// it two names; "" when they do not.
func (t *quotaTable) twoNames(h *cellsHeld) string {
	if t.otherName == 0 {
		return ""
	}
	return "table " + strconv.FormatInt(t.id, 10) + " is named both " + strconv.Quote(h.text(t.name)) + " and " + strconv.Quote(h.text(t.otherName)) +
		", so it may be two tables under one number and which cells form one is not known"
}

// quotaKind is how matching and sendability read a quota's quotaType.
type quotaKind uint8

const (
	kindOther    quotaKind = iota // neither: the cell is not understood
	kindCounting                  // counting, in any case
	kindHard                      // hard, in any case
)

// kindOf classifies a quotaType. It is the one place that does: the
// cells matching compiles and the tables sendability pauses on both read
// it.
func kindOf(quotaType string) quotaKind {
	switch {
	case strings.EqualFold(quotaType, domain.QuotaTypeHard):
		return kindHard
	case strings.EqualFold(quotaType, domain.QuotaTypeCounting):
		return kindCounting
	}
	return kindOther
}

// groupTables groups the quotas other than the total (domain.Quota.IsTotal)
// by tableId, each table where it first appears, with whether it holds a
// hard quota, whether it has a cell with room, and a second name its cells
// give it, if any (its names held in h); hi is its number of cells, lo
// is 0. Matching (CompileQuotas) and pausing (Sendability) see the same
// tables.
func groupTables(quotas []domain.Quota, h *cellsHeld) []quotaTable {
	tables := make([]quotaTable, 0, 4)
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			continue
		}
		t := tableIndex(tables, q.TableID)
		if t < 0 {
			t = len(tables)
			tables = append(tables, quotaTable{id: q.TableID, name: h.add(strings.TrimSpace(q.TableName))})
		}
		switch name := strings.TrimSpace(q.TableName); {
		case name == "" || strings.EqualFold(name, h.text(tables[t].name)) || tables[t].otherName != 0:
		case tables[t].name == 0:
			tables[t].name = h.add(name)
		default:
			tables[t].otherName = h.add(name)
		}
		tables[t].hi++
		tables[t].hard = tables[t].hard || kindOf(q.QuotaType) == kindHard
		tables[t].otherKind = tables[t].otherKind || kindOf(q.QuotaType) == kindOther
		tables[t].open = tables[t].open || roomOf(q) > 0
	}
	return tables
}

// mayBeHard reports whether the table holds, or may hold, hard quotas:
// a hard cell, or a cell of a type that is neither hard nor counting.
func (t *quotaTable) mayBeHard() bool { return t.hard || t.otherKind }

// roomOf is what a quota still needs as matching, pausing and the pages
// read it: remainingExclusive + remainingShared, never below 0 (spec, Quota
// sending rule), and 0 when one of the two is negative while their sum is
// positive (negativePart says why): a count below zero beside one above is
// not understood, and a cell that is not understood is never taken for
// one with room.
func roomOf(q *domain.Quota) int64 {
	if negativePart(q) != "" {
		return 0
	}
	return max(q.Remaining(), 0)
}

// negativePart says why a quota's remaining counts are not understood: one
// of remainingExclusive and remainingShared is negative while their sum is
// positive. "" when they are understood; a sum of 0 or less is simply
// full, whatever its parts.
func negativePart(q *domain.Quota) string {
	if q.Remaining() <= 0 || (q.RemainingExclusive >= 0 && q.RemainingShared >= 0) {
		return ""
	}
	return "its remainingExclusive " + strconv.FormatInt(q.RemainingExclusive, 10) + " and remainingShared " +
		strconv.FormatInt(q.RemainingShared, 10) + " mix a negative count with a positive one"
}

// tableIndex is the position of table id in tables, -1 when absent. A
// subsample has a handful of tables, so a scan beats a map.
func tableIndex(tables []quotaTable, id int64) int {
	for t := range tables {
		if tables[t].id == id {
			return t
		}
	}
	return -1
}
