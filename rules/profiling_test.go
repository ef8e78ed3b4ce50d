package rules

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"fieldboard/rules/domain"
)

// The spec defines no more of a hard quota than its type: "quotaType |
// string | Observed values: hard, counting", and of every quota: "For each
// other quota, when remainingExclusive + remainingShared is greater than
// 0, sample may be sent to that quota." The matcher reads a table that
// holds a hard cell as one a panelist must fall in (Verdict); the
// profiling advice counts who it cannot decide.

// profilingWorld is a small hand-made world: four sendable subsamples in
// FR (two priced in EUR, one in USD, one without a CPI) and one in DE,
// with hard and counting tables and an interlocked cell asking two
// questions. S1 takes the panelists of FR who answer in fr-fr or en-fr,
// the others of FR those in fr-fr only; each country's default locale is
// its own language's (fr-fr, de-de).
func profilingWorld() []ProfilingTarget {
	interlocked := func(id int64, gender, region int64, remaining int64) domain.Quota {
		return domain.Quota{QuotaID: id, TableID: 7, TableName: "Gender x Region", QuotaType: domain.QuotaTypeHard,
			Questions: []domain.QuotaQuestion{
				{ID: qGender, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id64(gender)}}},
				{ID: qRegion, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id64(region)}}}},
			RemainingExclusive: remaining}
	}
	hardRegion := func(id, remaining int64, answers ...int64) domain.Quota {
		return answerCell(id, 5, "Region", domain.QuotaTypeHard, "", qRegion, remaining, answers...)
	}
	locales := map[int64][]string{1: {"fr-fr", "en-fr"}, 2: {"fr-fr"}, 3: {"fr-fr"}, 4: {"fr-fr"}, 5: {"de-de"}}
	defaults := map[string]string{"FR": "fr-fr", "DE": "de-de"}
	target := func(id int64, country string, price Price, quotas ...domain.Quota) ProfilingTarget {
		cells := CompileQuotas(quotas)
		room, known := TotalRoom(quotas)
		return ProfilingTarget{SubsampleID: id, Name: "S" + strconv.FormatInt(id, 10), Country: country, Cells: &cells,
			Total: room, TotalKnown: known, Price: price, Fit: fitLocales(defaults[country], country, locales[id]...)}
	}
	eur := func(cpi float64) Price { return Price{Currency: "EUR", CPI: cpi, Known: true} }
	return []ProfilingTarget{
		target(1, "FR", eur(2.5), total(100, 0),
			genderCell(10, "Male", 10, 1), genderCell(11, "Female", 0, 2),
			ageCell(12, "18", "34", 20, 0), ageCell(13, "35", "54", 5, 0),
			regionCell(14, 50, 101)), // counting: asks region, decides nothing
		target(2, "FR", eur(1), total(8, 0), interlocked(20, 1, 101, 6), interlocked(21, 2, 102, 4)),
		target(3, "FR", Price{Currency: "USD", CPI: 3, Known: true}, total(50, 0),
			genderCell(30, "Male", 7, 1), genderCell(31, "Female", 3, 2)),
		target(4, "FR", Price{}, total(20, 0), ageCell(40, "18", "99", 30, 0)), // no CPI: its stake is unknown
		target(5, "DE", eur(2), total(40, 0), hardRegion(50, 9, 201)),
	}
}

// fitLocales is the send list's language fit (FitPanel) for a subsample
// of country with locales, all usable, whose country's default locale is
// countryDefault.
func fitLocales(countryDefault, country string, locales ...string) func(domain.PanelMember) PanelFit {
	t := PanelTarget{Countries: []string{country}}
	for _, l := range locales {
		t.Locales = append(t.Locales, PanelLocale{Code: l, Usable: true})
	}
	return func(m domain.PanelMember) PanelFit { return FitPanel(m, t, countryDefault) }
}

