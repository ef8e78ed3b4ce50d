package sim

import (
	"fmt"
	"iter"
	"strconv"

	"fieldboard/rules/domain"
)

// The supplier's own codes: the profiles of Profiles as a supplier keeps
// them (OwnProfiles) and its hand-made table from its codes to the
// library's ids (Mapping). Two gaps are left on purpose, so that the demo
// shows both at first start: the supplier never asks household income
// (unaskedQuestion), and it has not mapped the regions of its newest
// market (unmappedRegionCountry).

// unaskedQuestion is the library question the supplier never asks its
// panel: household income. OwnProfiles leaves it out for every panelist
// and Mapping has no row for it, while about a third of the world's
// subsamples have a hard income quota table, so it is what "what to
// profile next" ranks: panelists without an answer, and money at stake.
const unaskedQuestion = qIncome

// dobCode is the supplier's code of the birth date, which Mapping ties to
// the age question: its values are dates yyyy-mm-dd.
const dobCode = "dob"

// regionCode is the supplier's code of the region its panelists live in;
// its values (regionCodes) are per country.
const regionCode = "region"

// ownCode is a supplier's question code and answer code.
type ownCode struct {
	code, value string
}

// coreCode is the supplier's code of a core question of the library and
// its codes for the question's answers, by their English text. The NULL
// VALUE entry has none: the supplier never writes it.
type coreCode struct {
	question int64
	code     string
	values   map[string]string
}

// coreCodes are the supplier's codes of the core questions besides the
// birth date (dobCode) and the region (regionCodes). Household income is
// not among them: the supplier never asks it (unaskedQuestion).
func coreCodes() []coreCode {
	return []coreCode{
		{question: qGender, code: "gender", values: map[string]string{"Male": "M", "Female": "F"}},
		{question: qEducation, code: "education", values: map[string]string{
			"Less than high school": "lths", "High school graduate": "hs", "Some college": "somecollege",
			"Bachelor's degree": "bachelor", "Postgraduate degree": "postgrad"}},
		{question: qEmployment, code: "employment", values: map[string]string{
			"Employed full-time": "fulltime", "Employed part-time": "parttime", "Self-employed": "selfemployed",
			"Unemployed": "unemployed", "Student": "student", "Retired": "retired", "Homemaker": "homemaker"}},
		{question: qChildren, code: "kids", values: map[string]string{
			"Child aged 0-5": "u6", "Child aged 6-11": "6to11", "Child aged 12-17": "12to17",
			"No children under 18 in household": "none", "Prefer not to answer": "refused"}},
	}
}

// regionCodes are the supplier's codes of each country's regions, in the
// order of the country's regions (country.regions): ISO 3166-2 codes where
// the region is a subdivision that has one (DE-BY, AU-NSW, BE-VLG), codes
// in the same style for the market-research regions (FR-IDF for
// Île-de-France, US-MW for the Midwest).
func regionCodes() map[string][]string {
	return map[string][]string{
		"US": {"US-NE", "US-MW", "US-S", "US-W"},
		"GB": {"GB-NE", "GB-NW", "GB-YH", "GB-EM", "GB-WM", "GB-EE", "GB-LDN", "GB-SE", "GB-SW", "GB-WLS", "GB-SCT", "GB-NIR"},
		"DE": {"DE-BW", "DE-BY", "DE-BE", "DE-BB", "DE-HB", "DE-HH", "DE-HE", "DE-MV", "DE-NI", "DE-NW", "DE-RP", "DE-SL", "DE-SN", "DE-ST", "DE-SH", "DE-TH"},
		"FR": {"FR-IDF", "FR-NO", "FR-NE", "FR-CE", "FR-SO", "FR-SE", "FR-MED"},
		"ES": {"ES-AMM", "ES-AMB", "ES-NE", "ES-LEV", "ES-SUR", "ES-CEN", "ES-NO", "ES-NOR", "ES-CN"},
		"IT": {"IT-NO", "IT-NE", "IT-CEN", "IT-SUD", "IT-ISO"},
		"NL": {"NL-N", "NL-O", "NL-Z", "NL-W", "NL-G3"},
		"CA": {"CA-ATL", "CA-QC", "CA-ON", "CA-PR", "CA-BC", "CA-TER"},
		"AU": {"AU-NSW", "AU-VIC", "AU-QLD", "AU-SA", "AU-WA", "AU-TAS", "AU-ACT", "AU-NT"},
		"BR": {"BR-N", "BR-NE", "BR-CO", "BR-SE", "BR-S"},
		"MX": {"MX-NO", "MX-NE", "MX-OCC", "MX-CEN", "MX-CMX", "MX-SE"},
		"JP": {"JP-HKD", "JP-THK", "JP-KNT", "JP-CHB", "JP-KNS", "JP-CGK", "JP-SKK", "JP-KYS"},
		"BE": {"BE-BRU", "BE-VLG", "BE-WAL"},
		"CH": {"CH-DS", "CH-RO", "CH-TI"},
		"SE": {"SE-NOR", "SE-SVE", "SE-GOT"},
		"IN": {"IN-N", "IN-S", "IN-E", "IN-W", "IN-C", "IN-NE"},
		"PL": {"PL-C", "PL-S", "PL-E", "PL-NW", "PL-SW", "PL-N"},
		"AT": {"AT-OST", "AT-SUD", "AT-WEST"},
		"KR": {"KR-SEL", "KR-GG", "KR-GW", "KR-CC", "KR-JL", "KR-GS", "KR-JJ"},
		"IE": {"IE-D", "IE-L", "IE-M", "IE-CU"},
	}
}

