package rules

import (
	"math"
	"testing"
)

func TestLinkSuspect(t *testing.T) {
	tests := []struct {
		name       string
		run        int
		conversion float64
		source     EPCSource
		suspect    bool
		why        string
	}{
		{name: "20 returns without a complete at a 30% conversion in field (actualClientConversionRate): 0.7^20 is 0.08%, flagged",
			run: 20, conversion: 30, source: EPCField, suspect: true,
			why: "Subsample 7: 20 returns in a row without a complete, where its conversion in field of 30% would have given one almost surely: its survey link may be broken."},
		{name: "19 returns are too few, however high the conversion", run: 19, conversion: 90, source: EPCField},
		{name: "at 20% (0.8^20 is 1.15%) 20 returns are not flagged", run: 20, conversion: 20, source: EPCField},
		{name: "at 20%, 21 returns (0.8^21 is 0.92%) are", run: 21, conversion: 20, source: EPCField, suspect: true},
		{name: "at 10%, 43 returns (0.9^43 is 1.08%) are not flagged", run: 43, conversion: 10, source: EPCField},
		{name: "at 10%, 44 returns (0.9^44 is 0.97%) are", run: 44, conversion: 10, source: EPCField, suspect: true},
		{name: "the expected incidence (expectedIncidenceRate, commissioned incidence) serves while nothing was measured in field",
			run: 25, conversion: 30, source: EPCEstimate, suspect: true,
			why: "Subsample 7: 25 returns in a row without a complete, where its expected incidence of 30% would have given one almost surely: its survey link may be broken."},
		{name: "no conversion known: 39 returns are not flagged", run: 39, source: EPCNone},
		{name: "no conversion known: 40 returns are flagged", run: 40, source: EPCNone, suspect: true,
			why: "Subsample 7: 40 returns in a row without a complete, and no conversion is known to expect one by: its survey link may be broken."},
		{name: "a conversion that is not a number counts as unknown", run: 39, conversion: math.NaN(), source: EPCField},
		{name: "a conversion above 100 counts as unknown", run: 39, conversion: 130, source: EPCField},
		{name: "a conversion of 0 counts as unknown", run: 40, conversion: 0, source: EPCField, suspect: true},
		{name: "a conversion of 100% flags at the minimum run", run: 20, conversion: 100, source: EPCField, suspect: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LinkSuspect(7, tt.run, tt.conversion, tt.source)
			if got.Suspect != tt.suspect || (tt.why != "" && got.Why != tt.why) || (!tt.suspect && got.Why != "") {
				t.Errorf("LinkSuspect(7, %d, %v, %q) = %+v; want suspect %v, why %q", tt.run, tt.conversion, tt.source, got, tt.suspect, tt.why)
			}
		})
	}
}

func TestLinkConversion(t *testing.T) {
	tests := []struct {
		name      string
		field     float64
		incidence *float64
		rate      float64
		source    EPCSource
	}{
		{"the total quota's actualClientConversionRate, when above 0", 30, incidence(60), 30, EPCField},
		{"else the expectedIncidenceRate (commissioned incidence)", 0, incidence(25), 25, EPCEstimate},
		{"else none", 0, nil, 0, EPCNone},
		{"an expected incidence of 0 is taken as not given", 0, incidence(0), 0, EPCNone},
		{"an expected incidence above 100 is not a percentage", 0, incidence(101), 0, EPCNone},
		{"a field conversion above 100 puts the provider's figures in doubt: none, not the estimate", 130, incidence(20), 0, EPCNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rate, source := LinkConversion(tt.field, tt.incidence)
			if rate != tt.rate || source != tt.source {
				t.Errorf("LinkConversion(%v, %v) = %v, %q; want %v, %q", tt.field, tt.incidence, rate, source, tt.rate, tt.source)
			}
		})
	}
}

// TestLinkSuspectRun: the run ReturnRun reads is the shortest LinkSuspect
// flags at that conversion: one return fewer flags nothing.
func TestLinkSuspectRun(t *testing.T) {
	for _, tt := range []struct {
		conversion float64
		source     EPCSource
		want       int
	}{
		{30, EPCField, 20}, {20, EPCField, 21}, {10, EPCField, 44}, {100, EPCField, 20},
		{1, EPCEstimate, 459}, {0, EPCNone, LinkSuspectUnknownRun}, {30, EPCNone, LinkSuspectUnknownRun},
	} {
		got := LinkSuspectRun(tt.conversion, tt.source)
		if got != tt.want || !LinkSuspect(1, got, tt.conversion, tt.source).Suspect || LinkSuspect(1, got-1, tt.conversion, tt.source).Suspect {
			t.Errorf("LinkSuspectRun(%v, %v) = %d, want %d, the first run LinkSuspect flags", tt.conversion, tt.source, got, tt.want)
		}
	}
}
