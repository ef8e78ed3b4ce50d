package rules

// How matching and sendability read quota tables and quota types.

import (
	"strings"

	"fieldboard/rules/domain"
)

// quotaTable is one quota table: the cells of one tableId.
type quotaTable struct {
	id     int64
	name   string
	lo, hi int // the table's cells are cells[lo:hi]
	// hard: some cell of the table has the quotaType hard (kindOf),
	// whether or not its conditions are understood. A cell of a type that
	// is neither hard nor counting does not make its table hard: nothing
	// says what it would turn back.
	hard bool
	open bool // some cell of the table has room (remaining > 0)
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
// hard quota and whether it has a cell with room; hi is its number of
// cells, lo is 0. Matching (CompileQuotas) and pausing (Sendability) see
// the same tables.
func groupTables(quotas []domain.Quota) []quotaTable {
	tables := make([]quotaTable, 0, 4)
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			continue
		}
		t := tableIndex(tables, q.TableID)
		if t < 0 {
			t = len(tables)
			tables = append(tables, quotaTable{id: q.TableID, name: strings.TrimSpace(q.TableName)})
		}
		tables[t].hi++
		tables[t].hard = tables[t].hard || kindOf(q.QuotaType) == kindHard
		tables[t].open = tables[t].open || q.Remaining() > 0
	}
	return tables
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
