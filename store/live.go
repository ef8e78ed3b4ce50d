package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// LiveRow is one live subsample as the live list shows it: the properties of
// live details with its total quota and the state of its last fetch.
type LiveRow struct {
	SubsampleID       int64      `db:"subsample_id"`
	EventID           int64      `db:"event_id"`
	EventName         string     `db:"event_name"`
	Name              string     `db:"name"`
	Status            string     `db:"status"`
	APICompatible     bool       `db:"api_compatible"`
	Currency          string     `db:"currency"`
	CPI               float64    `db:"cpi"`
	ExpectedLOI       *float64   `db:"expected_loi"`
	ExpectedIncidence *float64   `db:"expected_incidence"`
	ResearchType      string     `db:"research_type"`
	ResearchTypeID    int64      `db:"research_type_id"`
	AllowDesktop      bool       `db:"allow_desktop"`
	AllowMobile       bool       `db:"allow_mobile"`
	AllowTablet       bool       `db:"allow_tablet"`
	Categories        string     `db:"categories"` // specific category names, comma separated
	FieldStart        *time.Time `db:"field_start"`
	FieldEnd          *time.Time `db:"field_end"`
	Countries         string     `db:"countries"` // country codes, comma separated
	Locales           string     `db:"locales"`   // locale codes, comma separated
	// TotalAchieved and TotalRemaining come from the total quota; nil when
	// the subsample has none stored.
	TotalAchieved  *int64 `db:"total_achieved"`
	TotalRemaining *int64 `db:"total_remaining"`
	QuotasOK       *bool  `db:"quotas_ok"` // nil when never fetched
	QuotasError    string `db:"quotas_error"`
}

// totalQuotaCondition selects a subsample's total quota (the spec's Quota
// sending rule): quotaType counting, table Total Quota, no conditions.
const totalQuotaCondition = `lower(q.quota_type) = 'counting' AND lower(trim(q.table_name)) = 'total quota' AND q.questions IN ('[]', 'null')`

// remainingSum is a quota's remainingExclusive + remainingShared as
// domain.Quota.Remaining adds them: a sum beyond 64 bits stops at the
// largest or smallest integer, where SQLite would turn it into a float
// that no longer scans and PostgreSQL fail the statement. CASE evaluates
// the addition only when it cannot overflow.
const remainingSum = `CASE
	WHEN q.remaining_exclusive > 0 AND q.remaining_shared > 9223372036854775807 - q.remaining_exclusive THEN 9223372036854775807
	WHEN q.remaining_exclusive < 0 AND q.remaining_shared < (-9223372036854775807 - 1) - q.remaining_exclusive THEN -9223372036854775807 - 1
	ELSE q.remaining_exclusive + q.remaining_shared END`

// LiveRows returns every live subsample of the current snapshot, by event
// and subsample id.
func (s *Store) LiveRows(ctx context.Context) ([]LiveRow, error) {
	return liveRows(ctx, s.reader)
}

func liveRows(ctx context.Context, q sqlx.QueryerContext) ([]LiveRow, error) {
	var rows []LiveRow
	err := sqlx.SelectContext(ctx, q, &rows, `
		SELECT l.subsample_id, l.event_id, l.event_name, l.name, l.status, l.api_compatible, l.currency, l.cpi,
			l.expected_loi, l.expected_incidence, l.research_type, l.research_type_id,
			l.allow_desktop, l.allow_mobile, l.allow_tablet, l.field_start, l.field_end,
			COALESCE((SELECT string_agg(category, ', ' ORDER BY position) FROM live_categories c WHERE c.subsample_id = l.subsample_id), '') AS categories,
			COALESCE((SELECT string_agg(code, ', ' ORDER BY position) FROM live_countries c WHERE c.subsample_id = l.subsample_id), '') AS countries,
			COALESCE((SELECT string_agg(locale, ', ' ORDER BY position) FROM live_locales c WHERE c.subsample_id = l.subsample_id), '') AS locales,
			t.achieved AS total_achieved, t.remaining AS total_remaining, f.quotas_ok, COALESCE(f.quotas_error, '') AS quotas_error
		FROM live_subsamples l
		LEFT JOIN (
			SELECT q.subsample_id, MIN(q.achieved) AS achieved, MIN(`+remainingSum+`) AS remaining
			FROM quotas q WHERE `+totalQuotaCondition+` GROUP BY q.subsample_id
		) t ON t.subsample_id = l.subsample_id
		LEFT JOIN subsample_fetches f ON f.subsample_id = l.subsample_id
		ORDER BY l.event_id, l.subsample_id`)
	if err != nil {
		return nil, fmt.Errorf("live subsamples: %w", err)
	}
	return rows, nil
}

