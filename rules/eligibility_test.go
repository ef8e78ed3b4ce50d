package rules

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func daysAgo(d float64) time.Time { return now.Add(-time.Duration(d * float64(24*time.Hour))) }

// rec is a history record of panelist P1.
func rec(subsample, status int64, at time.Time) domain.HistoryRecord {
	return domain.HistoryRecord{PanelistID: "P1", SubsampleID: subsample, StatusID: status, RegisteredAt: at,
		EventID: 900 + subsample%100, CategoryID: 0, ResearchTypeID: 1}
}

func with(r domain.HistoryRecord, edit func(*domain.HistoryRecord)) domain.HistoryRecord {
	edit(&r)
	return r
}

var parents = domain.CategoryParents{
	55: {GenericID: 12, MainID: 3},
	56: {GenericID: 12, MainID: 3},
	60: {GenericID: 13, MainID: 4},
}

func TestEligibility(t *testing.T) {
	target := Target{SubsampleID: 5000, EventID: 777}
	surveys := func(id *int64, days int64, codes ...int64) domain.EligibilityRules {
		return domain.EligibilityRules{Surveys: []domain.SurveyRule{{ID: id, NumDays: days, ReturnCodes: codes}}}
	}
	categories := func(main, generic, specific *int64) domain.EligibilityRules {
		return domain.EligibilityRules{Categories: []domain.CategoryRule{{MainCategoryID: main, GenericCategoryID: generic,
			SpecificCategoryID: specific, NumDays: 0, ReturnCodes: []int64{3}}}}
	}
	inCategory := func(cat int64) domain.HistoryRecord {
		return with(rec(123, domain.ReturnComplete, daysAgo(400)), func(r *domain.HistoryRecord) { r.CategoryID = cat })
	}
	type excl struct {
		kind  string
		index int
		sub   int64 // subsample of the matching record
	}
	tests := []struct {
		name    string
		rules   domain.EligibilityRules
		history []domain.HistoryRecord
		want    []excl
	}{
		{"no history, no exclusion", surveys(id64(123), 30, 3), nil, nil},
		{"surveys: a history on the subsample whose id is Id excludes",
			surveys(id64(123), 30, 3, 82), []domain.HistoryRecord{rec(123, domain.ReturnScreenOut, daysAgo(2))}, []excl{{KindSurveys, 0, 123}}},
		{"status not in returnCodes does not exclude",
			surveys(id64(123), 30, 3, 82), []domain.HistoryRecord{rec(123, domain.ReturnAbandon, daysAgo(2))}, nil},
		{"record older than numDays does not exclude",
			surveys(id64(123), 30, 3), []domain.HistoryRecord{rec(123, domain.ReturnComplete, daysAgo(30).Add(-time.Second))}, nil},
		{"exactly numDays days ago still excludes",
			surveys(id64(123), 30, 3), []domain.HistoryRecord{rec(123, domain.ReturnComplete, daysAgo(30))}, []excl{{KindSurveys, 0, 123}}},
		{"numDays 0 means forever",
			surveys(id64(123), 0, 3), []domain.HistoryRecord{rec(123, domain.ReturnComplete, daysAgo(20000))}, []excl{{KindSurveys, 0, 123}}},
		{"a record dated after now (clock skew) still excludes",
			surveys(id64(123), 30, 3), []domain.HistoryRecord{rec(123, domain.ReturnComplete, now.Add(time.Hour))}, []excl{{KindSurveys, 0, 123}}},
		{"0 id is a placeholder and applies to nothing",
			surveys(id64(0), 0, 3), []domain.HistoryRecord{with(rec(0, domain.ReturnComplete, daysAgo(1)), func(r *domain.HistoryRecord) { r.SubsampleID = 0 })}, nil},
		{"null id is a placeholder and applies to nothing",
			surveys(nil, 0, 3), []domain.HistoryRecord{rec(123, domain.ReturnComplete, daysAgo(1))}, nil},
		{"returnCodes [0] exclude nothing",
			surveys(id64(123), 0, 0), []domain.HistoryRecord{with(rec(123, 0, daysAgo(1)), func(r *domain.HistoryRecord) { r.StatusID = 0 })}, nil},
		{"empty returnCodes exclude nothing",
			surveys(id64(123), 0), []domain.HistoryRecord{rec(123, domain.ReturnComplete, daysAgo(1))}, nil},
		{"researchTypes: a history on surveys of research type id excludes",
			domain.EligibilityRules{ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), NumDays: 90, ReturnCodes: []int64{3}}}},
			[]domain.HistoryRecord{rec(1, domain.ReturnComplete, daysAgo(10)), with(rec(2, domain.ReturnComplete, daysAgo(5)), func(r *domain.HistoryRecord) { r.ResearchTypeID = 7 })},
			[]excl{{KindResearchTypes, 0, 2}}},
		{"events: a history on any subsample of the event whose id is Id excludes",
			domain.EligibilityRules{Events: []domain.EventRule{{ID: id64(950), Name: str("Tracker"), NumDays: 0, ReturnCodes: []int64{3, 82}}}},
			[]domain.HistoryRecord{with(rec(8, domain.ReturnScreenOut, daysAgo(5)), func(r *domain.HistoryRecord) { r.EventID = 950 })},
			[]excl{{KindEvents, 0, 8}}},
		{"specific category compares the record's category",
			categories(id64(3), id64(12), id64(55)), []domain.HistoryRecord{inCategory(55)}, []excl{{KindCategories, 0, 123}}},
		{"the most specific level is compared: a sibling specific category does not match",
			categories(id64(3), id64(12), id64(55)), []domain.HistoryRecord{inCategory(56)}, nil},
		{"generic category entry matches via parents",
			categories(id64(3), id64(12), nil), []domain.HistoryRecord{inCategory(56)}, []excl{{KindCategories, 0, 123}}},
		{"a 0 specific id falls back to the generic level",
			categories(id64(0), id64(12), id64(0)), []domain.HistoryRecord{inCategory(55)}, []excl{{KindCategories, 0, 123}}},
		{"main category entry matches via parents",
			categories(id64(4), nil, nil), []domain.HistoryRecord{inCategory(55), inCategory(60)}, []excl{{KindCategories, 0, 123}}},
		{"a category whose parents were never seen cannot match a generic entry silently: it excludes until seen",
			categories(nil, id64(12), nil), []domain.HistoryRecord{inCategory(99)}, []excl{{KindCategories, 0, 123}}},
		{"a category whose parents were never seen cannot match a main entry silently: it excludes until seen",
			categories(id64(3), nil, nil), []domain.HistoryRecord{inCategory(99)}, []excl{{KindCategories, 0, 123}}},
		{"a category whose parents were never seen is still compared as itself by a specific entry",
			categories(nil, nil, id64(98)), []domain.HistoryRecord{inCategory(99)}, nil},
		// Spec rule 4: each history record holds "the category id ... and
		// the research type id". A record whose research type or
		// category is 0 (legacy history), on a subsample never seen live
		// (WithTopics completes the others), cannot be ruled out.
		{"a record whose research type is not known (0) matches a research type entry: it may be of it",
			domain.EligibilityRules{ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), NumDays: 90, ReturnCodes: []int64{3}}}},
			[]domain.HistoryRecord{with(rec(2, domain.ReturnComplete, daysAgo(5)), func(r *domain.HistoryRecord) { r.ResearchTypeID = 0 })},
			[]excl{{KindResearchTypes, 0, 2}}},
		{"a record whose research type is not known still needs a status in returnCodes and a date within numDays",
			domain.EligibilityRules{ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), NumDays: 90, ReturnCodes: []int64{3}}}},
			[]domain.HistoryRecord{with(rec(2, domain.ReturnScreenOut, daysAgo(5)), func(r *domain.HistoryRecord) { r.ResearchTypeID = 0 }),
				with(rec(3, domain.ReturnComplete, daysAgo(91)), func(r *domain.HistoryRecord) { r.ResearchTypeID = 0 })},
			nil},
		{"a record whose category is not known (0) matches a specific category entry",
			categories(nil, nil, id64(55)), []domain.HistoryRecord{inCategory(0)}, []excl{{KindCategories, 0, 123}}},
		{"a record whose category is not known (0) matches a generic category entry",
			categories(nil, id64(12), nil), []domain.HistoryRecord{inCategory(0)}, []excl{{KindCategories, 0, 123}}},
		{"a record whose category is not known (0) matches a main category entry",
			categories(id64(3), nil, nil), []domain.HistoryRecord{inCategory(0)}, []excl{{KindCategories, 0, 123}}},
		{"a category entry with all three ids 0 or null applies to nothing",
			categories(id64(0), nil, id64(0)), []domain.HistoryRecord{inCategory(55)}, nil},
		{"unique respondents within an event",
			domain.EligibilityRules{}, []domain.HistoryRecord{with(rec(5001, domain.ReturnQuotaFull, daysAgo(3000)), func(r *domain.HistoryRecord) { r.EventID = 777 })},
			[]excl{{KindUniqueEvent, -1, 5001}}},
		{"respondents are unique across the event, the subsample itself included: a Complete on it excludes",
			domain.EligibilityRules{}, []domain.HistoryRecord{with(rec(5000, domain.ReturnComplete, daysAgo(1)), func(r *domain.HistoryRecord) { r.EventID = 777 })},
			[]excl{{KindUniqueEvent, -1, 5000}}},
		{"a record on the subsample itself excludes whatever its status and age, even naming another event",
			domain.EligibilityRules{}, []domain.HistoryRecord{with(rec(5000, domain.ReturnInSurvey, daysAgo(4000)), func(r *domain.HistoryRecord) { r.EventID = 1 })},
			[]excl{{KindUniqueEvent, -1, 5000}}},
		{"when an array has several entries, each is applied; every excluding entry is listed in order",
			domain.EligibilityRules{
				Surveys: []domain.SurveyRule{{ID: id64(123), ReturnCodes: []int64{3}}, {ID: id64(0), ReturnCodes: []int64{0}},
					{ID: id64(124), NumDays: 30, ReturnCodes: []int64{82}}, {ID: id64(125), ReturnCodes: []int64{3}}},
				ResearchTypes: []domain.ResearchTypeRule{{ID: id64(1), NumDays: 365, ReturnCodes: []int64{3, 82}}},
				Events:        []domain.EventRule{{ID: id64(924), ReturnCodes: []int64{82}}},
			},
			[]domain.HistoryRecord{
				rec(123, domain.ReturnComplete, daysAgo(100)),
				rec(124, domain.ReturnScreenOut, daysAgo(10)),
				with(rec(5002, domain.ReturnAbandon, daysAgo(1)), func(r *domain.HistoryRecord) { r.EventID = 777 }),
			},
			[]excl{{KindSurveys, 0, 123}, {KindSurveys, 2, 124}, {KindResearchTypes, 0, 124}, {KindEvents, 0, 124}, {KindUniqueEvent, -1, 5002}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Eligibility(target, tt.rules, tt.history, parents, now)
			var got []excl
			for _, e := range res.Exclusions {
				got = append(got, excl{e.Kind, e.Index, e.Record.SubsampleID})
				if e.Rule == "" || e.Reason == "" || !strings.HasSuffix(e.Reason, ".") {
					t.Errorf("exclusion %+v lacks its sentences", e)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("exclusions = %v, want %v", got, tt.want)
			}
			if res.Eligible != (len(tt.want) == 0) {
				t.Errorf("eligible = %v with %d exclusions", res.Eligible, len(res.Exclusions))
			}
		})
	}
}

