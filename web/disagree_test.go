package web_test

import (
	"strings"
	"testing"

	"fieldboard/views/formats"
)

// TestSourcesThatDisagreeAreNotSendable: a subsample counts as Live only
// when event/all, live-details and its quotas all say so. The simulator's
// quotas of one subsample in forty say Complete while the lists say Live.
func TestSourcesThatDisagreeAreNotSendable(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?status=Live", &all)
	found := 0
	for _, s := range all {
		if s.SubsampleID%40 != 3 {
			continue
		}
		found++
		if s.Sendability != "not_sendable" || !strings.Contains(strings.Join(s.Reasons, " "), "quotas says Complete") {
			t.Errorf("subsample %d, whose quotas say Complete, is %s: %q", s.SubsampleID, s.Sendability, s.Reasons)
		}
	}
	if found == 0 {
		t.Fatal("no Live subsample of the simulator has quotas that disagree")
	}
}
