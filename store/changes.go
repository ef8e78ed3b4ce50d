package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// changeColumns are the columns of a domain.Change.
const changeColumns = `change_id, at, kind, subsample_id, event_id, country, quota_id, before_value, after_value`

// changeNames are the names the current snapshot gives a change's
// subsample and event (domain.Change), read beside changeColumns. An
// event is named as /events names it (handlers.GroupEvents): after the
// live details of its first live subsample that names it, else, when
// nothing of it is live, after its first subsample in the event list.
// Each is a scalar subquery of at most one row, so a change is one row
// whatever the snapshot holds.
const changeNames = `,
	COALESCE((SELECT s.name FROM subsamples s WHERE s.subsample_id = changes.subsample_id), '') AS subsample_name,
	COALESCE(
		(SELECT l.event_name FROM live_subsamples l WHERE l.event_id = changes.event_id AND l.event_name <> ''
			ORDER BY l.subsample_id LIMIT 1),
		(SELECT s.name FROM subsamples s WHERE s.event_id = changes.event_id ORDER BY s.subsample_id LIMIT 1),
		'') AS event_name`

// appendChanges adds changes to the feed, and queues their webhook
// deliveries, in the snapshot's transaction (which serializes the
// writers of the feed). runID is the refresh run that found them, 0 for
// changes of no run (a field closure's).
func appendChanges(ctx context.Context, tx *sqlx.Tx, d dialect, runID int64, changes []domain.Change) error {
	if len(changes) == 0 {
		return nil
	}
	var last int64 // the feed's last change before these
	if err := tx.GetContext(ctx, &last, `SELECT COALESCE(MAX(change_id), 0) FROM changes`); err != nil {
		return fmt.Errorf("change feed: %w", err)
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
	return queueDeliveries(ctx, tx, d, last)
}

// ChangeFilter selects changes of the feed; zero fields select all.
type ChangeFilter struct {
	Kind    domain.ChangeKind
	Country string // upper case
	EventID int64
	Since   time.Time
	Until   time.Time // exclusive
}

func (f ChangeFilter) where() filtered {
	var w filtered
	if f.Kind != "" {
		w.add("kind = ?", string(f.Kind))
	}
	if f.Country != "" {
		w.add("country = ?", f.Country)
	}
	if f.EventID != 0 {
		w.add("event_id = ?", f.EventID)
	}
	w.period("at", f.Since, f.Until)
	return w
}

// Changes are the changes f selects, newest first, limit of them after
// offset (limit 0: all), with the names of their subsample and event in
// the current snapshot, and how many f selects in all.
func (s *Store) Changes(ctx context.Context, f ChangeFilter, limit, offset int) ([]domain.Change, int, error) {
	var out []domain.Change
	w := f.where()
	total, err := s.page(ctx, &out, "changes", w, `SELECT `+changeColumns+changeNames+` FROM changes WHERE `+w.where()+
		` ORDER BY change_id DESC LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("changes: %w", err)
	}
	return out, total, nil
}

// ChangesAfter are up to limit changes whose id is above since, oldest
// first, with the names of their subsample and event in the current
// snapshot: the page a script polling the feed asks for next.
func (s *Store) ChangesAfter(ctx context.Context, since int64, limit int) ([]domain.Change, error) {
	out := []domain.Change{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT `+changeColumns+changeNames+` FROM changes WHERE change_id > ? ORDER BY change_id LIMIT ?`, since, limit); err != nil {
		return nil, fmt.Errorf("changes after %d: %w", since, err)
	}
	return out, nil
}