func TestEligibilityMostRecentRecordPerEntry(t *testing.T) {
	rules := domain.EligibilityRules{Surveys: []domain.SurveyRule{{ID: id64(123), NumDays: 30, ReturnCodes: []int64{3, 82}}}}
	history := []domain.HistoryRecord{
		rec(123, domain.ReturnComplete, daysAgo(20)),
		rec(123, domain.ReturnScreenOut, daysAgo(2)),
		rec(123, domain.ReturnComplete, daysAgo(40)),
		rec(123, domain.ReturnAbandon, daysAgo(1)),
	}
	res := Eligibility(Target{SubsampleID: 9}, rules, history, nil, now)
	if len(res.Exclusions) != 1 {
		t.Fatalf("got %d exclusions, want one per entry", len(res.Exclusions))
	}
	e := res.Exclusions[0]
	if e.Record != history[1] {
		t.Errorf("record = %+v, want the most recent matching one %+v", e.Record, history[1])
	}
	if want := "Excludes panelists with status Complete or Screen out on subsample 123 in the last 30 days."; e.Rule != want {
		t.Errorf("rule = %q, want %q", e.Rule, want)
	}
	if want := "Screen out on subsample 123 on 2026-11-18 (within 30 days)."; e.Reason != want {
		t.Errorf("reason = %q, want %q", e.Reason, want)
	}
}

