package sim

import (
	"math"
	"strings"
)

// Quota types as the provider spells them.
const (
	quotaHard     = "hard"
	quotaCounting = "counting"
)

// quotaBase is a quota at the creation of the world. Later states add the
// completes gathered since (see at).
type quotaBase struct {
	id, tableID        int64
	tableName, name    string
	typ                string
	total              bool
	conditions         []condition
	achieved           int64
	remExcl, remShared int64
	share              float64 // fraction of the subsample's completes that fall in this cell
	phase              float64 // in [0, 1): staggers the minutes at which cells count a complete

	incidence, conversion, abandon, loi float64 // measured in field; 0 before the first complete
}

// condition is one question of a quota: an answer id list, or age ranges
// for the range question.
type condition struct {
	question int64
	answers  []int64
	ranges   [][2]string
}

// cell is a quota cell before its numbers are drawn.
type cell struct {
	name       string
	share      float64
	conditions []condition
}

// quotaTable is a named group of cells.
type quotaTable struct {
	name  string
	typ   string
	cells []cell
}

// Quota scenarios of live subsamples; they make the Quota sending rule of
// the spec visible on the dashboard.
const (
	scenarioNormal       = iota
	scenarioClosingSoon  // total nearly full: closes within the first half hour
	scenarioTotalFull    // total full at creation: sending must pause (stays Live)
	scenarioCellsFull    // every cell besides the total is full
	scenarioSomeCellFull // one or two cells full
)

// quotas draws the subsample's quotas, its completes rate and the minute at
// which its total quota fills up.
func (g *generator) quotas(ss *subsample) {
	rng := g.rng
	target := int64(50 * (1 + rng.IntN(30)))
	scenario := scenarioNormal
	var achieved int64
	switch ss.base {
	case statusLive:
		achieved = int64(float64(target) * (0.05 + 0.85*rng.Float64()))
		switch n := rng.IntN(100); {
		case n < 7:
			scenario = scenarioClosingSoon
			achieved = target - 1 - rng.Int64N(8)
		case n < 13:
			scenario = scenarioTotalFull
			achieved = target
		case n < 18:
			scenario = scenarioCellsFull
		case n < 38:
			scenario = scenarioSomeCellFull
		}
	case statusComplete:
		achieved = target
	case statusCanceled:
		achieved = int64(float64(target) * 0.6 * rng.Float64())
	}
	// One normal live subsample in eight has just opened: no complete yet,
	// so nothing is measured in field and a supplier's earnings can only be
	// estimated. Decided by id, so the random draws stay as they were.
	if ss.base == statusLive && scenario == scenarioNormal && ss.id%8 == 0 {
		achieved = 0
	}
	remaining := target - achieved

	switch {
	case ss.base == statusLive && (scenario == scenarioNormal || scenario == scenarioSomeCellFull),
		ss.base == statusPending && ss.goLive > 0:
		ss.rate = 0.01 + 0.5*rng.Float64()
	case scenario == scenarioClosingSoon:
		ss.rate = float64(remaining) / (4 + 21*rng.Float64())
	}
	ss.closeAt = closingMinute(ss.rate, remaining)

	exclusive := [...]float64{0, 0.25, 0.5, 1}[rng.IntN(4)]
	fielded := achieved > 0
	newQuota := func(tableID int64, tableName, name, typ string) quotaBase {
		g.nextQuota += 1 + rng.Int64N(3)
		q := quotaBase{id: g.nextQuota, tableID: tableID, tableName: tableName, name: name, typ: typ}
		if fielded {
			q.incidence = math.Min(100, ss.ir*(0.6+0.7*rng.Float64()))
			q.conversion = 5 + 55*rng.Float64()
			q.abandon = 3 + 32*rng.Float64()
			q.loi = ss.loi * (0.8 + 0.6*rng.Float64())
		}
		return q
	}
	split := func(q *quotaBase, rem int64) {
		q.remExcl = int64(math.Round(float64(rem) * exclusive))
		q.remShared = rem - q.remExcl
	}

	g.nextTable += 1 + rng.Int64N(5)
	total := newQuota(g.nextTable, "Total Quota", "Total", quotaCounting)
	total.total, total.share, total.achieved = true, 1, achieved
	split(&total, remaining)
	ss.quotas = append(ss.quotas, total)

	tables := g.quotaTables(ss)
	if len(tables) == 0 && scenario == scenarioCellsFull {
		tables = append(tables, g.genderTable())
	}
	var cells []int // indexes in ss.quotas of the non-total quotas
	for _, t := range tables {
		g.nextTable += 1 + rng.Int64N(5)
		for _, c := range t.cells {
			q := newQuota(g.nextTable, t.name, c.name, t.typ)
			q.conditions, q.share, q.phase = c.conditions, c.share, rng.Float64()
			cellTarget := int64(math.Ceil(float64(target) * c.share * (1 + 0.25*rng.Float64())))
			q.achieved = min(cellTarget, int64(math.Round(float64(achieved)*c.share*(0.9+0.2*rng.Float64()))))
			if scenario == scenarioCellsFull {
				q.typ, q.achieved = quotaHard, cellTarget
			}
			split(&q, cellTarget-q.achieved)
			cells = append(cells, len(ss.quotas))
			ss.quotas = append(ss.quotas, q)
		}
	}
	if scenario == scenarioSomeCellFull && len(cells) > 0 {
		for range 1 + rng.IntN(2) {
			q := &ss.quotas[cells[rng.IntN(len(cells))]]
			q.typ = quotaHard
			q.achieved += q.remExcl + q.remShared
			q.remExcl, q.remShared = 0, 0
		}
	}
}

