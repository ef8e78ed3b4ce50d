package rules

import (
	"math"
	"testing"

	"fieldboard/rules/domain"
)

// TestQuotaMatchHugeRemaining: a cell's remainingExclusive + remainingShared
// is added without wrapping (domain.Quota.Remaining). "For each other
// quota, when remainingExclusive + remainingShared is greater than 0,
// sample may be sent to that quota": a cell with 9223372036854775807 and 1
// remaining has room and never reads as quota_full; two counts at the
// 64-bit minimum are full, never open.
func TestQuotaMatchHugeRemaining(t *testing.T) {
	tests := []struct {
		name              string
		exclusive, shared int64
		want              QuotaVerdict
	}{
		{"the largest int64 and 1: open", math.MaxInt64, 1, QuotaFits},
		{"1 and the largest int64: open", 1, math.MaxInt64, QuotaFits},
		{"both at the smallest int64: full", math.MinInt64, math.MinInt64, QuotaFull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cells := CompileQuotas([]domain.Quota{total(10, 0), ageCell(11, "35", "54", tt.exclusive, tt.shared)})
			if got := cells.Verdict(aged(40, nil), checkDay); got != tt.want {
				t.Errorf("verdict %s; want %s (%v)", got, tt.want, cells.Explain(aged(40, nil), checkDay, nil))
			}
			// The same counts on the total quota: open is sendable, full paused.
			want := Sendable
			if tt.want == QuotaFull {
				want = Paused
			}
			if v := Sendability(liveFacts(total(tt.exclusive, tt.shared))); v.State != want {
				t.Errorf("a total quota of %d and %d: %s %v; want %s", tt.exclusive, tt.shared, v.State, v.Reasons, want)
			}
		})
	}
}
