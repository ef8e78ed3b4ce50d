package formats

import (
	"encoding/json"
	"math"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// TestFiguresThatAreNotNumbersAreUnknown: a figure that is not a finite
// number (past every bound upstream) is unknown in the answers, null in
// JSON and an empty cell in CSV, never 0 and never an encoding error.
func TestFiguresThatAreNotNumbersAreUnknown(t *testing.T) {
	for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		if got := Finite(&v); got != nil {
			t.Errorf("Finite(%v) = %v, want nil", v, *got)
		}
		if got := OptFloat(&v, 2); got != "" {
			t.Errorf("OptFloat(%v) = %q, want an empty cell", v, got)
		}
		if got := EPCValue(rules.EPC{Source: rules.EPCField, Value: v, Currency: "USD"}); got != nil {
			t.Errorf("EPCValue of %v = %v, want nil", v, *got)
		}
		p := Pacing(&rules.Pacing{CompletesPerHour: v, Low: 1, High: 2})
		if p.CompletesPerHour != nil || p.Low != nil || p.High != nil || p.TooLittleHistory == "" {
			t.Errorf("the pace of a rate of %v = %+v, want no figures and why", v, p)
		}
		loi := v
		r := checks.SubsampleReport{}
		r.CPI, r.ExpectedLOI, r.ExpectedIR = &loi, &loi, &loi
		b, err := json.Marshal(Subsample(r))
		if err != nil {
			t.Errorf("a subsample whose figures are %v: %v", v, err)
		}
		var back SubsampleJSON
		if err := json.Unmarshal(b, &back); err != nil || back.CPI != nil || back.LOI != nil || back.Incidence != nil {
			t.Errorf("a subsample whose figures are %v: %s, want them null", v, b)
		}
	}
	two := 2.0
	if got := Finite(&two); got == nil || *got != 2 {
		t.Errorf("Finite(2) = %v, want 2", got)
	}
}
