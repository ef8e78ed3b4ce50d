package formats

import (
	"encoding/json"
	"testing"
)

// TestSurveysEnvelope: the answer around the entries, written from its
// template in the order Write fills it, is what json.Marshal makes of
// PanelistSurveysJSON.
func TestSurveysEnvelope(t *testing.T) {
	env, err := envelopeTemplate()
	if err != nil {
		t.Fatal(err)
	}
	var order []hole
	for _, h := range env.holes {
		order = append(order, h.kind)
	}
	if len(order) != 3 || order[0] != holeID || order[1] != holeMayEnter || order[2] != holeOthers {
		t.Fatalf("holes %v, want the id, the entries the panelist may enter, the others", order)
	}
	want, err := json.Marshal(PanelistSurveysJSON{PanelistID: probeID, MayEnter: []EligibilityJSON{}, Others: []EligibilityJSON{}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := json.Marshal(probeID)
	if err != nil {
		t.Fatal(err)
	}
	if !env.checks(want, map[hole]string{holeID: string(id), holeMayEnter: "[]", holeOthers: "[]"}) {
		t.Errorf("the envelope does not give %s", want)
	}
}

// TestVerdictTemplates: every panelist half has a template, and none is
// dropped by its check against json.Marshal.
func TestVerdictTemplates(t *testing.T) {
	for k := range verdictKeys {
		if verdictTemplate(k) == nil {
			t.Errorf("verdict %d has no template", k)
		}
	}
}
