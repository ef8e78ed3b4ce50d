package web_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// refreshEvery refreshes the clocked app n times, moving its clock (the
// simulator's too) by step before each.
func refreshEvery(t *testing.T, a *app, clock *testClock, step time.Duration, n int) {
	t.Helper()
	for range n {
		clock.Advance(step)
		if err := a.refresher.Refresh(context.Background(), refresh.Request{}); err != nil {
			t.Fatal(err)
		}
	}
}

// column returns the cells of one column of a CSV, by its header.
func column(t *testing.T, rows [][]string, name string) []string {
	t.Helper()
	i := slices.Index(rows[0], name)
	if i < 0 {
		t.Fatalf("the CSV has no column %q: %v", name, rows[0])
	}
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[i])
	}
	return out
}

// Pacing on a simulator whose clock moves: too little history at first;
// after two hours of refreshes every 10 minutes, completes per hour with
// an interval in the API, the live list (column, sort, at-risk filter,
// CSV), the change feed (subsample.at_risk) and the subsample page (chart
// with its projection, a pace per hard cell) and its quotas CSV.
func TestPacingFromRefreshesOfAMovingSimulator(t *testing.T) {
	t.Parallel()
	a, clock := newClockedApp(t)
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	var first []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &first)
	paced := 0
	for _, s := range first {
		if s.Pacing != nil {
			paced++
			if s.Pacing.CompletesPerHour != nil || !strings.Contains(s.Pacing.TooLittleHistory, "Too little history") || s.Pacing.AtRisk {
				t.Errorf("subsample %d after one refresh: pacing %+v, want too little history", s.SubsampleID, *s.Pacing)
			}
		}
	}
	if paced == 0 {
		t.Fatal("no subsample has a pacing after the first refresh")
	}
	if body := a.page(t, "/live"); !strings.Contains(body, "too little history") {
		t.Error("/live after one refresh does not say too little history")
	}
	// The subsample page says it once, under its quotas, not in each row.
	for _, s := range first {
		if s.Pacing == nil {
			continue
		}
		body := a.page(t, fmt.Sprintf("/subsamples/%d", s.SubsampleID))
		rows := strings.Count(body, `data-testid="quota-row"`)
		if n := strings.Count(body, `data-testid="quota-pace-too-little"`); rows == 0 || n != 1 {
			t.Errorf("subsample %d after one refresh: %d notes of too little history under %d quota rows, want one", s.SubsampleID, n, rows)
		}
		marked := strings.Count(body, `role="img" aria-label="too little history"`)
		if marked == 0 || marked > rows {
			t.Errorf("subsample %d: %d of %d quota rows mark their pace as too little history for screen readers, want 1 to %d", s.SubsampleID, marked, rows, rows)
		}
		if shown := strings.Count(body, "too little history") - marked; shown > 2 {
			t.Errorf("subsample %d shows too little history %d times, want once for the quotas and once for the total", s.SubsampleID, shown)
		}
		break
	}

	refreshEvery(t, a, clock, 10*time.Minute, 13)

	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	moving := 0
	var withFill *formats.SubsampleJSON
	for i, s := range all {
		if s.Pacing == nil {
			continue
		}
		p := s.Pacing
		if p.CompletesPerHour == nil || p.Low == nil || p.High == nil || p.TooLittleHistory != "" {
			t.Fatalf("subsample %d after 130 minutes of refreshes: pacing %+v, want figures", s.SubsampleID, *p)
		}
		if !(*p.Low <= *p.CompletesPerHour && *p.CompletesPerHour <= *p.High && *p.High > 0) {
			t.Errorf("subsample %d: rate %v outside its interval %v..%v", s.SubsampleID, *p.CompletesPerHour, *p.Low, *p.High)
		}
		if *p.CompletesPerHour > 0 {
			moving++
		}
		if p.ProjectedFillAt != nil && withFill == nil && s.Sendability == "sendable" {
			withFill = &all[i]
		}
	}
	if moving == 0 || withFill == nil {
		t.Fatalf("after 130 minutes no total quota moved (%d) or none projects a fill", moving)
	}

	// The live list: the column, its CSV, the sort and the filter.
	if body := a.page(t, "/live?sort=-pace"); !strings.Contains(body, ">Pace") || !strings.Contains(body, `data-testid="pace"`) ||
		!strings.Contains(body, `data-testid="pace-method"`) || !strings.Contains(body, "/h") {
		t.Error("/live lacks the Pace column, its figures or the method's sentence")
	}
	rows := a.getCSV(t, "/live.csv?sort=-pace", "live-subsamples")
	rates := column(t, rows, "completesPerHour")
	var seen []float64
	for _, r := range rates {
		if r == "" {
			continue
		}
		v, err := strconv.ParseFloat(r, 64)
		if err != nil {
			t.Fatalf("completesPerHour %q", r)
		}
		seen = append(seen, v)
	}
	if len(seen) == 0 || !slices.IsSortedFunc(seen, func(x, y float64) int { return cmp.Compare(y, x) }) {
		t.Errorf("/live.csv?sort=-pace rates %v, want them highest first", seen)
	}
	atRisk := 0
	for _, r := range column(t, rows, "atRisk") {
		if r == "true" {
			atRisk++
		}
	}
	if atRisk == 0 || atRisk == len(rows)-1 {
		t.Errorf("%d of %d live subsamples at risk: the filter would show nothing", atRisk, len(rows)-1)
	}
	risky := a.getCSV(t, "/live.csv?risk=at", "live-subsamples")
	if len(risky)-1 != atRisk {
		t.Errorf("/live.csv?risk=at has %d rows, the list has %d at risk", len(risky)-1, atRisk)
	}
	for _, r := range column(t, risky, "atRisk") {
		if r != "true" {
			t.Errorf("/live.csv?risk=at holds a row whose atRisk is %q", r)
		}
	}
	body := a.page(t, "/live?risk=at")
	if !strings.Contains(body, "/live.csv?risk=at") || !strings.Contains(body, `value="at" checked`) {
		t.Error("/live?risk=at: the CSV link or the checkbox lost the filter")
	}
	// The change feed said so: every subsample the list finds at risk
	// became so at one of the refreshes (the last one, at the latest,
	// paced it on the same history the list reads), each time once.
	saidAtRisk := map[int64]int{}
	for _, c := range allChanges(t, a, 1000) {
		if c.Kind == domain.ChangeAtRisk {
			saidAtRisk[c.SubsampleID]++
			if !strings.Contains(c.After, "completes left") || c.Before != "not at risk" {
				t.Errorf("subsample.at_risk of %d: %q -> %q, want why", c.SubsampleID, c.Before, c.After)
			}
		}
	}
	for _, s := range all {
		if s.Pacing != nil && s.Pacing.AtRisk && saidAtRisk[s.SubsampleID] == 0 {
			t.Errorf("subsample %d is at risk in the list, but the feed never said subsample.at_risk", s.SubsampleID)
		}
	}
	if resp, msg := a.do(t, "GET", "/live?risk=maybe", nil); resp.StatusCode != 400 || !strings.Contains(msg, "risk") {
		t.Errorf("/live?risk=maybe = %d, want 400 naming risk", resp.StatusCode)
	}

	// The subsample page: the chart's projection and a pace per hard cell.
	page := a.page(t, fmt.Sprintf("/subsamples/%d", withFill.SubsampleID))
	for _, want := range []string{`data-testid="trend-projection"`, `data-testid="total-pace"`, `data-testid="pace-method"`, "fills "} {
		if !strings.Contains(page, want) {
			t.Errorf("subsample %d's page lacks %q", withFill.SubsampleID, want)
		}
	}
	// Each hard cell with two readings has its sparkline, each with the
	// cell's own figures in its title; the total quota has none (its
	// chart is the large one).
	if cells, sparks := strings.Count(page, `data-testid="quota-pace"`), strings.Count(page, `data-testid="cell-trend"`); sparks == 0 || sparks >= cells {
		t.Errorf("subsample %d's page: %d cell sparklines for %d quota rows; want one per moving hard cell, none for the total", withFill.SubsampleID, sparks, cells)
	}
	if !strings.Contains(page, "Achieved completes of this cell went from") {
		t.Errorf("subsample %d's page: no cell sparkline says its figures", withFill.SubsampleID)
	}
	quotas := a.getCSV(t, fmt.Sprintf("/subsamples/%d/quotas.csv", withFill.SubsampleID), fmt.Sprintf("subsample-quotas_subsample-%d", withFill.SubsampleID))
	types, paces := column(t, quotas, "quotaType"), column(t, quotas, "completesPerHour")
	for i := range types {
		hardOrTotal := strings.EqualFold(types[i], "hard") || i == 0
		if hardOrTotal != (paces[i] != "") {
			t.Errorf("quotas CSV row %d (%s): completesPerHour %q; want a figure exactly for the total and the hard cells", i+1, types[i], paces[i])
		}
	}
}
