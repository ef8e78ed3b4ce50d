package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// ErrAlreadyReturned refuses a return for a send that has one already.
var ErrAlreadyReturned = errors.New("the send has a return already")

// routingColumns are the router's record's columns as
// domain.RoutingDecision reads them, NULLs as its zero values.
const routingColumns = `decision_id, at, panelist_id, COALESCE(intended_subsample, 0) AS intended_subsample,
	COALESCE(chosen_subsample, 0) AS chosen_subsample, outcome, reason, cells, hop,
	COALESCE(after_decision, 0) AS after_decision, COALESCE(return_status, 0) AS return_status,
	returned_at, return_flag, return_via`

// lastSendQuery reads a panelist's newest send since a time (LastSend),
// by the index routing_decisions_by_panelist.
const lastSendQuery = `SELECT ` + routingColumns + ` FROM routing_decisions ` + lastSendOf

// lastSendOf selects a panelist's newest send since a time, the two
// parameters: lastSendQuery's and panelistRowsWithSendQuery's.
const lastSendOf = `WHERE panelist_id = ? AND at >= ? AND chosen_subsample IS NOT NULL ORDER BY at DESC, decision_id DESC LIMIT 1`

// LastSend is the panelist's newest send made at or after since (a
// decision that chose a subsample), returned or not: the send a return
// of theirs belongs to. None is ErrNotFound.
func (s *Store) LastSend(ctx context.Context, panelistID string, since time.Time) (domain.RoutingDecision, error) {
	var d domain.RoutingDecision
	err := s.hot.lastSend.GetContext(ctx, &d, panelistID, since.UTC())
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("panelist %q's last send: %w", panelistID, ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("panelist %q's last send: %w", panelistID, err)
	}
	return d, nil
}

// Returned is a return as RecordReturn writes it: the send it belongs to,
// and the history record it makes of it.
type Returned struct {
	Send   domain.RoutingDecision // the send (its DecisionID and At)
	Record domain.HistoryRecord   // the status, on the send's subsample
	Flag   string                 // domain.ReturnTooFast or ""
	Via    string                 // domain.ReturnByRedirect or ReturnByPost
}

// RecordReturn records r: the send is marked returned (ErrAlreadyReturned
// when it was already, by another request too), the record is written to
// the history unless it holds it already, and kept among the records
// returns reported (returned_history), unconfirmed until an import
// replaces it (supersedeReturns). It returns once that is committed.
//
// The returns that arrive together share a transaction (returnWrites): a
// burst of returns costs the database's one writer a commit per batch,
// not per return.
func (s *Store) RecordReturn(ctx context.Context, r Returned) error {
	w := &returnWrite{Returned: r, done: make(chan struct{})}
	if s.returns.add(w) {
		s.writeReturns(context.WithoutCancel(ctx))
	}
	// Once queued it is written whatever becomes of the request (the
	// write's own time is bounded), so its caller hears how: a return
	// written must be followed by what follows it (a cell closed).
	<-w.done
	if w.err != nil {
		return fmt.Errorf("record panelist %q's return from subsample %d: %w", r.Record.PanelistID, r.Record.SubsampleID, w.err)
	}
	return nil
}

// returnWrites are the returns waiting to be written, and whether a
// writer is at work on them: the first return to find none writes, and
// hands what arrived meanwhile to a writer of its own (writeReturns).
type returnWrites struct {
	mu      sync.Mutex
	pending []*returnWrite
	writing bool

	prepared sync.Mutex
	stmts    [3]*sql.Stmt // mark the send, insert into history, into returned_history; nil until prepared
}

// returnWrite is one return waiting for its transaction; err is its
// outcome once done is closed.
type returnWrite struct {
	Returned
	err  error
	done chan struct{}
}

// add queues w and reports whether its caller is to write (no writer is
// at work).
func (q *returnWrites) add(w *returnWrite) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, w)
	if q.writing {
		return false
	}
	q.writing = true
	return true
}

// take returns what is queued, and, when nothing is, ends the writer's
// turn.
func (q *returnWrites) take() []*returnWrite {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending = nil
	if len(batch) == 0 {
		q.writing = false
	}
	return batch
}

// writeReturns writes the queued returns in one transaction, then hands
// those queued meanwhile to a goroutine that does the same until none
// are left, so that the caller's own return is not held up by others'.
func (s *Store) writeReturns(ctx context.Context) {
	batch := s.returns.take()
	if len(batch) == 0 {
		return
	}
	err := s.writeReturnBatch(ctx, batch)
	if err != nil && len(batch) > 1 {
		// One return's failure must not fail the others: each is tried
		// again in a transaction of its own.
		// (What the failed transaction said of each is undone with it.)
		for _, w := range batch {
			w.err = nil
			if err := s.writeReturnBatch(ctx, []*returnWrite{w}); err != nil {
				w.err = err
			}
		}
		err = nil
	}
	for _, w := range batch {
		if err != nil {
			w.err = err
		}
		close(w.done)
	}
	go s.writeReturns(ctx)
}

