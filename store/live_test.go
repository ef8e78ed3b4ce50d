package store_test

import (
	"context"
	"math"
	"testing"
	"time"

	"fieldboard/store/storetest"
)

// TestLiveRowsRemainingCannotOverflow: a total quota's remaining counts
// stored before the client bounded them (an "unlimited" 9223372036854775807
// beside a remainingShared of 10, or both at the 64-bit minimum) are added
// as domain.Quota.Remaining adds them, stopping at the 64-bit limit: the
// live list is read, where the sum overflowed in SQL and every page that
// reads it answered 500.
func TestLiveRowsRemainingCannotOverflow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name              string
		exclusive, shared int64
		want              int64
	}{
		{"the largest int64 and 10", math.MaxInt64, 10, math.MaxInt64},
		{"10 and the largest int64", 10, math.MaxInt64, math.MaxInt64},
		{"both at the smallest int64", math.MinInt64, math.MinInt64, math.MinInt64},
		{"the largest and the smallest", math.MaxInt64, math.MinInt64, -1},
		{"ordinary counts", 30, 12, 42},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
				ctx := context.Background()
				s := open(t, db)
				snap := snapshotAt(t0, 40)
				d := snap.Details[100]
				d.Quotas[0].RemainingExclusive, d.Quotas[0].RemainingShared = tt.exclusive, tt.shared
				if _, err := s.SaveEvents(ctx, snap, 7*24*time.Hour); err != nil {
					t.Fatal(err)
				}
				rows, err := s.LiveRows(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != 1 || rows[0].TotalRemaining == nil || *rows[0].TotalRemaining != tt.want {
					t.Fatalf("live rows %+v; want the total's remaining %d", rows, tt.want)
				}
				if got := d.Quotas[0].Remaining(); got != tt.want {
					t.Errorf("domain.Quota.Remaining %d, the store's sum %d: one sum, read alike", got, tt.want)
				}
			})
		})
	}
}