// profilingPanel adds the world's panel to c: four profiled panelists in
// fr-fr or with no locale, one in en-fr, and two without a profile in FR;
// two and one in DE; one profiled panelist of no country, who counts
// nowhere.
func profilingPanel(c *ProfilingCounter) {
	c.Add("FR", "fr-fr", aged(36, map[int64][]int64{qGender: {1}, qRegion: {101}}))
	c.Add("FR", "", domain.Profile{Answers: map[int64][]int64{qGender: {2}}})       // no region, no birth date; no locale: FR's default
	c.Add("FR", "fr-fr", aged(26, map[int64][]int64{qRegion: {102}}))               // no gender
	c.Add("FR", "fr-fr", aged(66, map[int64][]int64{qGender: {1}, qRegion: {999}})) // a region no cell lists
	c.Add("FR", "en-fr", aged(36, map[int64][]int64{qGender: {1}, qRegion: {101}})) // only S1 takes en-fr
	c.AddUnprofiled("FR", "fr-fr", 1)
	c.AddUnprofiled("FR", "", 1)
	c.Add("DE", "de-de", domain.Profile{Answers: map[int64][]int64{qRegion: {201}}})
	c.Add("DE", "de-de", domain.Profile{Answers: map[int64][]int64{}})
	c.AddUnprofiled("DE", "de-de", 1)
	c.Add("", "", aged(30, map[int64][]int64{qGender: {1}}))
	c.Add("IT", "it-it", aged(30, map[int64][]int64{qGender: {1}})) // no sendable subsample in IT
}

