package formats

import (
	"io"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// BenchmarkWriteLiveCSV writes the live list's CSV of 2,000 subsamples, the
// scenario's size; one op is the whole file.
func BenchmarkWriteLiveCSV(b *testing.B) {
	start, loi, ir, achieved, remaining := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), 12.0, 35.0, int64(120), int64(380)
	rows := make([]checks.LiveRow, 2000)
	for i := range rows {
		rows[i] = checks.LiveRow{
			LiveRow: store.LiveRow{SubsampleID: 200000 + int64(i), EventID: 30000 + int64(i/3), Name: "Cyberdyne SUVs Claims Test 2026 - FR Gamers",
				EventName: "Cyberdyne SUVs Claims Test 2026", Status: "Live", APICompatible: true, Currency: "EUR", CPI: 1.75,
				ExpectedLOI: &loi, ExpectedIncidence: &ir, ResearchType: "Ad hoc", AllowDesktop: true, AllowMobile: true,
				Categories: "Automotive, Insurance", FieldStart: &start, FieldEnd: &start, Countries: "FR", Locales: "fr-fr",
				TotalAchieved: &achieved, TotalRemaining: &remaining},
			Verdict: rules.Verdict{State: rules.Paused, Reasons: []string{"Total quota is full (0 remaining): sending is paused."}},
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard)
		if err := WriteLiveCSV(w, rows); err != nil {
			b.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
