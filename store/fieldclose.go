package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// fieldClosureColumns are the columns of a domain.FieldClosure.
const fieldClosureColumns = `subsample_id, quota_id, quota_name, closed_at, closed_until, achieved, remaining_exclusive, remaining_shared`

// CloseFromField closes the cells (quota ids) of subsampleID for routing
// from at until until: a quota full came back from the field for a send
// judged to fall surely in them. Each closure records the quota's counts
// as the current snapshot has them, for the next quota read to compare
// (liftFieldClosures); a cell the snapshot does not hold for the
// subsample is not closed. A cell still closed keeps its first closure
// (when and at which counts) and closes until the later of the two
// untils; one whose closure lapsed is closed anew. Each new closure is a
// quota.closed_by_field in the change feed. The snapshot version moves
// on, so that every instance decides on the closures at its next check.
// It returns the closures written, new or extended.
func (s *Store) CloseFromField(ctx context.Context, subsampleID int64, cells []int64, at, until time.Time) ([]domain.FieldClosure, error) {
	var out []domain.FieldClosure
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		out = nil // a retried transaction starts again
		if err := s.dialect.serialize(ctx, tx, "snapshot"); err != nil {
			return err
		}
		// Closures whose counts moved or time passed go first, said so,
		// so that a cell closed again is a new closure.
		if err := liftFieldClosures(ctx, tx, s.dialect, 0, at); err != nil {
			return err
		}
		var changes []domain.Change
		for _, quotaID := range cells {
			var rows []domain.FieldClosure
			if err := tx.SelectContext(ctx, &rows, `SELECT `+fieldClosureColumns+` FROM field_closures WHERE subsample_id = ? AND quota_id = ?`,
				subsampleID, quotaID); err != nil {
				return fmt.Errorf("field closure of cell %d: %w", quotaID, err)
			}
			if len(rows) > 0 {
				c := rows[0]
				if until.After(c.Until) {
					c.Until = until
					if _, err := tx.ExecContext(ctx, `UPDATE field_closures SET closed_until = ? WHERE subsample_id = ? AND quota_id = ?`,
						until.UTC(), subsampleID, quotaID); err != nil {
						return fmt.Errorf("extend the field closure of cell %d: %w", quotaID, err)
					}
				}
				out = append(out, c)
				continue
			}
			if err := tx.SelectContext(ctx, &rows, `SELECT subsample_id, quota_id, TRIM(quota_name) AS quota_name, achieved, remaining_exclusive, remaining_shared
				FROM quotas WHERE subsample_id = ? AND quota_id = ?`, subsampleID, quotaID); err != nil {
				return fmt.Errorf("quota %d of subsample %d: %w", quotaID, subsampleID, err)
			}
			if len(rows) == 0 {
				continue // not in the snapshot: nothing to route around
			}
			c := rows[0]
			c.At, c.Until = at.UTC(), until.UTC()
			if _, err := tx.ExecContext(ctx, `INSERT INTO field_closures (`+fieldClosureColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				c.SubsampleID, c.QuotaID, c.QuotaName, c.At, c.Until, c.Achieved, c.RemainingExclusive, c.RemainingShared); err != nil {
				return fmt.Errorf("close cell %d of subsample %d: %w", quotaID, subsampleID, err)
			}
			out = append(out, c)
			changes = append(changes, domain.Change{At: at, Kind: domain.ChangeQuotaClosedByField, SubsampleID: subsampleID,
				QuotaID: fmt.Sprint(quotaID), Before: "open",
				After: "closed by the field: a quota full came back at " + clock(at) + ", closed until its counts move, at most until " + clock(until)})
		}
		if err := appendFieldChanges(ctx, tx, s.dialect, 0, changes); err != nil {
			return err
		}
		return bumpVersion(ctx, tx)
	})
	if err != nil {
		return nil, fmt.Errorf("close cells %v of subsample %d from the field: %w", cells, subsampleID, err)
	}
	return out, nil
}