func TestProfilingCoverage(t *testing.T) {
	c := NewProfilingCounter(profilingWorld(), checkDay)
	profilingPanel(c)
	got := c.Report(nil).Coverage
	want := []TableCoverage{
		// DE first, in code order.
		{SubsampleID: 5, SubsampleName: "S5", Country: "DE", TableID: 5, TableName: "Region", Questions: []int64{qRegion}, Panelists: 3, Decided: 1, Undecided: 2},
		// Gender: the one without a gender and the two without a profile
		// may fall in the full cell Female; the one in it is decided
		// (quota full). S1 takes the panelist in en-fr too, decided.
		{SubsampleID: 1, SubsampleName: "S1", Country: "FR", TableID: 3, TableName: "Gender", Questions: []int64{qGender}, Panelists: 7, Decided: 4, Undecided: 3},
		// Age: 66 falls in no cell of a hard table, off target, decided;
		// no birth date is undecided.
		{SubsampleID: 1, SubsampleName: "S1", Country: "FR", TableID: 2, TableName: "Age", Questions: []int64{domain.AgeRangeQuestionID}, Panelists: 7, Decided: 4, Undecided: 3},
		// The counting table Region is no hard table: not listed.
		// The others take fr-fr alone: the panelist in en-fr, whom nobody
		// may send there, is neither decided nor undecided; those with no
		// locale go through fr-fr, FR's default.
		// Interlocked: a woman without a region and a region 102 without a
		// gender may fall in the cell; a man of region 999 surely in none.
		{SubsampleID: 2, SubsampleName: "S2", Country: "FR", TableID: 7, TableName: "Gender x Region", Questions: []int64{qGender, qRegion}, Panelists: 6, Decided: 2, Undecided: 4},
		{SubsampleID: 3, SubsampleName: "S3", Country: "FR", TableID: 3, TableName: "Gender", Questions: []int64{qGender}, Panelists: 6, Decided: 3, Undecided: 3},
		{SubsampleID: 4, SubsampleName: "S4", Country: "FR", TableID: 2, TableName: "Age", Questions: []int64{domain.AgeRangeQuestionID}, Panelists: 6, Decided: 3, Undecided: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("coverage:\n got %+v\nwant %+v", got, want)
	}
}

func TestProfilingRanking(t *testing.T) {
	c := NewProfilingCounter(profilingWorld(), checkDay)
	profilingPanel(c)
	codes := func(q int64, country string) string {
		if q == qGender && country == "FR" {
			return "gender"
		}
		return ""
	}
	got := c.Report(codes).Questions
	want := []QuestionStake{
		// Every FR question lacks 3 answers, so the remaining completes
		// decide: age first (S1's 20 + 5, S4's 30 capped at its total 20).
		// The question is asked of the whole country: its panelists are
		// those of every locale. The money at stake is what its 3
		// panelists without an answer could earn: S1's 25 completes,
		// but 3 of them, at 2.50 EUR.
		{QuestionID: domain.AgeRangeQuestionID, Country: "FR", Subsamples: []int64{1, 4}, RemainingCompletes: 45,
			PanelistsWithoutAnswer: 3, Panelists: 7, Stake: Money{"EUR": 750}, Currency: "EUR", UnpricedSubsamples: 1, UnpricedCompletes: 20},
		// Gender: S1 10 (the full Female cell adds 0), S2's interlocked 6 +
		// 4 capped at its total 8, S3 7 + 3 in USD, never added to EUR;
		// at stake, 3 completes of each (S1's at 2.50 EUR, S2's at 1 EUR,
		// S3's at 3 USD).
		{QuestionID: qGender, Country: "FR", Code: "gender", Subsamples: []int64{1, 2, 3}, RemainingCompletes: 28,
			PanelistsWithoutAnswer: 3, Panelists: 7, Stake: Money{"EUR": 1050, "USD": 900}, Currency: "EUR"},
		// Region: only S2's interlocked cells are hard; S1's counting
		// table is not counted. A region no cell lists is an answer.
		{QuestionID: qRegion, Country: "FR", Subsamples: []int64{2}, RemainingCompletes: 8,
			PanelistsWithoutAnswer: 3, Panelists: 7, Stake: Money{"EUR": 300}, Currency: "EUR"},
		// DE: 9 remaining, but only 2 panelists without an answer, who
		// could earn 2 completes at 2 EUR.
		{QuestionID: qRegion, Country: "DE", Subsamples: []int64{5}, RemainingCompletes: 9,
			PanelistsWithoutAnswer: 2, Panelists: 3, Stake: Money{"EUR": 400}, Currency: "EUR"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranking:\n got %+v\nwant %+v", got, want)
	}
}

func TestQuestionStakeParts(t *testing.T) {
	tests := []struct {
		name        string
		q           QuestionStake
		headline    int64
		known       bool
		others      Money
		unlocks     int64
		wantOthersS string
	}{
		{"the currency most subsamples use heads, the others apart",
			QuestionStake{Stake: Money{"EUR": 3300, "USD": 3000}, Currency: "EUR", RemainingCompletes: 28, PanelistsWithoutAnswer: 3},
			3300, true, Money{"USD": 3000}, 3, "30.00 USD"},
		{"no subsample priced: no headline, never 0",
			QuestionStake{Stake: Money{}, UnpricedSubsamples: 1, UnpricedCompletes: 5, RemainingCompletes: 5, PanelistsWithoutAnswer: 40},
			0, false, Money{}, 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, known := tt.q.Headline()
			if h != tt.headline || known != tt.known {
				t.Errorf("Headline() = %d, %v; want %d, %v", h, known, tt.headline, tt.known)
			}
			if o := tt.q.OtherStakes(); !reflect.DeepEqual(o, tt.others) || o.String() != tt.wantOthersS {
				t.Errorf("OtherStakes() = %v (%q), want %v", o, o.String(), tt.others)
			}
			if u := tt.q.Unlocks(); u != tt.unlocks {
				t.Errorf("Unlocks() = %d, want %d", u, tt.unlocks)
			}
		})
	}
}

func TestHeadlineCurrency(t *testing.T) {
	tests := []struct {
		name string
		uses map[string]int
		want string
	}{
		{"most subsamples", map[string]int{"USD": 1, "EUR": 2}, "EUR"},
		{"a tie goes to code order", map[string]int{"USD": 2, "EUR": 2}, "EUR"},
		{"none priced", map[string]int{}, ""},
	}
	for _, tt := range tests {
		if got := headlineCurrency(tt.uses); got != tt.want {
			t.Errorf("%s: headlineCurrency(%v) = %q, want %q", tt.name, tt.uses, got, tt.want)
		}
	}
}

func TestTotalRoom(t *testing.T) {
	tests := []struct {
		name   string
		quotas []domain.Quota
		room   int64
		known  bool
	}{
		{"one total", []domain.Quota{total(5, 3), quota(2, 1, 0)}, 8, true},
		{"a full total is 0", []domain.Quota{total(-2, 0)}, 0, true},
		{"no total: unknown", []domain.Quota{quota(2, 1, 0)}, 0, false},
		{"two totals: which counts is unclear", []domain.Quota{total(5, 0), total(3, 0)}, 0, false},
	}
	for _, tt := range tests {
		if room, known := TotalRoom(tt.quotas); room != tt.room || known != tt.known {
			t.Errorf("%s: TotalRoom = %d, %v; want %d, %v", tt.name, room, known, tt.room, tt.known)
		}
	}
}

// TestProfilingSharesProjections: panelists who answer the asked
// questions alike, whatever else they answer, and whose ages fall between
// the same ends of the ranges, are decided once.
func TestProfilingSharesProjections(t *testing.T) {
	c := NewProfilingCounter(profilingWorld(), checkDay)
	for i := range 1000 {
		// Ages 36 to 45 fall between the ends 35 and 55; question 99 is
		// asked by no cell, region 300+i is listed by none.
		c.Add("FR", "fr-fr", aged(36+i%10, map[int64][]int64{qGender: {1}, 99: {int64(i)}, qRegion: {int64(300 + i)}}))
	}
	if n := len(c.countries["FR"].locales["fr-fr"].groups); n != 1 {
		t.Errorf("%d projections, want 1", n)
	}
}

// TestProfilingAgreesWithVerdict counts random panels against random
// quotas and checks every table's coverage against the matcher's verdict
// of each panelist, one by one: the projections change nothing.
func TestProfilingAgreesWithVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2026))
	pick := func(n int) int { return rng.IntN(n) }
	types := []string{domain.QuotaTypeHard, domain.QuotaTypeCounting, "soft"}
	ranges := [][2]*string{{str("18"), str("34")}, {str("35"), str("")}, {str("65+"), nil}, {nil, str("17")}, {str("abc"), str("3")}, {str("30"), str("50")}}
	for round := range 300 {
		var targets []ProfilingTarget
		for s := range 1 + pick(3) {
			quotas := []domain.Quota{total(int64(pick(20)), 0)}
			for table := range 1 + pick(3) {
				for cell := range 1 + pick(3) {
					q := domain.Quota{QuotaID: int64(100*table + cell), TableID: int64(table + 2), QuotaType: types[pick(len(types))],
						RemainingExclusive: int64(pick(4))}
					for range 1 + pick(2) {
						qq := domain.QuotaQuestion{ID: []int64{qGender, domain.AgeRangeQuestionID, qRegion}[pick(3)], Operator: "OR"}
						if qq.ID == domain.AgeRangeQuestionID {
							r := ranges[pick(len(ranges))]
							qq.Answers = append(qq.Answers, domain.QuotaAnswer{RangeStart: r[0], RangeEnd: r[1]})
						} else {
							qq.Answers = append(qq.Answers, domain.QuotaAnswer{ID: id64(int64(1 + pick(3)))})
						}
						q.Questions = append(q.Questions, qq)
					}
					quotas = append(quotas, q)
				}
			}
			cells := CompileQuotas(quotas)
			targets = append(targets, ProfilingTarget{SubsampleID: int64(s + 1), Country: "FR", Cells: &cells, Fit: fitLocales("fr-fr", "FR", "fr-fr")})
		}
		c := NewProfilingCounter(targets, checkDay)
		var panel []domain.Profile
		for range 40 {
			p := domain.Profile{Answers: map[int64][]int64{}}
			if pick(3) > 0 {
				p = aged(10+pick(80), p.Answers)
			}
			for _, q := range []int64{qGender, qRegion} {
				for range pick(3) {
					p.Answers[q] = append(p.Answers[q], int64(1+pick(4)))
				}
			}
			panel = append(panel, p)
			c.Add("FR", []string{"fr-fr", ""}[pick(2)], p)
		}
		c.AddUnprofiled("FR", "fr-fr", 3)
		panel = append(panel, domain.Profile{}, domain.Profile{}, domain.Profile{})
		for _, cov := range c.Report(nil).Coverage {
			cells := targets[cov.SubsampleID-1].Cells
			ti := tableIndex(cells.tables, cov.TableID)
			var undecided int64
			for _, p := range panel {
				if cells.TableVerdict(ti, p, checkDay) == QuotaUnknown {
					undecided++
				}
			}
			if cov.Undecided != undecided || cov.Decided+cov.Undecided != int64(len(panel)) {
				t.Fatalf("round %d: subsample %d table %d: %d decided, %d undecided; one by one %d undecided of %d",
					round, cov.SubsampleID, cov.TableID, cov.Decided, cov.Undecided, undecided, len(panel))
			}
		}
	}
}

