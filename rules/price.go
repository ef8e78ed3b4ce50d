package rules

import (
	"math"
	"strings"
)

// PriceKnown reports whether the provider gave a price: a currency and a
// finite CPI above 0 (the provider's targetedCPI of 0 or less, or no
// targetedCurrency, means it gave none). It is the one rule every page,
// CSV, JSON answer and sort uses to tell a price from an unknown one: an
// unknown price is shown as unknown (an empty cell, a null), never as 0.
func PriceKnown(cpi float64, currency string) bool {
	return strings.TrimSpace(currency) != "" && cpi > 0 && !math.IsInf(cpi, 0)
}

// KnownCPI is cpi when the price is known (PriceKnown), nil otherwise.
func KnownCPI(cpi *float64, currency string) *float64 {
	if cpi == nil || !PriceKnown(*cpi, currency) {
		return nil
	}
	return cpi
}
