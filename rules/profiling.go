package rules

// What to profile next: how much of the panel the hard quotas of the
// sendable subsamples can decide (coverage), and which question, asked of
// the panel, would unlock the most completes (the ranking).

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// ProfilingTarget is one sendable live subsample, in one country, as the
// profiling advice reads it.
type ProfilingTarget struct {
	SubsampleID int64
	Name        string
	// Country is the country, upper case, whose panelists the subsample
	// takes (a subsample fielded in two countries is two targets).
	Country string
	// Cells are the subsample's quotas compiled (CompileQuotas): shared
	// with the checks, read-only here.
	Cells *QuotaCells
	// Total is the room of the subsample's total quota (TotalRoom), and
	// TotalKnown whether it is known; an unknown total caps nothing.
	Total      int64
	TotalKnown bool
	// Fit decides whether a panelist of Country who answers in a locale
	// ("" when none is on file) may be sent to the subsample for their
	// country and language: the send list's own decision (rules.FitPanel
	// with the subsample's locales), which the coverage counts by. Only a
	// PanelMember's Country and Locale are set. nil fits nobody.
	Fit func(domain.PanelMember) PanelFit
	// Price is the subsample's CPI in its currency; Known is false when
	// it has none, which makes its part of a stake unknown, never 0. A
	// CPI without a currency is an amount of nothing known: unknown too
	// (Price.Priced).
	Price Price
}

// TotalRoom is the room of a subsample's total quota
// (domain.Quota.IsTotal), remainingExclusive + remainingShared read as
// matching reads a cell (never below 0; 0 when a negative count sits
// beside a positive one); known only when the subsample has exactly one
// total quota, as sendability requires of a sendable subsample.
func TotalRoom(quotas []domain.Quota) (room int64, known bool) {
	n := 0
	for i := range quotas {
		if quotas[i].IsTotal() {
			n++
			room = roomOf(&quotas[i])
		}
	}
	if n != 1 {
		return 0, false
	}
	return room, true
}

// ProfilingCodes names the supplier's own code of a provider question in
// a country ("" when no mapping row names it).
type ProfilingCodes func(questionID int64, country string) string

// QuestionStake is one row of the ranking: one provider question in one
// country, and what the sendable subsamples of that country whose hard
// quotas ask it still need.
type QuestionStake struct {
	QuestionID int64
	Country    string
	// Code is the supplier's own code for the question (ProfilingCodes),
	// "" when none is mapped; Question is its text in the country's
	// default locale, filled by the caller ("" when the library has none).
	Code     string
	Question string
	// Subsamples are the sendable subsamples of the country with a hard
	// cell that asks the question, in the order of the targets.
	Subsamples []int64
	// RemainingCompletes is, summed over Subsamples, each subsample's
	// remaining completes in the cells that ask the question: per hard
	// table, the room (remainingExclusive + remainingShared, never below 0)
	// of its hard cells that ask the question, summed; of the subsample's
	// tables, the largest such sum; and never above the room of its total
	// quota when that is known. Tables are not added together: they cut
	// the same completes along different questions.
	RemainingCompletes int64
	// PanelistsWithoutAnswer are the panelists of the country (those
	// without a profile included), whatever their language, with no answer
	// to the question: the question is asked of the whole country's panel.
	// For the age question (-1), with no birth date, or one that gives no
	// age on the check's day, as matching reads it (AgeOn). Panelists is
	// every panelist of the country.
	PanelistsWithoutAnswer int64
	Panelists              int64
	// Stake is what the panelists without an answer could earn: each
	// subsample's remaining completes, but no more than
	// PanelistsWithoutAnswer, times its CPI, kept per currency: never
	// summed across currencies. Currency is the one
	// most of the priced Subsamples use (ties: the first in code order),
	// "" when none is priced. UnpricedSubsamples and UnpricedCompletes
	// are the subsamples with no known CPI, or one without a currency
	// (Price.Priced), and their remaining completes: their part of the
	// stake is unknown, never 0.
	Stake              Money
	Currency           string
	UnpricedSubsamples int
	UnpricedCompletes  int64
}