// liftFieldClosures lifts, in a snapshot write's transaction, the
// closures whose quota the snapshot now holds with other counts than
// those recorded at closing (domain.FieldClosure.CountsMoved), or no
// longer holds, and those whose time is up at at; each lifted one is a
// quota.field_closure_lifted in the change feed, of run runID (0 for a
// write of no refresh run).
func liftFieldClosures(ctx context.Context, tx *sqlx.Tx, d dialect, runID int64, at time.Time) error {
	var rows []struct {
		domain.FieldClosure
		Read         bool  `db:"read"`
		NowAchieved  int64 `db:"now_achieved"`
		NowExclusive int64 `db:"now_exclusive"`
		NowShared    int64 `db:"now_shared"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT c.subsample_id, c.quota_id, c.quota_name, c.closed_at, c.closed_until,
			c.achieved, c.remaining_exclusive, c.remaining_shared, q.quota_id IS NOT NULL AS read,
			COALESCE(q.achieved, 0) AS now_achieved, COALESCE(q.remaining_exclusive, 0) AS now_exclusive, COALESCE(q.remaining_shared, 0) AS now_shared
		FROM field_closures c LEFT JOIN quotas q ON q.subsample_id = c.subsample_id AND q.quota_id = c.quota_id
		ORDER BY c.subsample_id, c.quota_id`); err != nil {
		return fmt.Errorf("field closures: %w", err)
	}
	var changes []domain.Change
	for _, r := range rows {
		why := ""
		switch now := (domain.Quota{AchievedInterviews: r.NowAchieved, RemainingExclusive: r.NowExclusive, RemainingShared: r.NowShared}); {
		case !r.Read:
			why = "open: the quota is no longer in the provider's quotas"
		case r.CountsMoved(now):
			why = fmt.Sprintf("open: the provider's counts moved (%d achieved, %d remaining; %d and %d when closed)",
				now.AchievedInterviews, now.Remaining(), r.Achieved, r.RemainingExclusive+r.RemainingShared)
		case !at.Before(r.Until):
			why = "open: the closure lapsed at " + clock(r.Until) + ", the provider's counts unmoved"
		default:
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM field_closures WHERE subsample_id = ? AND quota_id = ?`, r.SubsampleID, r.QuotaID); err != nil {
			return fmt.Errorf("lift the field closure of cell %d of subsample %d: %w", r.QuotaID, r.SubsampleID, err)
		}
		changes = append(changes, domain.Change{At: at, Kind: domain.ChangeFieldClosureLifted, SubsampleID: r.SubsampleID,
			QuotaID: fmt.Sprint(r.QuotaID), Before: "closed by the field at " + clock(r.At), After: why})
	}
	return appendFieldChanges(ctx, tx, d, runID, changes)
}

// appendFieldChanges adds the changes of field closures to the feed with
// the event and country the last refresh knew their subsample in.
func appendFieldChanges(ctx context.Context, tx *sqlx.Tx, d dialect, runID int64, changes []domain.Change) error {
	for i := range changes {
		c := &changes[i]
		var where []struct {
			EventID int64  `db:"event_id"`
			Country string `db:"country"`
		}
		if err := tx.SelectContext(ctx, &where, `SELECT event_id, country FROM subsample_states WHERE subsample_id = ?
			UNION ALL SELECT event_id, country_code FROM subsamples WHERE subsample_id = ?`, c.SubsampleID, c.SubsampleID); err != nil {
			return fmt.Errorf("event of subsample %d: %w", c.SubsampleID, err)
		}
		if len(where) > 0 {
			c.EventID, c.Country = where[0].EventID, where[0].Country
		}
	}
	return appendChanges(ctx, tx, d, runID, changes)
}

// allFieldClosures are the closures stored, of subsampleID alone when it
// is not 0, by subsample: a closure whose time is up is still there until
// the next write lifts it, and the checks read it as lapsed
// (rules.FieldClosureHolds).
func allFieldClosures(ctx context.Context, tx *sqlx.Tx, subsampleID int64) (map[int64][]domain.FieldClosure, error) {
	var rows []domain.FieldClosure
	if err := tx.SelectContext(ctx, &rows, `SELECT `+fieldClosureColumns+` FROM field_closures`+onlySubsample(subsampleID)+
		` ORDER BY subsample_id, quota_id`, subsampleID); err != nil {
		return nil, fmt.Errorf("field closures: %w", err)
	}
	out := map[int64][]domain.FieldClosure{}
	for _, c := range rows {
		out[c.SubsampleID] = append(out[c.SubsampleID], c)
	}
	return out, nil
}

// FieldClosures are the closures stored, every subsample's, in subsample
// and quota order.
func (s *Store) FieldClosures(ctx context.Context) ([]domain.FieldClosure, error) {
	var rows []domain.FieldClosure
	if err := s.reader.SelectContext(ctx, &rows, `SELECT `+fieldClosureColumns+` FROM field_closures ORDER BY subsample_id, quota_id`); err != nil {
		return nil, fmt.Errorf("field closures: %w", err)
	}
	return rows, nil
}

// clock is a time as the feed's field closures say it.
func clock(t time.Time) string { return t.UTC().Format("2 Jan 15:04 UTC") }
