package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// EventsSnapshot is everything one refresh of the events dataset read.
type EventsSnapshot struct {
	Run
	Summaries []domain.SubsampleSummary
	Live      []domain.LiveSubsample
	// Details holds the quotas and eligibility rules fetched for each live
	// subsample, by subsample id. A live subsample missing here counts as a
	// failed fetch.
	Details map[int64]SubsampleDetail
	// Unreadable says, by subsample, why one whose element of event/all or
	// live-details was dropped as malformed, or may have been, is not
	// decided on (checks.Unreadable); each is kept, with a row of its own
	// when event/all did not list it readably. (A malformed quota element
	// fails its subsample's quotas, in Details.)
	Unreadable map[int64]string
	// States holds what the refresher decided of every subsample on this
	// snapshot; Detect, when set, says what moved since the previous
	// refresh's, for the change feed, written in the snapshot's
	// transaction.
	States map[int64]SubsampleState
	Detect ChangeDetector
	// Decide, when set, decides States instead: SaveEvents runs it beside
	// its write, from when the write has its turn (no other snapshot can
	// commit then), and waits for it before it stores the states. Whatever Decide reads through the store sees the snapshot
	// being replaced, as a read made before SaveEvents would: the write
	// commits only after Decide has returned.
	Decide func(ctx context.Context) (map[int64]SubsampleState, error)
}

// decided is what EventsSnapshot.Decide returned.
type decided struct {
	states map[int64]SubsampleState
	err    error
}

// decideBeside runs snap.Decide, when set, beside the caller and returns
// a function that waits for its states (snap.States when Decide is
// nil). The wait must come before the write's commit.
func decideBeside(ctx context.Context, snap EventsSnapshot) func() (map[int64]SubsampleState, error) {
	if snap.Decide == nil {
		return func() (map[int64]SubsampleState, error) { return snap.States, nil }
	}
	done := make(chan decided, 1)
	go func() {
		states, err := snap.Decide(ctx)
		done <- decided{states, err}
	}()
	var got *decided
	return func() (map[int64]SubsampleState, error) {
		if got == nil {
			d := <-done
			got = &d
		}
		return got.states, got.err
	}
}

// SubsampleDetail is the result of fetching one subsample's quotas and
// eligibility rules. A failed half keeps the rows of the previous snapshot,
// marked as failed.
type SubsampleDetail struct {
	FetchedAt time.Time
	Quotas    []domain.Quota
	QuotasErr error
	Rules     domain.EligibilityRules
	RulesErr  error
}

