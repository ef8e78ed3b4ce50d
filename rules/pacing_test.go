package rules

import (
	"math"
	"strings"
	"testing"
	"time"
)

var paceNow = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// history builds a quota history from (hours before paceNow, achieved)
// pairs, oldest first.
func history(pairs ...float64) []PacePoint {
	var out []PacePoint
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, PacePoint{At: paceNow.Add(-time.Duration(pairs[i] * float64(time.Hour))), Achieved: int64(pairs[i+1])})
	}
	return out
}

// steady is a quota that rose by 10 every half hour for 12 hours: 20 an
// hour.
func steady() []PacePoint {
	var pairs []float64
	for i := 0; i <= 24; i++ {
		pairs = append(pairs, 12-float64(i)/2, float64(10*i))
	}
	return history(pairs...)
}

func hoursFromNow(h float64) *time.Time {
	t := paceNow.Add(time.Duration(h * float64(time.Hour)))
	return &t
}

func TestPace(t *testing.T) {
	tests := []struct {
		name      string
		points    []PacePoint
		remaining int64
		fieldEnd  *time.Time
		// want
		tooLittle   string // a part of the reason; "" for a figure
		rateFrom    float64
		rateTo      float64
		fillWithin  [2]float64 // hours from now; {0, 0} for no projection
		atRisk      bool
		intervalHas float64 // a rate the interval must hold; -1 for none
	}{
		{
			name: "steady: 20 an hour for 12 hours, 100 to go, field ends in 2 days",
			// The last rise was seen at paceNow, so the weighted rate leans
			// a little above 20 (the batch of the last half hour is counted
			// whole at its end).
			points: steady(), remaining: 100, fieldEnd: hoursFromNow(48),
			rateFrom: 19, rateTo: 22.5, fillWithin: [2]float64{4.5, 5.3}, intervalHas: 20,
		},
		{
			name:   "steady but the field ends in 3 hours: at the low end 100 more are not reached",
			points: steady(), remaining: 100, fieldEnd: hoursFromNow(3),
			rateFrom: 19, rateTo: 22.5, fillWithin: [2]float64{4.5, 5.3}, atRisk: true, intervalHas: 20,
		},
		{
			// Projected at the rate (about 21 an hour) 100 more are reached
			// in 4.7 hours, before the field end; at the low end (about
			// 17.6) only in 5.7 hours, after it.
			name:   "steady, the field ends in 5.2 hours: reached by then at the rate, not at the interval's low end: at risk",
			points: steady(), remaining: 100, fieldEnd: hoursFromNow(5.2),
			rateFrom: 19, rateTo: 22.5, fillWithin: [2]float64{4.5, 5.3}, atRisk: true, intervalHas: 20,
		},
		{
			name:   "steady, the field ends in 6 hours: reached by then even at the interval's low end: not at risk",
			points: steady(), remaining: 100, fieldEnd: hoursFromNow(6),
			rateFrom: 19, rateTo: 22.5, fillWithin: [2]float64{4.5, 5.3}, intervalHas: 20,
		},
		{
			name: "stalled: 20 an hour, then nothing for the last 12 hours",
			points: func() []PacePoint {
				var pairs []float64
				for i := 0; i <= 24; i++ {
					pairs = append(pairs, 24-float64(i)/2, float64(10*i))
				}
				return history(pairs...)
			}(),
			remaining: 100, fieldEnd: hoursFromNow(48),
			rateFrom: 0.5, rateTo: 2, fillWithin: [2]float64{48, 200}, atRisk: true, intervalHas: -1,
		},
		{
			name:   "stalled from the start: one reading 10 hours ago, the count never moved",
			points: history(10, 40), remaining: 5, fieldEnd: hoursFromNow(1000),
			rateFrom: 0, rateTo: 0, atRisk: true, intervalHas: 0,
		},
		{
			name:   "new: seen 20 minutes ago",
			points: history(1.0/3, 0, 0.1, 4), remaining: 100, fieldEnd: hoursFromNow(1),
			tooLittle: "watched for 20 minutes, pacing needs 60 minutes",
		},
		{
			name: "never seen", points: nil, remaining: 100, tooLittle: "No history",
		},
		{
			name:   "needs 0 more: a rate, no projection, never at risk",
			points: steady(), remaining: 0, fieldEnd: hoursFromNow(1),
			rateFrom: 19, rateTo: 22.5, intervalHas: 20,
		},
		{
			name:   "a negative remaining counts as 0",
			points: steady(), remaining: -3, fieldEnd: hoursFromNow(1),
			rateFrom: 19, rateTo: 22.5, intervalHas: 20,
		},
		{
			name:   "the field end has passed and completes are still needed: at risk",
			points: steady(), remaining: 10, fieldEnd: hoursFromNow(-1),
			rateFrom: 19, rateTo: 22.5, fillWithin: [2]float64{0.3, 0.6}, atRisk: true, intervalHas: 20,
		},
		{
			name:   "no field end: never at risk",
			points: history(10, 40), remaining: 5,
			rateFrom: 0, rateTo: 0, intervalHas: 0,
		},
		{
			name:   "a count that falls (a correction) adds nothing and restarts from there",
			points: history(4, 100, 3, 50, 2, 60, 1, 70), remaining: 10, fieldEnd: hoursFromNow(48),
			rateFrom: 3, rateTo: 8, fillWithin: [2]float64{1, 4}, intervalHas: 5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Pace(tc.points, tc.remaining, paceNow, tc.fieldEnd)
			if tc.tooLittle != "" {
				if p.Known() || !strings.Contains(p.TooLittle, tc.tooLittle) {
					t.Fatalf("TooLittle = %q, want it to say %q", p.TooLittle, tc.tooLittle)
				}
				if p.AtRisk || p.ProjectedFillAt != nil {
					t.Errorf("too little history, yet AtRisk %v, ProjectedFillAt %v", p.AtRisk, p.ProjectedFillAt)
				}
				return
			}
			if !p.Known() {
				t.Fatalf("no figure: %s", p.TooLittle)
			}
			if p.CompletesPerHour < tc.rateFrom || p.CompletesPerHour > tc.rateTo {
				t.Errorf("CompletesPerHour = %.3f, want %.1f..%.1f", p.CompletesPerHour, tc.rateFrom, tc.rateTo)
			}
			if !(p.Low <= p.CompletesPerHour && p.CompletesPerHour <= p.High) || p.High <= 0 {
				t.Errorf("interval %.3f..%.3f does not hold the rate %.3f", p.Low, p.High, p.CompletesPerHour)
			}
			if tc.intervalHas >= 0 && (tc.intervalHas < p.Low || tc.intervalHas > p.High) {
				t.Errorf("interval %.3f..%.3f does not hold %.1f", p.Low, p.High, tc.intervalHas)
			}
			switch {
			case tc.fillWithin == [2]float64{}:
				if p.ProjectedFillAt != nil {
					t.Errorf("ProjectedFillAt = %v, want none", p.ProjectedFillAt)
				}
			case p.ProjectedFillAt == nil:
				t.Errorf("no projection, want %v..%v hours from now", tc.fillWithin[0], tc.fillWithin[1])
			default:
				if h := p.ProjectedFillAt.Sub(paceNow).Hours(); h < tc.fillWithin[0] || h > tc.fillWithin[1] {
					t.Errorf("projected fill in %.2f hours, want %v..%v", h, tc.fillWithin[0], tc.fillWithin[1])
				}
			}
			if p.AtRisk != tc.atRisk {
				t.Errorf("AtRisk = %v, want %v (rate %.2f, low %.2f, %d to go)", p.AtRisk, tc.atRisk, p.CompletesPerHour, p.Low, p.Remaining)
			}
		})
	}
}