// returnStatements are the writes of a return, prepared on the writer
// once.
var returnStatements = [3]string{
	`UPDATE routing_decisions SET return_status = ?, returned_at = ?, return_flag = ?, return_via = ?
		WHERE decision_id = ? AND return_status IS NULL`,
	`INSERT INTO history (` + historyColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	`INSERT INTO returned_history (panelist_id, subsample_id, status_id, registered_at, sent_at, decision_id, flag)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
}

// statements are the returns' writes, prepared on writer the first time
// they are asked for (a failure is tried again the next time).
func (q *returnWrites) statements(ctx context.Context, writer *sqlx.DB) ([3]*sql.Stmt, error) {
	q.prepared.Lock()
	defer q.prepared.Unlock()
	for i, query := range returnStatements {
		if q.stmts[i] != nil {
			continue
		}
		stmt, err := writer.PrepareContext(ctx, query)
		if err != nil {
			return q.stmts, fmt.Errorf("prepare the returns' writes: %w", err)
		}
		q.stmts[i] = stmt
	}
	return q.stmts, nil
}

// writeReturnBatch writes batch in one transaction; a return whose send
// was returned already (by an earlier transaction or one of batch) gets
// ErrAlreadyReturned and writes nothing. The error is the transaction's.
func (s *Store) writeReturnBatch(ctx context.Context, batch []*returnWrite) error {
	stmts, err := s.returns.statements(ctx, s.writer)
	if err != nil {
		return err
	}
	return inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		mark, history, returned := tx.StmtContext(ctx, stmts[0]), tx.StmtContext(ctx, stmts[1]), tx.StmtContext(ctx, stmts[2])
		for _, w := range batch {
			rec := w.Record
			res, err := mark.ExecContext(ctx, rec.StatusID, rec.RegisteredAt.UTC(), w.Flag, w.Via, w.Send.DecisionID)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				w.err = ErrAlreadyReturned
				continue
			}
			if _, err := history.ExecContext(ctx, rec.PanelistID, rec.SubsampleID, rec.StatusID, rec.RegisteredAt.UTC(), rec.EventID, rec.CategoryID, rec.ResearchTypeID); err != nil {
				return err
			}
			if _, err := returned.ExecContext(ctx, rec.PanelistID, rec.SubsampleID, rec.StatusID, rec.RegisteredAt.UTC(), w.Send.At.UTC(), w.Send.DecisionID, w.Flag); err != nil {
				return err
			}
		}
		return nil
	})
}

// supersedeReturns drops, in an import's transaction, the records returns
// reported that the imported history now replaces: another record of the
// same panelist and subsample registered at or after the send. The
// returns' records are few (those the imports have not caught up with),
// so they drive the work, each looked up in history by its key's prefix.
func supersedeReturns(ctx context.Context, tx *sqlx.Tx) error {
	var gone []struct {
		PanelistID   string    `db:"panelist_id"`
		SubsampleID  int64     `db:"subsample_id"`
		StatusID     int64     `db:"status_id"`
		RegisteredAt time.Time `db:"registered_at"`
	}
	if err := tx.SelectContext(ctx, &gone, `SELECT r.panelist_id, r.subsample_id, r.status_id, r.registered_at FROM returned_history r
		WHERE EXISTS (SELECT 1 FROM history h WHERE h.panelist_id = r.panelist_id AND h.subsample_id = r.subsample_id
			AND h.registered_at >= r.sent_at AND NOT (h.status_id = r.status_id AND h.registered_at = r.registered_at))`); err != nil {
		return fmt.Errorf("find the returns the import replaces: %w", err)
	}
	for _, g := range gone {
		for _, table := range [...]string{"history", "returned_history"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE panelist_id = ? AND subsample_id = ? AND status_id = ? AND registered_at = ?`,
				g.PanelistID, g.SubsampleID, g.StatusID, g.RegisteredAt.UTC()); err != nil {
				return fmt.Errorf("replace a return's record by the import's: %w", err)
			}
		}
	}
	return nil
}

// ReturnedRecord is a history record a return reported, not yet replaced
// by an imported one: unconfirmed.
type ReturnedRecord struct {
	domain.HistoryRecord
	SentAt     time.Time `db:"sent_at"`
	DecisionID int64     `db:"decision_id"`
	Flag       string    `db:"flag"`
}

// ReturnedRecords are the unconfirmed records registered in [since, until)
// (zero times leave that end open), oldest first.
func (s *Store) ReturnedRecords(ctx context.Context, since, until time.Time) ([]ReturnedRecord, error) {
	var w filtered
	w.period("r.registered_at", since, until)
	var out []ReturnedRecord
	err := s.reader.SelectContext(ctx, &out, `SELECT r.panelist_id, r.subsample_id, r.status_id, r.registered_at, r.sent_at, r.decision_id, r.flag,
		COALESCE(h.event_id, 0) AS event_id, COALESCE(h.category_id, 0) AS category_id, COALESCE(h.research_type_id, 0) AS research_type_id
		FROM returned_history r LEFT JOIN history h ON h.panelist_id = r.panelist_id AND h.subsample_id = r.subsample_id
			AND h.status_id = r.status_id AND h.registered_at = r.registered_at
		WHERE `+w.where()+` ORDER BY r.registered_at, r.panelist_id`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("records reported by returns: %w", err)
	}
	return out, nil
}

// UnconfirmedReturnsOf are the panelist's records reported by returns
// that no import has replaced yet, newest first.
func (s *Store) UnconfirmedReturnsOf(ctx context.Context, panelistID string) ([]ReturnedRecord, error) {
	var out []ReturnedRecord
	err := s.reader.SelectContext(ctx, &out, `SELECT r.panelist_id, r.subsample_id, r.status_id, r.registered_at, r.sent_at, r.decision_id, r.flag
		FROM returned_history r WHERE r.panelist_id = ? ORDER BY r.registered_at DESC, r.decision_id DESC`, panelistID)
	if err != nil {
		return nil, fmt.Errorf("panelist %q's records reported by returns: %w", panelistID, err)
	}
	return out, nil
}
