package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/jmoiron/sqlx"
)

// detailWriter writes subsamples' quotas, rules and fetch state, their
// rows batchRows at a time (inserter) or by one COPY (newFreshRows).
//
// Written with a whole snapshot (preload), it compares each quota and
// each subsample's rules with what is stored (their digests) and writes
// only what differs: a quota whose values moved is updated in place, a
// new one added, one the provider no longer lists deleted; a
// subsample's rules that differ are replaced. Written alone
// (SaveSubsampleDetail), a subsample's quotas and rules replace all of
// its earlier ones.
type detailWriter struct {
	tx *sqlx.Tx
	// quotas and rules write rows whose keys are not stored (new, or
	// deleted first); changedQuotas updates quotas stored with other
	// values, and movedCounts, when the dialect has one (SQLite), those
	// whose counts alone moved: their counts and digest.
	quotas, rules, changedQuotas rowWriter
	movedCounts                  rowWriter
	fetches, history             rowWriter
	currentCounts                *sqlx.Stmt
	// preloaded holds every stored quota's counts and digest, and
	// rulesDigests every fetched subsample's rules digest, when a whole
	// snapshot is written; both nil otherwise.
	preloaded    map[int64]map[int64]storedQuota
	rulesDigests map[int64]sql.NullInt64
	digest       rowDigest
}

type quotaCounts struct {
	Achieved           int64 `db:"achieved"`
	RemainingExclusive int64 `db:"remaining_exclusive"`
	RemainingShared    int64 `db:"remaining_shared"`
}

// storedQuota is what a snapshot write reads of a stored quota: its
// counts (quota history is kept of those that move) and its digest.
type storedQuota struct {
	quotaCounts
	digest sql.NullInt64
}

const quotaColumns = `subsample_id, quota_id, position, table_id, table_name, quota_name, quota_type,
	subsample_status, achieved, remaining_exclusive, remaining_shared, actual_incidence,
	actual_conversion, actual_abandon, estimated_incidence, actual_loi, estimated_loi, questions, digest`

