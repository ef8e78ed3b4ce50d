package rules

import (
	"strconv"
	"testing"

	"fieldboard/rules/domain"
)

// benchQuotas is a typical subsample: the total, a hard Gender table, a
// hard Age table of five ranges, a counting Region table of six regions
// and a hard Income table whose cells list several answers; seed varies
// which cells are full.
func benchQuotas(seed int) []domain.Quota {
	qs := []domain.Quota{total(200, 50), genderCell(20, "Male", int64(seed%3), 1), genderCell(21, "Female", 40, 2)}
	for i, r := range [][2]int{{18, 24}, {25, 34}, {35, 44}, {45, 54}, {55, 99}} {
		qs = append(qs, ageCell(int64(30+i), strconv.Itoa(r[0]), strconv.Itoa(r[1]), int64((seed+i)%4), 2))
	}
	for i := range 6 {
		qs = append(qs, regionCell(int64(40+i), int64((seed+i)%5), int64(100+i)))
	}
	for i := range 4 {
		qs = append(qs, answerCell(int64(50+i), 6, "Income", domain.QuotaTypeHard, "", 40, 10,
			int64(10*i), int64(10*i+1), int64(10*i+2)))
	}
	return qs
}

// benchProfile is a 40-year-old woman of region 103 with income answer 21
// and a few answers the quotas do not ask.
func benchProfile() domain.Profile {
	return domain.Profile{BirthDate: checkDay.AddDate(-40, -2, 0), Answers: map[int64][]int64{
		qGender: {2}, qRegion: {103}, 40: {21}, 7: {1, 4}, 8: {9}, 9: {3}, 10: {6},
	}}
}

// BenchmarkMatchQuotas: one panelist against 2,000 subsamples (one op is
// the whole loop; the budget is 5 ms), and one panelist against one
// subsample (the budget is 2 µs, 2 s for 1,000,000 panelists).
func BenchmarkMatchQuotas(b *testing.B) {
	const subsamples = 2000
	compiled := make([]QuotaCells, subsamples)
	raw := make([][]domain.Quota, subsamples)
	for i := range compiled {
		raw[i] = benchQuotas(i)
		compiled[i] = CompileQuotas(raw[i])
	}
	p := benchProfile()

	b.Run("2000 subsamples, compiled, Verdict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range compiled {
				compiled[i].Verdict(p, checkDay)
			}
		}
	})
	b.Run("2000 subsamples, compiled, Match with reasons", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range compiled {
				compiled[i].Match(p, checkDay)
			}
		}
	})
	b.Run("2000 subsamples, compiled and matched from raw quotas", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range raw {
				cells := CompileQuotas(raw[i])
				cells.Match(p, checkDay)
			}
		}
	})
	b.Run("one panelist, one subsample, Verdict", func(b *testing.B) {
		cells := compiled[0]
		b.ReportAllocs()
		for b.Loop() {
			cells.Verdict(p, checkDay)
		}
	})
	b.Run("CompileQuotas, one subsample", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			CompileQuotas(raw[0])
		}
	})
}
