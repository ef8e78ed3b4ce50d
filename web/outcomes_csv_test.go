package web_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOutcomesCSVTotalsApart: on the demo's history and prices, the
// outcomes download has one line per subsample and no line of totals, its
// amounts plain numbers beside their currency; totals=true (on the page's
// download and the API's alike) gives one line per currency whose amount
// is the sum of that currency's lines, so a spreadsheet's sum and the
// totals file agree. The JSON answer holds its totals already: asking it
// for totals=true is a 400 that says so.
func TestOutcomesCSVTotalsApart(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	panel := slices.Collect(a.sim.Panel(outcomesDemoSeed, 200))
	if _, err := a.store.ImportPanel(ctx, slices.Values(panel)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.ImportHistory(ctx, a.sim.RecentHistory(outcomesDemoSeed, panel, outcomesDemoDays, outcomesDemoHeldFrom)); err != nil {
		t.Fatal(err)
	}
	if err := a.store.AddPriceHistory(ctx, a.sim.PriceHistory(outcomesDemoSeed, outcomesDemoDays)); err != nil {
		t.Fatal(err)
	}

	resp, body := a.do(t, "GET", "/outcomes.csv", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("/outcomes.csv: %d %s", resp.StatusCode, body)
	}
	rows := parseCSV(t, body)
	column := map[string]int{}
	for i, name := range rows[0] {
		column[name] = i
	}
	sums := map[string]int64{}
	for _, r := range rows[1:] {
		if r[column["group"]] == "Total" {
			t.Errorf("/outcomes.csv has a line of totals among its groups: %v", r)
		}
		earned, currency := r[column["earned"]], r[column["earnedCurrency"]]
		if earned == "" {
			continue
		}
		cents, err := strconv.ParseFloat(earned, 64)
		if err != nil || currency == "" {
			t.Fatalf("subsample %s: earned %q in %q; want a number beside its currency", r[0], earned, currency)
		}
		sums[currency] += int64(cents*100 + 0.5)
	}
	if len(sums) == 0 {
		t.Fatalf("no line earned anything:\n%s", body)
	}

	resp, totals := a.do(t, "GET", "/outcomes.csv?totals=true", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="outcomes-totals_`) {
		t.Fatalf("/outcomes.csv?totals=true: %d, %s", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	got := map[string]int64{}
	for _, r := range parseCSV(t, totals)[1:] {
		if r[0] == "" {
			continue // the completes of unknown price
		}
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatalf("totals line %v: earned is not a number", r)
		}
		got[r[0]] = int64(v*100 + 0.5)
	}
	if len(got) != len(sums) {
		t.Errorf("totals per currency %v; the lines sum to %v", got, sums)
	}
	for c, v := range sums {
		if got[c] != v {
			t.Errorf("%s: the totals file says %d cents, the lines sum to %d", c, got[c], v)
		}
	}

	if _, api := a.do(t, "GET", "/api/v1/outcomes?format=csv&totals=true", nil); api != totals {
		t.Errorf("the API's totals differ from the page's:\n%s\n%s", api, totals)
	}
	resp, answer := a.do(t, "GET", "/api/v1/outcomes?totals=true", nil)
	if resp.StatusCode != 400 || !strings.Contains(answer, "format=csv") {
		t.Errorf("the JSON answer asked for totals=true: %d %s; want a 400 pointing at format=csv", resp.StatusCode, answer)
	}
	if resp, _ := a.do(t, "GET", "/api/v1/outcomes?format=csv&totals=yes", nil); resp.StatusCode != 400 {
		t.Errorf("totals=yes: %d, want 400", resp.StatusCode)
	}
	if _, page := a.do(t, "GET", "/outcomes", nil); !strings.Contains(page, `href="/outcomes.csv?totals=true"`) {
		t.Errorf("/outcomes does not link the totals download")
	}
}