// closingMinute is the number of minutes of fieldwork after which a total
// quota with remaining completes left, filling at rate per minute, is full:
// the least a with floor(rate*a) >= remaining; -1 when it never fills.
func closingMinute(rate float64, remaining int64) int64 {
	if rate <= 0 || remaining <= 0 {
		return -1
	}
	a := int64(math.Ceil(float64(remaining) / rate))
	for a > 0 && completesAfter(rate, a-1) >= remaining {
		a--
	}
	for completesAfter(rate, a) < remaining {
		a++
	}
	return a
}

// completesAfter is the number of completes gathered in a minutes at rate.
func completesAfter(rate float64, a int64) int64 {
	return int64(math.Floor(rate * float64(a)))
}

// quotaTables draws the quota tables of a subsample besides the total:
// gender and age (sometimes interlocked), region, sometimes income. Their
// conditions use the ids of the simulator's question library.
func (g *generator) quotaTables(ss *subsample) []quotaTable {
	rng := g.rng
	var tables []quotaTable
	gender, age := rng.IntN(100) < 85, rng.IntN(100) < 85
	if gender && age && rng.IntN(100) < 15 {
		tables = append(tables, g.interlockedTable())
	} else {
		if gender {
			tables = append(tables, g.genderTable())
		}
		if age {
			tables = append(tables, g.ageTable())
		}
	}
	if rng.IntN(100) < 70 {
		tables = append(tables, g.regionTable(ss.country))
	}
	if rng.IntN(100) < 35 {
		tables = append(tables, g.incomeTable())
	}
	for i := range tables {
		if tables[i].typ == "" {
			tables[i].typ = quotaHard
			if rng.IntN(100) < 8 {
				tables[i].typ = quotaCounting
			}
		}
	}
	return tables
}

func (g *generator) genderTable() quotaTable {
	as := g.w.library.answersOf(qGender, "")
	male := 0.46 + 0.08*g.rng.Float64()
	return quotaTable{name: "Gender", cells: []cell{
		{name: as[0].text, share: male, conditions: []condition{{question: qGender, answers: []int64{as[0].id}}}},
		{name: as[1].text, share: 1 - male, conditions: []condition{{question: qGender, answers: []int64{as[1].id}}}},
	}}
}

// ageSchemes are the age breaks used in age quotas, with population shares.
func ageSchemes() [][]struct {
	from, to string
	share    float64
} {
	type br = struct {
		from, to string
		share    float64
	}
	return [][]br{
		{{"18", "34", 0.30}, {"35", "54", 0.36}, {"55", "", 0.34}},
		{{"18", "29", 0.22}, {"30", "44", 0.27}, {"45", "59", 0.26}, {"60", "99+", 0.25}},
		{{"18", "24", 0.12}, {"25", "34", 0.18}, {"35", "44", 0.18}, {"45", "54", 0.18}, {"55", "64", 0.17}, {"65+", "", 0.17}},
		{{"18", "39", 0.45}, {"40", "65", 0.55}},
	}
}

