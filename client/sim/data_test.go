package sim

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

func TestReferenceData(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 10})

	countries := fetch[[]domain.Country](t, s, "GET", pathCountry)
	if len(countries) < 12 {
		t.Errorf("%d countries, want at least 12", len(countries))
	}
	emptyRegion := 0
	for _, c := range countries {
		if c.ID == 0 || c.Code != strings.ToUpper(c.Code) || len(c.Code) != 2 || c.Name == "" {
			t.Errorf("country %+v", c)
		}
		if c.RegionName == "" {
			emptyRegion++
		}
	}
	if emptyRegion == 0 {
		t.Error("no country has an empty regionName")
	}

	locales := fetch[[]domain.Locale](t, s, "GET", pathLocales)
	if len(locales) < 20 || len(locales) != MaxLocales {
		t.Errorf("%d locales, want MaxLocales = %d >= 20", len(locales), MaxLocales)
	}
	defaults := make(map[int64]int)
	emptyTranslation := 0
	for _, l := range locales {
		if l.CountryCode != strings.ToLower(l.CountryCode) || !strings.HasSuffix(l.Locale, "-"+l.CountryCode) ||
			!strings.HasPrefix(l.Locale, l.ShortLocale+"-") || l.CountryID == 0 || l.Name == "" {
			t.Errorf("locale %+v", l)
		}
		if l.CountryDefault {
			defaults[l.CountryID]++
		}
		if l.NameTranslation == "" {
			emptyTranslation++
		}
	}
	for _, c := range countries {
		if defaults[c.ID] != 1 {
			t.Errorf("country %s has %d default locales", c.Code, defaults[c.ID])
		}
	}
	if emptyTranslation == 0 {
		t.Error("no locale has an empty nameTranslation")
	}

	statuses := fetch[[]domain.SurveyStatus](t, s, "GET", pathStatuses)
	want := map[int64]string{1: "Pending", 2: "Pending(do not use)", 3: "Live", 4: "Complete", 5: "Canceled", 6: "live for testing"}
	if len(statuses) != len(want) {
		t.Errorf("%d statuses", len(statuses))
	}
	for _, st := range statuses {
		if want[st.ID] != st.StatusName {
			t.Errorf("status %d is %q, want %q", st.ID, st.StatusName, want[st.ID])
		}
	}
}

func TestEventsAndStatusMix(t *testing.T) {
	const n = 2400
	s, _ := newSim(Options{Seed: 3, Subsamples: n})
	all := summaries(t, s)
	if len(all) != n {
		t.Fatalf("%d subsamples, want %d", len(all), n)
	}
	ids := make(map[int64]bool)
	events := make(map[int64]map[string]bool)
	statuses := make(map[string]int)
	emptyBilling := 0
	for _, ss := range all {
		if ids[ss.SubsampleID] {
			t.Fatalf("duplicate subsample id %d", ss.SubsampleID)
		}
		ids[ss.SubsampleID] = true
		if ss.SubsampleID < 200000 || ss.EventID < 30000 {
			t.Errorf("ids %d/%d", ss.EventID, ss.SubsampleID)
		}
		if events[ss.EventID] == nil {
			events[ss.EventID] = make(map[string]bool)
		}
		if events[ss.EventID][ss.Country.Code] {
			t.Errorf("event %d has two subsamples in %s", ss.EventID, ss.Country.Code)
		}
		events[ss.EventID][ss.Country.Code] = true
		statuses[ss.SubsampleStatus]++
		if ss.BillingEntity == "" {
			emptyBilling++
		}
		if ss.FieldStartDate.IsZero() || !ss.FieldEndDate.After(ss.FieldStartDate.Time) {
			t.Errorf("subsample %d: field %v to %v", ss.SubsampleID, ss.FieldStartDate, ss.FieldEndDate)
		}
	}
	if e := len(events); e < n*10/24*85/100 || e > n*10/24*115/100 {
		t.Errorf("%d events for %d subsamples, want about %d", e, n, n*10/24)
	}
	for _, subs := range events {
		if len(subs) > 4 {
			t.Errorf("event with %d subsamples", len(subs))
		}
	}
	for name, pct := range map[string]int{"Live": 33, "Live for testing": 5, "Pending": 15, "Complete": 35, "Canceled": 12} {
		got := statuses[name] * 100 / n
		if got < pct-6 || got > pct+6 {
			t.Errorf("%s: %d%%, want about %d%%", name, got, pct)
		}
	}
	if emptyBilling == 0 {
		t.Error("no empty billingEntity")
	}
}

