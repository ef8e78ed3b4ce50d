package checks

import (
	"slices"
	"testing"

	"fieldboard/rules"
	"fieldboard/store"
)

// TestRouterOrder: within a country, the currency most of its live
// subsamples are priced in comes first, then the others by how many use
// them; inside a currency the highest EPC first and those without a
// figure last. Subsamples that are not sendable, or of another country,
// are not candidates at all.
func TestRouterOrder(t *testing.T) {
	type sub struct {
		id        int64
		countries []string
		currency  string
		epc       float64 // 0: no figure
		state     rules.State
	}
	subs := []sub{
		{1, []string{"CA"}, "USD", 3.0, rules.Sendable},
		{2, []string{"CA"}, "CAD", 1.0, rules.Sendable},
		{3, []string{"CA"}, "CAD", 2.5, rules.Sendable},
		{4, []string{"CA"}, "CAD", 0, rules.Sendable},
		{5, []string{"CA"}, "CAD", 9.0, rules.Paused},   // not sendable: never a candidate
		{6, []string{"CA"}, "AUD", 7.0, rules.Sendable}, // one AUD, after the two USD though first by code
		{7, []string{"FR"}, "EUR", 5.0, rules.Sendable},
		{8, []string{"FR", "CA"}, "CAD", 2.5, rules.Sendable}, // ties with 3 on EPC: by id
		{9, []string{"CA"}, "CAD", 4.0, rules.Unknown},
		{10, []string{"CA"}, "USD", 0.5, rules.Sendable},
		{11, []string{"fr", "FR"}, "EUR", 1.0, rules.Sendable}, // listed twice, in lower case once: one candidate of France
		// Britain is priced in GBP (three of five live subsamples), though
		// most of its sendable ones are in USD: GBP leads.
		{20, []string{"GB"}, "GBP", 1.0, rules.Sendable},
		{21, []string{"GB"}, "GBP", 9.0, rules.Paused},
		{22, []string{"GB"}, "GBP", 9.0, rules.Unknown},
		{23, []string{"GB"}, "USD", 5.0, rules.Sendable},
		{24, []string{"GB"}, "USD", 4.0, rules.Sendable},
	}
	d := &Decisions{}
	for _, s := range subs {
		r := &SubsampleReport{SubsampleRow: store.SubsampleRow{SubsampleID: s.id, Live: true, Currency: " " + s.currency}, Verdict: rules.Verdict{State: s.state}}
		if s.epc > 0 {
			r.EPC = rules.ExpectedEarnings(s.epc, s.currency, 100, nil)
		}
		d.targets = append(d.targets, liveTarget{report: r, target: rules.Target{SubsampleID: s.id}, panel: rules.PanelTarget{Countries: s.countries}})
	}
	d.indexCountries()
	ids := func(country string) []int64 {
		var out []int64
		for _, i := range d.byCountry[country] {
			out = append(out, d.targets[i].target.SubsampleID)
		}
		return out
	}
	// CAD is the currency of 6 of Canada's 9 live subsamples (paused and
	// unknown ones count: they say what the country is priced in), USD of
	// two, AUD of one.
	if got, want := ids("CA"), []int64{3, 8, 2, 4, 1, 10, 6}; !slices.Equal(got, want) {
		t.Errorf("Canada's candidates = %v, want %v", got, want)
	}
	// France: two EUR subsamples and one CAD.
	if got, want := ids("FR"), []int64{7, 11, 8}; !slices.Equal(got, want) {
		t.Errorf("France's candidates = %v, want %v", got, want)
	}
	// Britain: GBP is the currency of its live subsamples, counted
	// sendable or not, not of its sendable ones alone (USD's two).
	if got, want := ids("GB"), []int64{20, 23, 24}; !slices.Equal(got, want) {
		t.Errorf("Britain's candidates = %v, want %v: GBP leads, the currency of most of its live subsamples", got, want)
	}
	if got := ids("DE"); got != nil {
		t.Errorf("Germany has no subsample, yet candidates %v", got)
	}
}
