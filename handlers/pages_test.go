package handlers

import (
	"math"
	"testing"
)

// TestPageOffsetNeverOverflows: (page-1) × size for the largest page
// numbers wraps around in an int (to the first page, or a negative
// offset); pageOffset saturates instead, past any list.
func TestPageOffsetNeverOverflows(t *testing.T) {
	for _, tt := range []struct {
		name             string
		page, size, want int
	}{
		{"the first page", 1, 100, 0},
		{"the third page", 3, 50, 100},
		{"the largest page of 100", math.MaxInt, 100, math.MaxInt},
		{"the first page whose offset overflows, 50 a page", math.MaxInt/50 + 2, 50, math.MaxInt},
		{"the last page whose offset fits, 50 a page", math.MaxInt/50 + 1, 50, math.MaxInt / 50 * 50},
		{"a page number below 1", 0, 100, 0},
	} {
		if got := pageOffset(tt.page, tt.size); got != tt.want {
			t.Errorf("%s: pageOffset(%d, %d) = %d, want %d", tt.name, tt.page, tt.size, got, tt.want)
		}
	}
}

// TestPageNumbersBeyondAnIntAreTheLargest: a page number too large for an
// int reads as the largest, which shows the last page, rather than a 400;
// what is not a whole number from 1 is refused.
func TestPageNumbersBeyondAnIntAreTheLargest(t *testing.T) {
	for raw, want := range map[string]int{"": 1, "1": 1, "7": 7, "9223372036854775807": math.MaxInt, "99999999999999999999": math.MaxInt} {
		if got, err := parsePageNumber(raw); err != nil || got != want {
			t.Errorf("parsePageNumber(%q) = %d, %v; want %d", raw, got, err, want)
		}
	}
	for _, raw := range []string{"0", "-1", "-99999999999999999999", "abc", "1.5"} {
		if _, err := parsePageNumber(raw); err == nil {
			t.Errorf("parsePageNumber(%q) read a page", raw)
		}
	}
}
