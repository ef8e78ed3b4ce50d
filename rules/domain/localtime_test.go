package domain_test

import (
	"testing"
	"time"

	"fieldboard/rules/domain"
)

func TestParseLocalTime(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	cases := []struct {
		in   string
		want time.Time // zero when an error is wanted
	}{
		{"2025-01-02T03:04:05.678", time.Date(2025, 1, 2, 3, 4, 5, 678e6, tokyo)},
		{"2025-01-02T03:04:05", time.Date(2025, 1, 2, 3, 4, 5, 0, tokyo)},
		{"2025-01-02 03:04:05", time.Date(2025, 1, 2, 3, 4, 5, 0, tokyo)},
		{"2025-01-02 03:04:05.1", time.Date(2025, 1, 2, 3, 4, 5, 100e6, tokyo)},
		{"2025-01-02T03:04:05.123456789", time.Date(2025, 1, 2, 3, 4, 5, 123456789, tokyo)},
		{"2024-02-29T00:00:00.000", time.Date(2024, 2, 29, 0, 0, 0, 0, tokyo)},
		{"2025-01-02T03:04:05Z", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"2025-01-02T03:04:05.5-05:00", time.Date(2025, 1, 2, 8, 4, 5, 500e6, time.UTC)},
		{"", time.Time{}},
		{"2025-01-02", time.Time{}},
		{"2025-13-02T03:04:05.000", time.Time{}},
		{"2025-02-29T03:04:05.000", time.Time{}},
		{"2025-01-02T24:00:00.000", time.Time{}},
		{"2025-01-02T03:04:05.", time.Time{}},
		{"2025-01-02T03:04:05.1234567890", time.Time{}},
		{"2025-01-02X03:04:05.000", time.Time{}},
		{"2025-1-02T03:04:05.000", time.Time{}},
		{"02/01/2025 03:04:05", time.Time{}},
	}
	for _, c := range cases {
		got, err := domain.ParseLocalTime(c.in, tokyo)
		switch {
		case c.want.IsZero() && err == nil:
			t.Errorf("ParseLocalTime(%q) = %v, want an error", c.in, got)
		case !c.want.IsZero() && err != nil:
			t.Errorf("ParseLocalTime(%q): %v", c.in, err)
		case !c.want.IsZero() && !got.Equal(c.want):
			t.Errorf("ParseLocalTime(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	if got, err := domain.ParseLocalTime("2025-01-02T03:04:05.000", nil); err != nil || !got.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("nil location: %v, %v; want UTC", got, err)
	}
}
