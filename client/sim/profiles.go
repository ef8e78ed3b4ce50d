package sim

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"fieldboard/rules/domain"
)

// Profiles generates the profiles of panelists P0000000, P0000001, ...
// (the panelists of History), for tests, benchmarks and the demo. Each
// panelist lives in one of the countries the world's live subsamples are
// fielded in, the big markets more often, and answers the simulator's own
// library: a birth date (aged 18 to 80 when the world was created),
// gender, a region of that country, household income (now and then
// "Prefer not to answer"), education, employment, the children in the
// household (multi-punch) and one to three other questions of the
// library, about ten rows in all. About one panelist in twenty leaves out
// one of the birth date, gender, region or income. Matched against the
// simulator's quotas, this gives the mix a supplier sees: many fit, many
// live in another country's regions or fall in full cells, and some cannot
// be decided. The rows come grouped by panelist. Deterministic for the
// simulator's world and seed.
func (s *Simulator) Profiles(seed int64, panelists int) iter.Seq[domain.ProfileRecord] {
	return func(yield func(domain.ProfileRecord) bool) {
		if panelists <= 0 {
			return
		}
		g := newProfileGen(s.world, seed)
		for p := range panelists {
			id := s.PanelistID(p)
			for _, r := range g.panelist() {
				r.PanelistID = id
				if !yield(r) {
					return
				}
			}
		}
	}
}

// Panel generates the panel file of the panelists of Profiles: where each
// lives (the country their profile was drawn for) and, for most, the
// locale they answer in, one of the locales the world's subsamples of that
// country use (two in the United States, Canada, Belgium and Switzerland).
// About one panelist in ten has no locale on file, and one in fifty no
// row at all (no country on file), as in a real supplier's panel.
// Deterministic for the simulator's world and seed.
func (s *Simulator) Panel(seed int64, panelists int) iter.Seq[domain.PanelMember] {
	return func(yield func(domain.PanelMember) bool) {
		g := newProfileGen(s.world, seed)
		locales := map[*country][]string{}
		for _, ss := range s.world.subs {
			for _, l := range ss.locales {
				if !slices.Contains(locales[ss.country], l.Locale) {
					locales[ss.country] = append(locales[ss.country], l.Locale)
				}
			}
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 0x70a2e1))
		for p := range panelists {
			g.panelist() // the same draws as Profiles, for the same country
			m := domain.PanelMember{PanelistID: s.PanelistID(p), Country: g.country.Code}
			if rng.IntN(50) == 0 {
				continue
			}
			if ls := locales[g.country]; len(ls) > 0 && rng.IntN(10) > 0 {
				m.Locale = ls[0]
				if len(ls) > 1 && rng.IntN(3) == 0 {
					m.Locale = ls[1+rng.IntN(len(ls)-1)]
				}
			}
			if !yield(m) {
				return
			}
		}
	}
}

// profileGen draws the profiles.
type profileGen struct {
	rng      *rand.Rand
	country  *country // the last panelist's
	lib      *library
	created  time.Time
	markets  []*country // one entry per live subsample: big markets come up more
	fillers  []*questionDef
	rows     []domain.ProfileRecord
	children []answerDef // the child-age answers, without the exclusive ones
}

func newProfileGen(w *world, seed int64) *profileGen {
	g := &profileGen{
		rng:     rand.New(rand.NewPCG(uint64(seed), 0x9f0f11e5)),
		lib:     w.library,
		created: w.created,
	}
	for _, ss := range w.subs {
		if ss.base.isLive() || ss.goLive > 0 {
			g.markets = append(g.markets, ss.country)
		}
	}
	if len(g.markets) == 0 {
		for _, ss := range w.subs {
			g.markets = append(g.markets, ss.country)
		}
	}
	if len(g.markets) == 0 {
		g.markets = w.countries[:1]
	}
	for _, q := range w.library.questions {
		if isFiller(q) {
			g.fillers = append(g.fillers, q)
		}
	}
	for _, a := range w.library.answersOf(qChildren, "") {
		if !a.exclusive {
			g.children = append(g.children, a)
		}
	}
	return g
}

