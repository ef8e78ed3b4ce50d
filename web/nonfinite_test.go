package web_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/store"
	"fieldboard/web"
)

// TestNonFiniteFiguresAreUnknownEverywhere stores a snapshot whose
// figures get past the provider client's bounds (a CPI near the float
// maximum, 8e306, with a conversion of 100%: CPI × conversion is +Inf; a
// length of interview that is +Inf): every page and answer that shows the
// subsample answers 200, its expected earnings unknown (null, an empty
// cell), never +Inf, never 0, and never a 500.
func TestNonFiniteFiguresAreUnknownEverywhere(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: checkstest.ReadAt.Add(time.Minute)}
	a := newAppOn(t, defaultSim, func(s *web.Server) {
		s.Checks = &checks.Service{Store: s.Store, Now: clock.Now, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
	})
	checkstest.Build(t, a.store, func(snap *store.EventsSnapshot) {
		live := &snap.Live[0]
		live.TargetedCPI = 8e306
		loi := math.Inf(1)
		live.ExpectedClientLOI = &loi
		d := snap.Details[checkstest.Target]
		for i := range d.Quotas {
			if d.Quotas[i].IsTotal() {
				d.Quotas[i].ActualClientConversionRate = 100
			}
		}
		snap.Details[checkstest.Target] = d
	})

	target := fmt.Sprint(checkstest.Target)
	for _, path := range []string{
		"/api/v1/subsamples",
		"/api/v1/panelists/P-open/surveys",
		"/api/v1/panelists/P-open/surveys?all=true",
		"/api/v1/panelists/P-open/next",
		"/api/v1/eligibility?panelistId=P-open&subsampleId=" + target,
		"/api/v1/outcomes",
	} {
		body := a.page(t, path)
		if !json.Valid([]byte(body)) {
			t.Errorf("GET %s is not JSON:\n%.500s", path, body)
		}
		if strings.Contains(body, `"epc":0`) || strings.Contains(body, "Inf") || strings.Contains(body, "NaN") {
			t.Errorf("GET %s shows a figure that is not one as 0 or as text:\n%.1000s", path, body)
		}
	}
	var subsamples []struct {
		SubsampleID int64    `json:"subsampleId"`
		EPC         *float64 `json:"epc"`
		LOI         *float64 `json:"loi"`
	}
	a.getJSON(t, "/api/v1/subsamples", &subsamples)
	for _, s := range subsamples {
		if s.SubsampleID == checkstest.Target && (s.EPC != nil || s.LOI != nil) {
			t.Errorf("subsample %d: epc %v, loi %v; want both null (unknown)", s.SubsampleID, s.EPC, s.LOI)
		}
	}
	for _, path := range []string{"/", "/live", "/live.csv", "/subsamples/" + target, "/outcomes", "/outcomes.csv"} {
		if body := a.page(t, path); strings.Contains(body, "Inf") || strings.Contains(body, "NaN") {
			t.Errorf("GET %s shows a figure that is not a number:\n%s", path, body)
		}
	}
	if body := a.page(t, "/subsamples/"+target); !strings.Contains(body, "is too large to give a figure") {
		t.Errorf("the subsample's page does not say why it has no expected earnings")
	}
}