// "a cell with 2 completes in an hour is not treated like one with 200":
// the same hour of history, a hundredfold count, a far narrower interval
// relative to the rate.
func TestPaceIntervalNarrowsWithTheCount(t *testing.T) {
	width := func(completes float64) (Pacing, float64) {
		p := Pace(history(1, 0, 0.5, completes/2, 0, completes), 1000, paceNow, hoursFromNow(24))
		return p, (p.High - p.Low) / p.CompletesPerHour
	}
	few, fewWidth := width(2)
	many, manyWidth := width(200)
	if fewWidth < 5*manyWidth {
		t.Errorf("relative width of the interval: %.2f for 2 completes, %.2f for 200; want the first far wider", fewWidth, manyWidth)
	}
	// 2 completes: the low end is far below the rate, so 1000 more in a
	// day is at risk; 200: the interval is within a sixth of the rate.
	if few.Low > few.CompletesPerHour/3 || !few.AtRisk {
		t.Errorf("2 completes: low %.2f of rate %.2f, at risk %v", few.Low, few.CompletesPerHour, few.AtRisk)
	}
	if many.Low < many.CompletesPerHour*5/6 || many.High > many.CompletesPerHour*7/6 {
		t.Errorf("200 completes: interval %.1f..%.1f around %.1f", many.Low, many.High, many.CompletesPerHour)
	}
}

