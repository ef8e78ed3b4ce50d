package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// keepPrices and keepInvoiceParties record, in an events snapshot's
// transaction, what the subsamples just written cost and whom they are
// invoiced to, keeping what earlier snapshots saw of the others.

// keepPrices adds a price point, from seenAt, for each live subsample
// whose currency or CPI is not its last point's (or that has none). A CPI
// that is not above 0, or a blank currency, is no price (rules.PriceKnown):
// it adds no point, so the last one holds.
func keepPrices(ctx context.Context, tx *sqlx.Tx, seenAt time.Time) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO price_history (subsample_id, from_at, currency, cpi)
		SELECT l.subsample_id, ?, TRIM(l.currency), l.cpi FROM live_subsamples l
		WHERE l.cpi > 0 AND TRIM(l.currency) <> '' AND NOT EXISTS (
			SELECT 1 FROM price_history p
			WHERE p.subsample_id = l.subsample_id AND p.currency = TRIM(l.currency) AND p.cpi = l.cpi
			AND p.from_at = (SELECT MAX(q.from_at) FROM price_history q WHERE q.subsample_id = l.subsample_id))
		ON CONFLICT (subsample_id, from_at) DO NOTHING`, seenAt)
	if err != nil {
		return fmt.Errorf("price history: %w", err)
	}
	return nil
}

// keepInvoiceParties records the billing entity and job number of every
// subsample of the event list or live details: live details' billing
// entity when they name one, else event/all's; the job number only live
// details give. A value the provider no longer gives (a subsample that
// left live details, an entity event/all leaves empty) keeps the last one
// seen, so a month that is over is invoiced to whom it was.
//
// It writes those of the subsamples whose event-list or live-details row
// was just written or deleted (moved): the others' are as the last write
// left them. Their last_seen_at is when they were last written, and for
// a subsample no longer listed (left) when a snapshot last listed it
// (lastSeen, the one replaced).
func keepInvoiceParties(ctx context.Context, tx *sqlx.Tx, moved, left []int64, seenAt time.Time, lastSeen *time.Time) error {
	const upsert = `
		ON CONFLICT (subsample_id) DO UPDATE SET event_id = excluded.event_id,
			billing_entity = CASE WHEN excluded.billing_entity = '' THEN invoice_parties.billing_entity ELSE excluded.billing_entity END,
			job_book_id = CASE WHEN excluded.job_book_id = '' THEN invoice_parties.job_book_id ELSE excluded.job_book_id END,
			last_seen_at = excluded.last_seen_at`
	err := inChunks(moved, func(ids []any, in string) error {
		for _, query := range []string{`
			INSERT INTO invoice_parties (subsample_id, event_id, billing_entity, job_book_id, last_seen_at)
			SELECT s.subsample_id, s.event_id, COALESCE(NULLIF(TRIM(l.billing_entity), ''), TRIM(s.billing_entity)),
				COALESCE(TRIM(l.job_book_id), ''), ?
			FROM subsamples s LEFT JOIN live_subsamples l ON l.subsample_id = s.subsample_id
			WHERE s.subsample_id IN (` + in + `)` + upsert, `
			INSERT INTO invoice_parties (subsample_id, event_id, billing_entity, job_book_id, last_seen_at)
			SELECT l.subsample_id, l.event_id, COALESCE(TRIM(l.billing_entity), ''), COALESCE(TRIM(l.job_book_id), ''), ?
			FROM live_subsamples l WHERE l.subsample_id IN (` + in + `)
			AND l.subsample_id NOT IN (SELECT subsample_id FROM subsamples)` + upsert,
		} {
			if _, err := tx.ExecContext(ctx, query, append([]any{seenAt}, ids...)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && lastSeen != nil {
		err = inChunks(left, func(ids []any, in string) error {
			_, err := tx.ExecContext(ctx, `UPDATE invoice_parties SET last_seen_at = ? WHERE subsample_id IN (`+in+`)`,
				append([]any{*lastSeen}, ids...)...)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("invoice parties: %w", err)
	}
	return nil
}

// PriceHistory returns every subsample's price history, oldest point
// first, by subsample id.
func (s *Store) PriceHistory(ctx context.Context) (map[int64][]domain.PricePoint, error) {
	var points []domain.PricePoint
	if err := s.reader.SelectContext(ctx, &points, `
		SELECT subsample_id, currency, cpi, from_at FROM price_history ORDER BY subsample_id, from_at`); err != nil {
		return nil, fmt.Errorf("price history: %w", err)
	}
	out := map[int64][]domain.PricePoint{}
	for _, p := range points {
		out[p.SubsampleID] = append(out[p.SubsampleID], p)
	}
	return out, nil
}

// InvoiceParties returns whom each subsample any snapshot listed is
// invoiced to, by subsample id.
func (s *Store) InvoiceParties(ctx context.Context) (map[int64]domain.InvoiceParty, error) {
	var rows []struct {
		SubsampleID int64 `db:"subsample_id"`
		domain.InvoiceParty
	}
	if err := s.reader.SelectContext(ctx, &rows, `
		SELECT subsample_id, event_id, billing_entity, job_book_id FROM invoice_parties`); err != nil {
		return nil, fmt.Errorf("invoice parties: %w", err)
	}
	out := make(map[int64]domain.InvoiceParty, len(rows))
	for _, r := range rows {
		out[r.SubsampleID] = r.InvoiceParty
	}
	return out, nil
}

// Period names the records ScanPeriod reads: those registered in [From,
// To) name the (panelist, subsample) pairs; with Statuses only records of
// those statuses count, both to name the pairs and to be handed over;
// with SubsampleID only that subsample's.
type Period struct {
	From, To    time.Time
	Statuses    []int64
	SubsampleID int64
}

// ScanPeriod streams what decides the outcomes and the invoice of a
// period: for each panelist with a record on a subsample registered in
// the period, every record of theirs on that subsample registered before
// its end (earlier ones included: a reversal needs the complete before
// it), as p narrows them. fn is called once
// per panelist and subsample (in panelist then subsample order) with the
// records oldest first (by time, then status id). An error from fn stops
// the scan and is returned as is.
//
// The records are read by one query, the dialect's (periodScan), in
// history's key order, in one read transaction: every record comes from
// the same snapshot, and memory holds one pair's records at a time.
func (s *Store) ScanPeriod(ctx context.Context, p Period, fn func(subsampleID int64, panelistID string, records []domain.HistoryRecord) error) error {
	tx, err := s.reader.BeginTxx(ctx, s.dialect.snapshotTx())
	if err != nil {
		return fmt.Errorf("scan period: begin: %w", err)
	}
	defer tx.Rollback()
	query, args, err := s.dialect.periodScan(ctx, tx, p)
	if err != nil {
		return fmt.Errorf("scan period: %w", err)
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("scan period: %w", err)
	}
	defer rows.Close()
	var group []domain.HistoryRecord
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		slices.SortFunc(group, func(a, b domain.HistoryRecord) int {
			return cmp.Or(a.RegisteredAt.Compare(b.RegisteredAt), cmp.Compare(a.StatusID, b.StatusID))
		})
		err := fn(group[0].SubsampleID, group[0].PanelistID, group)
		group = nil
		return err
	}
	for rows.Next() {
		var r domain.HistoryRecord
		if err := rows.Scan(&r.PanelistID, &r.SubsampleID, &r.StatusID, &r.RegisteredAt, &r.EventID, &r.CategoryID, &r.ResearchTypeID); err != nil {
			return fmt.Errorf("scan period: %w", err)
		}
		if len(group) > 0 && (group[0].SubsampleID != r.SubsampleID || group[0].PanelistID != r.PanelistID) {
			if err := flush(); err != nil {
				return err
			}
		}
		group = append(group, r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan period: %w", err)
	}
	return flush()
}

// periodPairsQuery is ScanPeriod's query on SQLite and its arguments: the
// pairs are read from the period's records (history_by_time, whose
// entries name their subsample too), then each pair's records from the
// history's primary key, in its order.
func periodPairsQuery(p Period) (string, []any) {
	only, onlyArgs := periodStatuses(p)
	pairs, pairArgs := "", []any{}
	if p.SubsampleID != 0 {
		pairs, pairArgs = " AND subsample_id = ?", []any{p.SubsampleID}
	}
	args := append(append(append([]any{p.From, p.To}, onlyArgs...), pairArgs...), p.To)
	args = append(args, onlyArgs...)
	return `
		WITH pairs AS (
			SELECT DISTINCT panelist_id, subsample_id FROM history WHERE registered_at >= ? AND registered_at < ?` + only + pairs + `
		)
		SELECT h.` + strings.ReplaceAll(historyColumns, ", ", ", h.") + ` FROM pairs p CROSS JOIN history h
		WHERE h.panelist_id = p.panelist_id AND h.subsample_id = p.subsample_id AND h.registered_at < ?` + strings.ReplaceAll(only, "status_id", "h.status_id") + `
		ORDER BY p.panelist_id, p.subsample_id`, args
}

// periodStatuses is the condition on status_id that p's Statuses make,
// and its arguments.
func periodStatuses(p Period) (string, []any) {
	if len(p.Statuses) == 0 {
		return "", nil
	}
	return " AND status_id IN (" + placeholders(len(p.Statuses)) + ")", appendIDs(nil, p.Statuses)
}

// periodRecordsQuery is ScanPeriod's query on PostgreSQL and its
// arguments: the records before the period's end of the pairs that have
// one in the period (an EXISTS, which PostgreSQL makes a semi-join: the
// period's pairs, from history_by_time, merged along history's primary
// key), in the key's order. The pairs joined to the history (periodPairsQuery)
// had each of PostgreSQL's parallel workers hash every pair of the period
// again, then sort the records: 18-21 s on the shared machine for
// October 2026 of the bench scenario, this one 9 s (EXPLAIN ANALYZE),
// where the floor took 11.
func periodRecordsQuery(p Period) (string, []any) {
	only, onlyArgs := periodStatuses(p)
	pairs, pairArgs := "", []any{}
	if p.SubsampleID != 0 {
		pairs, pairArgs = " AND h.subsample_id = ?", []any{p.SubsampleID}
	}
	args := append(append(append([]any{p.To}, onlyArgs...), pairArgs...), p.From, p.To)
	args = append(args, onlyArgs...)
	return `
		SELECT h.` + strings.ReplaceAll(historyColumns, ", ", ", h.") + ` FROM history h
		WHERE h.registered_at < ?` + strings.ReplaceAll(only, "status_id", "h.status_id") + pairs + `
		AND EXISTS (SELECT 1 FROM history m WHERE m.panelist_id = h.panelist_id AND m.subsample_id = h.subsample_id
			AND m.registered_at >= ? AND m.registered_at < ?` + strings.ReplaceAll(only, "status_id", "m.status_id") + `)
		ORDER BY h.panelist_id, h.subsample_id`, args
}

// RouterSends returns the router's decisions that sent a panelist
// somewhere (a subsample chosen) at or after from and before to, oldest
// first: what the outcomes compare the field's screen-outs and quota
// fulls with.
func (s *Store) RouterSends(ctx context.Context, from, to time.Time) ([]domain.RoutingDecision, error) {
	var out []domain.RoutingDecision
	if err := s.reader.SelectContext(ctx, &out, `
		SELECT decision_id, at, panelist_id, COALESCE(intended_subsample, 0) AS intended_subsample,
			chosen_subsample, outcome, reason, cells
		FROM routing_decisions WHERE chosen_subsample IS NOT NULL AND chosen_subsample != 0 AND at >= ? AND at < ?
		ORDER BY at, decision_id`, from.UTC(), to.UTC()); err != nil {
		return nil, fmt.Errorf("router sends: %w", err)
	}
	return out, nil
}

// AddPriceHistory adds price points kept elsewhere (the demo's, or
// another tool's when moving to Fieldboard), in one transaction. A point
// at a time a subsample already has one is skipped: a refresh's own
// points win.
func (s *Store) AddPriceHistory(ctx context.Context, points []domain.PricePoint) error {
	for _, p := range points {
		if strings.TrimSpace(p.Currency) == "" || !(p.CPI > 0) || math.IsInf(p.CPI, 1) {
			return fmt.Errorf("add price history: subsample %d from %s: a price needs a currency and a CPI above 0, not %q %v", p.SubsampleID, p.From.UTC().Format(time.RFC3339), p.Currency, p.CPI)
		}
	}
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		ins := newInserter(tx, "price_history", `subsample_id, from_at, currency, cpi`, `(?, ?, ?, ?)`, `ON CONFLICT (subsample_id, from_at) DO NOTHING`)
		defer ins.close()
		for _, p := range points {
			if err := ins.add(ctx, p.SubsampleID, p.From, p.Currency, p.CPI); err != nil {
				return err
			}
		}
		return ins.flush(ctx)
	})
	if err != nil {
		return fmt.Errorf("add price history: %w", err)
	}
	return nil
}
