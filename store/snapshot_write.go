package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
		var err error
		if runID, err = insertRun(ctx, tx, snap.Run, true, "", ""); err != nil {
			return err
		}
		if err := replaceSummaries(ctx, s.dialect, conn, tx, snap.Summaries); err != nil {
			return fmt.Errorf("event list: %w", err)
		}
		if err := replaceLive(ctx, s.dialect, conn, tx, snap.Live, snap.FinishedAt); err != nil {
			return fmt.Errorf("live details: %w", err)
		}
		if err := keepUnreadable(ctx, tx, snap.Unreadable, snap.Live); err != nil {
			return fmt.Errorf("malformed elements: %w", err)
		}
		if err := keepTopics(ctx, tx, snap.FinishedAt); err != nil {
			return err
		}
		if err := keepPrices(ctx, tx, snap.FinishedAt); err != nil {
			return err
		}
		if err := keepInvoiceParties(ctx, tx, snap.FinishedAt); err != nil {
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
		details := make([]subsampleDetail, 0, len(snap.Live))
		listed := make(map[int64]bool, len(snap.Live))
		for _, live := range snap.Live {
			if listed[live.SubsampleID] {
				continue // listed twice: its details are the same
			}
			listed[live.SubsampleID] = true
			d, ok := snap.Details[live.SubsampleID]
			if !ok {
				d = SubsampleDetail{FetchedAt: snap.FinishedAt, QuotasErr: errNotFetched, RulesErr: errNotFetched}
			}
			details = append(details, subsampleDetail{live.SubsampleID, d})
		}
		if err := w.write(ctx, details); err != nil {
			return err
		}
		for _, table := range []string{"quotas", "eligibility_rules", "subsample_fetches"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE subsample_id NOT IN (SELECT subsample_id FROM live_subsamples)`); err != nil {
				return fmt.Errorf("drop %s of closed subsamples: %w", table, err)
			}
		}
		if err := replaceStates(ctx, s.dialect, conn, tx, runID, snap.States, snap.Detect); err != nil {
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

func replaceSummaries(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx, summaries []domain.SubsampleSummary) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM subsamples`); err != nil {
		return err
	}
	ins := newFreshRows(d, conn, tx, "subsamples", `subsample_id, event_id, name, status, billing_entity,
			country_id, country_code, country_name, country_region, field_start, field_end`,
		`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (subsample_id) DO NOTHING`, 1)
	defer ins.close()
	for _, s := range summaries {
		if err := ins.add(ctx, s.SubsampleID, s.EventID, s.SubsampleName, s.SubsampleStatus, s.BillingEntity,
			s.Country.ID, s.Country.Code, s.Country.Name, s.Country.RegionName,
			nullTime(s.FieldStartDate.Time), nullTime(s.FieldEndDate.Time)); err != nil {
			return err
		}
	}
	return ins.flush(ctx)
}