func TestEligibilityUniqueEventReason(t *testing.T) {
	history := []domain.HistoryRecord{
		{SubsampleID: 11, EventID: 5, StatusID: domain.ReturnScreenOut, RegisteredAt: daysAgo(9)},
		{SubsampleID: 12, EventID: 5, StatusID: domain.ReturnInSurvey, RegisteredAt: daysAgo(1)},
	}
	res := Eligibility(Target{SubsampleID: 10, EventID: 5}, domain.EligibilityRules{}, history, nil, now)
	if res.Eligible || len(res.Exclusions) != 1 {
		t.Fatalf("got %+v, want one unique-event exclusion", res)
	}
	e := res.Exclusions[0]
	if e.Record.SubsampleID != 12 || e.Index != -1 || e.Kind != KindUniqueEvent {
		t.Errorf("got %+v, want the most recent record on the event", e)
	}
	if want := "In survey on subsample 12 of the same event 5 on 2026-11-19 (respondents must be unique within an event)."; e.Reason != want {
		t.Errorf("reason = %q, want %q", e.Reason, want)
	}
	if res := Eligibility(Target{SubsampleID: 10}, domain.EligibilityRules{}, history, nil, now); !res.Eligible {
		t.Errorf("an unknown target event (0) must not group unrelated records: %+v", res)
	}
}