func newDetailWriter(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx) (*detailWriter, error) {
	currentCounts, err := tx.PreparexContext(ctx, `SELECT quota_id, achieved, remaining_exclusive, remaining_shared FROM quotas WHERE subsample_id = ?`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	const quotaRow = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	w := &detailWriter{tx: tx, currentCounts: currentCounts,
		quotas: newFreshRows(d, conn, tx, "quotas", quotaColumns, quotaRow, "", 0),
		changedQuotas: newUpsertRows(d, conn, tx, "quotas", quotaColumns, quotaRow, `ON CONFLICT (subsample_id, quota_id) DO UPDATE SET
			position = excluded.position, table_id = excluded.table_id, table_name = excluded.table_name,
			quota_name = excluded.quota_name, quota_type = excluded.quota_type, subsample_status = excluded.subsample_status,
			achieved = excluded.achieved, remaining_exclusive = excluded.remaining_exclusive, remaining_shared = excluded.remaining_shared,
			actual_incidence = excluded.actual_incidence, actual_conversion = excluded.actual_conversion,
			actual_abandon = excluded.actual_abandon, estimated_incidence = excluded.estimated_incidence,
			actual_loi = excluded.actual_loi, estimated_loi = excluded.estimated_loi, questions = excluded.questions,
			digest = excluded.digest`),
		rules: newFreshRows(d, conn, tx, "eligibility_rules", `subsample_id, kind, position, ref_id, name, main_category_id,
			generic_category_id, specific_category_id, num_days, return_codes`, `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "", 0),
		fetches: newUpsertRows(d, conn, tx, "subsample_fetches", `subsample_id, quotas_ok, quotas_error, quotas_at, rules_ok, rules_error, rules_at, rules_digest`,
			`(?, ?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (subsample_id) DO UPDATE SET
			quotas_ok = excluded.quotas_ok, quotas_error = excluded.quotas_error,
			quotas_at = CASE WHEN excluded.quotas_ok THEN excluded.quotas_at ELSE subsample_fetches.quotas_at END,
			rules_ok = excluded.rules_ok, rules_error = excluded.rules_error,
			rules_at = CASE WHEN excluded.rules_ok THEN excluded.rules_at ELSE subsample_fetches.rules_at END,
			rules_digest = CASE WHEN excluded.rules_ok THEN excluded.rules_digest ELSE subsample_fetches.rules_digest END`),
		history: newUpsertRows(d, conn, tx, "quota_history", `subsample_id, quota_id, at, achieved, remaining_exclusive, remaining_shared`,
			`(?, ?, ?, ?, ?, ?)`, `ON CONFLICT DO NOTHING`),
	}
	if _, ok := d.(sqlite); ok {
		// Most quotas that differ from one refresh to the next differ in
		// their counts alone: on SQLite those are updated by their key,
		// six values a row rather than nineteen (on PostgreSQL they go
		// with the others by one COPY).
		w.movedCounts = &inserter{tx: tx, table: "quotas",
			head: `UPDATE quotas SET achieved = v.column3, remaining_exclusive = v.column4, remaining_shared = v.column5,
			digest = v.column6 FROM (VALUES `,
			row:   `(?, ?, ?, ?, ?, ?)`,
			tail:  `) AS v WHERE quotas.subsample_id = v.column1 AND quotas.quota_id = v.column2`,
			width: 6}
	}
	return w, nil
}

// preload reads every stored quota's counts and digest in one query, and
// every fetched subsample's rules digest in another, for the write of a
// whole snapshot.
func (w *detailWriter) preload(ctx context.Context, tx *sqlx.Tx) error {
	rows, err := tx.QueryxContext(ctx, `SELECT subsample_id, quota_id, achieved, remaining_exclusive, remaining_shared, digest FROM quotas`)
	if err != nil {
		return fmt.Errorf("current quotas: %w", err)
	}
	defer rows.Close()
	w.preloaded = make(map[int64]map[int64]storedQuota)
	for rows.Next() {
		var subsampleID, quotaID int64
		var q storedQuota
		if err := rows.Scan(&subsampleID, &quotaID, &q.Achieved, &q.RemainingExclusive, &q.RemainingShared, &q.digest); err != nil {
			return fmt.Errorf("current quotas: %w", err)
		}
		if w.preloaded[subsampleID] == nil {
			w.preloaded[subsampleID] = make(map[int64]storedQuota)
		}
		w.preloaded[subsampleID][quotaID] = q
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("current quotas: %w", err)
	}
	w.rulesDigests, err = storedDigests(ctx, tx, "subsample_fetches", "rules_digest")
	return err
}

// storedSubsamples lists, sorted, the subsamples preload found quotas or
// a fetch state of.
func (w *detailWriter) storedSubsamples() []int64 {
	ids := map[int64]bool{}
	for id := range w.preloaded {
		ids[id] = true
	}
	for id := range w.rulesDigests {
		ids[id] = true
	}
	return slices.Sorted(maps.Keys(ids))
}

func (w *detailWriter) close() {
	w.currentCounts.Close()
	closeInserters(w.quotas, w.rules, w.changedQuotas, w.fetches, w.history)
	if w.movedCounts != nil {
		w.movedCounts.close()
	}
}

// previousCounts returns the counts of subsample id's quotas in the
// snapshot being replaced, so that a quota_history row is added only when a
// quota's counts moved.
func (w *detailWriter) previousCounts(ctx context.Context, id int64) (map[int64]storedQuota, error) {
	if w.preloaded != nil {
		return w.preloaded[id], nil
	}
	rows, err := w.currentCounts.QueryxContext(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := make(map[int64]storedQuota)
	for rows.Next() {
		var quotaID int64
		var c storedQuota
		if err := rows.Scan(&quotaID, &c.Achieved, &c.RemainingExclusive, &c.RemainingShared); err != nil {
			return nil, err
		}
		counts[quotaID] = c
	}
	return counts, rows.Err()
}

// subsampleDetail is one subsample's details, to write.
type subsampleDetail struct {
	id int64
	SubsampleDetail
}

// write writes the details of subsamples, each listed once: the quotas
// and rules of each whose fetch worked replace its earlier ones, and the
// fetch state of each is recorded.
func (w *detailWriter) write(ctx context.Context, details []subsampleDetail) error {
	diff := w.preloaded != nil
	var replaceQuotas, replaceRules []int64
	rules := make(map[int64][][]any, len(details))
	rulesDigests := make(map[int64]int64, len(details))
	// What changed is read before the rows it is read from go.
	previous := make(map[int64]map[int64]storedQuota, len(details))
	for _, d := range details {
		if d.QuotasErr == nil {
			counts, err := w.previousCounts(ctx, d.id)
			if err != nil {
				return fmt.Errorf("current quotas of subsample %d: %w", d.id, err)
			}
			previous[d.id] = counts
			if !diff {
				replaceQuotas = append(replaceQuotas, d.id)
			}
		}
		if d.RulesErr == nil {
			var dg rowDigest
			for i, r := range ruleRows(d.Rules) {
				codes, _ := json.Marshal(r.ReturnCodes)
				row := []any{d.id, r.Kind, i, r.RefID, r.Name, r.MainCategoryID,
					r.GenericCategoryID, r.SpecificCategoryID, r.NumDays, string(codes)}
				dg.add(row...)
				rules[d.id] = append(rules[d.id], row)
			}
			rulesDigests[d.id] = dg.sum()
			if same(w.rulesDigests, d.id, rulesDigests[d.id]) {
				delete(rules, d.id) // as stored
			} else {
				replaceRules = append(replaceRules, d.id)
			}
		}
	}
	if err := deleteOf(ctx, w.tx, "quotas", replaceQuotas); err != nil {
		return err
	}
	if err := deleteOf(ctx, w.tx, "eligibility_rules", replaceRules); err != nil {
		return err
	}
	for _, d := range details {
		stored := previous[d.id]
		if !diff {
			stored = nil // deleted
		}
		if err := w.add(ctx, d.id, d.SubsampleDetail, previous[d.id], stored, rules[d.id], rulesDigests[d.id]); err != nil {
			return fmt.Errorf("subsample %d: %w", d.id, err)
		}
	}
	if w.movedCounts != nil {
		if err := w.movedCounts.flush(ctx); err != nil {
			return err
		}
	}
	return flushAll(ctx, w.quotas, w.changedQuotas, w.rules, w.fetches, w.history)
}

// add queues the rows of subsample id's details: previous are the counts
// of its quotas before, stored the quotas it still holds (their digests),
// rules its rules' rows to write (none when they are stored as they are)
// and rulesDigest their digest.
func (w *detailWriter) add(ctx context.Context, id int64, d SubsampleDetail, previous, stored map[int64]storedQuota,
	rules [][]any, rulesDigest int64) error {
	if d.QuotasErr == nil {
		listed := make(map[int64]bool, len(d.Quotas))
		var historied map[int64]bool // a quota listed twice: the first count that moved is kept
		for i, q := range d.Quotas {
			now := quotaCounts{q.AchievedInterviews, q.RemainingExclusive, q.RemainingShared}
			if prev, ok := previous[q.QuotaID]; (!ok || prev.quotaCounts != now) && !historied[q.QuotaID] {
				if err := w.history.add(ctx, id, q.QuotaID, d.FetchedAt, now.Achieved, now.RemainingExclusive, now.RemainingShared); err != nil {
					return err
				}
				if historied == nil {
					historied = map[int64]bool{}
				}
				historied[q.QuotaID] = true
			}
			if listed[q.QuotaID] {
				continue // listed twice: the first is kept
			}
			listed[q.QuotaID] = true
			digest := quotaDigest(&w.digest, i, &d.Quotas[i])
			s, ok := stored[q.QuotaID]
			if ok && s.digest.Valid && s.digest.Int64 == digest {
				continue // as stored
			}
			if ok && s.digest.Valid && w.movedCounts != nil && s.quotaCounts != now {
				// Stored as it is but for its counts: its digest with the
				// stored counts is the digest stored.
				was := d.Quotas[i]
				was.AchievedInterviews, was.RemainingExclusive, was.RemainingShared = s.Achieved, s.RemainingExclusive, s.RemainingShared
				if quotaDigest(&w.digest, i, &was) == s.digest.Int64 {
					if err := w.movedCounts.add(ctx, id, q.QuotaID, now.Achieved, now.RemainingExclusive, now.RemainingShared, digest); err != nil {
						return err
					}
					continue
				}
			}
			conditions, err := json.Marshal(q.Questions)
			if err != nil {
				return fmt.Errorf("conditions of quota %d: %w", q.QuotaID, err)
			}
			row := []any{id, q.QuotaID, i, q.TableID, q.TableName, q.QuotaName, q.QuotaType,
				q.SubsampleStatus, q.AchievedInterviews, q.RemainingExclusive, q.RemainingShared,
				q.ActualClientIncidenceRate, q.ActualClientConversionRate, q.ActualClientAbandonRate,
				q.EstimatedIncidence, q.ActualClientLOI, q.EstimatedLOI, string(conditions), digest}
			if ok {
				err = w.changedQuotas.add(ctx, row...)
			} else {
				err = w.quotas.add(ctx, row...)
			}
			if err != nil {
				return err
			}
		}
		var dropped []int64
		for quotaID := range stored {
			if !listed[quotaID] {
				dropped = append(dropped, quotaID)
			}
		}
		if len(dropped) > 0 {
			slices.Sort(dropped)
			if _, err := w.tx.ExecContext(ctx, `DELETE FROM quotas WHERE subsample_id = ? AND quota_id IN (`+idList(dropped)+`)`, id); err != nil {
				return fmt.Errorf("quotas no longer listed: %w", err)
			}
		}
	}
	var digest any
	if d.RulesErr == nil {
		digest = rulesDigest
		for _, row := range rules {
			if err := w.rules.add(ctx, row...); err != nil {
				return err
			}
		}
	}
	return w.fetches.add(ctx, id, d.QuotasErr == nil, errText(d.QuotasErr), d.FetchedAt,
		d.RulesErr == nil, errText(d.RulesErr), d.FetchedAt, digest)
}
