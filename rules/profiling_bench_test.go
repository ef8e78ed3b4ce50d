package rules

import (
	"math/rand/v2"
	"testing"

	"fieldboard/rules/domain"
)

// BenchmarkProfilingCounter: one op counts 100,000 panelists against 40
// subsamples of one country (benchQuotas), in three locales of which the
// subsamples take two, and reports; the budget is
// 0.2 s, 2 s for 1,000,000 panelists.
func BenchmarkProfilingCounter(b *testing.B) {
	targets := make([]ProfilingTarget, 40)
	for i := range targets {
		cells := CompileQuotas(benchQuotas(i))
		targets[i] = ProfilingTarget{SubsampleID: int64(i + 1), Country: "FR", Cells: &cells, Price: Price{Currency: "EUR", CPI: 2, Known: true},
			Fit: fitLocales("fr-fr", "FR", "fr-fr", "en-fr")}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	panel := make([]domain.Profile, 1000)
	for i := range panel {
		p := benchProfile()
		p.Answers = map[int64][]int64{qGender: {int64(1 + rng.IntN(2))}, qRegion: {int64(100 + rng.IntN(8))}, 40: {int64(rng.IntN(40))}, 7: {1}}
		p.BirthDate = checkDay.AddDate(-18-rng.IntN(70), 0, -rng.IntN(365))
		if i%20 == 0 {
			delete(p.Answers, qGender)
		}
		panel[i] = p
	}
	locales := []string{"fr-fr", "fr-fr", "fr-fr", "fr-fr", "", "en-fr", "de-fr"}
	b.ResetTimer()
	for range b.N {
		c := NewProfilingCounter(targets, checkDay)
		for i := range 100_000 {
			c.Add("FR", locales[i%len(locales)], panel[i%len(panel)])
		}
		c.AddUnprofiled("FR", "fr-fr", 500)
		c.Report(nil)
	}
}
