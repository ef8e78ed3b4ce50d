package sim

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

// mappingWorlds are the worlds the supplier's codes are tested on: the
// demo's (serve's default seed and size), another seed, and one whose
// library has every locale, so that every country's regions are mapped.
var mappingWorlds = []struct {
	name string
	opts Options
}{
	{"the demo's world", Options{Seed: 1}},
	{"seed 3", Options{Seed: 3}},
	{"every locale", Options{Seed: 7, Locales: MaxLocales}},
}

// translator is the test's own reading of a mapping, as the spec puts it:
// a country's row wins over the general one, and a code mapped to the age
// question has birth dates for values.
type translator struct {
	rows map[[3]string]domain.MappingRow // code, value, country ("" for every country)
	dob  map[[2]string]bool              // code, country of the age question's codes
}

func newTranslator(t *testing.T, rows []domain.MappingRow) translator {
	t.Helper()
	tr := translator{rows: map[[3]string]domain.MappingRow{}, dob: map[[2]string]bool{}}
	for _, r := range rows {
		if r.QuestionID == qAgeRange {
			tr.dob[[2]string{r.Code, r.Country}] = true
			continue
		}
		key := [3]string{r.Code, r.Value, r.Country}
		if _, dup := tr.rows[key]; dup {
			t.Fatalf("mapping has two rows for %v", key)
		}
		tr.rows[key] = r
	}
	return tr
}

// translate gives the record in the library's ids for a panelist of
// country cc; false when no row maps it.
func (tr translator) translate(r domain.OwnProfileRecord, cc string) (domain.ProfileRecord, bool) {
	if tr.dob[[2]string{r.Code, cc}] || tr.dob[[2]string{r.Code, ""}] {
		return domain.ProfileRecord{PanelistID: r.PanelistID, QuestionID: qAgeRange, Value: r.Value}, true
	}
	m, ok := tr.rows[[3]string{r.Code, r.Value, cc}]
	if !ok {
		m, ok = tr.rows[[3]string{r.Code, r.Value, ""}]
	}
	if !ok {
		return domain.ProfileRecord{}, false
	}
	return domain.ProfileRecord{PanelistID: r.PanelistID, QuestionID: m.QuestionID, Value: fmt.Sprint(m.AnswerID)}, true
}

// countriesOf is the country each panelist of Profiles was drawn in.
func countriesOf(s *Simulator, seed int64, panelists int) map[string]string {
	g := newProfileGen(s.world, seed)
	cs := make(map[string]string, panelists)
	for p := range panelists {
		g.panelist()
		cs[s.PanelistID(p)] = g.country.Code
	}
	return cs
}

func TestOwnProfilesTranslatedByMappingAreProfiles(t *testing.T) {
	for _, tc := range mappingWorlds {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newSim(tc.opts)
			const seed, panelists = 5, 3000
			own := slices.Collect(s.OwnProfiles(seed, panelists))
			if !slices.Equal(own, slices.Collect(s.OwnProfiles(seed, panelists))) {
				t.Fatal("two runs with the same seed differ")
			}
			if n := len(slices.Collect(s.OwnProfiles(seed, 0))); n != 0 {
				t.Errorf("0 panelists gave %d rows", n)
			}
			unmapped := s.world.unmappedRegionCountry().Code
			country := countriesOf(s, seed, panelists)

			// What the mapping should give: Profiles without the question
			// the supplier never asks and without the regions of the
			// country it left unmapped, in the same order.
			var want []domain.ProfileRecord
			unaskedLeftOut := 0
			for r := range s.Profiles(seed, panelists) {
				switch {
				case r.QuestionID == unaskedQuestion:
					unaskedLeftOut++
				case r.QuestionID == qRegion && country[r.PanelistID] == unmapped:
				default:
					want = append(want, r)
				}
			}
			if unaskedLeftOut == 0 {
				t.Fatalf("Profiles answers question %d for nobody: nothing is left out", unaskedQuestion)
			}

			tr := newTranslator(t, s.Mapping())
			var got []domain.ProfileRecord
			unmappedCodes := map[string]int{}
			for _, r := range own {
				if strings.Contains(r.Code+r.Value, ",") || r.Code == "" || r.Value == "" {
					t.Fatalf("record %+v: empty code or value, or a comma", r)
				}
				p, ok := tr.translate(r, country[r.PanelistID])
				if !ok {
					if r.Code != regionCode || country[r.PanelistID] != unmapped || !strings.HasPrefix(r.Value, unmapped+"-") {
						t.Fatalf("record %+v of a panelist in %s is not mapped", r, country[r.PanelistID])
					}
					unmappedCodes[r.Value]++
					continue
				}
				got = append(got, p)
			}
			if !slices.Equal(got, want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("translated record %d is %+v, Profiles has %+v", i, got[i], want[i])
					}
				}
				t.Fatalf("%d records translated, Profiles has %d besides the unasked and unmapped ones", len(got), len(want))
			}
			if len(unmappedCodes) == 0 {
				t.Fatalf("no panelist carries a region code of %s, the unmapped country", unmapped)
			}
			t.Logf("%d own records; %d income answers left out; unmapped region codes of %s: %v", len(own), unaskedLeftOut, unmapped, unmappedCodes)
		})
	}
}

func TestOwnProfilesCodes(t *testing.T) {
	s, _ := newSim(Options{Seed: 1})
	codes := map[string]bool{}
	for r := range s.OwnProfiles(2, 500) {
		codes[r.Code] = true
		switch r.Code {
		case "gender":
			if r.Value != "F" && r.Value != "M" {
				t.Errorf("gender %q", r.Value)
			}
		case dobCode:
			if len(r.Value) != len("2006-01-02") {
				t.Errorf("dob %q", r.Value)
			}
		}
	}
	for _, c := range []string{dobCode, "gender", regionCode, "education", "employment", "kids"} {
		if !codes[c] {
			t.Errorf("no record has the code %s", c)
		}
	}
	if codes["income"] || len(codes) < 8 {
		t.Errorf("codes %v: want the core ones but income, and filler questions", codes)
	}
}

