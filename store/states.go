package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// SubsampleState is a subsample's status and sendability at one refresh.
type SubsampleState struct {
	Status      string `db:"status"`
	Sendability string `db:"sendability"`
}

// Kinds of state change the overview counts.
const (
	ChangeNew      = "new"
	ChangeSendable = "sendable" // became sendable
	ChangePaused   = "paused"   // became paused
	ChangeClosed   = "closed"   // left Live or Live for testing, or the event list
)

// changeKinds says how a subsample moved from old to next; ok is false for
// a subsample seen for the first time (it is new).
func changeKinds(old SubsampleState, ok bool, next SubsampleState, gone bool) []string {
	if !ok {
		return []string{ChangeNew}
	}
	var kinds []string
	wasOpen := old.Status == domain.StatusLive || old.Status == domain.StatusLiveForTesting
	// No status at all (the subsample's elements could not be read) is not
	// news that it closed.
	isOpen := !gone && (next.Status == domain.StatusLive || next.Status == domain.StatusLiveForTesting || next.Status == "")
	if wasOpen && !isOpen {
		kinds = append(kinds, ChangeClosed)
	}
	if !gone && next.Sendability == "sendable" && old.Sendability != "sendable" {
		kinds = append(kinds, ChangeSendable)
	}
	if !gone && next.Sendability == "paused" && old.Sendability != "paused" {
		kinds = append(kinds, ChangePaused)
	}
	return kinds
}

// replaceStates stores the states of a complete events snapshot and
// records what changed since the previous one.
func replaceStates(ctx context.Context, tx *sqlx.Tx, states map[int64]SubsampleState) error {
	var rows []struct {
		ID int64 `db:"subsample_id"`
		SubsampleState
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT subsample_id, status, sendability FROM subsample_states`); err != nil {
		return fmt.Errorf("previous states: %w", err)
	}
	old := make(map[int64]SubsampleState, len(rows))
	for _, r := range rows {
		old[r.ID] = r.SubsampleState
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM state_changes`); err != nil {
		return err
	}
	insChange, err := tx.PreparexContext(ctx, `INSERT OR IGNORE INTO state_changes (subsample_id, kind, from_state, to_state) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insChange.Close()
	record := func(id int64, before SubsampleState, known bool, after SubsampleState, gone bool) error {
		for _, kind := range changeKinds(before, known, after, gone) {
			if _, err := insChange.ExecContext(ctx, id, kind, before.Status+" "+before.Sendability, after.Status+" "+after.Sendability); err != nil {
				return fmt.Errorf("state change of subsample %d: %w", id, err)
			}
		}
		return nil
	}
	for id, next := range states {
		before, known := old[id]
		if err := record(id, before, known, next, false); err != nil {
			return err
		}
	}
	for id, before := range old {
		if _, still := states[id]; !still {
			if err := record(id, before, true, SubsampleState{}, true); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM subsample_states`); err != nil {
		return err
	}
	ins, err := tx.PreparexContext(ctx, `INSERT INTO subsample_states (subsample_id, status, sendability) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for id, st := range states {
		if _, err := ins.ExecContext(ctx, id, st.Status, st.Sendability); err != nil {
			return fmt.Errorf("state of subsample %d: %w", id, err)
		}
	}
	return nil
}

// ChangeCounts returns how many subsamples the last events refresh changed,
// by kind (ChangeNew, ChangeSendable, ChangePaused, ChangeClosed).
func (s *Store) ChangeCounts(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Kind  string `db:"kind"`
		Count int    `db:"n"`
	}
	if err := s.reader.SelectContext(ctx, &rows, `SELECT kind, COUNT(*) AS n FROM state_changes GROUP BY kind`); err != nil {
		return nil, fmt.Errorf("state changes: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Kind] = r.Count
	}
	return out, nil
}

// StatusCounts returns how many subsamples of the event list have each
// status.
func (s *Store) StatusCounts(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		Status string `db:"status"`
		Count  int    `db:"n"`
	}
	if err := s.reader.SelectContext(ctx, &rows, `SELECT status, COUNT(*) AS n FROM (SELECT status FROM (`+subsampleRowsQuery+`)) GROUP BY status`); err != nil {
		return nil, fmt.Errorf("status counts: %w", err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.Status] = r.Count
	}
	return out, nil
}