// TestProfilingStakeWithoutCurrency: a CPI without a currency is an
// unknown amount, counted with the unpriced subsamples, never money in a
// currency named "".
func TestProfilingStakeWithoutCurrency(t *testing.T) {
	quotas := []domain.Quota{total(100, 0), genderCell(10, "Male", 10, 1), genderCell(11, "Female", 5, 2)}
	cells := CompileQuotas(quotas)
	targets := []ProfilingTarget{
		{SubsampleID: 1, Country: "FR", Cells: &cells, Total: 100, TotalKnown: true, Price: Price{CPI: 2, Known: true}},
		{SubsampleID: 2, Country: "FR", Cells: &cells, Total: 100, TotalKnown: true, Price: Price{Currency: " ", CPI: 3, Known: true}},
	}
	c := NewProfilingCounter(targets, checkDay)
	got := c.Report(nil).Questions
	want := []QuestionStake{{QuestionID: qGender, Country: "FR", Subsamples: []int64{1, 2}, RemainingCompletes: 30,
		Stake: Money{}, UnpricedSubsamples: 2, UnpricedCompletes: 30}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranking:\n got %+v\nwant %+v", got, want)
	}
	if _, known := got[0].Headline(); known {
		t.Errorf("a headline stake in no currency: %+v", got[0])
	}
}
