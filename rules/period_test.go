package rules

import (
	"testing"
	"time"
)

func TestParsePeriodBounds(t *testing.T) {
	tests := []struct {
		name, from, to string
		err            string // "" when taken
	}{
		{name: "the first day of the first year taken", from: "2000-01-01"},
		{name: "the last day of the last year taken", to: "2999-12-31"},
		{name: "neither end given: an open period", from: "", to: ""},
		{name: "0001-01-01 is a date out of range, not an end left open", from: "0001-01-01",
			err: `from "0001-01-01" is out of range: use one from 2000 to 2999`},
		{name: "9999-12-31 is out of range: the day after it has no year of four digits", to: "9999-12-31",
			err: `to "9999-12-31" is out of range: use one from 2000 to 2999`},
		{name: "the day before the first year taken", from: "1999-12-31", err: `from "1999-12-31" is out of range: use one from 2000 to 2999`},
		{name: "the first day after the last year taken", to: "3000-01-01", err: `to "3000-01-01" is out of range: use one from 2000 to 2999`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParsePeriod(tt.from, tt.to, time.UTC)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("ParsePeriod(%q, %q): %v, want it taken", tt.from, tt.to, err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("ParsePeriod(%q, %q): %v, want %q", tt.from, tt.to, err, tt.err)
			}
		})
	}
}