// fillerCode is the supplier's code of a filler question of the library,
// q and its id (q20041), and of its answer i, a and its place in the
// question's answers counted from 1 (a3).
func fillerCode(q *questionDef, i int) ownCode {
	return ownCode{code: "q" + strconv.FormatInt(q.id, 10), value: "a" + strconv.Itoa(i+1)}
}

// isFiller reports whether q is one of the filler questions Profiles may
// answer.
func isFiller(q *questionDef) bool {
	return q.id >= 20000 && q.typ != typeText && len(q.answers) > 0
}

// ownCodes are the supplier's codes of the library's answers, by question
// id and answer id; answers of the unasked question have none.
type ownCodes map[[2]int64]ownCode

func newOwnCodes(w *world) ownCodes {
	lib := w.library
	codes := ownCodes{}
	for _, cc := range coreCodes() {
		for _, a := range lib.answersOf(cc.question, "") {
			if v, ok := cc.values[a.text]; ok {
				codes[[2]int64{cc.question, a.id}] = ownCode{cc.code, v}
			}
		}
	}
	regions := regionCodes()
	for _, c := range w.countries {
		for i, a := range lib.regions[c.Code] {
			codes[[2]int64{qRegion, a.id}] = ownCode{regionCode, regions[c.Code][i]}
		}
	}
	for _, q := range lib.questions {
		if !isFiller(q) {
			continue
		}
		for i, a := range q.answers {
			if !a.nullValue {
				codes[[2]int64{q.id, a.id}] = fillerCode(q, i)
			}
		}
	}
	return codes
}

// own writes a record of Profiles in the supplier's codes; false for the
// unasked question, which the supplier has no code for.
func (codes ownCodes) own(r domain.ProfileRecord) (domain.OwnProfileRecord, bool) {
	if r.QuestionID == qAgeRange {
		return domain.OwnProfileRecord{PanelistID: r.PanelistID, Code: dobCode, Value: r.Value}, true
	}
	if r.QuestionID == unaskedQuestion {
		return domain.OwnProfileRecord{}, false
	}
	id, err := strconv.ParseInt(r.Value, 10, 64)
	c, ok := codes[[2]int64{r.QuestionID, id}]
	if err != nil || !ok {
		panic(fmt.Sprintf("sim: no supplier code for answer %s of question %d", r.Value, r.QuestionID))
	}
	return domain.OwnProfileRecord{PanelistID: r.PanelistID, Code: c.code, Value: c.value}, true
}

