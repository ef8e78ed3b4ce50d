package domain

import (
	"maps"
	"reflect"
	"slices"
	"testing"
)

// TestSubsampleTopicsHoldWhatTheyWereGiven: SubsampleTopics, held without
// a pointer per subsample, gives back each subsample's topics as they
// were given, nothing for one never seen, and slices a caller cannot
// grow into another subsample's.
func TestSubsampleTopicsHoldWhatTheyWereGiven(t *testing.T) {
	given := map[int64]Topics{
		7:  {ResearchTypeID: 4, CategoryIDs: []int64{55, 56}},
		8:  {},
		9:  {EventIDs: []int64{3}},
		10: {ResearchTypeID: 5, CategoryIDs: []int64{60}, EventIDs: []int64{1, 2}},
	}
	topics := TopicsOf(given)
	tests := []struct {
		name string
		id   int64
		want Topics
		seen bool
	}{
		{"research type and categories, no events", 7, given[7], true},
		{"seen, about nothing known", 8, Topics{}, true},
		{"events only", 9, given[9], true},
		{"categories and events kept apart", 10, given[10], true},
		{"never seen", 11, Topics{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, seen := topics.Of(tt.id)
			if seen != tt.seen || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Of(%d) = %+v, %v; want %+v, %v", tt.id, got, seen, tt.want, tt.seen)
			}
		})
	}
	all := map[int64]Topics{}
	for id, tp := range topics.All() {
		all[id] = tp
	}
	if !maps.EqualFunc(all, given, func(a, b Topics) bool { return reflect.DeepEqual(a, b) }) || topics.Len() != len(given) {
		t.Errorf("All() = %+v (Len %d), want %+v", all, topics.Len(), given)
	}
	for id := range given {
		got, _ := topics.Of(id)
		_ = append(got.CategoryIDs, 999)
		_ = append(got.EventIDs, 999)
	}
	for id, want := range given {
		if got, _ := topics.Of(id); !reflect.DeepEqual(got, want) || slices.Contains(got.CategoryIDs, 999) {
			t.Errorf("after appending to what Of gave, Of(%d) = %+v, want %+v", id, got, want)
		}
	}
}
