package rules

import (
	"math"
	"strconv"
	"strings"

	"fieldboard/rules/domain"
)

// EPCSource says which conversion an EPC is built on.
type EPCSource string

// The sources of an EPC.
const (
	// EPCField: the total quota's actualClientConversionRate, the
	// conversion measured in field.
	EPCField EPCSource = "field"
	// EPCEstimate: live details' expectedIncidenceRate, the commissioned
	// incidence, used while nothing was measured in field.
	EPCEstimate EPCSource = "estimate"
	// EPCNone: no figure.
	EPCNone EPCSource = ""
)

// EPC is a subsample's expected earnings per entry: what sending one
// panelist is worth on average, targetedCPI × conversion, in the
// subsample's own currency. Figures in different currencies are never to
// be added up or compared as numbers; nothing here converts them.
type EPC struct {
	Value    float64 // in Currency; 0 when not Known
	Currency string  // the subsample's targetedCurrency, trimmed; may be empty
	Source   EPCSource
	Rate     float64 // the conversion used, as a percentage (0-100]; 0 when not Known
	CPI      float64 // the targetedCPI the figure is built on
	Why      string  // why there is no figure, a sentence; "" when Known
}

// Known reports whether there is a figure.
func (e EPC) Known() bool { return e.Source != EPCNone }

// Meaning says what the source word under a figure means, for a
// coordinator: "" for EPCNone.
func (s EPCSource) Meaning() string {
	switch s {
	case EPCField:
		return "the conversion the provider measured in field"
	case EPCEstimate:
		return "the expected incidence, an estimate used while nothing is measured in field"
	}
	return ""
}

// EPCLegend explains an EPC figure and the words under it, in one line a
// page shows beside them.
const EPCLegend = "EPC: expected earnings per entrant, the CPI × a conversion; “field” means " +
	"the conversion the provider measured in field, “estimate” the expected incidence, used while nothing is measured in field."

// String writes the figure as "0.45 USD", or "" when there is none, so a
// page or CSV shows its own placeholder.
func (e EPC) String() string {
	if !e.Known() {
		return ""
	}
	return formatCPI(e.Value, e.Currency)
}

// Detail says how the figure was reached, or why there is none, in a
// sentence.
func (e EPC) Detail() string {
	switch e.Source {
	case EPCField:
		return e.String() + " per entry: CPI " + formatCPI(e.CPI, e.Currency) + " × " + percent(e.Rate) +
			" conversion in field."
	case EPCEstimate:
		return e.String() + " per entry: CPI " + formatCPI(e.CPI, e.Currency) + " × " + percent(e.Rate) +
			" expected incidence (no conversion in field yet)."
	}
	return e.Why
}

// ExpectedEarnings is the EPC of one live subsample: cpi (targetedCPI)
// × fieldConversion / 100 when fieldConversion (the total quota's
// actualClientConversionRate, see FieldConversion) is above 0; else
// × expectedIncidence / 100 (live details' expectedIncidenceRate); else no
// figure. Rates are percentages.
//
// Nonsense gives no figure rather than a guess: a CPI that is not above 0
// or not finite; a field conversion that is negative, above 100 or not a
// number (the estimate is then not used either, as the provider's
// figures are in doubt); an expected incidence that is missing, not above
// 0 (an incidence of 0 is taken as not given: no survey is commissioned
// for nobody) or above 100.
func ExpectedEarnings(cpi float64, currency string, fieldConversion float64, expectedIncidence *float64) EPC {
	e := EPC{Currency: strings.TrimSpace(currency), CPI: cpi}
	switch {
	case !(cpi > 0) || math.IsInf(cpi, 1):
		return e.none("No expected earnings: the CPI is " + formatCPI(cpi, e.Currency) + "; it must be greater than 0.")
	case !isPercent(fieldConversion):
		return e.none("No expected earnings: the conversion in field, " + percent(fieldConversion) +
			", is not a percentage.")
	case fieldConversion > 0:
		return e.from(EPCField, fieldConversion)
	case expectedIncidence == nil:
		return e.none("No expected earnings: no conversion in field yet and no expected incidence.")
	case !(*expectedIncidence > 0) || !isPercent(*expectedIncidence):
		return e.none("No expected earnings: no conversion in field yet, and the expected incidence, " +
			percent(*expectedIncidence) + ", is not a percentage above 0.")
	}
	return e.from(EPCEstimate, *expectedIncidence)
}

// FieldConversion is the actualClientConversionRate of the subsample's
// total quota, for ExpectedEarnings; 0 (nothing measured) when there is no
// total quota or more than one, since which one counts is then unclear.
func FieldConversion(quotas []domain.Quota) float64 {
	rate, totals := 0.0, 0
	for i := range quotas {
		if quotas[i].IsTotal() {
			rate = quotas[i].ActualClientConversionRate
			totals++
		}
	}
	if totals != 1 {
		return 0
	}
	return rate
}

func (e EPC) from(source EPCSource, rate float64) EPC {
	value := e.CPI * rate / 100
	if math.IsInf(value, 0) || math.IsNaN(value) {
		return e.none("No expected earnings: the CPI, " + strconv.FormatFloat(e.CPI, 'g', 6, 64) + " " + e.Currency +
			", is too large to give a figure.")
	}
	e.Source, e.Rate, e.Value = source, rate, value
	return e
}

func (e EPC) none(why string) EPC {
	e.Why = why
	return e
}

// isPercent reports whether rate lies in 0..100 (false for NaN).
func isPercent(rate float64) bool { return rate >= 0 && rate <= 100 }

// percent writes a rate as "30%" or "12.5%", to two decimals at most.
func percent(rate float64) string {
	if !math.IsNaN(rate) && !math.IsInf(rate, 0) {
		rate = math.Round(rate*100) / 100
	}
	return strconv.FormatFloat(rate, 'f', -1, 64) + "%"
}
