package store

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// changeColumns are the columns of a domain.Change.
const changeColumns = `change_id, at, kind, subsample_id, event_id, country, quota_id, before_value, after_value`

// appendChanges adds changes to the feed, and queues their webhook
// deliveries, in the snapshot's transaction.
func appendChanges(ctx context.Context, tx *sqlx.Tx, d dialect, runID int64, changes []domain.Change) error {
	if len(changes) == 0 {
		return nil
	}
	ins := newInserter(tx, "changes", `run_id, at, kind, subsample_id, event_id, country, quota_id, before_value, after_value`,
		`(?, ?, ?, ?, ?, ?, ?, ?, ?)`, "")
	defer ins.close()
	for _, c := range changes {
		if err := ins.add(ctx, runID, c.At.UTC(), string(c.Kind), c.SubsampleID, c.EventID, c.Country, c.QuotaID, c.Before, c.After); err != nil {
			return fmt.Errorf("change feed: %w", err)
		}
	}
	if err := ins.flush(ctx); err != nil {
		return fmt.Errorf("change feed: %w", err)
	}
	return queueDeliveries(ctx, tx, d, runID)
}

// ChangeFilter selects changes of the feed; zero fields select all.
type ChangeFilter struct {
	Kind    domain.ChangeKind
	Country string // upper case
	EventID int64
	Since   time.Time
	Until   time.Time // exclusive
}

func (f ChangeFilter) where() (string, []any) {
	conds, args := []string{"1 = 1"}, []any{}
	if f.Kind != "" {
		conds, args = append(conds, "kind = ?"), append(args, string(f.Kind))
	}
	if f.Country != "" {
		conds, args = append(conds, "country = ?"), append(args, f.Country)
	}
	if f.EventID != 0 {
		conds, args = append(conds, "event_id = ?"), append(args, f.EventID)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "at >= ?"), append(args, f.Since.UTC())
	}
	if !f.Until.IsZero() {
		conds, args = append(conds, "at < ?"), append(args, f.Until.UTC())
	}
	return strings.Join(conds, " AND "), args
}

// Changes are the changes f selects, newest first, limit of them after
// offset (limit 0: all), and how many f selects in all.
func (s *Store) Changes(ctx context.Context, f ChangeFilter, limit, offset int) ([]domain.Change, int, error) {
	where, args := f.where()
	var total int
	if err := s.reader.GetContext(ctx, &total, `SELECT COUNT(*) FROM changes WHERE `+where, args...); err != nil {
		return nil, 0, fmt.Errorf("count changes: %w", err)
	}
	if limit <= 0 {
		limit = math.MaxInt64
	}
	var out []domain.Change
	if err := s.reader.SelectContext(ctx, &out, `SELECT `+changeColumns+` FROM changes WHERE `+where+
		` ORDER BY change_id DESC LIMIT ? OFFSET ?`, append(args, limit, offset)...); err != nil {
		return nil, 0, fmt.Errorf("changes: %w", err)
	}
	return out, total, nil
}

// ChangesAfter are up to limit changes whose id is above since, oldest
// first: the page a script polling the feed asks for next.
func (s *Store) ChangesAfter(ctx context.Context, since int64, limit int) ([]domain.Change, error) {
	out := []domain.Change{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT `+changeColumns+` FROM changes WHERE change_id > ? ORDER BY change_id LIMIT ?`, since, limit); err != nil {
		return nil, fmt.Errorf("changes after %d: %w", since, err)
	}
	return out, nil
}