// SaveEvents writes a complete events snapshot in one transaction and makes
// it current. It returns the id of the refresh run it recorded.
func (s *Store) SaveEvents(ctx context.Context, snap EventsSnapshot, retention time.Duration) (int64, error) {
	var runID int64
	err := s.writeConnTx(ctx, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		// Snapshot writes take turns across instances: each replaces the
		// rows of the last (newFreshRows).
		if err := s.dialect.serialize(ctx, tx, "snapshot"); err != nil {
			return err
		}
		// Decided once this write has its turn, so no other snapshot can
		// commit between what Decide reads and what this write replaces;
		// its reads are done before the transaction ends, whether or not
		// the write got as far as the states.
		states := decideBeside(ctx, snap)
		defer states()
		var err error
		if runID, err = insertRun(ctx, tx, snap.Run, true, "", ""); err != nil {
			return err
		}
		var lastSeen *time.Time // the snapshot replaced: when the subsamples it listed were last seen
		if err := tx.GetContext(ctx, &lastSeen, `SELECT last_success_at FROM datasets WHERE name = ?`, snap.Dataset); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("previous snapshot: %w", err)
		}
		summaries, goneSummaries, err := writeSummaries(ctx, s.dialect, conn, tx, snap.Summaries, snap.Unreadable, snap.Live)
		if err != nil {
			return fmt.Errorf("event list: %w", err)
		}
		liveWritten, goneLive, err := writeLive(ctx, s.dialect, conn, tx, snap.Live, snap.FinishedAt)
		if err != nil {
			return fmt.Errorf("live details: %w", err)
		}
		listed := make(map[int64]bool, len(snap.Summaries)+len(snap.Live))
		for _, l := range snap.Summaries {
			listed[l.SubsampleID] = true
		}
		for id := range snap.Unreadable {
			listed[id] = true
		}
		live := make(map[int64]bool, len(snap.Live))
		for _, l := range snap.Live {
			listed[l.SubsampleID], live[l.SubsampleID] = true, true
		}
		// What each subsample is about and whom it is invoiced to follow
		// from its rows just written; a subsample no longer listed was last
		// seen by the snapshot replaced.
		var left, leftLive []int64
		for _, id := range slices.Concat(goneSummaries, goneLive) {
			if !listed[id] {
				left = append(left, id)
			}
		}
		for _, id := range goneLive {
			if !live[id] {
				leftLive = append(leftLive, id)
			}
		}
		if err := keepTopics(ctx, tx, liveWritten, leftLive, snap.FinishedAt, lastSeen); err != nil {
			return err
		}
		if err := keepPrices(ctx, tx, snap.FinishedAt); err != nil {
			return err
		}
		moved := slices.Compact(slices.Sorted(slices.Values(slices.Concat(summaries, goneSummaries, liveWritten, goneLive))))
		if err := keepInvoiceParties(ctx, tx, moved, slices.Compact(slices.Sorted(slices.Values(left))), snap.FinishedAt, lastSeen); err != nil {
			return err
		}
		w, err := newDetailWriter(ctx, s.dialect, conn, tx)
		if err != nil {
			return err
		}
		defer w.close()
		if err := w.preload(ctx, tx); err != nil {
			return err
		}
		details := make([]subsampleDetail, 0, len(live))
		detailed := make(map[int64]bool, len(live))
		for _, l := range snap.Live {
			if detailed[l.SubsampleID] {
				continue // listed twice: its details are the same
			}
			detailed[l.SubsampleID] = true
			d, ok := snap.Details[l.SubsampleID]
			if !ok {
				d = SubsampleDetail{FetchedAt: snap.FinishedAt, QuotasErr: errNotFetched, RulesErr: errNotFetched}
			}
			details = append(details, subsampleDetail{l.SubsampleID, d})
		}
		if err := w.write(ctx, details); err != nil {
			return err
		}
		// The details of the subsamples no longer live go.
		var closed []int64
		for _, id := range w.storedSubsamples() {
			if !live[id] {
				closed = append(closed, id)
			}
		}
		for _, table := range []string{"quotas", "eligibility_rules", "subsample_fetches"} {
			if err := deleteOf(ctx, tx, table, closed); err != nil {
				return fmt.Errorf("drop %s of closed subsamples: %w", table, err)
			}
		}
		if err := liftFieldClosures(ctx, tx, s.dialect, runID, snap.FinishedAt); err != nil {
			return err
		}
		decided, err := states()
		if err != nil {
			return fmt.Errorf("decide the states: %w", err)
		}
		if err := replaceStates(ctx, s.dialect, conn, tx, runID, decided, snap.Detect); err != nil {
			return err
		}
		if err := prune(ctx, tx, snap.FinishedAt.Add(-retention)); err != nil {
			return err
		}
		if err := bumpVersion(ctx, tx); err != nil {
			return err
		}
		return markCurrent(ctx, tx, snap.Dataset, runID, snap.FinishedAt)
	})
	if err != nil {
		return 0, fmt.Errorf("save events snapshot: %w", err)
	}
	return runID, nil
}

