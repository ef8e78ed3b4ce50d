package checks

import (
	"context"
	"fmt"
	"slices"
	"sync"
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
		total, ok := onlyTotal(d.quotasOf(r.SubsampleID))
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
	tracks, err := s.quotaTracks(ctx, parts, s.Now().Add(-rules.PaceWindow))
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

// maxTrackPoints bounds the quota counts kept per version for pacing
// (trackCache), about 48 bytes each: a subsample's are its quotas' counts
// of the pace's window, a few hundred at most for each quota.
const maxTrackPoints = 1 << 18

// trackCache keeps, with a version's decisions, the quota counts read to
// pace the subsamples asked for, by subsample id: a version's counts do
// not move (every write of them moves the version on), so a subsample's
// page reads them once per version. Beyond maxTrackPoints in all, the
// counts kept already make room, in no particular order.
type trackCache struct {
	mu     sync.Mutex
	read   map[int64]readTracks
	points int
}

// readTracks are a subsample's tracks as read since a time.
type readTracks struct {
	since  time.Time
	tracks map[int64]store.QuotaTrack
	points int
}

// quotaTracks are the tracks of the quotas of parts' subsample since
// since, by quota id (Store.QuotaTracks), read once per version for the
// earliest since asked: a later since takes of them what the store would
// answer for it.
func (s *Service) quotaTracks(ctx context.Context, parts SubsampleParts, since time.Time) (map[int64]store.QuotaTrack, error) {
	// Cut to the millisecond, as SQLite stores times: the store and
	// trackSince then compare the same instant, and a view answers as the
	// first view of its version did.
	since = since.Truncate(time.Millisecond)
	if parts.Decisions == nil {
		return s.Store.QuotaTracks(ctx, parts.SubsampleID, since)
	}
	cache, _ := Memo(parts.Decisions, "checks.quotaTracks", func() (*trackCache, error) { return &trackCache{read: map[int64]readTracks{}}, nil })
	cache.mu.Lock()
	kept, ok := cache.read[parts.SubsampleID]
	cache.mu.Unlock()
	if ok && !since.Before(kept.since) {
		out := make(map[int64]store.QuotaTrack, len(kept.tracks))
		for id, t := range kept.tracks {
			out[id] = trackSince(t, since)
		}
		return out, nil
	}
	tracks, err := s.Store.QuotaTracks(ctx, parts.SubsampleID, since)
	if err != nil {
		return nil, err
	}
	cache.keep(parts.SubsampleID, readTracks{since: since, tracks: tracks})
	return tracks, nil
}

// keep keeps r as subsampleID's tracks, making room for them.
func (c *trackCache) keep(subsampleID int64, r readTracks) {
	for _, t := range r.tracks {
		r.points += len(t.Points)
	}
	if r.points > maxTrackPoints {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.read[subsampleID]; ok {
		c.points -= old.points
		delete(c.read, subsampleID)
	}
	for id, old := range c.read {
		if c.points+r.points <= maxTrackPoints {
			break
		}
		delete(c.read, id)
		c.points -= old.points
	}
	c.read[subsampleID] = r
	c.points += r.points
}

// trackSince is what Store.QuotaTracks answers for since of a track it
// answered for an earlier time: the points at or after since, and the
// last one before it (where the count stood at since).
func trackSince(t store.QuotaTrack, since time.Time) store.QuotaTrack {
	i, _ := slices.BinarySearchFunc(t.Points, since, func(p store.QuotaPoint, at time.Time) int { return p.At.Compare(at) })
	t.Points = t.Points[max(i-1, 0):]
	return t
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
// list, its total quota's pace: one pace for both.
func (d *Decisions) setPacing(pacing map[int64]rules.Pacing) {
	for i := range d.reports {
		if p, ok := pacing[d.reports[i].SubsampleID]; ok {
			d.reports[i].Pacing = &p
		}
	}
	d.livePacing()
}

// livePacing gives each row of the live list the pace of its report.
func (d *Decisions) livePacing() {
	for i := range d.live {
		if j, ok := d.byID[d.live[i].SubsampleID]; ok {
			d.live[i].Pacing = d.reports[j].Pacing
		}
	}
}