// bandName names an age band as a provider does: "18-34", or "55+" for one
// open at its top (the provider's ranges may end "", or start or end
// with "+").
func bandName(from, to string) string {
	if to == "" || strings.HasSuffix(to, "+") {
		return strings.TrimSuffix(from, "+") + "+"
	}
	return from + "-" + to
}

func (g *generator) ageTable() quotaTable {
	schemes := ageSchemes()
	scheme := schemes[g.rng.IntN(len(schemes))]
	t := quotaTable{name: "Age"}
	for _, b := range scheme {
		t.cells = append(t.cells, cell{name: bandName(b.from, b.to), share: b.share,
			conditions: []condition{{question: qAgeRange, ranges: [][2]string{{b.from, b.to}}}}})
	}
	return t
}

// interlockedTable crosses gender with broad age bands: each cell has two
// questions.
func (g *generator) interlockedTable() quotaTable {
	gender := g.genderTable()
	scheme := ageSchemes()[0]
	t := quotaTable{name: "Gender x Age"}
	for _, gc := range gender.cells {
		for _, b := range scheme {
			age := condition{question: qAgeRange, ranges: [][2]string{{b.from, b.to}}}
			t.cells = append(t.cells, cell{
				name:       gc.name + " " + bandName(b.from, b.to),
				share:      gc.share * b.share,
				conditions: []condition{gc.conditions[0], age},
			})
		}
	}
	return t
}

// regionTable has one cell per region, or per group of neighbouring regions
// in countries with many; region tables are often only counted.
func (g *generator) regionTable(c *country) quotaTable {
	as := g.w.library.answersOf(qRegion, c.Code)
	size := 1
	if len(as) > 6 {
		size = (len(as) + 3) / 4
	}
	t := quotaTable{name: "Region", typ: quotaHard}
	if g.rng.IntN(100) < 35 {
		t.typ = quotaCounting
	}
	var weights []float64
	sum := 0.0
	for i := 0; i < len(as); i += size {
		group := as[i:min(i+size, len(as))]
		c := cell{name: group[0].text, conditions: []condition{{question: qRegion}}}
		for j, a := range group {
			if j > 0 {
				c.name += ", " + a.text
			}
			c.conditions[0].answers = append(c.conditions[0].answers, a.id)
		}
		w := 0.5 + g.rng.Float64()
		weights = append(weights, w)
		sum += w
		t.cells = append(t.cells, c)
	}
	for i := range t.cells {
		t.cells[i].share = weights[i] / sum
	}
	return t
}

func (g *generator) incomeTable() quotaTable {
	as := g.w.library.answersOf(qIncome, "")
	band := func(name string, share float64, from, to int) cell {
		c := cell{name: name, share: share, conditions: []condition{{question: qIncome}}}
		for _, a := range as[from:to] {
			c.conditions[0].answers = append(c.conditions[0].answers, a.id)
		}
		return c
	}
	return quotaTable{name: "Household Income", cells: []cell{
		band("Low income", 0.35, 0, 2), band("Middle income", 0.35, 2, 4), band("High income", 0.30, 4, 6),
	}}
}

// quotaState is a quota's numbers at some minute.
type quotaState struct {
	achieved, remExcl, remShared int64
}

// at returns the quota's numbers after active minutes of fieldwork at rate
// completes per minute. Hard cells and the total stop at their target;
// counting cells keep counting past it.
func (q *quotaBase) at(rate float64, active int64) quotaState {
	rem := q.remExcl + q.remShared
	var gained int64
	if q.total {
		gained = completesAfter(rate, active)
	} else {
		gained = int64(math.Floor(rate*float64(active)*q.share + q.phase))
	}
	used := min(gained, rem)
	if q.total || q.typ == quotaHard {
		gained = used
	}
	fromShared := min(used, q.remShared)
	return quotaState{
		achieved:  q.achieved + gained,
		remShared: q.remShared - fromShared,
		remExcl:   q.remExcl - (used - fromShared),
	}
}

