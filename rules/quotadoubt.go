package rules

// What sendability reads from the quota cells: whether any panelist at all
// could fit them.

import (
	"strconv"
	"strings"
)

// nobodyFits says why no panelist's quota verdict on c can be fits,
// table by table, so that the subsample is not called sendable with
// nobody to send; "" when some panelist may fit. It is Verdict's
// precedence read for every panelist at once, and errs only towards ""
// (a table may still take nobody for reasons it does not see, such as
// cells that overlap): panelists are matched one by one anyway.
//
// A table takes nobody when
//   - it has a closed cell that is not understood and has no understood
//     question that could keep anyone out of it (no conditions, or all of
//     them not understood): every panelist may fall in it, and a full cell
//     turns them back (Verdict's step 3);
//   - it holds, or may hold, hard quotas (quotaTable.mayBeHard) and has no
//     cell that is both open and understood: nobody can surely fall in an
//     open cell, and a panelist in none is off target or unknown (steps 4,
//     6, 7 and 8). A table of hard quotas with no open cell at all is
//     Sendability's to pause first (fullHardTables).
func (c *QuotaCells) nobodyFits() string {
	for ti := range c.tables {
		t := &c.tables[ti]
		cells := c.cells[t.lo:t.hi]
		for i := range cells {
			if cell := &cells[i]; cell.broken != 0 && cell.remaining == 0 && !excludesAnyone(c.held.condsOf(cell)) {
				var b strings.Builder
				b.WriteString("Cell ")
				cellName(&b, c.held, cell)
				b.WriteString(" of " + tableRef(c.held, t) + " is full and not understood: " + c.held.text(cell.broken) +
					". Any panelist may fall in it and be turned back, so nobody can be sent.")
				return b.String()
			}
		}
		if t.mayBeHard() && !anyOpenUnderstood(cells) {
			return noOpenCell(t, c.held, cells)
		}
	}
	return ""
}

// excludesAnyone reports whether a cell of conditions conds has an
// understood one, which a panelist can surely fail.
func excludesAnyone(conds []cellCond) bool {
	for i := range conds {
		if !conds[i].broken {
			return true
		}
	}
	return false
}

func anyOpenUnderstood(cells []quotaCell) bool {
	for i := range cells {
		if cells[i].broken == 0 && cells[i].remaining > 0 {
			return true
		}
	}
	return false
}

// noOpenCell says that table t, of hard quotas or maybe of hard quotas,
// has no cell that is both open and understood, naming the first cell
// that is not understood and why.
func noOpenCell(t *quotaTable, h *cellsHeld, cells []quotaCell) string {
	var b strings.Builder
	ref := tableRef(h, t)
	b.WriteString(strings.ToUpper(ref[:1]) + ref[1:] + " has no cell that both has room and is understood, and ")
	if t.hard {
		b.WriteString("it holds hard quotas")
	} else {
		b.WriteString("it may hold hard quotas (")
		n := 0
		for i := range cells {
			if cells[i].kind == kindOther {
				if n++; n > 1 {
					b.WriteString(", ")
				}
				cellName(&b, h, &cells[i])
			}
		}
		b.WriteString(": a quota type that is neither hard nor counting)")
	}
	b.WriteString(": nobody can surely be counted in it, so nobody can be sent.")
	for i := range cells {
		if cells[i].broken != 0 {
			b.WriteString(" Cell ")
			cellName(&b, h, &cells[i])
			b.WriteString(" is not understood: " + h.text(cells[i].broken) + ".")
			break
		}
	}
	return b.String()
}

// tableRef names a table with its id, as a reason about the subsample
// does: "table Age (2)", "table 2".
func tableRef(h *cellsHeld, t *quotaTable) string {
	id := strconv.FormatInt(t.id, 10)
	if t.name == 0 {
		return "table " + id
	}
	return "table " + h.text(t.name) + " (" + id + ")"
}