// The provider spells the id and numDays keys Id/id and NumDays/numDays.
func TestEligibilityKeyCasing(t *testing.T) {
	const upper = `{"surveys":[{"Id":123,"NumDays":30,"returnCodes":[3]}],
		"researchTypes":[{"Id":7,"NumDays":0,"returnCodes":[3]}],
		"categories":[{"mainCategoryId":null,"genericCategoryId":12,"specificCategoryId":null,"NumDays":0,"returnCodes":[3]}],
		"events":[{"Id":950,"name":"Tracker","NumDays":0,"returnCodes":[3]}]}`
	const lower = `{"surveys":[{"id":123,"numDays":30,"returnCodes":[3]}],
		"researchTypes":[{"id":7,"numDays":0,"returnCodes":[3]}],
		"categories":[{"mainCategoryId":null,"genericCategoryId":12,"specificCategoryId":null,"numDays":0,"returnCodes":[3]}],
		"events":[{"id":950,"name":"Tracker","numDays":0,"returnCodes":[3]}]}`
	history := []domain.HistoryRecord{
		{SubsampleID: 123, StatusID: domain.ReturnComplete, RegisteredAt: daysAgo(29), ResearchTypeID: 7, CategoryID: 55, EventID: 950},
	}
	t.Run("Id and id casing decode the same", func(t *testing.T) {
		var want []Exclusion
		for i, doc := range []string{upper, lower} {
			var rules domain.EligibilityRules
			if err := json.Unmarshal([]byte(doc), &rules); err != nil {
				t.Fatal(err)
			}
			res := Eligibility(Target{SubsampleID: 1, EventID: 2}, rules, history, parents, now)
			if len(res.Exclusions) != 4 {
				t.Fatalf("casing %d: got %d exclusions, want all 4 entries to exclude: %+v", i, len(res.Exclusions), res.Exclusions)
			}
			if i == 0 {
				want = res.Exclusions
				continue
			}
			if !slices.Equal(res.Exclusions, want) {
				t.Errorf("Id and id casing decode the same: got\n%+v\nwant\n%+v", res.Exclusions, want)
			}
		}
	})
}

