package rules

import (
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestFieldClosureHolds: the spec's Quota sending rule, "For each other
// quota, when remainingExclusive + remainingShared is greater than 0,
// sample may be sent to that quota", is overruled by a quota full that
// came back from the field, until the provider's counts move or the
// closure's time is up.
func TestFieldClosureHolds(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 4, 14, 5, 0, 0, time.UTC)
	closure := domain.FieldClosure{SubsampleID: 7, QuotaID: 12, QuotaName: "Women 18-34", At: at, Until: at.Add(30 * time.Minute),
		Achieved: 40, RemainingExclusive: 3, RemainingShared: 2}
	asClosed := quota(12, 3, 2)
	asClosed.AchievedInterviews = 40
	moved := func(f func(q *domain.Quota)) domain.Quota {
		q := asClosed
		f(&q)
		return q
	}
	for _, tc := range []struct {
		name  string
		quota domain.Quota
		now   time.Time
		want  bool
	}{
		{"at closing", asClosed, at, true},
		{"a minute before until", asClosed, at.Add(29 * time.Minute), true},
		{"a nanosecond before until", asClosed, at.Add(30*time.Minute - 1), true},
		{"at until", asClosed, at.Add(30 * time.Minute), false},
		{"after until", asClosed, at.Add(31 * time.Minute), false},
		{"completes moved", moved(func(q *domain.Quota) { q.AchievedInterviews = 41 }), at.Add(time.Minute), false},
		{"exclusive remaining moved", moved(func(q *domain.Quota) { q.RemainingExclusive = 2 }), at.Add(time.Minute), false},
		{"shared remaining moved", moved(func(q *domain.Quota) { q.RemainingShared = 0 }), at.Add(time.Minute), false},
		{"moved up (the provider raised the target)", moved(func(q *domain.Quota) { q.RemainingShared = 20 }), at.Add(time.Minute), false},
		{"other fields moved, not the counts", moved(func(q *domain.Quota) { q.ActualClientLOI = 12 }), at.Add(time.Minute), true},
	} {
		if got := FieldClosureHolds(closure, tc.quota, tc.now); got != tc.want {
			t.Errorf("%s: FieldClosureHolds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFieldClosureReason(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 4, 14, 5, 0, 0, time.FixedZone("CET", 3600))
	got := FieldClosureReason(domain.FieldClosure{QuotaID: 12, QuotaName: "Women 18-34", At: at, Until: at.Add(30 * time.Minute)})
	want := "A quota full came back from the field at 13:05 UTC for cell 12 (Women 18-34), which the provider still shows open: " +
		"closed for routing until its counts move, at most until 13:35 UTC."
	if got != want {
		t.Errorf("FieldClosureReason =\n  %s\nwant\n  %s", got, want)
	}
}
