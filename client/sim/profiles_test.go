package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	fbrules "fieldboard/rules"
	"fieldboard/rules/domain"
)

func TestProfilesFitTheWorld(t *testing.T) {
	s, _ := newSim(Options{Seed: 3})
	collect := func(seed int64, n int) []domain.ProfileRecord {
		return slices.Collect(s.Profiles(seed, n))
	}
	const panelists = 2000
	rows := collect(5, panelists)
	if !slices.Equal(rows, collect(5, panelists)) {
		t.Fatal("two runs with the same seed differ")
	}
	if slices.Equal(rows, collect(6, panelists)) {
		t.Error("two seeds give the same profiles")
	}
	if n := len(collect(5, 0)); n != 0 {
		t.Errorf("0 panelists gave %d rows", n)
	}

	lib := s.world.library
	regionOf := map[int64]string{} // region answer id -> country code
	for cc, as := range lib.regions {
		for _, a := range as {
			regionOf[a.id] = cc
		}
	}
	profiles := map[string]domain.Profile{}
	var order []string
	for _, r := range rows {
		p, ok := profiles[r.PanelistID]
		if !ok {
			if len(order) > 0 && r.PanelistID <= order[len(order)-1] {
				t.Fatalf("rows not grouped by panelist: %s after %s", r.PanelistID, order[len(order)-1])
			}
			order = append(order, r.PanelistID)
			p = domain.Profile{Answers: map[int64][]int64{}}
		}
		if r.QuestionID == qAgeRange {
			birth, err := time.Parse(time.DateOnly, r.Value)
			if err != nil || !p.BirthDate.IsZero() {
				t.Fatalf("%s: birth date %q (%v), or a second one", r.PanelistID, r.Value, err)
			}
			if age := fbrules.AgeOn(birth, testStart); age < 18 || age > 80 {
				t.Fatalf("%s: born %s is %d years old", r.PanelistID, r.Value, age)
			}
			p.BirthDate = birth
			profiles[r.PanelistID] = p
			continue
		}
		id, err := strconv.ParseInt(r.Value, 10, 64)
		if err != nil {
			t.Fatalf("%s: answer %q of question %d", r.PanelistID, r.Value, r.QuestionID)
		}
		if r.QuestionID == qRegion {
			if _, ok := regionOf[id]; !ok || len(p.Answers[qRegion]) > 0 {
				t.Fatalf("%s: region %d is no country's, or a second one", r.PanelistID, id)
			}
		} else if !slices.ContainsFunc(lib.answersOf(r.QuestionID, ""), func(a answerDef) bool { return a.id == id && !a.nullValue }) {
			t.Fatalf("%s: %d is not an answer of question %d", r.PanelistID, id, r.QuestionID)
		}
		if slices.Contains(p.Answers[r.QuestionID], id) {
			t.Fatalf("%s: answer %d of question %d twice", r.PanelistID, id, r.QuestionID)
		}
		p.Answers[r.QuestionID] = append(p.Answers[r.QuestionID], id)
		profiles[r.PanelistID] = p
	}
	if len(order) != panelists || order[0] != "P0000000" || order[panelists-1] != fmt.Sprintf("P%07d", panelists-1) {
		t.Fatalf("%d panelists from %s to %s, want %d from P0000000", len(order), order[0], order[len(order)-1], panelists)
	}
	if avg := float64(len(rows)) / panelists; avg < 8 || avg > 12 {
		t.Errorf("%.1f rows per panelist, want about ten", avg)
	}
	lacking := 0
	for _, p := range profiles {
		if p.BirthDate.IsZero() || len(p.Answers[qGender]) == 0 || len(p.Answers[qRegion]) == 0 || len(p.Answers[qIncome]) == 0 {
			lacking++
		}
		if kids := p.Answers[qChildren]; len(kids) == 0 || len(kids) > 3 {
			t.Errorf("children answers %v", kids)
		}
	}
	if share := float64(lacking) / panelists; share < 0.02 || share > 0.09 {
		t.Errorf("%.1f%% of panelists lack a core answer, want about 5%%", 100*share)
	}

	// Matched against the live subsamples' quotas, every verdict is common.
	verdicts := map[fbrules.QuotaVerdict]int{}
	checks := 0
	for _, d := range liveDetails(t, s) {
		cells := fbrules.CompileQuotas(quotas(t, s, d.SubsampleID))
		for _, id := range order[:500] {
			verdicts[cells.Verdict(profiles[id], testStart)]++
			checks++
		}
	}
	t.Logf("verdicts over %d checks: %v", checks, verdicts)
	for _, v := range []fbrules.QuotaVerdict{fbrules.QuotaFits, fbrules.QuotaOffTarget, fbrules.QuotaFull, fbrules.QuotaUnknown} {
		if share := float64(verdicts[v]) / float64(checks); share < 0.01 {
			t.Errorf("%s in %.2f%% of checks, want at least 1%%", v, 100*share)
		}
	}
}