// Headline is the stake in Currency, in hundredths, and whether there is
// one (false when no subsample is priced).
func (q QuestionStake) Headline() (cents int64, known bool) {
	if q.Currency == "" {
		return 0, false
	}
	return q.Stake[q.Currency], true
}

// OtherStakes is the stake in the currencies other than Currency.
func (q QuestionStake) OtherStakes() Money {
	out := Money{}
	for c, v := range q.Stake {
		if c != q.Currency {
			out[c] = v
		}
	}
	return out
}

// Unlocks is what answering the question could unlock at most: the
// remaining completes, but no more than the panelists who could newly
// answer it.
func (q QuestionStake) Unlocks() int64 { return min(q.RemainingCompletes, q.PanelistsWithoutAnswer) }

// TableCoverage is how much of a country's panel one hard quota table of
// one sendable subsample can decide, of the panelists it may take: those
// of its country who speak one of its languages.
type TableCoverage struct {
	SubsampleID   int64
	SubsampleName string
	Country       string
	TableID       int64
	TableName     string
	// Questions are the questions the table's cells ask, ascending.
	Questions []int64
	// Panelists are the panelists of the country (those without a profile
	// included) whose country and language fit the subsample, as the send
	// list decides it (ProfilingTarget.Fit): those of the country who
	// speak one of its languages (one without a locale on file through
	// their country's default locale, else the subsample's first of their
	// country). A panelist it may never take is neither decided nor
	// undecided. Decided are those whose answers decide the table: its
	// verdict for them is fits, off target or quota full. Undecided are
	// those for whom it is unknown (QuotaUnknown, Verdict's rules exactly):
	// today they cannot be sent to the subsample.
	Panelists, Decided, Undecided int64
}

// ProfilingReport is the profiling advice: the ranking, best first, and
// the coverage of every hard table of every target.
type ProfilingReport struct {
	Questions []QuestionStake
	Coverage  []TableCoverage
}

// ProfilingCounter counts a panel against the hard quota tables of the
// sendable subsamples, one panelist at a time (Add), then reports
// (Report). Many panelists give the same answers to the few questions a
// country's tables ask, so it keeps, per country and locale, one count
// per distinct projection of a profile on them (the answers the cells
// list, whether each question is answered, and the age's place among the
// ranges' ends) and decides each projection once: a million panelists
// against forty subsamples cost a map lookup each. Deciding a projection
// is deciding any of its panelists: the cells read nothing else, and the
// language fit reads only the country and the locale, once per locale. It
// is not safe for use by several goroutines.
type ProfilingCounter struct {
	now       time.Time
	targets   []ProfilingTarget
	countries map[string]*countryTally
}

// countryTally is one country's projections and counts.
type countryTally struct {
	targets []int // indexes in ProfilingCounter.targets
	// questions are the questions the cells of the hard tables ask,
	// ascending, and listed the answer ids any of those cells lists for
	// each (sorted): an answer not listed is as good as any other.
	questions []int64
	listed    [][]int64
	asksAge   bool
	ageEnds   []int // where an age range begins or ends, ascending
	// locales are the country's panelists by the locale on file ("" for
	// none), each with its projections; last is the one Add met last.
	locales   map[string]*localeTally
	last      *localeTally
	key       []byte // scratch
	panelists int64
}

// localeTally is the projections of the panelists of one country who
// answer in one locale, and how many they are.
type localeTally struct {
	locale    string
	groups    map[string]*projection
	panelists int64
}

// projection is the panelists of one projection: how many, and the first
// one's answers to the country's questions, standing for them all.
type projection struct {
	profile domain.Profile
	n       int64
}

