package formats

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
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

// TestSurveysReasonsAreTheAnswers: the reasons a panelist's surveys
// write, fast, are what json.Marshal makes of reasons: an eligible
// panelist none of our caps refuses has none; one kept out by a cap
// reached (eligible, but not sent) has the cap's sentence, after the
// exclusions of one not eligible.
func TestSurveysReasonsAreTheAnswers(t *testing.T) {
	capped := "Our cap of 2 sends an hour on subsample 10 (set by maria on 20 Nov) is reached: 2 this hour."
	held := rules.Exclusion{Kind: rules.KindQualityHold, Reason: "Held by hand (set by maria on 20 Nov)."}
	for _, tc := range []struct {
		name string
		pc   checks.PanelistCheck
	}{
		{"eligible, no cap reached", checks.PanelistCheck{Panel: rules.PanelFit{Fits: true}, Eligibility: rules.EligibilityResult{Eligible: true}}},
		{"eligible, a cap reached", checks.PanelistCheck{Panel: rules.PanelFit{Fits: true}, Eligibility: rules.EligibilityResult{Eligible: true}, Capped: capped}},
		{"held, a cap reached", checks.PanelistCheck{Panel: rules.PanelFit{Fits: true}, Eligibility: rules.EligibilityResult{Exclusions: []rules.Exclusion{held}}, Capped: capped}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(reasons(tc.pc))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeReasons(&got, tc.pc); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("written %s, want %s", got.String(), want)
			}
		})
	}
}

// TestSurveysPagedEnvelope: a page followed by another, written from its
// template, is what json.Marshal makes of PanelistSurveysJSON with the
// next page's URL (an ampersand escaped as json.Marshal does), and it
// starts as the unpaged envelope up to the entries.
func TestSurveysPagedEnvelope(t *testing.T) {
	env, err := envelopeTemplate()
	if err != nil {
		t.Fatal(err)
	}
	paged, err := pagedTemplate(env)
	if err != nil {
		t.Fatal(err)
	}
	next := "/api/v1/panelists/P%201/surveys?after=7&limit=2"
	want, err := json.Marshal(PanelistSurveysJSON{PanelistID: probeID, MayEnter: []EligibilityJSON{}, Others: []EligibilityJSON{}, Next: next})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := json.Marshal(probeID)
	nextJSON, _ := json.Marshal(next)
	if !paged.checks(want, map[hole]string{holeID: string(id), holeMayEnter: "[]", holeOthers: "[]", holeNext: string(nextJSON)}) {
		t.Errorf("the paged envelope does not give %s", want)
	}
	if paged.holes[2].at != env.holes[2].at {
		t.Errorf("others at %d in a page, at %d in the answer", paged.holes[2].at, env.holes[2].at)
	}
}

// TestAppendReasonIsMarshal: a reason written by hand is what json.Marshal
// writes of it, whatever its strings hold and whenever its record is
// dated, and every field of the record is written (all set, none left).
func TestAppendReasonIsMarshal(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 30, 15, 120000000, time.UTC)
	record := func(id string, at time.Time) *domain.HistoryRecord {
		return &domain.HistoryRecord{PanelistID: id, SubsampleID: 200101, StatusID: -3, RegisteredAt: at, EventID: 7, CategoryID: 12, ResearchTypeID: 4}
	}
	for _, r := range []ReasonJSON{
		{Kind: "panel", Reason: "The panelist lives in FR; this subsample is fielded in DE, AT."},
		{Kind: "surveys", Rule: "survey 200101, 30 days", Reason: "A complete on subsample 200101 on 20 Nov 2026 (within 30 days).", Record: record("P0000007", at)},
		{Kind: "events", Rule: "r", Reason: "plain", Record: record(`P "1"\<x>&ü`+"\u2028\x01\xff", at)},
		{Kind: "ourCap", Reason: `Our cap <2> & "more" ü` + "\t\u2029"},
		{Kind: "surveys", Reason: "in Paris", Record: record("P1", at.In(time.FixedZone("CET", 3600)))},
		{Kind: "surveys", Reason: "whole second", Record: record("P1", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))},
		{Kind: "surveys", Reason: "no date", Record: record("P1", time.Time{})},
		{Kind: "surveys", Reason: "far", Record: record("P1", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))},
		{Kind: "qualityHold", Reason: "Held by hand."},
		{Kind: "panel", Reason: "a <b> & c"},
		{Kind: "panel", Reason: "tab\there"},
		{Kind: "panel", Reason: "del \x7f, ~ and space"},
	} {
		want, wantErr := json.Marshal(r)
		var got bytes.Buffer
		err := appendReason(&got, r)
		if (err != nil) != (wantErr != nil) || err == nil && got.String() != string(want) {
			t.Errorf("%+v: written %s (%v), want %s (%v)", r, got.String(), err, want, wantErr)
		}
	}
}