// OwnProfiles generates the profiles of Profiles, the same panelists with
// the same answers, written as the supplier keeps them, in its own codes
// (panelistId,code,value): dob (the birth date, yyyy-mm-dd), gender (F or
// M), region (a code per country's region, such as FR-IDF or DE-BY),
// education, employment and kids (short words such as bachelor,
// fulltime, 6to11), and for the library's other questions q and the
// question id with a and the answer's place (q20041, a3). The supplier
// never asks household income: its answers are left out for everybody.
// Translated by Mapping, they are Profiles' records without the income
// ones and without the regions of the country Mapping leaves unmapped.
// Deterministic for the simulator's world and seed.
func (s *Simulator) OwnProfiles(seed int64, panelists int) iter.Seq[domain.OwnProfileRecord] {
	return func(yield func(domain.OwnProfileRecord) bool) {
		if panelists <= 0 {
			return
		}
		g := newProfileGen(s.world, seed)
		codes := newOwnCodes(s.world)
		for p := range panelists {
			id := s.PanelistID(p)
			for _, r := range g.panelist() {
				own, ok := codes.own(r)
				if !ok {
					continue
				}
				own.PanelistID = id
				if !yield(own) {
					return
				}
			}
		}
	}
}

// Mapping is the supplier's mapping from the codes of OwnProfiles to the
// library's ids (code,value,questionId,answerId,country): dob to the age
// question -1 (no value, no answer id: its values are birth dates), the
// answers that are the same in every country (gender, education,
// employment, kids and the other questions) in general rows (country
// empty), and the regions in rows per country, for the countries whose
// locales have a library. Two gaps are left on purpose, so that the demo
// shows unmapped codes and a question to profile next: no row for
// household income, which the supplier never asks, and none for the
// regions of one country (unmappedRegionCountry), whose panelists' region
// codes stay unmapped. The rows follow the library's order of questions.
func (s *Simulator) Mapping() []domain.MappingRow {
	w := s.world
	codes := newOwnCodes(w)
	unmapped := w.unmappedRegionCountry()
	rows := []domain.MappingRow{{Code: dobCode, QuestionID: qAgeRange}}
	for _, q := range w.library.questions {
		switch q.id {
		case qAgeRange, unaskedQuestion:
		case qRegion:
			for _, c := range w.servedCountries() {
				if c == unmapped {
					continue
				}
				for _, a := range w.library.regions[c.Code] {
					own := codes[[2]int64{qRegion, a.id}]
					rows = append(rows, domain.MappingRow{Code: own.code, Value: own.value, QuestionID: qRegion, AnswerID: a.id, Country: c.Code})
				}
			}
		default:
			for _, a := range q.answers {
				if own, ok := codes[[2]int64{q.id, a.id}]; ok {
					rows = append(rows, domain.MappingRow{Code: own.code, Value: own.value, QuestionID: q.id, AnswerID: a.id})
				}
			}
		}
	}
	return rows
}

// servedCountries are the countries that have a locale with a library, in
// the order of the countries endpoint.
func (w *world) servedCountries() []*country {
	served := map[*country]bool{}
	for _, l := range w.locales {
		if _, ok := w.library.questionsBody[l.Locale]; ok {
			served[l.country] = true
		}
	}
	var cs []*country
	for _, c := range w.countries {
		if served[c] {
			cs = append(cs, c)
		}
	}
	return cs
}

// unmappedRegionCountry is the country whose regions Mapping leaves out,
// as if it were the supplier's newest market: the last country, in the
// order of the countries endpoint, with a subsample live and listed when
// the world is created whose quotas have a hard region cell, so that its
// panelists' unmapped region codes leave them undecided there; without
// one, the last country with a library.
func (w *world) unmappedRegionCountry() *country {
	withHardRegion := map[*country]bool{}
	for _, ss := range w.subs {
		if ss.base == statusLive && ss.allocated && ss.hardQuotaOn(qRegion) > 0 {
			withHardRegion[ss.country] = true
		}
	}
	served := w.servedCountries()
	for i := len(served) - 1; i >= 0; i-- {
		if withHardRegion[served[i]] {
			return served[i]
		}
	}
	if len(served) == 0 {
		return nil
	}
	return served[len(served)-1]
}

// hardQuotaOn is the number of the subsample's hard quota cells that ask
// question.
func (ss *subsample) hardQuotaOn(question int64) int {
	n := 0
	for _, q := range ss.quotas {
		if q.typ != quotaHard {
			continue
		}
		for _, c := range q.conditions {
			if c.question == question {
				n++
				break
			}
		}
	}
	return n
}