func TestDatesFormat(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	rec := do(s, "POST", pathAll)
	var raw []map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	layout := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$`)
	for _, e := range raw {
		for _, k := range []string{"fieldStartDate", "fieldEndDate"} {
			if v, _ := e[k].(string); !layout.MatchString(v) {
				t.Errorf("%s = %q", k, v)
			}
		}
	}
}

func TestLiveDetailsShape(t *testing.T) {
	s, _ := newSim(Options{Seed: 5, Subsamples: 600})
	rec := do(s, "POST", pathLive)
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	typed := liveDetails(t, s)
	all := summaries(t, s)
	byID := make(map[int64]domain.SubsampleSummary)
	for _, ss := range all {
		byID[ss.SubsampleID] = ss
	}

	count := make(map[string]int)
	link := regexp.MustCompile(`^https://survey\.provider\.test/start\?p=[A-Za-z0-9]{20,}(&rType=\d+)?&id=$`)
	for i, e := range raw {
		d := typed[i]
		for _, k := range []string{"eventId", "eventName", "categories", "allowDesktop", "allowMobile", "allowTablet",
			"subsampleId", "subsampleStatus", "subsampleName", "countries", "locales", "fieldStartDate", "fieldEndDate",
			"surveyAPIcompatibility", "requiresFlash", "collectPII", "facialCoding", "researchType", "researchTypeId",
			"targetedCurrency", "targetedCPI"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("subsample %d lacks required %s", d.SubsampleID, k)
			}
		}
		if _, ok := e["needRecontact"]; !ok {
			count["needRecontact absent"]++
		}
		if string(e["jobBookId"]) == "null" {
			count["jobBookId null"]++
		}
		if _, ok := e["isSampled"]; ok {
			count["disregarded flags"]++
		}
		if strings.Contains(string(e["countries"]), `"isPanelProduct"`) {
			count["panel flags"]++
		}
		if d.SurveyAPICompatibility {
			count["api"]++
		}
		if d.TargetedCPI == 0 {
			count["cpi 0"]++
		} else if d.TargetedCPI < 0.5 || d.TargetedCPI > 12 {
			t.Errorf("targetedCPI %v", d.TargetedCPI)
		}
		if d.SubsampleStatus != domain.StatusLive && d.SubsampleStatus != domain.StatusLiveForTesting {
			t.Errorf("status %q in live-details", d.SubsampleStatus)
		}
		if sum := byID[d.SubsampleID]; sum.SubsampleStatus != d.SubsampleStatus || sum.EventID != d.EventID {
			t.Errorf("subsample %d: event/all says %+v", d.SubsampleID, sum)
		}
		if len(d.Categories) < 1 || len(d.Categories) > 2 || len(d.Countries) != 1 || len(d.Locales) == 0 {
			t.Errorf("subsample %d: %d categories, %d countries, %d locales", d.SubsampleID, len(d.Categories), len(d.Countries), len(d.Locales))
		}
		for _, c := range d.Categories {
			if c.MainCategoryID == 0 || c.GenericCategoryID == 0 || c.CategoryID == 0 ||
				c.MainCategoryID == c.GenericCategoryID || c.GenericCategoryID == c.CategoryID {
				t.Errorf("category %+v", c)
			}
		}
		for _, l := range d.Locales {
			if !strings.HasSuffix(l.Name, "-"+strings.ToLower(d.Countries[0].Code)) {
				t.Errorf("locale %s in %s", l.Name, d.Countries[0].Code)
			}
			if l.TestingEntryLink == "" {
				count["no testing link"]++ // providers leave it empty now and then
			}
			for _, u := range []string{l.LiveEntryLink, l.TestingEntryLink} {
				if u == "" && u == l.TestingEntryLink {
					continue
				}
				if !link.MatchString(u) {
					t.Errorf("entry link %q", u)
				}
				if !strings.Contains(u, "rType=") {
					count["no rType"]++
				}
			}
			if l.LiveEntryLink == l.TestingEntryLink {
				t.Errorf("live and testing links are equal")
			}
		}
		if d.ExpectedClientLOI != nil && (*d.ExpectedClientLOI < 5 || *d.ExpectedClientLOI > 45) {
			t.Errorf("LOI %v", *d.ExpectedClientLOI)
		}
		if d.ExpectedIncidenceRate != nil && (*d.ExpectedIncidenceRate < 5 || *d.ExpectedIncidenceRate > 90) {
			t.Errorf("incidence %v", *d.ExpectedIncidenceRate)
		}
	}
	for _, k := range []string{"needRecontact absent", "jobBookId null", "disregarded flags", "panel flags", "cpi 0", "no rType", "no testing link"} {
		if count[k] == 0 {
			t.Errorf("no entry with %s", k)
		}
	}
	if pct := count["api"] * 100 / len(raw); pct < 75 || pct > 95 {
		t.Errorf("%d%% API compatible, want about 85%%", pct)
	}
}

