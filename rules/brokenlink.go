package rules

import (
	"fmt"
	"math"
)

// A possible broken survey link: the returns of a subsample keep coming
// back without a complete, where its conversion says one should have come.
const (
	// LinkSuspectMinRun is the shortest run of returns without a complete
	// that flags a subsample, whatever its conversion: fewer returns say
	// too little about a survey.
	LinkSuspectMinRun = 20
	// LinkSuspectChance is how unlikely the run must be at the
	// subsample's conversion, returns taken as independent: flagged when
	// (1 - conversion)^run is below it.
	LinkSuspectChance = 0.01
	// LinkSuspectUnknownRun is the run that flags a subsample whose
	// conversion is not known: 40 returns without a complete happen by
	// chance less than once in a hundred for any survey converting 11% or
	// more, which few surveys sent to in earnest do not.
	LinkSuspectUnknownRun = 40
)

// LinkSuspicion is whether a subsample's run of returns without a
// complete makes its survey link suspect, and why, in a sentence.
type LinkSuspicion struct {
	Suspect bool
	Why     string // the sentence of a suspect link; "" otherwise
}

// LinkSuspect decides whether subsampleID's survey link may be broken:
// run returns came back in a row without a complete, where conversion is
// the share of entrants who complete (a percentage, the figure the EPC is
// built on: the conversion in field, else the expected incidence;
// source says which, EPCNone when neither is known). It is flagged when
// run is at least LinkSuspectMinRun and a run that long would happen by
// chance less than LinkSuspectChance of the time at that conversion; at
// an unknown conversion (or one that is not a percentage above 0), when
// run is at least LinkSuspectUnknownRun.
func LinkSuspect(subsampleID int64, run int, conversion float64, source EPCSource) LinkSuspicion {
	if run < LinkSuspectMinRun {
		return LinkSuspicion{}
	}
	known := source != EPCNone && conversion > 0 && isPercent(conversion)
	if !known {
		if run < LinkSuspectUnknownRun {
			return LinkSuspicion{}
		}
		return LinkSuspicion{Suspect: true, Why: fmt.Sprintf("Subsample %d: %d returns in a row without a complete, "+
			"and no conversion is known to expect one by: its survey link may be broken.", subsampleID, run)}
	}
	if math.Pow(1-conversion/100, float64(run)) >= LinkSuspectChance {
		return LinkSuspicion{}
	}
	figure := "conversion in field"
	if source == EPCEstimate {
		figure = "expected incidence"
	}
	return LinkSuspicion{Suspect: true, Why: fmt.Sprintf("Subsample %d: %d returns in a row without a complete, "+
		"where its %s of %s would have given one almost surely: its survey link may be broken.", subsampleID, run, figure, percent(conversion))}
}

// LinkSuspectRun is the shortest run of returns without a complete that
// LinkSuspect flags at conversion (from source): LinkSuspectUnknownRun
// without a known conversion, else the first run from LinkSuspectMinRun
// on whose chance at that conversion is under LinkSuspectChance. A run
// shorter than it flags nothing, so it is all that need be read.
func LinkSuspectRun(conversion float64, source EPCSource) int {
	if source == EPCNone || !(conversion > 0) || !isPercent(conversion) {
		return LinkSuspectUnknownRun
	}
	run := LinkSuspectMinRun
	if conversion < 100 {
		run = max(run, int(math.Log(LinkSuspectChance)/math.Log(1-conversion/100)))
	}
	for run > LinkSuspectMinRun && math.Pow(1-conversion/100, float64(run-1)) < LinkSuspectChance {
		run--
	}
	for math.Pow(1-conversion/100, float64(run)) >= LinkSuspectChance {
		run++
	}
	return run
}

// LinkConversion is the conversion a subsample's returns are expected to
// complete at, as a percentage, and its source: the total quota's
// conversion in field when above 0 and a percentage, else the expected
// incidence when above 0 and a percentage (an incidence bounds the
// conversion from above, so a run is judged a little sooner on it), else
// none (EPCNone). The same figures, in the same order, as ExpectedEarnings.
func LinkConversion(fieldConversion float64, expectedIncidence *float64) (float64, EPCSource) {
	switch {
	case !isPercent(fieldConversion):
		return 0, EPCNone // the provider's figures are in doubt
	case fieldConversion > 0:
		return fieldConversion, EPCField
	case expectedIncidence != nil && *expectedIncidence > 0 && isPercent(*expectedIncidence):
		return *expectedIncidence, EPCEstimate
	}
	return 0, EPCNone
}