// TestMappingNamesServedIds reads the library as the simulator serves it,
// locale by locale, and checks that every row of the mapping names a
// question and an answer of it: general rows in every country's locales,
// country rows in that country's.
func TestMappingNamesServedIds(t *testing.T) {
	for _, tc := range mappingWorlds {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newSim(tc.opts)
			byCountry := map[string][]map[[2]int64]bool{} // per locale of the country: question id, answer id (0 for the question)
			for _, l := range fetch[[]locale](t, s, http.MethodGet, pathLocales) {
				path := fmt.Sprintf("/supplier/v1/locales/%s/questions", l.Locale)
				if do(s, http.MethodGet, path).Code == http.StatusNotFound {
					continue // no library in this locale
				}
				ids := map[[2]int64]bool{}
				for _, q := range fetch[[]wireQuestion](t, s, http.MethodGet, path) {
					ids[[2]int64{q.ID, 0}] = true
					for _, a := range fetch[[]wireAnswer](t, s, http.MethodGet, answersPath(l.Locale, q.ID)) {
						ids[[2]int64{q.ID, a.ID}] = true
					}
				}
				cc := strings.ToUpper(l.CountryCode)
				byCountry[cc] = append(byCountry[cc], ids)
			}
			if len(byCountry) == 0 {
				t.Fatal("no locale has a library")
			}
			in := func(cc string, q, a int64) bool {
				for _, ids := range byCountry[cc] {
					if !ids[[2]int64{q, a}] {
						return false
					}
				}
				return len(byCountry[cc]) > 0
			}

			rows := s.Mapping()
			unmapped := s.world.unmappedRegionCountry().Code
			regionRows := map[string]int{}
			seen := map[[3]string]bool{}
			for _, r := range rows {
				key := [3]string{r.Code, r.Value, r.Country}
				if seen[key] {
					t.Errorf("two rows for %v", key)
				}
				seen[key] = true
				switch {
				case r.QuestionID == qAgeRange:
					if r.Code != dobCode || r.Value != "" || r.AnswerID != 0 || r.Country != "" {
						t.Errorf("age row %+v: want dob, no value, no answer id, every country", r)
					}
					for cc := range byCountry {
						if !in(cc, qAgeRange, 0) {
							t.Errorf("the age question is not in %s's library", cc)
						}
					}
				case r.Country == "":
					for cc := range byCountry {
						if !in(cc, r.QuestionID, r.AnswerID) {
							t.Errorf("general row %+v: no such answer in %s's locales", r, cc)
						}
					}
				default:
					if !in(r.Country, r.QuestionID, r.AnswerID) {
						t.Errorf("row %+v: no such answer in %s's locales", r, r.Country)
					}
					if r.QuestionID == qRegion {
						regionRows[r.Country]++
					}
				}
				if r.QuestionID == unaskedQuestion {
					t.Errorf("row %+v maps the question the supplier never asks", r)
				}
			}
			for cc := range byCountry {
				switch n := regionRows[cc]; {
				case cc == unmapped && n > 0:
					t.Errorf("%d region rows for %s, the country left unmapped", n, cc)
				case cc != unmapped && n != len(s.world.library.regions[cc]):
					t.Errorf("%d region rows for %s, which has %d regions", n, cc, len(s.world.library.regions[cc]))
				}
			}
		})
	}
}

func TestRegionCodesFitTheCountries(t *testing.T) {
	codes := regionCodes()
	for _, c := range countries() {
		cs := codes[c.Code]
		if len(cs) != len(c.regions) {
			t.Errorf("%s: %d region codes for %d regions", c.Code, len(cs), len(c.regions))
		}
		seen := map[string]bool{}
		for _, code := range cs {
			if seen[code] || !strings.HasPrefix(code, c.Code+"-") {
				t.Errorf("%s: region code %q twice, or not prefixed by the country", c.Code, code)
			}
			seen[code] = true
		}
	}
	if len(codes) != len(countries()) {
		t.Errorf("region codes for %d countries, the simulator knows %d", len(codes), len(countries()))
	}
}

// TestDemoShowsTheGaps checks the demo's world (serve's default seed and
// size): the country left unmapped has live subsamples with hard region
// quotas, and the unasked question is asked by hard quotas of live ones.
func TestDemoShowsTheGaps(t *testing.T) {
	s, _ := newSim(Options{Seed: 1})
	unmapped := s.world.unmappedRegionCountry()
	regionSubs, incomeSubs, incomeCells := 0, 0, 0
	for _, ss := range s.world.subs {
		if ss.base != statusLive || !ss.allocated {
			continue
		}
		if ss.country == unmapped && ss.hardQuotaOn(qRegion) > 0 {
			regionSubs++
		}
		if n := ss.hardQuotaOn(unaskedQuestion); n > 0 {
			incomeSubs++
			incomeCells += n
		}
	}
	if regionSubs == 0 || incomeSubs == 0 {
		t.Fatalf("%d live subsamples in %s with hard region quotas, %d with hard income quotas: want some of each", regionSubs, unmapped.Code, incomeSubs)
	}
	t.Logf("regions unmapped in %s (%s): %d live subsamples with hard region quotas; income asked by %d hard cells of %d live subsamples",
		unmapped.Code, unmapped.Name, regionSubs, incomeCells, incomeSubs)
}