func TestQuotas(t *testing.T) {
	s, _ := newSim(Options{Seed: 11, Subsamples: 600})
	library := make(map[string]map[int64]map[int64]bool) // locale -> question -> answer ids
	answersIn := func(loc string, q int64) map[int64]bool {
		if library[loc] == nil {
			library[loc] = make(map[int64]map[int64]bool)
			for _, q := range fetch[[]domain.Question](t, s, "GET", "/supplier/v1/locales/"+loc+"/questions") {
				library[loc][q.ID] = nil
			}
		}
		as, known := library[loc][q]
		if !known {
			return nil
		}
		if as == nil {
			as = make(map[int64]bool)
			for _, a := range fetch[[]domain.Answer](t, s, "GET", answersPath(loc, q)) {
				as[a.ID] = true
			}
			library[loc][q] = as
		}
		return as
	}

	var totalFull, cellsFull, someCellFull, counting, ranges, openRanges, total, disagree int
	for _, d := range liveDetails(t, s) {
		qs := quotas(t, s, d.SubsampleID)
		totals := 0
		full, cells := 0, 0
		for _, q := range qs {
			total++
			if q.RemainingExclusive < 0 || q.RemainingShared < 0 || q.AchievedInterviews < 0 {
				t.Errorf("subsample %d quota %d: negative numbers %+v", d.SubsampleID, q.QuotaID, q)
			}
			// One subsample in forty has quotas that disagree with the lists
			// on its status, and only those.
			disagreeing := d.SubsampleID%40 == 3
			if disagreeing {
				disagree++
			}
			if (q.SubsampleStatus != d.SubsampleStatus) != (disagreeing && d.SubsampleStatus != domain.StatusComplete) ||
				disagreeing && q.SubsampleStatus != domain.StatusComplete ||
				q.QuotaType != domain.QuotaTypeHard && q.QuotaType != domain.QuotaTypeCounting {
				t.Errorf("quota %+v", q)
			}
			if q.ActualClientIncidenceRate > 100 || q.ActualClientConversionRate > 100 || q.ActualClientAbandonRate > 100 {
				t.Errorf("rates above 100%%: %+v", q)
			}
			if q.IsTotal() {
				totals++
				if q.Remaining() == 0 {
					totalFull++
				}
				continue
			}
			cells++
			if q.Remaining() == 0 {
				full++
			}
			if q.QuotaType == domain.QuotaTypeCounting {
				counting++
			}
			if len(q.Questions) == 0 {
				t.Errorf("non-total quota %d without conditions", q.QuotaID)
			}
			for _, c := range q.Questions {
				if c.Operator != "OR" || c.Locale != nil || len(c.Answers) == 0 {
					t.Errorf("condition %+v", c)
				}
				if c.ID == domain.AgeRangeQuestionID {
					for _, a := range c.Answers {
						// A range may be open at its top, as providers write
						// it: "55" to "", "60" to "99+", "65+" to "".
						start, end := deref(a.RangeStart), deref(a.RangeEnd)
						from, err1 := strconv.Atoi(strings.TrimSuffix(start, "+"))
						to, err2 := strconv.Atoi(strings.TrimSuffix(end, "+"))
						open := end == "" || strings.HasSuffix(end, "+") || strings.HasSuffix(start, "+")
						if open {
							openRanges++
						}
						if !a.IsRange() || err1 != nil || !open && (err2 != nil || from > to) || strings.HasSuffix(start, "+") && end != "" {
							t.Errorf("age answer %q to %q", start, end)
						}
						ranges++
					}
					continue
				}
				// The condition must be answerable in every locale of the subsample.
				for _, l := range d.Locales {
					known := answersIn(l.Name, c.ID)
					if known == nil {
						t.Fatalf("quota %d: question %d not in the %s library", q.QuotaID, c.ID, l.Name)
					}
					for _, a := range c.Answers {
						if a.ID == nil || !known[*a.ID] {
							t.Errorf("quota %d: answer %v not an answer of question %d in %s", q.QuotaID, a.ID, c.ID, l.Name)
						}
					}
				}
			}
		}
		if totals != 1 {
			t.Errorf("subsample %d has %d total quotas", d.SubsampleID, totals)
		}
		switch {
		case cells > 0 && full == cells:
			cellsFull++
		case full > 0:
			someCellFull++
		}
	}
	t.Logf("%d quotas; %d totals full, %d with all cells full, %d with some full", total, totalFull, cellsFull, someCellFull)
	if totalFull == 0 || cellsFull == 0 || someCellFull == 0 || counting == 0 || ranges == 0 || openRanges == 0 || disagree == 0 {
		t.Errorf("scenarios missing: total full %d, all cells full %d, some cell full %d, counting cells %d, ranges %d (open %d), status disagreements %d",
			totalFull, cellsFull, someCellFull, counting, ranges, openRanges, disagree)
	}

	// Quotas are also served for subsamples that are not live.
	for _, ss := range summaries(t, s) {
		if ss.SubsampleStatus == domain.StatusComplete {
			qs := quotas(t, s, ss.SubsampleID)
			if len(qs) == 0 || !qs[0].IsTotal() || qs[0].Remaining() != 0 {
				t.Errorf("complete subsample %d: quotas %+v", ss.SubsampleID, qs)
			}
			break
		}
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestEligibilityRules(t *testing.T) {
	s, _ := newSim(Options{Seed: 2, Subsamples: 400})
	keys := make(map[string]int)
	var placeholders, forever, limited, onlySpecific, onlyCoarse int
	validCodes := map[int64]bool{0: true, 2: true, 3: true, 82: true, 83: true, 92: true, 98: true, 99: true}
	for _, ss := range summaries(t, s) {
		rec := do(s, "GET", rulesPath(ss.SubsampleID))
		var raw map[string][]map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		for _, arr := range []string{"surveys", "researchTypes", "categories", "events"} {
			entries, ok := raw[arr]
			if !ok || entries == nil {
				t.Fatalf("subsample %d: rules without %s array: %s", ss.SubsampleID, arr, rec.Body)
			}
			for _, e := range entries {
				for k := range e {
					keys[k]++
				}
			}
		}
		rules := fetch[domain.EligibilityRules](t, s, "GET", rulesPath(ss.SubsampleID))
		check := func(id *int64, days int64, codes []int64) {
			if id == nil {
				t.Errorf("subsample %d: rule without id", ss.SubsampleID)
				return
			}
			if *id == 0 {
				if len(codes) == 1 && codes[0] == 0 {
					placeholders++
				}
			}
			if days == 0 {
				forever++
			} else {
				limited++
			}
			for _, c := range codes {
				if !validCodes[c] {
					t.Errorf("return code %d", c)
				}
			}
		}
		for _, r := range rules.Surveys {
			check(r.ID, r.NumDays, r.ReturnCodes)
		}
		for _, r := range rules.ResearchTypes {
			check(r.ID, r.NumDays, r.ReturnCodes)
		}
		for _, r := range rules.Events {
			check(r.ID, r.NumDays, r.ReturnCodes)
		}
		for _, r := range rules.Categories {
			switch {
			case r.SpecificCategoryID != nil && r.GenericCategoryID == nil && r.MainCategoryID == nil:
				onlySpecific++
			case r.SpecificCategoryID == nil && (r.GenericCategoryID != nil) != (r.MainCategoryID != nil):
				onlyCoarse++
			}
		}
	}
	for _, k := range []string{"Id", "id", "NumDays", "numDays", "returnCodes", "name",
		"mainCategoryId", "genericCategoryId", "specificCategoryId"} {
		if keys[k] == 0 {
			t.Errorf("no rule entry has key %q", k)
		}
	}
	if placeholders == 0 || forever == 0 || limited == 0 || onlySpecific == 0 || onlyCoarse == 0 {
		t.Errorf("placeholders %d, forever %d, limited %d, only specific %d, only generic or main %d",
			placeholders, forever, limited, onlySpecific, onlyCoarse)
	}
}

func TestLibrary(t *testing.T) {
	opts := Options{Seed: 9, Subsamples: 10, Locales: 12, QuestionsPerLocale: 60, AnswersPerQuestion: 5}
	s, _ := newSim(opts)
	locales := fetch[[]domain.Locale](t, s, "GET", pathLocales)
	var ids []int64
	var nullValues, exclusives, emptyTranslations, textIsName int
	for i, l := range locales {
		path := "/supplier/v1/locales/" + l.Locale + "/questions"
		if i >= opts.Locales {
			if rec := do(s, "GET", path); rec.Code != http.StatusNotFound {
				t.Errorf("%s has no library, got %d", l.Locale, rec.Code)
			}
			continue
		}
		qs := fetch[[]domain.Question](t, s, "GET", path)
		if len(qs) != opts.QuestionsPerLocale {
			t.Errorf("%s: %d questions, want %d", l.Locale, len(qs), opts.QuestionsPerLocale)
		}
		if ids == nil {
			for _, q := range qs {
				ids = append(ids, q.ID)
			}
		}
		byID := make(map[int64]domain.Question)
		for j, q := range qs {
			byID[q.ID] = q
			if j < len(ids) && ids[j] != q.ID {
				t.Errorf("%s: question %d is %d, other locales have %d", l.Locale, j, q.ID, ids[j])
			}
			if q.Translation == "" {
				emptyTranslations++
			}
			if q.Text == q.Name {
				textIsName++
			}
			as := fetch[[]domain.Answer](t, s, "GET", answersPath(l.Locale, q.ID))
			if q.ID == domain.AgeRangeQuestionID && len(as) != 0 {
				t.Errorf("agerange has %d answers", len(as))
			}
			real := 0
			for _, a := range as {
				if a.Type != "singlePunch" {
					t.Errorf("answer type %q", a.Type)
				}
				if a.IsNullValue() {
					nullValues++
				} else {
					real++
				}
				if a.IsExclusive {
					exclusives++
				}
			}
			if q.ID >= 20000 && q.Type != "Text" && real != opts.AnswersPerQuestion {
				t.Errorf("filler question %d has %d answers, want %d", q.ID, real, opts.AnswersPerQuestion)
			}
		}
		for id, typ := range map[int64]string{qAgeRange: "Range", qGender: "Single Punch", qRegion: "Regional",
			qIncome: "Single Punch", qEducation: "Single Punch", qEmployment: "Single Punch", qChildren: "Multiple Punch"} {
			if byID[id].Type != typ {
				t.Errorf("%s: question %d is %+v, want type %s", l.Locale, id, byID[id], typ)
			}
		}
		if byID[qAgeRange].Name != "agerange" {
			t.Errorf("agerange is named %q", byID[qAgeRange].Name)
		}
	}
	if nullValues == 0 || exclusives == 0 || emptyTranslations == 0 || textIsName == 0 {
		t.Errorf("NULL VALUE %d, exclusive %d, empty translations %d, text = name %d", nullValues, exclusives, emptyTranslations, textIsName)
	}

	de := fetch[[]domain.Answer](t, s, "GET", answersPath("de-de", qGender))
	en := fetch[[]domain.Answer](t, s, "GET", answersPath("en-us", qGender))
	if de[0].ID != en[0].ID || de[0].Translation == en[0].Translation {
		t.Errorf("gender answers: de %+v, en %+v", de[0], en[0])
	}
	us := fetch[[]domain.Answer](t, s, "GET", answersPath("en-us", qRegion))
	gb := fetch[[]domain.Answer](t, s, "GET", answersPath("en-gb", qRegion))
	if us[0].ID == gb[0].ID || len(us) == len(gb) {
		t.Errorf("region answers do not depend on the country")
	}
}

func TestLocalesOption(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 300, Locales: 20})
	seen := make(map[string]bool)
	for _, d := range liveDetails(t, s) {
		for _, l := range d.Locales {
			seen[l.Name] = true
		}
	}
	if !seen["ja-jp"] || !seen["pt-br"] {
		t.Errorf("with 20 locales, live subsamples use only %v", seen)
	}
	if rec := do(s, "GET", "/supplier/v1/locales/en-in/questions"); rec.Code != http.StatusOK {
		t.Errorf("en-in is the 20th locale and has no library")
	}
}
