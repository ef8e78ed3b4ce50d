package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// SubsampleState is what one events refresh decided of a subsample
// (domain.SubsampleState), kept for the next refresh's comparison.
type SubsampleState = domain.SubsampleState

// ChangeDetector compares the states of the previous events refresh with
// the new ones and returns the states to keep for the next comparison and
// what moved (rules.Detect, stamped with the refresh's time). previous is
// nil when no events snapshot was saved before: the first refresh is the
// baseline.
type ChangeDetector func(previous, next map[int64]SubsampleState) (kept map[int64]SubsampleState, changes []domain.Change)

// replaceStates stores the states of a complete events snapshot (those
// detect keeps, with it), writing those that differ from the states
// stored, and, with detect, appends to the change feed what moved since
// the previous one, as part of run runID.
func replaceStates(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx, runID int64, states map[int64]SubsampleState, detect ChangeDetector) error {
	type storedState struct {
		ID int64
		SubsampleState
		Closed string
	}
	var rows []storedState
	stored, err := tx.QueryContext(ctx, `SELECT subsample_id, status, sendability, event_id, country, cpi, currency, field_end,
		quotas_read, closed_quotas, at_risk FROM subsample_states`)
	if err != nil {
		return fmt.Errorf("previous states: %w", err)
	}
	defer stored.Close()
	for stored.Next() {
		var r storedState
		if err := stored.Scan(&r.ID, &r.Status, &r.Sendability, &r.EventID, &r.Country, &r.CPI, &r.Currency, &r.FieldEnd,
			&r.QuotasRead, &r.Closed, &r.AtRisk); err != nil {
			return fmt.Errorf("previous states: %w", err)
		}
		rows = append(rows, r)
	}
	if err := stored.Err(); err != nil {
		return fmt.Errorf("previous states: %w", err)
	}
	var before int
	if err := tx.GetContext(ctx, &before, `SELECT COUNT(*) FROM datasets WHERE name = ? AND current_run_id IS NOT NULL`, DatasetEvents); err != nil {
		return fmt.Errorf("previous events snapshot: %w", err)
	}
	var previous map[int64]SubsampleState // nil: no snapshot before, the baseline
	if before > 0 {
		previous = make(map[int64]SubsampleState, len(rows))
	}
	for _, r := range rows {
		if r.Closed == "[]" {
			r.ClosedQuotas = []string{} // as json.Unmarshal reads it, more quickly
		} else if err := json.Unmarshal([]byte(r.Closed), &r.ClosedQuotas); err != nil {
			return fmt.Errorf("previous state of subsample %d: closed quotas: %w", r.ID, err)
		}
		if previous != nil {
			previous[r.ID] = r.SubsampleState
		}
	}
	if detect != nil {
		kept, changes := detect(previous, states)
		if err := appendChanges(ctx, tx, d, runID, changes); err != nil {
			return err
		}
		states = kept
	}
	// Only the states that differ from those stored are written.
	storedRows := make(map[int64]*storedState, len(rows))
	for i := range rows {
		storedRows[rows[i].ID] = &rows[i]
	}
	var replaced []int64
	written := make([][]any, 0, len(states))
	for _, id := range slices.Sorted(maps.Keys(states)) {
		closed, err := json.Marshal(nonNilStrings(states[id].ClosedQuotas))
		if err != nil {
			return err
		}
		r, ok := storedRows[id]
		if ok && sameState(r.SubsampleState, r.Closed, states[id], string(closed)) {
			continue
		}
		if ok {
			replaced = append(replaced, id)
		}
		written = append(written, stateRow(id, states[id], string(closed)))
	}
	for id := range storedRows {
		if _, ok := states[id]; !ok {
			replaced = append(replaced, id)
		}
	}
	slices.Sort(replaced)
	if err := deleteOf(ctx, tx, "subsample_states", replaced); err != nil {
		return err
	}
	ins := newFreshRows(d, conn, tx, "subsample_states", `subsample_id, status, sendability, event_id, country, cpi, currency,
		field_end, quotas_read, closed_quotas, at_risk`, `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "", 0)
	defer ins.close()
	for _, row := range written {
		if err := ins.add(ctx, row...); err != nil {
			return fmt.Errorf("states: %w", err)
		}
	}
	if err := ins.flush(ctx); err != nil {
		return fmt.Errorf("states: %w", err)
	}
	return nil
}

// stateRow is the row of subsample_states that keeps st, its closed
// quotas as their JSON.
func stateRow(id int64, st SubsampleState, closed string) []any {
	return []any{id, st.Status, st.Sendability, st.EventID, st.Country, st.CPI, st.Currency,
		st.FieldEnd, st.QuotasRead, closed, st.AtRisk}
}

// sameState says whether state a, its closed quotas' JSON closedA, is
// stored as b with closedB would be: the same values in every column of
// stateRow (a price by its bits, a field end by its instant).
func sameState(a SubsampleState, closedA string, b SubsampleState, closedB string) bool {
	return a.Status == b.Status && a.Sendability == b.Sendability && a.EventID == b.EventID && a.Country == b.Country &&
		sameFloat(a.CPI, b.CPI) && a.Currency == b.Currency && sameInstant(a.FieldEnd, b.FieldEnd) &&
		a.QuotasRead == b.QuotasRead && closedA == closedB && a.AtRisk == b.AtRisk
}

func sameFloat(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && math.Float64bits(*a) == math.Float64bits(*b)
}

func sameInstant(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ChangeCounts returns how many changes the last events refresh found, by
// kind.
func (s *Store) ChangeCounts(ctx context.Context) (map[domain.ChangeKind]int, error) {
	var rows []struct {
		Kind  domain.ChangeKind `db:"kind"`
		Count int               `db:"n"`
	}
	if err := s.reader.SelectContext(ctx, &rows, `
		SELECT kind, COUNT(*) AS n FROM changes
		WHERE run_id = (SELECT current_run_id FROM datasets WHERE name = ?) GROUP BY kind`, DatasetEvents); err != nil {
		return nil, fmt.Errorf("changes of the last refresh: %w", err)
	}
	out := map[domain.ChangeKind]int{}
	for _, r := range rows {
		out[r.Kind] = r.Count
	}
	return out, nil
}

// EventsBaseline says whether the current events snapshot is the
// baseline: the first one saved, which records no change since there was
// nothing to compare it with. (The snapshot it replaced is kept in the
// refresh log at least until the next one: prune spares the current run.)
func (s *Store) EventsBaseline(ctx context.Context) (bool, error) {
	var current, before int
	if err := s.reader.GetContext(ctx, &current, `SELECT COUNT(*) FROM datasets WHERE name = ? AND current_run_id IS NOT NULL`, DatasetEvents); err != nil {
		return false, fmt.Errorf("events baseline: %w", err)
	}
	if current == 0 {
		return false, nil
	}
	if err := s.reader.GetContext(ctx, &before, `
		SELECT COUNT(*) FROM refresh_runs r JOIN datasets d ON d.name = r.dataset
		WHERE r.dataset = ? AND r.ok = ? AND r.run_id < d.current_run_id`, DatasetEvents, true); err != nil {
		return false, fmt.Errorf("events baseline: %w", err)
	}
	return before == 0, nil
}

// StatusCounts returns how many subsamples of the event list have each
// status.
func (s *Store) StatusCounts(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Status string `db:"status"`
		Count  int    `db:"n"`
	}
	if err := s.reader.SelectContext(ctx, &rows, `SELECT status, COUNT(*) AS n FROM (`+subsampleRowsQuery+`) AS s GROUP BY status`); err != nil {
		return nil, fmt.Errorf("status counts: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Status] = r.Count
	}
	return out, nil
}