// SaveSubsampleDetail replaces the quotas and eligibility rules of one live
// subsample, for a refresh of that subsample alone. It returns ErrNotFound
// when the subsample is not in the current live snapshot.
func (s *Store) SaveSubsampleDetail(ctx context.Context, subsampleID int64, d SubsampleDetail) error {
	err := s.writeConnTx(ctx, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		if err := s.dialect.serialize(ctx, tx, "snapshot"); err != nil {
			return err
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT COUNT(*) FROM live_subsamples WHERE subsample_id = ?`, subsampleID); err != nil {
			return err
		}
		if n == 0 {
			return ErrNotFound
		}
		w, err := newDetailWriter(ctx, s.dialect, conn, tx)
		if err != nil {
			return err
		}
		defer w.close()
		if err := w.write(ctx, []subsampleDetail{{subsampleID, d}}); err != nil {
			return err
		}
		if err := liftFieldClosures(ctx, tx, s.dialect, 0, d.FetchedAt); err != nil {
			return err
		}
		return bumpVersion(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("save quotas and rules of subsample %d: %w", subsampleID, err)
	}
	return nil
}

var errNotFetched = fmt.Errorf("not fetched")

// bumpVersion moves the snapshot version on, in the transaction that
// changes snapshot data.
func bumpVersion(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE snapshot_version SET version = version + 1 WHERE id = 1`); err != nil {
		return fmt.Errorf("snapshot version: %w", err)
	}
	return nil
}

// SnapshotVersion returns a number that changes whenever snapshot data
// (events, quotas, rules, library, reference data, refresh state) does,
// and whenever a history or profile import writes: whatever a check or a
// send list decides on.
func (s *Store) SnapshotVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.hot.snapshotVersion.GetContext(ctx, &v); err != nil {
		return 0, fmt.Errorf("snapshot version: %w", err)
	}
	return v, nil
}

// prune drops quota history, refresh runs, the router's decisions, the
// change feed (but the changes still to be delivered to a webhook) and
// the webhook deliveries done, older than cutoff, so the file does not
// grow without bound.
func prune(ctx context.Context, tx *sqlx.Tx, cutoff time.Time) error {
	// A quota still in the snapshot keeps its newest count from before the
	// cutoff: where it stood then, so a quota stalled for longer than the
	// retention is still paced (at 0 an hour) rather than left without
	// history.
	if _, err := tx.ExecContext(ctx, `DELETE FROM quota_history WHERE at < ? AND (
		NOT EXISTS (SELECT 1 FROM quotas q WHERE q.subsample_id = quota_history.subsample_id AND q.quota_id = quota_history.quota_id)
		OR EXISTS (SELECT 1 FROM quota_history later WHERE later.subsample_id = quota_history.subsample_id
			AND later.quota_id = quota_history.quota_id AND later.at > quota_history.at AND later.at <= ?))`, cutoff, cutoff); err != nil {
		return fmt.Errorf("prune quota history: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `
		DELETE FROM refresh_runs WHERE finished_at < ?
		AND run_id NOT IN (SELECT current_run_id FROM datasets WHERE current_run_id IS NOT NULL)`, cutoff); err != nil {
		return fmt.Errorf("prune refresh runs: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM routing_decisions WHERE at < ?`, cutoff); err != nil {
		return fmt.Errorf("prune routing decisions: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM changes WHERE at < ? AND change_id NOT IN
		(SELECT change_id FROM webhook_deliveries WHERE status = 'pending' AND change_id IS NOT NULL)`, cutoff); err != nil {
		return fmt.Errorf("prune changes: %w", err)
	}
	return pruneDeliveries(ctx, tx, cutoff)
}

func prepareAll(ctx context.Context, tx *sqlx.Tx, queries ...string) ([]*sqlx.Stmt, error) {
	stmts := make([]*sqlx.Stmt, 0, len(queries))
	for _, q := range queries {
		stmt, err := tx.PreparexContext(ctx, q)
		if err != nil {
			closeAll(stmts)
			return nil, fmt.Errorf("prepare: %w", err)
		}
		stmts = append(stmts, stmt)
	}
	return stmts, nil
}

func closeAll(stmts []*sqlx.Stmt) {
	for _, s := range stmts {
		s.Close()
	}
}

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func rawJSON(m json.RawMessage) any {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return string(m)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