// The interval's ends are Garwood's exact Poisson limits: chi-square
// quantiles, here against published values.
func TestGammaQuantileMatchesPoissonTables(t *testing.T) {
	for _, tc := range []struct {
		k        float64
		low, upp float64 // 90% limits for an observed count k
	}{
		{0, 0, 2.9957},
		{1, 0.0513, 4.7439},
		{2, 0.3554, 6.2958},
		{10, 5.4254, 16.9622},
		{100, 84.14, 118.08}, // Wilson–Hilferty at this size
	} {
		upp := gammaQuantile(tc.k+1, 0.95)
		low := 0.0
		if tc.k > 0 {
			low = gammaQuantile(tc.k, 0.05)
		}
		tol := 1e-3 * math.Max(1, tc.upp)
		if tc.k == 100 {
			tol = 0.1
		}
		if math.Abs(low-tc.low) > tol || math.Abs(upp-tc.upp) > tol {
			t.Errorf("k=%v: %.4f..%.4f, want %.4f..%.4f", tc.k, low, upp, tc.low, tc.upp)
		}
	}
}

// TestPaceOnPace: an at-risk quota is back on pace only when, at the
// range's low end, it fills within PaceBackOnPaceShare of the time left;
// between that line and the at-risk line it is neither, so a pace that
// hovers at one line does not flap.
func TestPaceOnPace(t *testing.T) {
	// steady's low end is about 17.6 an hour: 100 more take about 5.7
	// hours, within 80% of 8 hours (6.4) but not of 6 hours (4.8).
	tests := []struct {
		name      string
		points    []PacePoint
		remaining int64
		fieldEnd  *time.Time
		onPace    string // a part of the sentence; "" for none
	}{
		{"100 more in 5.7 hours at the low end, the field ends in 8: clearly on pace", steady(), 100, hoursFromNow(8), "reached by"},
		{"the field ends in 6: not at risk, yet not clearly on pace either", steady(), 100, hoursFromNow(6), ""},
		{"the field ends in 5.2: at risk, not on pace", steady(), 100, hoursFromNow(5.2), ""},
		{"full: filled", steady(), 0, hoursFromNow(1), "filled"},
		{"no field end: nothing to be on pace for", steady(), 100, nil, ""},
		{"the field end has passed", steady(), 10, hoursFromNow(-1), ""},
		{"too little history: no pace to say", history(1.0/3, 0, 0.1, 4), 100, hoursFromNow(100), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Pace(tc.points, tc.remaining, paceNow, tc.fieldEnd)
			got := p.OnPace(tc.fieldEnd)
			if tc.onPace == "" && got != "" || tc.onPace != "" && !strings.Contains(got, tc.onPace) {
				t.Errorf("OnPace = %q, want %q (low %.2f, %d to go)", got, tc.onPace, p.Low, p.Remaining)
			}
			if got != "" && p.AtRisk {
				t.Errorf("on pace and at risk at once: %q", got)
			}
		})
	}
}

// TestPaceSentencesSayTimesAsTheDashboard: the sentences of a pace at
// risk and clearly on pace write the field end and the fill time as the
// dashboard does ("23 Nov 2026 18:00 UTC"), never as RFC 3339.
func TestPaceSentencesSayTimesAsTheDashboard(t *testing.T) {
	asOf := time.Date(2026, 11, 23, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	end := asOf.Add(6 * time.Hour)
	for _, tc := range []struct {
		name, got string
		want      []string
	}{
		{"at risk", Pacing{CompletesPerHour: 2, Low: 1, High: 3, Remaining: 100, AtRisk: true, AsOf: asOf}.Risk(&end),
			[]string{"the field end, 23 Nov 2026 17:00 UTC"}},
		{"on pace", Pacing{CompletesPerHour: 20, Low: 10, High: 30, Remaining: 10, AsOf: asOf}.OnPace(&end),
			[]string{"reached by 23 Nov 2026 12:00 UTC", "the field end, 23 Nov 2026 17:00 UTC"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.got, w) {
				t.Errorf("%s: %q, want it to say %q", tc.name, tc.got, w)
			}
		}
		if strings.Contains(tc.got, "T1") || strings.Contains(tc.got, "Z") {
			t.Errorf("%s: %q writes a time in RFC 3339", tc.name, tc.got)
		}
	}
}
