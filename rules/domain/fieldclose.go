package domain

import "time"

// FieldClosure is a quota cell of a subsample closed for routing by the
// field: a quota full came back for a send judged to fall surely in the
// cell while the provider's quotas still showed it open. The provider's
// figures lag; the closure stands until they move or Until passes
// (rules.FieldClosureHolds).
type FieldClosure struct {
	SubsampleID int64  `db:"subsample_id"`
	QuotaID     int64  `db:"quota_id"`
	QuotaName   string `db:"quota_name"`
	// At is when the quota full came back; Until when the closure lapses
	// though the provider's counts have not moved.
	At    time.Time `db:"closed_at"`
	Until time.Time `db:"closed_until"`
	// Achieved, RemainingExclusive and RemainingShared are the quota's
	// counts as the snapshot had them at At.
	Achieved           int64 `db:"achieved"`
	RemainingExclusive int64 `db:"remaining_exclusive"`
	RemainingShared    int64 `db:"remaining_shared"`
}

// CountsMoved says whether q, a later read of the closed quota, shows
// counts other than those recorded at closing: the provider has seen
// progress on the cell since, and its figures can be decided on again.
func (c FieldClosure) CountsMoved(q Quota) bool {
	return q.AchievedInterviews != c.Achieved || q.RemainingExclusive != c.RemainingExclusive || q.RemainingShared != c.RemainingShared
}
