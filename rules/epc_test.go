package rules

import (
	"math"
	"testing"

	"fieldboard/rules/domain"
)

func incidence(v float64) *float64 { return &v }

func TestExpectedEarnings(t *testing.T) {
	tests := []struct {
		name       string
		cpi        float64
		currency   string
		conversion float64
		incidence  *float64
		want       EPC
		str        string
		detail     string
	}{
		{name: "epc is targetedCPI × actualClientConversionRate / 100 when the conversion is above 0",
			cpi: 1.5, currency: "USD", conversion: 30, incidence: incidence(60),
			want: EPC{Value: 0.45, Currency: "USD", Source: EPCField, Rate: 30, CPI: 1.5},
			str:  "0.45 USD", detail: "0.45 USD per entry: CPI 1.50 USD × 30% conversion in field."},
		{name: "else targetedCPI × expectedIncidenceRate / 100",
			cpi: 2, currency: "EUR", conversion: 0, incidence: incidence(25),
			want: EPC{Value: 0.5, Currency: "EUR", Source: EPCEstimate, Rate: 25, CPI: 2},
			str:  "0.50 EUR", detail: "0.50 EUR per entry: CPI 2.00 EUR × 25% expected incidence (no conversion in field yet)."},
		{name: "else no figure",
			cpi: 2, currency: "EUR", conversion: 0, incidence: nil,
			want: EPC{Currency: "EUR", CPI: 2, Why: "No expected earnings: no conversion in field yet and no expected incidence."}},
		{name: "the figure stays in the subsample's currency, trimmed",
			cpi: 100, currency: " JPY ", conversion: 12.5,
			want: EPC{Value: 12.5, Currency: "JPY", Source: EPCField, Rate: 12.5, CPI: 100}, str: "12.50 JPY"},
		{name: "a conversion of 100% is the whole CPI",
			cpi: 1.25, currency: "USD", conversion: 100,
			want: EPC{Value: 1.25, Currency: "USD", Source: EPCField, Rate: 100, CPI: 1.25}},
		{name: "CPI 0 gives no figure",
			cpi: 0, currency: "USD", conversion: 30,
			want: EPC{Currency: "USD", Why: "No expected earnings: the CPI is 0.00 USD; it must be greater than 0."}},
		{name: "a negative CPI gives no figure", cpi: -1, currency: "USD", conversion: 30, want: EPC{Currency: "USD", CPI: -1}},
		{name: "a CPI that is not a number gives no figure", cpi: math.NaN(), currency: "USD", conversion: 30},
		{name: "an infinite CPI gives no figure", cpi: math.Inf(1), currency: "USD", conversion: 30},
		{name: "a CPI so large that CPI × conversion is not a finite number gives no figure",
			cpi: 8e306, currency: "USD", conversion: 100,
			want: EPC{Currency: "USD", CPI: 8e306, Why: "No expected earnings: the CPI, 8e+306 USD, is too large to give a figure."}},
		{name: "a CPI so large that CPI × expected incidence is not a finite number gives no figure",
			cpi: math.MaxFloat64, currency: "USD", incidence: incidence(60), want: EPC{Currency: "USD", CPI: math.MaxFloat64}},
		{name: "a field conversion above 100 gives no figure, not the estimate",
			cpi: 1, currency: "USD", conversion: 130, incidence: incidence(20),
			want: EPC{Currency: "USD", CPI: 1, Why: "No expected earnings: the conversion in field, 130%, is not a percentage."}},
		{name: "a negative field conversion gives no figure", cpi: 1, currency: "USD", conversion: -5, incidence: incidence(20),
			want: EPC{Currency: "USD", CPI: 1}},
		{name: "a field conversion that is not a number gives no figure", cpi: 1, currency: "USD", conversion: math.NaN(), incidence: incidence(20)},
		{name: "an expected incidence above 100 gives no figure", cpi: 1, currency: "USD", incidence: incidence(101),
			want: EPC{Currency: "USD", CPI: 1,
				Why: "No expected earnings: no conversion in field yet, and the expected incidence, 101%, is not a percentage above 0."}},
		{name: "an expected incidence of 0 is taken as not given", cpi: 1, currency: "USD", incidence: incidence(0),
			want: EPC{Currency: "USD", CPI: 1}},
		{name: "a negative expected incidence gives no figure", cpi: 1, currency: "USD", incidence: incidence(-3), want: EPC{Currency: "USD", CPI: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExpectedEarnings(tt.cpi, tt.currency, tt.conversion, tt.incidence)
			if tt.want.Known() {
				if got.Source != tt.want.Source || got.Currency != tt.want.Currency || got.Rate != tt.want.Rate ||
					math.Abs(got.Value-tt.want.Value) > 1e-9 || got.Why != "" {
					t.Errorf("got %+v, want %+v", got, tt.want)
				}
				if !got.Known() {
					t.Error("Known() false, want true")
				}
			} else {
				if got.Known() || got.Value != 0 || got.Rate != 0 || got.Why == "" {
					t.Errorf("got %+v, want no figure with a reason", got)
				}
				if got.String() != "" {
					t.Errorf("String() = %q, want \"\" without a figure", got.String())
				}
				if got.Detail() != got.Why {
					t.Errorf("Detail() = %q, want Why %q", got.Detail(), got.Why)
				}
			}
			if tt.want.Why != "" && got.Why != tt.want.Why {
				t.Errorf("Why %q, want %q", got.Why, tt.want.Why)
			}
			if tt.want.Currency != "" && got.Currency != tt.want.Currency {
				t.Errorf("Currency %q, want %q", got.Currency, tt.want.Currency)
			}
			if tt.str != "" && got.String() != tt.str {
				t.Errorf("String() = %q, want %q", got.String(), tt.str)
			}
			if tt.detail != "" && got.Detail() != tt.detail {
				t.Errorf("Detail() = %q, want %q", got.Detail(), tt.detail)
			}
		})
	}
}

func TestFieldConversion(t *testing.T) {
	withRate := func(q domain.Quota, rate float64) domain.Quota { q.ActualClientConversionRate = rate; return q }
	tests := []struct {
		name   string
		quotas []domain.Quota
		want   float64
	}{
		{"the total quota's actualClientConversionRate", []domain.Quota{withRate(quota(2, 1, 0), 99), withRate(total(5, 0), 42)}, 42},
		{"no total quota: nothing measured", []domain.Quota{withRate(quota(2, 1, 0), 99)}, 0},
		{"no quotas: nothing measured", nil, 0},
		{"two total quotas: which counts is unclear, nothing measured",
			[]domain.Quota{withRate(total(5, 0), 42), withRate(total(5, 0), 43)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FieldConversion(tt.quotas); got != tt.want {
				t.Errorf("FieldConversion = %v, want %v", got, tt.want)
			}
		})
	}
}