// NewProfilingCounter prepares the counts for targets, decided on the
// day of now (in the provider's time zone, as for matching).
func NewProfilingCounter(targets []ProfilingTarget, now time.Time) *ProfilingCounter {
	c := &ProfilingCounter{now: now, targets: targets, countries: map[string]*countryTally{}}
	for i := range targets {
		t := &targets[i]
		ct := c.countries[t.Country]
		if ct == nil {
			ct = &countryTally{locales: map[string]*localeTally{}}
			c.countries[t.Country] = ct
		}
		ct.targets = append(ct.targets, i)
	}
	for _, ct := range c.countries {
		ct.prepare(targets)
	}
	return c
}

// prepare gathers what the country's hard tables ask.
func (ct *countryTally) prepare(targets []ProfilingTarget) {
	listed := map[int64]map[int64]bool{}
	ends := map[int]bool{}
	for _, i := range ct.targets {
		cells := targets[i].Cells
		for ti := range cells.tables {
			t := &cells.tables[ti]
			if !t.hard {
				continue
			}
			for ci := t.lo; ci < t.hi; ci++ {
				for _, k := range cells.held.condsOf(&cells.cells[ci]) {
					if k.question == domain.AgeRangeQuestionID {
						ct.asksAge = true
						for _, r := range k.ages {
							if r.from != noLower {
								ends[r.from] = true
							}
							if r.to != noUpper {
								ends[r.to+1] = true
							}
						}
						continue
					}
					if listed[k.question] == nil {
						listed[k.question] = map[int64]bool{}
					}
					for _, id := range k.ids {
						listed[k.question][id] = true
					}
				}
			}
		}
	}
	for q := range listed {
		ct.questions = append(ct.questions, q)
	}
	slices.Sort(ct.questions)
	for _, q := range ct.questions {
		ids := make([]int64, 0, len(listed[q]))
		for id := range listed[q] {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		ct.listed = append(ct.listed, ids)
	}
	for e := range ends {
		ct.ageEnds = append(ct.ageEnds, e)
	}
	slices.Sort(ct.ageEnds)
}

// Add counts one panelist of country (upper case) who answers in locale
// (lower case, "" when none is on file) with their profile. A panelist
// of a country without targets is not counted; p is not kept.
func (c *ProfilingCounter) Add(country, locale string, p domain.Profile) {
	c.add(country, locale, p, 1)
}

// AddUnprofiled counts n panelists of country who answer in locale and
// have no profile: no answers, no birth date.
func (c *ProfilingCounter) AddUnprofiled(country, locale string, n int64) {
	if n > 0 {
		c.add(country, locale, domain.Profile{}, n)
	}
}

// add counts n panelists of country and locale whose profile is p.
func (c *ProfilingCounter) add(country, locale string, p domain.Profile, n int64) {
	ct := c.countries[country]
	if ct == nil {
		return
	}
	lt := ct.last
	if lt == nil || lt.locale != locale {
		if lt = ct.locales[locale]; lt == nil {
			lt = &localeTally{locale: locale, groups: map[string]*projection{}}
			ct.locales[locale] = lt
		}
		ct.last = lt
	}
	ct.key = ct.project(ct.key[:0], p, c.now)
	ct.panelists += n
	lt.panelists += n
	if g := lt.groups[string(ct.key)]; g != nil {
		g.n += n
		return
	}
	lt.groups[string(ct.key)] = &projection{profile: ct.keep(p), n: n}
}

// project appends p's projection to key, as uvarints: per question, 0
// when not answered, else 1 + how many listed answers it gives, then
// their places in the list; then, when an age is asked, the age's place
// among the ranges' ends (0 for no age).
func (ct *countryTally) project(key []byte, p domain.Profile, now time.Time) []byte {
	for qi, q := range ct.questions {
		answers := p.Answers[q]
		if len(answers) == 0 {
			key = append(key, 0)
			continue
		}
		n := 0
		for _, a := range answers {
			if _, ok := slices.BinarySearch(ct.listed[qi], a); ok {
				n++
			}
		}
		key = binary.AppendUvarint(key, uint64(n+1))
		for _, a := range answers {
			if i, ok := slices.BinarySearch(ct.listed[qi], a); ok {
				key = binary.AppendUvarint(key, uint64(i))
			}
		}
	}
	if ct.asksAge {
		class := 0
		if age := AgeOn(p.BirthDate, now); age >= 0 {
			i, _ := slices.BinarySearch(ct.ageEnds, age+1)
			class = 1 + i
		}
		key = binary.AppendUvarint(key, uint64(class))
	}
	return key
}

// keep copies what of p the country's cells read: its answers to the
// country's questions and its birth date.
func (ct *countryTally) keep(p domain.Profile) domain.Profile {
	out := domain.Profile{Answers: make(map[int64][]int64, len(ct.questions))}
	for _, q := range ct.questions {
		if a := p.Answers[q]; len(a) > 0 {
			out.Answers[q] = slices.Clone(a)
		}
	}
	if ct.asksAge {
		out.BirthDate = p.BirthDate
	}
	return out
}

// Report decides every projection counted and gives the ranking and the
// coverage. codes names the supplier's codes (nil: none). The coverage
// lists, country by country in code order, each target's hard tables in
// the targets' and the provider's order.
//
// The ranking holds one row per question and country that a hard cell of
// a target asks, ordered so that the questions that would unlock the most
// come first: by Unlocks (the remaining completes, but no more than the
// panelists without an answer: what answering could unlock at most),
// descending; then by RemainingCompletes, descending; then by question id
// and country code, ascending.
func (c *ProfilingCounter) Report(codes ProfilingCodes) ProfilingReport {
	var rep ProfilingReport
	countries := make([]string, 0, len(c.countries))
	for country := range c.countries {
		countries = append(countries, country)
	}
	slices.Sort(countries)
	for _, country := range countries {
		ct := c.countries[country]
		rep.Coverage = append(rep.Coverage, c.coverage(ct)...)
		rep.Questions = append(rep.Questions, c.stakes(country, ct, codes)...)
	}
	slices.SortStableFunc(rep.Questions, func(a, b QuestionStake) int {
		return cmp.Or(cmp.Compare(b.Unlocks(), a.Unlocks()), cmp.Compare(b.RemainingCompletes, a.RemainingCompletes),
			cmp.Compare(a.QuestionID, b.QuestionID), strings.Compare(a.Country, b.Country))
	})
	return rep
}

// coverage decides every projection of the country's locales that fit
// each target (ProfilingTarget.Fit, asked once per locale) on every hard
// table of the target.
func (c *ProfilingCounter) coverage(ct *countryTally) []TableCoverage {
	var out []TableCoverage
	var fitting []*localeTally
	for _, i := range ct.targets {
		t := &c.targets[i]
		fitting = fitting[:0]
		var panelists int64
		for _, lt := range ct.locales {
			if t.Fit != nil && t.Fit(domain.PanelMember{Country: t.Country, Locale: lt.locale}).Fits {
				fitting = append(fitting, lt)
				panelists += lt.panelists
			}
		}
		cells := t.Cells
		for ti := range cells.tables {
			table := &cells.tables[ti]
			if !table.hard {
				continue
			}
			cov := TableCoverage{SubsampleID: t.SubsampleID, SubsampleName: t.Name, Country: t.Country,
				TableID: table.id, TableName: cells.held.text(table.name), Questions: cells.tableQuestions(table), Panelists: panelists}
			for _, lt := range fitting {
				for _, g := range lt.groups {
					if cells.TableVerdict(ti, g.profile, c.now) == QuotaUnknown {
						cov.Undecided += g.n
					} else {
						cov.Decided += g.n
					}
				}
			}
			out = append(out, cov)
		}
	}
	return out
}

// TableVerdict is the verdict of the table at index t (in the provider's
// order, the total left out) for the panelist: Verdict's, for that table
// alone.
func (c *QuotaCells) TableVerdict(t int, p domain.Profile, now time.Time) QuotaVerdict {
	return c.tally(&c.tables[t], p, c.ageOf(p, now)).verdict(&c.tables[t])
}

// tableQuestions are the questions the table's cells ask, ascending.
func (c *QuotaCells) tableQuestions(t *quotaTable) []int64 {
	var qs []int64
	for i := t.lo; i < t.hi; i++ {
		for _, k := range c.held.condsOf(&c.cells[i]) {
			if !slices.Contains(qs, k.question) {
				qs = append(qs, k.question)
			}
		}
	}
	slices.Sort(qs)
	return qs
}

// stakes are the country's rows of the ranking, unordered.
func (c *ProfilingCounter) stakes(country string, ct *countryTally, codes ProfilingCodes) []QuestionStake {
	rows := map[int64]*QuestionStake{}
	uses := map[int64]map[string]int{} // per question, priced subsamples per currency
	var order []int64
	for _, i := range ct.targets {
		t := &c.targets[i]
		for q, room := range hardRoomByQuestion(t.Cells) {
			row := rows[q]
			if row == nil {
				row = &QuestionStake{QuestionID: q, Country: country, Panelists: ct.panelists, Stake: Money{},
					PanelistsWithoutAnswer: ct.withoutAnswer(q, c.now)}
				rows[q] = row
				uses[q] = map[string]int{}
				order = append(order, q)
			}
			if t.TotalKnown {
				room = min(room, t.Total)
			}
			row.Subsamples = append(row.Subsamples, t.SubsampleID)
			row.RemainingCompletes += room
			if !t.Price.Priced() {
				row.UnpricedSubsamples++
				row.UnpricedCompletes += room
				continue
			}
			// What the panelists without an answer could earn there: no
			// more completes than there are of them.
			row.Stake.Add(t.Price.Currency, AmountCents(int(min(room, row.PanelistsWithoutAnswer)), t.Price.CPI))
			uses[q][t.Price.Currency]++
		}
	}
	slices.Sort(order)
	out := make([]QuestionStake, 0, len(order))
	for _, q := range order {
		row := rows[q]
		row.Currency = headlineCurrency(uses[q])
		if codes != nil {
			row.Code = codes(q, country)
		}
		out = append(out, *row)
	}
	return out
}

// headlineCurrency is the currency most subsamples use (uses: how many
// use each), ties to the first in code order; "" when none is priced.
func headlineCurrency(uses map[string]int) string {
	best := ""
	for cur, n := range uses {
		if best == "" || n > uses[best] || (n == uses[best] && cur < best) {
			best = cur
		}
	}
	return best
}

// hardRoomByQuestion is, for each question a hard cell of c asks, the
// remaining completes in those cells: per table, the room of its hard
// cells that ask the question, summed; the largest table's sum.
func hardRoomByQuestion(c *QuotaCells) map[int64]int64 {
	out := map[int64]int64{}
	for ti := range c.tables {
		t := &c.tables[ti]
		perTable := map[int64]int64{}
		for ci := t.lo; ci < t.hi; ci++ {
			cell := &c.cells[ci]
			if cell.kind != kindHard {
				continue
			}
			var asked []int64
			for _, k := range c.held.condsOf(cell) {
				if !slices.Contains(asked, k.question) {
					asked = append(asked, k.question)
					perTable[k.question] += cell.remaining
				}
			}
		}
		for q, room := range perTable {
			if v, seen := out[q]; !seen || room > v {
				out[q] = room
			}
		}
	}
	return out
}

// withoutAnswer counts the country's panelists, of every locale, with
// no answer to q (no age for the age question).
func (ct *countryTally) withoutAnswer(q int64, now time.Time) int64 {
	var n int64
	for _, lt := range ct.locales {
		for _, g := range lt.groups {
			if q == domain.AgeRangeQuestionID {
				if AgeOn(g.profile.BirthDate, now) < 0 {
					n += g.n
				}
				continue
			}
			if len(g.profile.Answers[q]) == 0 {
				n += g.n
			}
		}
	}
	return n
}
