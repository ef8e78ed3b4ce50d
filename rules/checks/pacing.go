package checks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// totalPacing reads the history of every live subsample's total quota and
// paces it (rules.Pace), by subsample id; a subsample without exactly one
// total quota has none.
func (s *Service) totalPacing(ctx context.Context, d *Decisions) (map[int64]rules.Pacing, error) {
	tracks, err := s.Store.TotalQuotaTracks(ctx, s.Now().Add(-rules.PaceWindow))
	if err != nil {
		return nil, fmt.Errorf("pace the total quotas: %w", err)
	}
	out := make(map[int64]rules.Pacing, len(tracks))
	for _, r := range d.reports {
		if !r.Live {
			continue
		}
		total, ok := onlyTotal(d.quotas[r.SubsampleID])
		if !ok {
			continue
		}
		out[r.SubsampleID] = pace(tracks[r.SubsampleID], total, r.FieldEnd)
	}
	return out, nil
}

// QuotaPace is a quota's pace and the counts it was measured on, oldest
// first (the last one before rules.PaceWindow included).
type QuotaPace struct {
	rules.Pacing
	Points []store.QuotaPoint
}

// QuotaPacing paces the total quota and every hard cell of a live
// subsample (rules.Pace), by quota id; the other quotas have none.
func (s *Service) QuotaPacing(ctx context.Context, parts SubsampleParts) (map[int64]QuotaPace, error) {
	out := map[int64]QuotaPace{}
	if !parts.Live {
		return out, nil
	}
	tracks, err := s.Store.QuotaTracks(ctx, parts.SubsampleID, s.Now().Add(-rules.PaceWindow))
	if err != nil {
		return nil, fmt.Errorf("pace the quotas: %w", err)
	}
	for _, q := range parts.Quotas {
		if q.IsTotal() || rules.IsHardCell(q) {
			out[q.QuotaID] = QuotaPace{Pacing: pace(tracks[q.QuotaID], q, parts.FieldEnd), Points: tracks[q.QuotaID].Points}
		}
	}
	return out, nil
}

// pace paces one quota from its track; a quota with no stored history
// gets rules.Pace's "no history" answer.
func pace(track store.QuotaTrack, q domain.Quota, fieldEnd *time.Time) rules.Pacing {
	points := make([]rules.PacePoint, len(track.Points))
	for i, p := range track.Points {
		points[i] = rules.PacePoint{At: p.At, Achieved: p.Achieved}
	}
	return rules.Pace(points, q.Remaining(), track.ReadAt, fieldEnd)
}

// paceWithRead paces q from its stored track and the count read at
// readAt, which the snapshot about to be written adds to the track (the
// store adds a point only when the count moved).
func paceWithRead(track store.QuotaTrack, q domain.Quota, readAt time.Time, fieldEnd *time.Time) rules.Pacing {
	if n := len(track.Points); n == 0 || track.Points[n-1].Achieved != q.AchievedInterviews {
		track.Points = append(slices.Clip(track.Points), store.QuotaPoint{At: readAt, Achieved: q.AchievedInterviews})
	}
	track.ReadAt = readAt
	return pace(track, q, fieldEnd)
}

// onlyTotal returns the one total quota of quotas; false when there is
// none or several (none of them is then the one).
func onlyTotal(quotas []domain.Quota) (domain.Quota, bool) {
	var total domain.Quota
	n := 0
	for _, q := range quotas {
		if q.IsTotal() {
			total, n = q, n+1
		}
	}
	return total, n == 1
}

// setPacing gives each live subsample's report, and its row of the live
// list, its total quota's pace.
func (d *Decisions) setPacing(pacing map[int64]rules.Pacing) {
	d.pacing = pacing
	for i := range d.reports {
		if p, ok := pacing[d.reports[i].SubsampleID]; ok {
			d.reports[i].Pacing = &p
		}
	}
	for i := range d.live {
		if p, ok := pacing[d.live[i].SubsampleID]; ok {
			d.live[i].Pacing = &p
		}
	}
}
