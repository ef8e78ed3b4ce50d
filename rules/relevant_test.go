package rules

import (
	"slices"
	"testing"

	"fieldboard/rules/domain"
)

func TestRelevantHistory(t *testing.T) {
	parents := domain.CategoryParents{101: {GenericID: 10, MainID: 1}, 102: {GenericID: 10, MainID: 1}, 201: {GenericID: 20, MainID: 1}}
	rules := domain.EligibilityRules{
		Surveys:       []domain.SurveyRule{{ID: id64(123), ReturnCodes: []int64{3, 82}}, {ID: id64(0), ReturnCodes: []int64{3}}},
		ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), ReturnCodes: []int64{0}}},
		Categories: []domain.CategoryRule{
			{GenericCategoryID: id64(10), ReturnCodes: []int64{92}},
			{MainCategoryID: id64(1), GenericCategoryID: id64(0), SpecificCategoryID: nil, ReturnCodes: []int64{3}},
		},
		Events: []domain.EventRule{{ID: id64(950), ReturnCodes: []int64{3}}},
	}
	got := Relevant(Target{SubsampleID: 5, EventID: 40}, rules, parents, domain.SubsampleTopics{})
	slices.Sort(got.Statuses)
	slices.Sort(got.CategoryIDs)
	if got.EventID != 40 {
		t.Errorf("unique respondents: EventID %d, want the target's event 40", got.EventID)
	}
	if !slices.Equal(got.SubsampleIDs, []int64{123}) {
		t.Errorf("surveys: %v, want [123] (a 0 id is a placeholder and applies to nothing)", got.SubsampleIDs)
	}
	if len(got.ResearchTypeIDs) != 0 {
		t.Errorf("research types: %v, want none (returnCodes [0] exclude nothing)", got.ResearchTypeIDs)
	}
	if !slices.Equal(got.EventIDs, []int64{950, 0}) {
		t.Errorf("events: %v, want [950 0] (a record of an unknown event may be 950's)", got.EventIDs)
	}
	if want := []int64{0, 101, 102, 201}; !slices.Equal(got.CategoryIDs, want) {
		t.Errorf("categories: %v, want %v (generic 10 and main 1 through the parents, and 0: a record of an unknown category may be under them)", got.CategoryIDs, want)
	}
	if want := []int64{3, 82, 92}; !slices.Equal(got.Statuses, want) {
		t.Errorf("statuses: %v, want %v", got.Statuses, want)
	}
	if !got.UnknownCategories || got.SubsampleID != 5 {
		t.Errorf("UnknownCategories %v, SubsampleID %d: a generic entry must read records of categories never seen, and the target's own records", got.UnknownCategories, got.SubsampleID)
	}
}

// TestRelevantHistoryOfTopics: records WithTopics completes must be read:
// those on subsamples of a research type or a category an entry names.
func TestRelevantHistoryOfTopics(t *testing.T) {
	parents := domain.CategoryParents{101: {GenericID: 10, MainID: 1}, 201: {GenericID: 20, MainID: 2}}
	rules := domain.EligibilityRules{
		ResearchTypes: []domain.ResearchTypeRule{{ID: id64(7), ReturnCodes: []int64{3}}},
		Categories:    []domain.CategoryRule{{GenericCategoryID: id64(10), ReturnCodes: []int64{3}}},
	}
	topics := domain.TopicsOf(map[int64]domain.Topics{300: {ResearchTypeID: 7}, 301: {CategoryIDs: []int64{101}}, 302: {ResearchTypeID: 8, CategoryIDs: []int64{201}}, 303: {CategoryIDs: []int64{999}}})
	got := Relevant(Target{SubsampleID: 5, EventID: 40}, rules, parents, topics)
	slices.Sort(got.SubsampleIDs)
	if want := []int64{300, 301, 303}; !slices.Equal(got.SubsampleIDs, want) {
		t.Errorf("subsamples %v, want %v: of research type 7, under generic category 10, or of a category never seen", got.SubsampleIDs, want)
	}
}

// TestRelevantHistoryOfTheProvidersGrouping: a bulk check reads every
// record on a subsample the provider groups in the target's event,
// whatever its status (unique respondents), and those of an event entry's
// statuses on a subsample grouped in that event.
func TestRelevantHistoryOfTheProvidersGrouping(t *testing.T) {
	topics := domain.TopicsOf(map[int64]domain.Topics{5: {EventIDs: []int64{40}}, 6: {EventIDs: []int64{41, 40}}, 7: {EventIDs: []int64{950}}, 8: {EventIDs: []int64{41}}})
	rules := domain.EligibilityRules{Events: []domain.EventRule{{ID: id64(950), ReturnCodes: []int64{82}}}}
	got := Relevant(Target{SubsampleID: 5, EventID: 40}, rules, nil, topics)
	if !slices.Equal(got.EventSubsampleIDs, []int64{6}) {
		t.Errorf("subsamples of the target's event: %v, want [6] (grouped in event 40 by one source; the target is read as SubsampleID)", got.EventSubsampleIDs)
	}
	if !slices.Equal(got.SubsampleIDs, []int64{7}) || !slices.Equal(got.Statuses, []int64{82}) {
		t.Errorf("subsamples of event 950: %v with statuses %v, want [7] with [82]", got.SubsampleIDs, got.Statuses)
	}
}