// keepUnreadable records on each subsample that is not decided on for a
// malformed element why, adding a row for it when event/all did not list
// it readably, with what live-details said of it when it did.
func keepUnreadable(ctx context.Context, tx *sqlx.Tx, unreadable map[int64]string, live []domain.LiveSubsample) error {
	if len(unreadable) == 0 {
		return nil
	}
	byID := make(map[int64]*domain.LiveSubsample, len(live))
	for i := range live {
		byID[live[i].SubsampleID] = &live[i]
	}
	stmt, err := tx.PreparexContext(ctx, `
		INSERT INTO subsamples (subsample_id, event_id, name, status, billing_entity,
			country_id, country_code, country_name, country_region, malformed)
		VALUES (?, ?, ?, '', '', ?, ?, ?, ?, ?)
		ON CONFLICT (subsample_id) DO UPDATE SET malformed = excluded.malformed`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range slices.Sorted(maps.Keys(unreadable)) {
		var eventID int64
		var name string
		var country domain.Country
		if l := byID[id]; l != nil {
			eventID, name = l.EventID, l.SubsampleName
			if len(l.Countries) > 0 {
				country = l.Countries[0]
			}
		}
		if _, err := stmt.ExecContext(ctx, id, eventID, name,
			country.ID, country.Code, country.Name, country.RegionName, unreadable[id]); err != nil {
			return fmt.Errorf("subsample %d: %w", id, err)
		}
	}
	return nil
}

func replaceLive(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx, live []domain.LiveSubsample, seenAt time.Time) error {
	for _, table := range []string{"live_subsamples", "live_categories", "live_countries", "live_locales"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
			return err
		}
	}
	insLive := newFreshRows(d, conn, tx, "live_subsamples", `subsample_id, event_id, event_name, name, status,
			job_book_id, billing_entity, primary_manager, secondary_manager, contact_email, group_id,
			allow_desktop, allow_mobile, allow_tablet, field_start, field_end,
			api_compatible, requires_flash, child_survey, collect_pii, facial_coding,
			sample_category_id, sample_sub_category_id, research_type, research_type_id, interview_type,
			expected_loi, expected_incidence, currency, cpi, auto_increment, feasibility_id,
			automation, marketplace_enabled, need_recontact`,
		`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		`ON CONFLICT (subsample_id) DO NOTHING`, 1)
	insCategory := newFreshRows(d, conn, tx, "live_categories", `subsample_id, position, main_id, main, generic_id, generic, category_id, category`,
		`(?, ?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT DO NOTHING`, 2)
	insCountry := newFreshRows(d, conn, tx, "live_countries", `subsample_id, position, country_id, code, name, region`,
		`(?, ?, ?, ?, ?, ?)`, `ON CONFLICT DO NOTHING`, 2)
	insLocale := newFreshRows(d, conn, tx, "live_locales", `subsample_id, position, locale, live_link, testing_link`,
		`(?, ?, ?, ?, ?)`, `ON CONFLICT DO NOTHING`, 2)
	upsertCategory := newInserter(tx, "categories", `category_id, category, generic_id, generic, main_id, main, last_seen_at`,
		`(?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (category_id) DO UPDATE SET category = excluded.category,
			generic_id = excluded.generic_id, generic = excluded.generic,
			main_id = excluded.main_id, main = excluded.main, last_seen_at = excluded.last_seen_at`)
	all := []rowWriter{insLive, insCategory, insCountry, insLocale, upsertCategory}
	defer closeInserters(all...)
	// The category tree: each category once, as the last subsample
	// listing it names it (an upsert may not write a row twice in one
	// statement).
	tree := map[int64]domain.Category{}
	var treeOrder []int64
	for _, l := range live {
		err := insLive.add(ctx, l.SubsampleID, l.EventID, l.EventName, l.SubsampleName, l.SubsampleStatus,
			l.JobBookID, l.BillingEntity, l.PrimaryProjectManager, l.SecondaryProjectManager, l.ContactEmailAddress, l.GroupID,
			l.AllowDesktop, l.AllowMobile, l.AllowTablet, nullTime(l.FieldStartDate.Time), nullTime(l.FieldEndDate.Time),
			l.SurveyAPICompatibility, l.RequiresFlash, l.ChildSurvey, l.CollectPII, l.FacialCoding,
			l.SampleCategoryID, l.SampleSubCategoryID, l.ResearchType, l.ResearchTypeID, l.InterviewType,
			l.ExpectedClientLOI, l.ExpectedIncidenceRate, l.TargetedCurrency, l.TargetedCPI,
			rawJSON(l.CompletesAutoIncrementSchedule), l.FeasibilityID,
			l.Automation, l.MarketplaceEnabled, l.NeedRecontact)
		if err != nil {
			return err
		}
		for i, c := range l.Categories {
			if err := insCategory.add(ctx, l.SubsampleID, i, c.MainCategoryID, c.MainCategory,
				c.GenericCategoryID, c.GenericCategory, c.CategoryID, c.Category); err != nil {
				return err
			}
			if c.CategoryID != 0 {
				if _, ok := tree[c.CategoryID]; !ok {
					treeOrder = append(treeOrder, c.CategoryID)
				}
				tree[c.CategoryID] = c
			}
		}
		for i, c := range l.Countries {
			if err := insCountry.add(ctx, l.SubsampleID, i, c.ID, c.Code, c.Name, c.RegionName); err != nil {
				return err
			}
		}
		for i, loc := range l.Locales {
			if err := insLocale.add(ctx, l.SubsampleID, i, loc.Name, loc.LiveEntryLink, loc.TestingEntryLink); err != nil {
				return err
			}
		}
	}
	for _, id := range treeOrder {
		c := tree[id]
		if err := upsertCategory.add(ctx, c.CategoryID, c.Category, c.GenericCategoryID,
			c.GenericCategory, c.MainCategoryID, c.MainCategory, seenAt); err != nil {
			return err
		}
	}
	return flushAll(ctx, all...)
}

// detailWriter writes subsamples' quotas, rules and fetch state, their
// rows batchRows at a time (inserter), after deleting the quotas and
// rules their fetches replace, many subsamples a statement.
type detailWriter struct {
	tx               *sqlx.Tx
	quotas, rules    rowWriter // fresh: the quotas and rules replaced are deleted first
	fetches, history *inserter
	currentCounts    *sqlx.Stmt
	// preloaded holds every subsample's current counts when a whole
	// snapshot is written, read in one query instead of one a subsample.
	preloaded map[int64]map[int64]quotaCounts
}

type quotaCounts struct {
	Achieved           int64 `db:"achieved"`
	RemainingExclusive int64 `db:"remaining_exclusive"`
	RemainingShared    int64 `db:"remaining_shared"`
}

func newDetailWriter(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx) (*detailWriter, error) {
	currentCounts, err := tx.PreparexContext(ctx, `SELECT quota_id, achieved, remaining_exclusive, remaining_shared FROM quotas WHERE subsample_id = ?`)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	w := &detailWriter{tx: tx, currentCounts: currentCounts,
		quotas: newFreshRows(d, conn, tx, "quotas", `subsample_id, quota_id, position, table_id, table_name, quota_name, quota_type,
			subsample_status, achieved, remaining_exclusive, remaining_shared, actual_incidence,
			actual_conversion, actual_abandon, estimated_incidence, actual_loi, estimated_loi, questions`,
			`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (subsample_id, quota_id) DO NOTHING`, 2),
		rules: newFreshRows(d, conn, tx, "eligibility_rules", `subsample_id, kind, position, ref_id, name, main_category_id,
			generic_category_id, specific_category_id, num_days, return_codes`, `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "", 0),
		fetches: newInserter(tx, "subsample_fetches", `subsample_id, quotas_ok, quotas_error, quotas_at, rules_ok, rules_error, rules_at`,
			`(?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (subsample_id) DO UPDATE SET
			quotas_ok = excluded.quotas_ok, quotas_error = excluded.quotas_error,
			quotas_at = CASE WHEN excluded.quotas_ok THEN excluded.quotas_at ELSE subsample_fetches.quotas_at END,
			rules_ok = excluded.rules_ok, rules_error = excluded.rules_error,
			rules_at = CASE WHEN excluded.rules_ok THEN excluded.rules_at ELSE subsample_fetches.rules_at END`),
		history: newInserter(tx, "quota_history", `subsample_id, quota_id, at, achieved, remaining_exclusive, remaining_shared`,
			`(?, ?, ?, ?, ?, ?)`, `ON CONFLICT DO NOTHING`),
	}
	return w, nil
}

// deleteOf deletes the rows of table of the subsamples in ids.
func (w *detailWriter) deleteOf(ctx context.Context, table string, ids []int64) error {
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		if _, err := w.tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE subsample_id IN (`+placeholders(n)+`)`, appendIDs(nil, ids[:n])...); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
		ids = ids[n:]
	}
	return nil
}

// preload reads the current counts of every quota in one query.
func (w *detailWriter) preload(ctx context.Context, tx *sqlx.Tx) error {
	rows, err := tx.QueryxContext(ctx, `SELECT subsample_id, quota_id, achieved, remaining_exclusive, remaining_shared FROM quotas`)
	if err != nil {
		return fmt.Errorf("current quotas: %w", err)
	}
	defer rows.Close()
	w.preloaded = make(map[int64]map[int64]quotaCounts)
	for rows.Next() {
		var subsampleID, quotaID int64
		var c quotaCounts
		if err := rows.Scan(&subsampleID, &quotaID, &c.Achieved, &c.RemainingExclusive, &c.RemainingShared); err != nil {
			return fmt.Errorf("current quotas: %w", err)
		}
		if w.preloaded[subsampleID] == nil {
			w.preloaded[subsampleID] = make(map[int64]quotaCounts)
		}
		w.preloaded[subsampleID][quotaID] = c
	}
	return rows.Err()
}

func (w *detailWriter) close() {
	w.currentCounts.Close()
	closeInserters(w.quotas, w.rules, w.fetches, w.history)
}

// previousCounts returns the counts of subsample id's quotas in the
// snapshot being replaced, so that a quota_history row is added only when a
// quota's counts moved.
func (w *detailWriter) previousCounts(ctx context.Context, id int64) (map[int64]quotaCounts, error) {
	if w.preloaded != nil {
		return w.preloaded[id], nil
	}
	rows, err := w.currentCounts.QueryxContext(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := make(map[int64]quotaCounts)
	for rows.Next() {
		var quotaID int64
		var c quotaCounts
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
	var replaceQuotas, replaceRules []int64
	for _, d := range details {
		if d.QuotasErr == nil {
			replaceQuotas = append(replaceQuotas, d.id)
		}
		if d.RulesErr == nil {
			replaceRules = append(replaceRules, d.id)
		}
	}
	// What changed is read before the rows it is read from go.
	previous := make(map[int64]map[int64]quotaCounts, len(replaceQuotas))
	for _, id := range replaceQuotas {
		counts, err := w.previousCounts(ctx, id)
		if err != nil {
			return fmt.Errorf("current quotas of subsample %d: %w", id, err)
		}
		previous[id] = counts
	}
	if err := w.deleteOf(ctx, "quotas", replaceQuotas); err != nil {
		return err
	}
	if err := w.deleteOf(ctx, "eligibility_rules", replaceRules); err != nil {
		return err
	}
	for _, d := range details {
		if err := w.add(ctx, d.id, d.SubsampleDetail, previous[d.id]); err != nil {
			return fmt.Errorf("subsample %d: %w", d.id, err)
		}
	}
	return flushAll(ctx, w.quotas, w.rules, w.fetches, w.history)
}

// add queues the rows of subsample id's details; previous are the counts
// of its quotas before.
func (w *detailWriter) add(ctx context.Context, id int64, d SubsampleDetail, previous map[int64]quotaCounts) error {
	if d.QuotasErr == nil {
		for i, q := range d.Quotas {
			conditions, err := json.Marshal(q.Questions)
			if err != nil {
				return fmt.Errorf("conditions of quota %d: %w", q.QuotaID, err)
			}
			if err := w.quotas.add(ctx, id, q.QuotaID, i, q.TableID, q.TableName, q.QuotaName, q.QuotaType,
				q.SubsampleStatus, q.AchievedInterviews, q.RemainingExclusive, q.RemainingShared,
				q.ActualClientIncidenceRate, q.ActualClientConversionRate, q.ActualClientAbandonRate,
				q.EstimatedIncidence, q.ActualClientLOI, q.EstimatedLOI, string(conditions)); err != nil {
				return err
			}
			now := quotaCounts{q.AchievedInterviews, q.RemainingExclusive, q.RemainingShared}
			if prev, ok := previous[q.QuotaID]; !ok || prev != now {
				if err := w.history.add(ctx, id, q.QuotaID, d.FetchedAt, now.Achieved, now.RemainingExclusive, now.RemainingShared); err != nil {
					return err
				}
			}
		}
	}
	if d.RulesErr == nil {
		for i, r := range ruleRows(d.Rules) {
			codes, _ := json.Marshal(r.ReturnCodes)
			if err := w.rules.add(ctx, id, r.Kind, i, r.RefID, r.Name, r.MainCategoryID,
				r.GenericCategoryID, r.SpecificCategoryID, r.NumDays, string(codes)); err != nil {
				return err
			}
		}
	}
	return w.fetches.add(ctx, id, d.QuotasErr == nil, errText(d.QuotasErr), d.FetchedAt,
		d.RulesErr == nil, errText(d.RulesErr), d.FetchedAt)
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
