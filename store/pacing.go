package store

import (
	"context"
	"fmt"
	"time"
)

// QuotaTrack is what pacing needs of one quota of a live subsample: its
// counts since a time, oldest first, and when its subsample's quotas were
// last read (the count held from the last point until then).
type QuotaTrack struct {
	SubsampleID int64
	QuotaID     int64
	ReadAt      time.Time
	Points      []QuotaPoint
}

// TotalQuotaTracks returns the history of every live subsample's total
// quota (as LiveRows finds it) since since, by subsample id: the points
// at or after since and the last one before it, which is where the count
// stood at since. A subsample with several total quotas is left out.
func (s *Store) TotalQuotaTracks(ctx context.Context, since time.Time) (map[int64]QuotaTrack, error) {
	// The total quotas come from their own index (migration 021), each
	// then looked up among the live subsamples.
	tracks, err := s.quotaTracks(ctx, totalQuotaCondition+` AND EXISTS (SELECT 1 FROM live_subsamples l WHERE l.subsample_id = q.subsample_id)`, since)
	if err != nil {
		return nil, fmt.Errorf("total quota history: %w", err)
	}
	out := make(map[int64]QuotaTrack, len(tracks))
	several := map[int64]bool{}
	for _, t := range tracks {
		if _, ok := out[t.SubsampleID]; ok {
			several[t.SubsampleID] = true
		}
		out[t.SubsampleID] = t
	}
	for id := range several {
		delete(out, id)
	}
	return out, nil
}

// QuotaTracks returns the history of every quota of one subsample since
// since, by quota id, as TotalQuotaTracks does for the total quotas.
func (s *Store) QuotaTracks(ctx context.Context, subsampleID int64, since time.Time) (map[int64]QuotaTrack, error) {
	tracks, err := s.quotaTracks(ctx, `q.subsample_id = ?`, since, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("quota history of subsample %d: %w", subsampleID, err)
	}
	out := make(map[int64]QuotaTrack, len(tracks))
	for _, t := range tracks {
		out[t.QuotaID] = t
	}
	return out, nil
}

// quotaTracks reads the tracks of the stored quotas that where selects
// (on quotas q, with its arguments).
func (s *Store) quotaTracks(ctx context.Context, where string, since time.Time, args ...any) ([]QuotaTrack, error) {
	// The quotas are chosen first (MATERIALIZED keeps the planner from
	// walking every quota's whole history instead and then looking each
	// up), then each one's history read from since by its key. SQLite
	// takes the tables of a CROSS JOIN in the order written: the quotas
	// first, by the index where selects on, then each one's fetch.
	rows, err := s.reader.QueryxContext(ctx, `
		WITH chosen AS MATERIALIZED (
			SELECT q.subsample_id, q.quota_id, f.quotas_at
			FROM quotas q CROSS JOIN subsample_fetches f
			WHERE f.subsample_id = q.subsample_id AND `+where+`)
		SELECT h.subsample_id, h.quota_id, c.quotas_at, h.at, h.achieved, h.remaining_exclusive, h.remaining_shared
		FROM chosen c
		JOIN quota_history h ON h.subsample_id = c.subsample_id AND h.quota_id = c.quota_id
		WHERE h.at >= COALESCE((
			SELECT MAX(b.at) FROM quota_history b
			WHERE b.subsample_id = c.subsample_id AND b.quota_id = c.quota_id AND b.at < ?), ?)
		ORDER BY h.subsample_id, h.quota_id, h.at`, append(args, since, since)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []QuotaTrack
	for rows.Next() {
		var subsampleID, quotaID int64
		var readAt time.Time
		var p QuotaPoint
		if err := rows.Scan(&subsampleID, &quotaID, &readAt, &p.At, &p.Achieved, &p.RemainingExclusive, &p.RemainingShared); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].SubsampleID != subsampleID || out[n-1].QuotaID != quotaID {
			out = append(out, QuotaTrack{SubsampleID: subsampleID, QuotaID: quotaID, ReadAt: readAt})
		}
		out[len(out)-1].Points = append(out[len(out)-1].Points, p)
	}
	return out, rows.Err()
}