func TestDescribeRules(t *testing.T) {
	rules := domain.EligibilityRules{
		Surveys: []domain.SurveyRule{{ID: id64(123), NumDays: 30, ReturnCodes: []int64{3, 82}}, {ID: id64(0), ReturnCodes: []int64{0}}},
		ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), NumDays: 1, ReturnCodes: []int64{3, 82, 83}},
			{ID: id64(8), ReturnCodes: []int64{0}}},
		Categories: []domain.CategoryRule{
			{SpecificCategoryID: id64(55), GenericCategoryID: id64(12), ReturnCodes: []int64{3}},
			{GenericCategoryID: id64(12), ReturnCodes: []int64{3}},
			{MainCategoryID: id64(3), GenericCategoryID: id64(0), ReturnCodes: []int64{3, 0, 45}},
			{ReturnCodes: []int64{3}},
		},
		Events: []domain.EventRule{{ID: id64(950), Name: str("Brand tracker"), ReturnCodes: []int64{2, 3, 82, 83, 92, 98, 99}}, {ReturnCodes: []int64{}}},
	}
	want := []RuleSentence{
		{KindSurveys, 0, true, "Excludes panelists with status Complete or Screen out on subsample 123 in the last 30 days."},
		{KindSurveys, 1, false, "ignored: survey entry 2 has no id (0 or null), a placeholder that applies to nothing."},
		{KindResearchTypes, 0, true, "Excludes panelists with status Complete, Screen out or Quota full on any survey of research type 7 in the last 1 day."},
		{KindResearchTypes, 1, false, "ignored: research type entry 2 names no status to exclude (returnCodes [0]), so it excludes nobody."},
		{KindCategories, 0, true, "Excludes panelists with status Complete in category 55 at any time."},
		{KindCategories, 1, true, "Excludes panelists with status Complete in any category of generic category 12 at any time."},
		{KindCategories, 2, true, "Excludes panelists with status Complete or status 45 in any category of main category 3 at any time."},
		{KindCategories, 3, false, "ignored: category entry 4 has no id (0 or null), a placeholder that applies to nothing."},
		{KindEvents, 0, true, "Excludes panelists with status In survey, Complete, Screen out, Quota full, Abandon, Erroneous complete or Potentially unengaged on any subsample of event 950 (Brand tracker) at any time."},
		{KindEvents, 1, false, "ignored: event entry 2 has no id (0 or null), a placeholder that applies to nothing."},
	}
	got := DescribeRules(rules)
	if len(got) != len(want) {
		t.Fatalf("got %d sentences, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sentence %d\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if DescribeRules(domain.EligibilityRules{}) != nil {
		t.Error("no rules, no sentences")
	}
}

func TestEligibilityAllocatesNothingWhenEligible(t *testing.T) {
	rules, history := benchRules(), benchHistory()
	target := Target{SubsampleID: 1, EventID: 1}
	allocs := testing.AllocsPerRun(100, func() {
		if !Eligibility(target, rules, history, parents, now).Eligible {
			t.Fatal("want eligible")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call in the no-exclusion path, want 0", allocs)
	}
}

// TestUnknownTopicsSayWhy: a record that excludes because its research
// type or category is not known says so.
func TestUnknownTopicsSayWhy(t *testing.T) {
	rules := domain.EligibilityRules{ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), ReturnCodes: []int64{3}}},
		Categories: []domain.CategoryRule{{GenericCategoryID: id64(12), ReturnCodes: []int64{3}}}}
	r := domain.HistoryRecord{SubsampleID: 123, StatusID: 3, RegisteredAt: now.Add(-time.Hour), EventID: 1}
	res := Eligibility(Target{SubsampleID: 5000, EventID: 777}, rules, []domain.HistoryRecord{r}, parents, now)
	want := []string{
		"Complete on subsample 123 (research type not known: the record gives none and nothing seen of its subsample says, so it may be this entry's, and it excludes until it is known) on 2026-11-20 (no time limit).",
		"Complete on subsample 123 (category not known: the record gives none and nothing seen of its subsample says, so it may be this entry's, and it excludes until it is known) on 2026-11-20 (no time limit).",
	}
	var got []string
	for _, e := range res.Exclusions {
		got = append(got, e.Reason)
	}
	if !slices.Equal(got, want) {
		t.Errorf("reasons %q, want %q", got, want)
	}
}

