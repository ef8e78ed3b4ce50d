package views

import (
	"slices"
	"testing"

	"fieldboard/rules"
)

// TestPropCodeSaysItIsACode: a coded field whose values the provider's
// reference data does not name reads as what it is a code of, and says
// why it has no name, never as a bare number.
func TestPropCodeSaysItIsACode(t *testing.T) {
	two := int64(2)
	for _, tt := range []struct {
		code *int64
		want string
	}{
		{nil, "–"},
		{&two, "interview type 2 (not in the provider's reference data)"},
	} {
		if got := propCode("interview type", tt.code); got != tt.want {
			t.Errorf("propCode(%v) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

// TestTooLittleHistoryIsSaidOnce: the quota table's note counts the
// quotas without a pace and gives each reason once.
func TestTooLittleHistoryIsSaidOnce(t *testing.T) {
	short := &rules.Pacing{TooLittle: "Too little history: watched for 10 minutes, pacing needs 1 hour."}
	none := &rules.Pacing{TooLittle: "No history of this quota yet."}
	known := &rules.Pacing{CompletesPerHour: 3}
	quotas := []QuotaView{{Pacing: short}, {Pacing: known}, {Pacing: nil}, {Pacing: short}, {Pacing: none}}
	n, why := tooLittleHistory(quotas)
	if n != 3 || !slices.Equal(why, []string{short.TooLittle, none.TooLittle}) {
		t.Errorf("tooLittleHistory = %d, %q; want 3 quotas and the two reasons once each", n, why)
	}
	if n, why := tooLittleHistory([]QuotaView{{Pacing: known}}); n != 0 || why != nil {
		t.Errorf("with every pace known: %d, %q; want no note", n, why)
	}
}

// TestPropPriceSaysUnknown: the live details show a price the provider
// did not give as unknown, never as 0.
func TestPropPriceSaysUnknown(t *testing.T) {
	for _, tt := range []struct {
		cpi      float64
		currency string
		want     string
	}{
		{2.5, "EUR", "2.50 EUR"}, {0, "EUR", propPriceUnknown}, {3, "", propPriceUnknown}, {-1, "USD", propPriceUnknown},
	} {
		if got := propPrice(tt.cpi, tt.currency); got != tt.want {
			t.Errorf("propPrice(%v, %q) = %q, want %q", tt.cpi, tt.currency, got, tt.want)
		}
	}
	if got := currencyDefault([]string{"EUR", "USD"}); got != "any (a CPI range needs one)" {
		t.Errorf("currencyDefault over two currencies = %q, want it to say a range needs one", got)
	}
}