// QuotaFetch says whether a subsample's stored quotas and rules come from
// its last fetch (OK) or are left from an earlier one because it failed.
type QuotaFetch struct {
	QuotasOK    bool      `db:"quotas_ok"`
	QuotasError string    `db:"quotas_error"`
	QuotasAt    time.Time `db:"quotas_at"`
	RulesOK     bool      `db:"rules_ok"`
	RulesError  string    `db:"rules_error"`
	RulesAt     time.Time `db:"rules_at"`
}

// FetchOf returns the fetch state of a live subsample's quotas and rules,
// or ErrNotFound when they were never fetched.
func (s *Store) FetchOf(ctx context.Context, subsampleID int64) (QuotaFetch, error) {
	var f QuotaFetch
	err := s.reader.GetContext(ctx, &f, `
		SELECT quotas_ok, quotas_error, quotas_at, rules_ok, rules_error, rules_at
		FROM subsample_fetches WHERE subsample_id = ?`, subsampleID)
	if err != nil {
		return QuotaFetch{}, fmt.Errorf("fetch state of subsample %d: %w", subsampleID, notFound(err))
	}
	return f, nil
}

// QuotasOf returns the stored quotas of a subsample in the provider's order.
func (s *Store) QuotasOf(ctx context.Context, subsampleID int64) ([]domain.Quota, error) {
	if subsampleID == 0 {
		return nil, nil
	}
	quotas, err := allQuotas(ctx, s.reader, subsampleID)
	if err != nil {
		return nil, err
	}
	return quotas[subsampleID], nil
}

// CountLive returns the number of live subsamples in the current snapshot.
func (s *Store) CountLive(ctx context.Context) (int, error) {
	var n int
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM live_subsamples`); err != nil {
		return 0, fmt.Errorf("count live subsamples: %w", err)
	}
	return n, nil
}

// CountSubsamples returns the number of subsamples in the event list.
func (s *Store) CountSubsamples(ctx context.Context) (int, error) {
	var n int
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM subsamples`); err != nil {
		return 0, fmt.Errorf("count subsamples: %w", err)
	}
	return n, nil
}

// QuotaPoint is a quota's counts at one refresh.
type QuotaPoint struct {
	At                 time.Time `db:"at"`
	Achieved           int64     `db:"achieved"`
	RemainingExclusive int64     `db:"remaining_exclusive"`
	RemainingShared    int64     `db:"remaining_shared"`
}

// QuotaHistory returns the stored counts of one quota, oldest first: a
// point for every refresh in the retention window that saw them change.
func (s *Store) QuotaHistory(ctx context.Context, subsampleID, quotaID int64) ([]QuotaPoint, error) {
	var out []QuotaPoint
	err := s.reader.SelectContext(ctx, &out, `
		SELECT at, achieved, remaining_exclusive, remaining_shared FROM quota_history
		WHERE subsample_id = ? AND quota_id = ? ORDER BY at`, subsampleID, quotaID)
	if err != nil {
		return nil, fmt.Errorf("history of quota %d of subsample %d: %w", quotaID, subsampleID, err)
	}
	return out, nil
}

// SubsampleLocales returns the distinct locale codes of the live
// subsamples, lower case: the locales whose question library is needed.
func (s *Store) SubsampleLocales(ctx context.Context) ([]string, error) {
	var out []string
	if err := s.reader.SelectContext(ctx, &out, `SELECT DISTINCT lower(locale) FROM live_locales WHERE locale <> '' ORDER BY 1`); err != nil {
		return nil, fmt.Errorf("locales of live subsamples: %w", err)
	}
	return out, nil
}