// TestContradictedParentsExclude: a category the provider named under two
// generic categories is not understood: whichever reading an entry needs,
// a record of it is not ruled out, and the reason says what the tree said.
// A specific entry still compares it as itself.
func TestContradictedParentsExclude(t *testing.T) {
	tree := domain.CategoryParents{55: {GenericID: 12, MainID: 3, Contradiction: "live-details puts category 55 under generic category 12 and main category 3 for one subsample and under generic category 13 and main category 4 for another"}}
	r := domain.HistoryRecord{SubsampleID: 123, StatusID: 3, CategoryID: 55, RegisteredAt: now.Add(-time.Hour), EventID: 1}
	for _, tt := range []struct {
		name     string
		entry    domain.CategoryRule
		excludes bool
	}{
		{"a generic entry of the other reading (13) excludes", domain.CategoryRule{GenericCategoryID: id64(13), ReturnCodes: []int64{3}}, true},
		{"a generic entry of the reading kept (12) excludes", domain.CategoryRule{GenericCategoryID: id64(12), ReturnCodes: []int64{3}}, true},
		{"a main entry of the other reading (4) excludes", domain.CategoryRule{MainCategoryID: id64(4), ReturnCodes: []int64{3}}, true},
		{"a specific entry of another category does not", domain.CategoryRule{SpecificCategoryID: id64(56), ReturnCodes: []int64{3}}, false},
		{"a status not in returnCodes does not", domain.CategoryRule{GenericCategoryID: id64(13), ReturnCodes: []int64{82}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rules := domain.EligibilityRules{Categories: []domain.CategoryRule{tt.entry}}
			res := Eligibility(Target{SubsampleID: 5000, EventID: 777}, rules, []domain.HistoryRecord{r}, tree, now)
			if res.Eligible == tt.excludes {
				t.Fatalf("eligible %v, want %v", res.Eligible, !tt.excludes)
			}
			if tt.excludes && tt.entry.SpecificCategoryID == nil && !strings.HasPrefix(res.Exclusions[0].Reason, "The category tree contradicts itself: live-details puts category 55 under") {
				t.Errorf("reason %q, want it to say the tree contradicts itself", res.Exclusions[0].Reason)
			}
			book := NewRuleBook([]Target{{SubsampleID: 5000, EventID: 777}}, []domain.EligibilityRules{rules}, tree)
			book.Check([]domain.HistoryRecord{r}, now, func(_ int, got EligibilityResult) {
				if got.Eligible != res.Eligible {
					t.Errorf("the rule book says eligible %v, Eligibility %v", got.Eligible, res.Eligible)
				}
			})
		})
	}
}

func TestUnknownParentsSayWhy(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	rules := domain.EligibilityRules{Categories: []domain.CategoryRule{{GenericCategoryID: id64(12), ReturnCodes: []int64{3}}}}
	rec := domain.HistoryRecord{SubsampleID: 123, StatusID: 3, CategoryID: 99, RegisteredAt: now.Add(-time.Hour), EventID: 1}
	res := Eligibility(Target{SubsampleID: 5000, EventID: 777}, rules, []domain.HistoryRecord{rec}, domain.CategoryParents{55: {GenericID: 12, MainID: 4}}, now)
	if res.Eligible || len(res.Exclusions) != 1 || !strings.HasPrefix(res.Exclusions[0].Reason, "Category 99's parents are unknown") {
		t.Errorf("got %+v, want not eligible, saying category 99's parents are unknown", res)
	}
}
