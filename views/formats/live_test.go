package formats

import (
	"bytes"
	"encoding/csv"
	"testing"

	"fieldboard/rules/checks"
	"fieldboard/store"
)

// TestLiveCSVLeavesAnUnknownPriceEmpty: a price the provider did not give
// (a CPI of 0 or less, or no currency) is an empty cpi cell, never 0.
func TestLiveCSVLeavesAnUnknownPriceEmpty(t *testing.T) {
	row := func(id int64, cpi float64, currency string) checks.LiveRow {
		return checks.LiveRow{LiveRow: store.LiveRow{SubsampleID: id, CPI: cpi, Currency: currency}}
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := WriteLiveCSV(w, []checks.LiveRow{row(1, 2.5, "EUR"), row(2, 0, "EUR"), row(3, 4, ""), row(4, -1, "USD")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range lines[0] {
		if h == "cpi" {
			col = i
		}
	}
	want := []string{"2.50", "", "", ""}
	for i, w := range want {
		if got := lines[i+1][col]; got != w {
			t.Errorf("row %d: cpi %q, want %q", i+1, got, w)
		}
	}
}