// wireQuota is a quota as sent, in the provider's field order.
type wireQuota struct {
	SubsampleStatus            string              `json:"subsampleStatus"`
	ActualClientIncidenceRate  float64             `json:"actualClientIncidenceRate"`
	ActualClientConversionRate float64             `json:"actualClientConversionRate"`
	ActualClientAbandonRate    float64             `json:"actualClientAbandonRate"`
	EstimatedIncidence         float64             `json:"estimatedIncidence"`
	Questions                  []wireQuotaQuestion `json:"questions"`
	RemainingExclusive         int64               `json:"remainingExclusive"`
	RemainingShared            int64               `json:"remainingShared"`
	ActualClientLOI            float64             `json:"actualClientLOI"`
	EstimatedLOI               float64             `json:"estimatedLOI"`
	AchievedInterviews         int64               `json:"achievedInterviews"`
	TableID                    int64               `json:"tableId"`
	TableName                  string              `json:"tableName"`
	QuotaID                    int64               `json:"quotaId"`
	QuotaName                  string              `json:"quotaName"`
	QuotaType                  string              `json:"quotaType"`
}

type wireQuotaQuestion struct {
	ID       int64   `json:"id"`
	Operator string  `json:"operator"`
	Locale   *string `json:"locale"`
	Answers  []any   `json:"answers"`
}

type wireAnswerRef struct {
	ID int64 `json:"id"`
}

type wireRange struct {
	RangeStart string `json:"rangeStart"`
	RangeEnd   string `json:"rangeEnd"`
}

// quotasAt encodes the subsample's quotas after minutes since creation;
// ss.quotas[full], when full > 0, is reported with its remaining completes
// achieved and none remaining (Options.FieldFullLag).
func (ss *subsample) quotasAt(minutes int64, full int) []byte {
	st, active := ss.statusAt(minutes), ss.activeMinutes(minutes)
	if ss.quotasSayComplete {
		st = statusComplete
	}
	out := make([]wireQuota, 0, len(ss.quotas))
	for i := range ss.quotas {
		q := &ss.quotas[i]
		now := q.at(ss.rate, active)
		if full > 0 && i == full {
			now.achieved += now.remExcl + now.remShared
			now.remExcl, now.remShared = 0, 0
		}
		wq := wireQuota{
			SubsampleStatus:            st.String(),
			ActualClientIncidenceRate:  round2(q.incidence),
			ActualClientConversionRate: round2(q.conversion),
			ActualClientAbandonRate:    round2(q.abandon),
			EstimatedIncidence:         ss.ir,
			Questions:                  make([]wireQuotaQuestion, 0, len(q.conditions)),
			RemainingExclusive:         now.remExcl,
			RemainingShared:            now.remShared,
			ActualClientLOI:            round2(q.loi),
			EstimatedLOI:               ss.loi,
			AchievedInterviews:         now.achieved,
			TableID:                    q.tableID,
			TableName:                  q.tableName,
			QuotaID:                    q.id,
			QuotaName:                  formulaPrefixOf(ss.event.name) + q.name,
			QuotaType:                  q.typ,
		}
		for _, c := range q.conditions {
			wc := wireQuotaQuestion{ID: c.question, Operator: "OR", Answers: make([]any, 0, len(c.answers)+len(c.ranges))}
			for _, a := range c.answers {
				wc.Answers = append(wc.Answers, wireAnswerRef{ID: a})
			}
			for _, r := range c.ranges {
				wc.Answers = append(wc.Answers, wireRange{RangeStart: r[0], RangeEnd: r[1]})
			}
			wq.Questions = append(wq.Questions, wc)
		}
		out = append(out, wq)
	}
	return mustJSON(out)
}

// round2 rounds to two decimals, the precision of the provider's rates.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// formulaPrefixOf is the formula the event's name begins with under
// Options.FormulaNames, "" for none: its subsamples' quota names begin
// with it too.
func formulaPrefixOf(eventName string) string {
	for _, p := range formulaPrefixes {
		if strings.HasPrefix(eventName, p) {
			return p
		}
	}
	return ""
}