// panelist draws one panelist's rows, without the panelist id. The slice
// is reused by the next call.
func (g *profileGen) panelist() []domain.ProfileRecord {
	rng := g.rng
	g.rows = g.rows[:0]
	country := g.markets[rng.IntN(len(g.markets))]
	g.country = country
	missing := int64(0) // a core question this panelist leaves out
	if rng.IntN(20) == 0 {
		missing = []int64{qAgeRange, qGender, qRegion, qIncome}[rng.IntN(4)]
	}

	age := g.age()
	if missing != qAgeRange {
		g.rows = append(g.rows, domain.ProfileRecord{QuestionID: qAgeRange, Value: g.birthDate(age).Format(time.DateOnly)})
	}
	if missing != qGender {
		gender := g.lib.answersOf(qGender, "")
		i := 0
		if rng.IntN(100) < 52 {
			i = 1
		}
		g.answer(qGender, gender[i])
	}
	if regions := g.lib.answersOf(qRegion, country.Code); missing != qRegion && len(regions) > 0 {
		g.answer(qRegion, regions[rng.IntN(len(regions))])
	}
	if missing != qIncome {
		// A band, or "Prefer not to answer" (the last answer) now and then.
		income := g.lib.answersOf(qIncome, "")
		i := rng.IntN(len(income) - 1)
		if rng.IntN(100) < 6 {
			i = len(income) - 1
		}
		g.answer(qIncome, income[i])
	}
	g.answer(qEducation, g.pick(g.lib.answersOf(qEducation, "")))
	employment := g.lib.answersOf(qEmployment, "")
	switch {
	case age >= 63 && rng.IntN(100) < 70:
		g.answer(qEmployment, byText(employment, "Retired"))
	case age < 25 && rng.IntN(100) < 50:
		g.answer(qEmployment, byText(employment, "Student"))
	default:
		g.answer(qEmployment, employment[[]int{0, 0, 0, 1, 2, 3, 6}[rng.IntN(7)]])
	}
	g.childrenAnswers(age)
	for range 1 + rng.IntN(3) {
		if len(g.fillers) == 0 {
			break
		}
		q := g.fillers[rng.IntN(len(g.fillers))]
		if g.answered(q.id) {
			continue
		}
		if q.typ != typeMultiPunch {
			g.answer(q.id, g.pick(q.answers))
			continue
		}
		for _, a := range g.some(q.answers) {
			g.answer(q.id, a)
		}
	}
	return g.rows
}

// age draws an adult's age, 18 to 80, the middle ages likelier.
func (g *profileGen) age() int {
	return 18 + (g.rng.IntN(63)+g.rng.IntN(63)+1)/2
}

// birthDate draws a birthday that makes the panelist age years old on the
// day the world was created.
func (g *profileGen) birthDate(age int) time.Time {
	day := time.Date(g.created.Year(), g.created.Month(), g.created.Day(), 0, 0, 0, 0, time.UTC)
	earliest := day.AddDate(-age-1, 0, 1) // a day after the birthday that would make age+1
	span := int(day.AddDate(-age, 0, 0).Sub(earliest).Hours()/24) + 1
	return earliest.AddDate(0, 0, g.rng.IntN(span))
}

// childrenAnswers answers the children question: none for most of the
// young and the old, one to three age bands otherwise.
func (g *profileGen) childrenAnswers(age int) {
	all := g.lib.answersOf(qChildren, "")
	none, refused := byText(all, "No children under 18 in household"), byText(all, "Prefer not to answer")
	switch x := g.rng.IntN(100); {
	case x < 4:
		g.answer(qChildren, refused)
	case age > 60 || age < 22 || x < 50:
		g.answer(qChildren, none)
	default:
		for _, a := range g.some(g.children) {
			g.answer(qChildren, a)
		}
	}
}

// pick draws one answer of a single-punch question, never the NULL VALUE
// entry.
func (g *profileGen) pick(as []answerDef) answerDef {
	for {
		a := as[g.rng.IntN(len(as))]
		if !a.nullValue {
			return a
		}
	}
}

// some draws the answers of a multi-punch question: an exclusive answer
// alone now and then, else one to three others.
func (g *profileGen) some(as []answerDef) []answerDef {
	var plain, exclusive []answerDef
	for _, a := range as {
		switch {
		case a.nullValue:
		case a.exclusive:
			exclusive = append(exclusive, a)
		default:
			plain = append(plain, a)
		}
	}
	if len(exclusive) > 0 && (len(plain) == 0 || g.rng.IntN(5) == 0) {
		i := g.rng.IntN(len(exclusive))
		return exclusive[i : i+1]
	}
	n := min(1+g.rng.IntN(3), len(plain))
	g.rng.Shuffle(len(plain), func(i, j int) { plain[i], plain[j] = plain[j], plain[i] })
	return plain[:n]
}

func (g *profileGen) answer(question int64, a answerDef) {
	g.rows = append(g.rows, domain.ProfileRecord{QuestionID: question, Value: strconv.FormatInt(a.id, 10)})
}

func (g *profileGen) answered(question int64) bool {
	for _, r := range g.rows {
		if r.QuestionID == question {
			return true
		}
	}
	return false
}

// byText finds an answer of the core questions by its English text.
func byText(as []answerDef, text string) answerDef {
	for _, a := range as {
		if a.text == text {
			return a
		}
	}
	panic("sim: no answer " + strconv.Quote(text))
}

// PanelistID is the id of panelist p of Profiles, Panel and History:
// P0000000, P0000001, ..., every second one after a formula start under
// Options.FormulaIDs.
func (s *Simulator) PanelistID(p int) string {
	id := fmt.Sprintf("P%07d", p)
	if s.formulaIDs && p%2 == 1 {
		id = formulaIDPrefixes[p/2%len(formulaIDPrefixes)] + id
	}
	return id
}

// formulaIDPrefixes begin the panelist ids of Options.FormulaIDs: each
// makes a spreadsheet run a formula, or split the cell, unless the CSV
// writer neutralises it.
var formulaIDPrefixes = []string{"=1+", "+1", "-1", "@x", "＝1", "＋1", "－1", "＠x", ";=1+"}
