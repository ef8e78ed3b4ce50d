package checks

import (
	"reflect"
	"testing"

	"fieldboard/rules/domain"
)

// TestHeldRulesAreTheRulesAsRead: eligibility rules held without a
// pointer (holdRules) come back as read: a nil list, id, name or list of
// codes nil, an empty one empty, a zero id zero, names shared; a
// subsample without rules gets none.
func TestHeldRulesAreTheRulesAsRead(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	s := func(v string) *string { return &v }
	read := map[int64]domain.EligibilityRules{
		1: {},
		2: {Surveys: []domain.SurveyRule{}, ResearchTypes: []domain.ResearchTypeRule{}, Categories: []domain.CategoryRule{}, Events: []domain.EventRule{}},
		3: {
			Surveys:       []domain.SurveyRule{{ID: n(900), NumDays: 30, ReturnCodes: []int64{3, 82}}, {ID: nil, NumDays: 0, ReturnCodes: nil}, {ID: n(0), NumDays: -1, ReturnCodes: []int64{}}},
			ResearchTypes: []domain.ResearchTypeRule{{ID: n(7), NumDays: 0, ReturnCodes: []int64{3}}},
			Categories: []domain.CategoryRule{{MainCategoryID: n(1), ReturnCodes: []int64{3}}, {GenericCategoryID: n(10), SpecificCategoryID: n(101), NumDays: 90},
				{MainCategoryID: n(0), GenericCategoryID: nil, SpecificCategoryID: n(-5)}},
			Events: []domain.EventRule{{ID: n(40), Name: s("Spring"), NumDays: 7, ReturnCodes: []int64{2, 3}}, {ID: n(41), Name: nil}, {ID: n(42), Name: s("")}},
		},
		4: {Events: []domain.EventRule{{ID: n(43), Name: s("Spring")}}, Surveys: []domain.SurveyRule{{ID: n(1 << 62), ReturnCodes: []int64{-1 << 63}}}},
	}
	held := holdRules(read)
	for id, want := range read {
		if got := held.rules(id); !reflect.DeepEqual(got, want) {
			t.Errorf("subsample %d: held rules %#v, want %#v", id, got, want)
		}
	}
	if got := held.rules(5); !reflect.DeepEqual(got, domain.EligibilityRules{}) {
		t.Errorf("a subsample without rules: %#v", got)
	}
	if all := held.all(); !reflect.DeepEqual(all, read) {
		t.Errorf("all held rules %#v, want %#v", all, read)
	}
	if len(held.names) != 2 {
		t.Errorf("event names held %q, want Spring and the empty name once each", held.names)
	}
}
