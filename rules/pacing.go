package rules

import (
	"fmt"
	"math"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// The pacing method's constants.
const (
	// PaceHalfLife is how fast older completes count less in the rate: a
	// complete PaceHalfLife ago counts half as much as one now. Three
	// hours follow a stall within an afternoon, yet smooth the gaps
	// between the provider's 3-minute cache windows.
	PaceHalfLife = 3 * time.Hour
	// PaceWindow is how far back the history read for pacing goes: past
	// eight half-lives a complete weighs less than 1/256 of one now. The
	// last count before the window is read too, so a quota that has not
	// moved for longer still has its start.
	PaceWindow = 8 * PaceHalfLife
	// PaceMinHistory is the least time a quota must have been watched
	// before its pace is given: less says "too little history".
	PaceMinHistory = time.Hour
	// PaceConfidence is the confidence of the interval around the rate.
	PaceConfidence = 0.90
	// PaceBackOnPaceShare is how much of the time left before the field
	// end an at-risk quota may need, at its range's low end, to be back on
	// pace: a quota becomes at risk when the low end would not fill it by
	// the field end, and stops being at risk only when the low end fills
	// it within this share of the time left (its low end at least a
	// quarter above the rate needed). The low end moves with every batch
	// of completes and every hour that passes without one, so a quota
	// whose low end sits at the rate it needs crosses that line back and
	// forth from one refresh to the next: between the two lines it keeps
	// the state it had, and the change feed says each real move once.
	PaceBackOnPaceShare = 0.8
	// paceHorizon is the furthest a projection is given; beyond it the
	// quota does not fill at this rate.
	paceHorizon = 10 * 365 * 24 * time.Hour
)

// PaceMethod explains the method in one sentence, where pacing is shown.
const PaceMethod = "Completes per hour weight each complete by its age (half as much every 3 hours); " +
	"the range is a 90% Poisson interval for that weighted count, so a few completes give a wide one; " +
	"the fill is projected at the rate, and a quota is at risk when even the range's low end would not fill it before the field end."

// PacePoint is a quota's achieved completes as seen at one time.
type PacePoint struct {
	At       time.Time
	Achieved int64
}

// Pacing is how fast a quota fills and whether it will fill in time.
// When TooLittle is not "" there is no figure, and it says why.
type Pacing struct {
	// CompletesPerHour is the weighted recent rate; Low and High the
	// PaceConfidence interval around it.
	CompletesPerHour, Low, High float64
	// Remaining is what the quota still needs; Full when that is none.
	Remaining int64
	Full      bool
	// ProjectedFillAt is when the remaining completes are reached at
	// CompletesPerHour; nil when the quota is full or the rate would not
	// fill it within ten years.
	ProjectedFillAt *time.Time
	// AtRisk is true when, at Low, the remaining completes are not reached
	// before the field end (an end already passed included). A quota
	// without a field end, full, or with too little history is never at
	// risk.
	AtRisk bool
	// AsOf is when the counts were last read: the rate runs to then.
	AsOf      time.Time
	TooLittle string
}

// Known reports whether p has figures.
func (p Pacing) Known() bool { return p.TooLittle == "" }

// Pace measures a quota's pace from its counts (oldest first, as the
// quota history keeps them: a point each time the count changed), the
// completes it still needs, when the counts were last read (asOf: the
// count held from the last point until then) and the field end (nil when
// there is none).
//
// Each rise of the count is a batch of completes at the time it was
// seen, weighted by 2^(-age/PaceHalfLife); the rate is the weighted count
// over the weighted time watched (from the first point to asOf). The
// interval is the exact (Garwood) Poisson interval of the weighted count,
// divided by the same weighted time: as the weights are at most 1, it is
// a little wider than the unweighted one, never narrower. A count that
// falls (a provider's correction) adds nothing and restarts from the new
// count.
func Pace(points []PacePoint, remaining int64, asOf time.Time, fieldEnd *time.Time) Pacing {
	p := Pacing{Remaining: max(remaining, 0), AsOf: asOf}
	p.Full = p.Remaining == 0
	if len(points) == 0 {
		p.TooLittle = "No history of this quota yet."
		return p
	}
	if last := points[len(points)-1].At; asOf.Before(last) {
		asOf, p.AsOf = last, last
	}
	watched := asOf.Sub(points[0].At)
	if watched < PaceMinHistory {
		p.TooLittle = fmt.Sprintf("Too little history: watched for %s, pacing needs %s.", roughDuration(watched), roughDuration(PaceMinHistory))
		return p
	}
	halfLives := func(d time.Duration) float64 { return float64(d) / float64(PaceHalfLife) }
	var count float64
	for i := 1; i < len(points); i++ {
		if rise := points[i].Achieved - points[i-1].Achieved; rise > 0 {
			count += float64(rise) * math.Exp2(-halfLives(asOf.Sub(points[i].At)))
		}
	}
	// ∫ 2^(-age/H) over the time watched, in hours.
	exposure := PaceHalfLife.Hours() / math.Ln2 * (1 - math.Exp2(-halfLives(watched)))
	alpha := 1 - PaceConfidence
	p.CompletesPerHour = count / exposure
	p.High = gammaQuantile(count+1, 1-alpha/2) / exposure
	if count > 0 {
		p.Low = gammaQuantile(count, alpha/2) / exposure
	}
	if p.Full {
		return p
	}
	p.ProjectedFillAt = fillAt(asOf, p.Remaining, p.CompletesPerHour)
	if fieldEnd != nil {
		byLow := fillAt(asOf, p.Remaining, p.Low)
		p.AtRisk = byLow == nil || byLow.After(*fieldEnd)
	}
	return p
}

// fillAt is when remaining completes are reached from asOf at perHour, nil
// when not within paceHorizon.
func fillAt(asOf time.Time, remaining int64, perHour float64) *time.Time {
	if perHour <= 0 {
		return nil
	}
	hours := float64(remaining) / perHour
	if hours > paceHorizon.Hours() {
		return nil
	}
	t := asOf.Add(time.Duration(hours * float64(time.Hour)))
	return &t
}

// IsHardCell reports whether q is a hard quota cell: quotaType hard, in
// any case, as the quota tables read it.
func IsHardCell(q domain.Quota) bool {
	return strings.EqualFold(strings.TrimSpace(q.QuotaType), domain.QuotaTypeHard)
}

// String writes the pace as a coordinator reads it: "12.4 completes/h
// (90%: 8.1–17.9)", or why there is none.
func (p Pacing) String() string {
	if !p.Known() {
		return p.TooLittle
	}
	return fmt.Sprintf("%s completes/h (90%%: %s–%s)", rate(p.CompletesPerHour), rate(p.Low), rate(p.High))
}

// Risk says in a sentence why p is at risk of not filling before
// fieldEnd; "" when it is not at risk.
func (p Pacing) Risk(fieldEnd *time.Time) string {
	if !p.AtRisk || fieldEnd == nil {
		return ""
	}
	return fmt.Sprintf("%d completes left at %s: even at %s/h they are not reached before the field end, %s",
		p.Remaining, p, rate(p.Low), FormatTime(*fieldEnd))
}

// OnPace says in a sentence why p is clearly on pace to fill before
// fieldEnd, past the line an at-risk quota must cross to stop being at
// risk (PaceBackOnPaceShare): full, or at the range's low end filled
// within that share of the time left. "" when it is not, or cannot be
// said: too little history, no field end.
func (p Pacing) OnPace(fieldEnd *time.Time) string {
	if !p.Known() {
		return ""
	}
	if p.Full {
		return "filled: no completes left"
	}
	if fieldEnd == nil || p.AtRisk || !fieldEnd.After(p.AsOf) {
		return ""
	}
	byLow := fillAt(p.AsOf, p.Remaining, p.Low)
	line := p.AsOf.Add(time.Duration(PaceBackOnPaceShare * float64(fieldEnd.Sub(p.AsOf))))
	if byLow == nil || byLow.After(line) {
		return ""
	}
	return fmt.Sprintf("%d completes left at %s: at %s/h they are reached by %s, before the field end, %s",
		p.Remaining, p, rate(p.Low), FormatTime(*byLow), FormatTime(*fieldEnd))
}

// rate writes a rate with one decimal below 100 and none above.
func rate(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// roughDuration writes d in whole minutes or hours.
func roughDuration(d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return "under 2 minutes"
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes", int(d.Minutes()))
	}
	return fmt.Sprintf("%d hours", int(d.Hours()))
}

// gammaQuantile is the x at which the regularised lower incomplete gamma
// function of shape a reaches prob: the Poisson interval's ends are
// gammaQuantile(k, α/2) and gammaQuantile(k+1, 1-α/2). Found by bisection,
// to a relative 1e-9.
func gammaQuantile(a, prob float64) float64 {
	lo, hi := 0.0, math.Max(1, 2*a)
	for lowerGamma(a, hi) < prob {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if lowerGamma(a, mid) < prob {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-9*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// lowerGamma is the regularised lower incomplete gamma function P(a, x),
// by its series below a+1 and its continued fraction above (Numerical
// Recipes, 6.2).
func lowerGamma(a, x float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return sum * front
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		delta := d * c
		h *= delta
		if math.Abs(delta-1) < 1e-15 {
			break
		}
	}
	return 1 - front*h
}