// TestPanelFitsTheProfiles: each panelist of the panel lives in the
// country their profile's region is of, answers in a locale of that
// country that its subsamples use, and both two-locale countries and
// missing rows and locales occur.
func TestPanelFitsTheProfiles(t *testing.T) {
	s, _ := newSim(Options{Seed: 3})
	const panelists = 3000
	regionOf := map[int64]string{}
	for cc, as := range s.world.library.regions {
		for _, a := range as {
			regionOf[a.id] = cc
		}
	}
	regions := map[string]string{} // panelist -> country of their region answer
	for r := range s.Profiles(5, panelists) {
		if r.QuestionID == qRegion {
			id, _ := strconv.ParseInt(r.Value, 10, 64)
			regions[r.PanelistID] = regionOf[id]
		}
	}
	used := map[string]bool{} // locales the subsamples use
	for _, ss := range s.world.subs {
		for _, l := range ss.locales {
			used[l.Locale] = true
		}
	}
	members := slices.Collect(s.Panel(5, panelists))
	if !slices.Equal(members, slices.Collect(s.Panel(5, panelists))) {
		t.Fatal("two runs with the same seed differ")
	}
	byCountry := map[string]map[string]bool{}
	noLocale := 0
	for _, m := range members {
		if _, problems := domain.ParsePanelMember(m.PanelistID, m.Country, m.Locale); len(problems) > 0 {
			t.Fatalf("%+v is not a valid panel row: %v", m, problems)
		}
		if cc, ok := regions[m.PanelistID]; ok && cc != m.Country {
			t.Errorf("%s lives in %s by the panel and %s by their region", m.PanelistID, m.Country, cc)
		}
		if m.Locale == "" {
			noLocale++
			continue
		}
		if !used[m.Locale] {
			t.Errorf("%s answers in %s, which no subsample uses", m.PanelistID, m.Locale)
		}
		if byCountry[m.Country] == nil {
			byCountry[m.Country] = map[string]bool{}
		}
		byCountry[m.Country][m.Locale] = true
	}
	twoLocales := 0
	for _, ls := range byCountry {
		if len(ls) > 1 {
			twoLocales++
		}
	}
	if missing := panelists - len(members); missing < panelists/100 || missing > panelists/25 {
		t.Errorf("%d of %d panelists have no country on file, want about one in fifty", missing, panelists)
	}
	if noLocale < panelists/20 || twoLocales == 0 {
		t.Errorf("%d panelists without a locale, %d countries answered in two locales; want some of each", noLocale, twoLocales)
	}
}

// TestFormulaIDsChangeOnlyIDs: Options.FormulaIDs starts every second
// panelist id of Profiles, Panel and History with a formula, each prefix in
// turn, every id still a valid one (domain.ParsePanelistID), and changes
// nothing else: with the prefix taken out, each record is the default
// world's.
func TestFormulaIDsChangeOnlyIDs(t *testing.T) {
	plain, _ := newSim(Options{Seed: 42})
	formulas, _ := newSim(Options{Seed: 42, FormulaIDs: true})
	seen := map[string]bool{}
	strip := func(id string) string {
		if valid, err := domain.ParsePanelistID(id); err != nil || valid != id {
			t.Errorf("%q is not a valid panelist id: %v", id, err)
		}
		for _, p := range formulaIDPrefixes {
			if rest, ok := strings.CutPrefix(id, p); ok {
				seen[p] = true
				return rest
			}
		}
		return id
	}
	same := func(what string, want, got []string) {
		if !slices.Equal(want, got) {
			t.Errorf("%s: with the prefixes taken out, %d records differ from the default world's", what, len(want))
		}
	}
	var want, got []string
	for r := range plain.Profiles(1, 40) {
		want = append(want, fmt.Sprint(r))
	}
	for r := range formulas.Profiles(1, 40) {
		r.PanelistID = strip(r.PanelistID)
		got = append(got, fmt.Sprint(r))
	}
	same("Profiles", want, got)
	want, got = nil, nil
	for m := range plain.Panel(1, 40) {
		want = append(want, fmt.Sprint(m))
	}
	for m := range formulas.Panel(1, 40) {
		m.PanelistID = strip(m.PanelistID)
		got = append(got, fmt.Sprint(m))
	}
	same("Panel", want, got)
	want, got = nil, nil
	for r := range plain.History(1, 200, 40) {
		want = append(want, fmt.Sprint(r))
	}
	for r := range formulas.History(1, 200, 40) {
		r.PanelistID = strip(r.PanelistID)
		got = append(got, fmt.Sprint(r))
	}
	same("History", want, got)
	if len(seen) != len(formulaIDPrefixes) {
		t.Errorf("FormulaIDs used %d of the %d prefixes", len(seen), len(formulaIDPrefixes))
	}
}
