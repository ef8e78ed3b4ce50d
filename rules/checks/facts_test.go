package checks

import (
	"strings"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestUnreadable: issue 13, "an element ... with a wrong type or a missing
// required field is dropped, its subsample (when its id can be read) is
// unknown with the reason"; one whose id cannot be read leaves unknown
// every subsample it may have been.
func TestUnreadable(t *testing.T) {
	summaries := []domain.SubsampleSummary{
		{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive},
		{SubsampleID: 2, EventID: 10, SubsampleStatus: domain.StatusLive},
		{SubsampleID: 3, EventID: 10, SubsampleStatus: domain.StatusComplete},
		{SubsampleID: 4, EventID: 10, SubsampleStatus: domain.StatusLiveForTesting},
	}
	live := []domain.LiveSubsample{
		{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive},
		{SubsampleID: 5, EventID: 11, SubsampleStatus: domain.StatusLive},
	}
	named := func(list string, id int64) domain.MalformedElement {
		return domain.MalformedElement{List: list, Index: 3, SubsampleID: id, Reason: "targetedCPI is a string, not a number"}
	}
	unnamed := func(list string) domain.MalformedElement {
		return domain.MalformedElement{List: list, Index: 7, Reason: "subsampleId is missing"}
	}
	tests := []struct {
		name      string
		malformed []domain.MalformedElement
		want      map[int64][]string // each reason must hold these
	}{
		{"nothing dropped", nil, map[int64][]string{}},
		{"a named element costs its subsample", []domain.MalformedElement{named(domain.ListLiveDetails, 2)},
			map[int64][]string{2: {"live-details answer for this subsample could not be read (element 4: targetedCPI is a string"}}},
		{"both lists name it: both reasons", []domain.MalformedElement{named(domain.ListEventAll, 1), named(domain.ListLiveDetails, 1)},
			map[int64][]string{1: {"event/all answer", "live-details answer"}}},
		{"event/all drops one it cannot name: live-details' subsamples it does not list", []domain.MalformedElement{unnamed(domain.ListEventAll)},
			map[int64][]string{5: {"event/all answer held 1 element(s)", "may be one of them"}}},
		{"live-details drops one it cannot name: event/all's Live ones it does not list", []domain.MalformedElement{unnamed(domain.ListLiveDetails)},
			map[int64][]string{2: {"live-details answer held 1 element(s)"}, 4: {"Live in event/all but not readably in live-details"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unreadable(summaries, live, tt.malformed)
			if len(got) != len(tt.want) {
				t.Fatalf("Unreadable = %v; want reasons for %v", got, tt.want)
			}
			for id, parts := range tt.want {
				for _, part := range parts {
					if !strings.Contains(got[id], part) {
						t.Errorf("subsample %d: %q; want it to hold %q", id, got[id], part)
					}
				}
			}
			// The refresher's States and the checks decide them alike: unknown.
			states := States(store.EventsSnapshot{Summaries: summaries, Live: live, Unreadable: got})
			for id := range tt.want {
				if states[id].Sendability != string(rules.Unknown) {
					t.Errorf("subsample %d is %s in States, want unknown", id, states[id].Sendability)
				}
			}
		})
	}
}
