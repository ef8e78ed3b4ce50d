package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// SubsampleRow is one subsample of the current snapshot as the checks see
// it: its event-list entry, joined with its live details and the state of
// its last quota and rule fetch when it is live.
type SubsampleRow struct {
	SubsampleID int64  `db:"subsample_id"`
	EventID     int64  `db:"event_id"`
	Name        string `db:"name"`
	EventName   string `db:"event_name"`
	Status      string `db:"status"`
	// SummaryStatus and LiveStatus are what event/all and live-details
	// each said; "" when the subsample is not in that list.
	SummaryStatus string     `db:"summary_status"`
	LiveStatus    string     `db:"live_status"`
	CountryCode   string     `db:"country_code"`
	CountryName   string     `db:"country_name"`
	FieldStart    *time.Time `db:"field_start"`
	FieldEnd      *time.Time `db:"field_end"`
	// LiveEventID, SummaryFieldEnd and LiveFieldEnd are what live-details
	// and event/all each said of the event and the field end (EventID and
	// CountryCode are event/all's when it lists the subsample); 0 or nil
	// when the subsample is not in that list or the list gave none.
	// LiveCountries are the country codes live-details lists, in its
	// order (ReadSnapshot fills them; Snapshot.Countries holds them too).
	LiveEventID     int64      `db:"live_event_id"`
	SummaryFieldEnd *time.Time `db:"summary_field_end"`
	LiveFieldEnd    *time.Time `db:"live_field_end"`
	LiveCountries   []string   `db:"-"`
	Live            bool       `db:"live"` // listed by live-details
	APICompatible   bool       `db:"api_compatible"`
	Currency        string     `db:"currency"`
	CPI             *float64   `db:"cpi"`
	ExpectedLOI     *float64   `db:"expected_loi"`
	ExpectedIR      *float64   `db:"expected_incidence"`
	ResearchType    string     `db:"research_type"`
	ResearchTypeID  *int64     `db:"research_type_id"`
	QuotasOK        *bool      `db:"quotas_ok"` // nil when never fetched
	QuotasError     string     `db:"quotas_error"`
	// QuotasAt is when the quotas were last read (nil when never): the
	// latest moment the provider is known to have said the subsample's
	// status.
	QuotasAt   *time.Time `db:"quotas_at"`
	RulesOK    *bool      `db:"rules_ok"`
	RulesError string     `db:"rules_error"`
	// Malformed says why an element of event/all or live-details for the
	// subsample was dropped as unreadable; "" when none was.
	Malformed string `db:"malformed"`
	// BillingEntity is the entity the provider invoices the subsample
	// under (live-details', else event/all's), trimmed. Devices are
	// live-details' device flags, DeviceDesktop | DeviceMobile |
	// DeviceTablet, or DevicesUnknown when the subsample is not live: a
	// number, not three pointers, which every decided snapshot would keep
	// and the collector scan.
	BillingEntity string `db:"billing_entity"`
	Devices       int8   `db:"devices"`
}

// The device flags of SubsampleRow.Devices.
const (
	DeviceDesktop  int8 = 1
	DeviceMobile   int8 = 2
	DeviceTablet   int8 = 4
	DevicesUnknown int8 = -1
)

// devicesSum is a live subsample's device flags as one number
// (SubsampleRow.Devices), alike on both databases.
const devicesSum = `(CASE WHEN l.allow_desktop THEN 1 ELSE 0 END + CASE WHEN l.allow_mobile THEN 2 ELSE 0 END + CASE WHEN l.allow_tablet THEN 4 ELSE 0 END)`

// subsampleRowsQuery lists every subsample of the event list and every live
// one, the live details winning where both know a field.
const subsampleRowsQuery = `
	SELECT s.subsample_id, s.event_id, s.name, COALESCE(l.event_name, '') AS event_name,
		COALESCE(l.status, s.status) AS status, s.status AS summary_status, COALESCE(l.status, '') AS live_status,
		s.country_code, s.country_name,
		COALESCE(l.field_start, s.field_start) AS field_start, COALESCE(l.field_end, s.field_end) AS field_end,
		COALESCE(l.event_id, 0) AS live_event_id, s.field_end AS summary_field_end, l.field_end AS live_field_end,
		l.subsample_id IS NOT NULL AS live, COALESCE(l.api_compatible, false) AS api_compatible,
		COALESCE(l.currency, '') AS currency, l.cpi, l.expected_loi, l.expected_incidence,
		COALESCE(l.research_type, '') AS research_type, l.research_type_id,
		f.quotas_ok, COALESCE(f.quotas_error, '') AS quotas_error, f.quotas_at, f.rules_ok, COALESCE(f.rules_error, '') AS rules_error,
		s.malformed,
		COALESCE(NULLIF(TRIM(l.billing_entity), ''), TRIM(s.billing_entity)) AS billing_entity,
		CASE WHEN l.subsample_id IS NULL THEN -1 ELSE ` + devicesSum + ` END AS devices
	FROM subsamples s
	LEFT JOIN live_subsamples l ON l.subsample_id = s.subsample_id
	LEFT JOIN subsample_fetches f ON f.subsample_id = s.subsample_id
	UNION ALL
	SELECT l.subsample_id, l.event_id, l.name, l.event_name, l.status, '', l.status,
		COALESCE((SELECT code FROM live_countries c WHERE c.subsample_id = l.subsample_id ORDER BY position LIMIT 1), ''),
		COALESCE((SELECT name FROM live_countries c WHERE c.subsample_id = l.subsample_id ORDER BY position LIMIT 1), ''),
		l.field_start, l.field_end, l.event_id, s.field_end, l.field_end, true, l.api_compatible, l.currency, l.cpi, l.expected_loi, l.expected_incidence,
		l.research_type, l.research_type_id,
		f.quotas_ok, COALESCE(f.quotas_error, ''), f.quotas_at, f.rules_ok, COALESCE(f.rules_error, ''), '',
		COALESCE(TRIM(l.billing_entity), ''), ` + devicesSum + `
	FROM live_subsamples l
	LEFT JOIN subsample_fetches f ON f.subsample_id = l.subsample_id
	-- no row: event/all does not list the subsample; joined so that its
	-- field end is NULL with its column's type (SQLite reads a time by it)
	LEFT JOIN subsamples s ON 1 = 0
	WHERE l.subsample_id NOT IN (SELECT subsample_id FROM subsamples)`

// SubsampleRows returns every subsample of the current snapshot, by event
// and subsample id.
func (s *Store) SubsampleRows(ctx context.Context) ([]SubsampleRow, error) {
	return subsampleRows(ctx, s.reader, 0)
}

// subsampleRows reads every subsample, or only subsampleID when it is not 0.
func subsampleRows(ctx context.Context, q sqlx.QueryerContext, subsampleID int64) ([]SubsampleRow, error) {
	var rows []SubsampleRow
	query := `SELECT * FROM (` + subsampleRowsQuery + `) AS s ORDER BY event_id, subsample_id`
	args := []any{}
	if subsampleID != 0 {
		query = `SELECT * FROM (` + subsampleRowsQuery + `) AS s WHERE subsample_id = ?`
		args = append(args, subsampleID)
	}
	if err := sqlx.SelectContext(ctx, q, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("subsamples: %w", err)
	}
	return rows, nil
}

// allQuotas reads the quotas of every live subsample, or only of
// subsampleID when it is not 0.
func allQuotas(ctx context.Context, q sqlx.QueryerContext, subsampleID int64) (map[int64][]domain.Quota, error) {
	rows, err := q.QueryxContext(ctx, `
		SELECT subsample_id, subsample_status, actual_incidence, actual_conversion, actual_abandon,
			estimated_incidence, remaining_exclusive, remaining_shared, actual_loi, estimated_loi,
			achieved, table_id, table_name, quota_id, quota_name, quota_type, questions
		FROM quotas`+onlySubsample(subsampleID)+` ORDER BY subsample_id, position`, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("all quotas: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]domain.Quota)
	for rows.Next() {
		var id int64
		var q domain.Quota
		var questions string
		if err := rows.Scan(&id, &q.SubsampleStatus, &q.ActualClientIncidenceRate, &q.ActualClientConversionRate,
			&q.ActualClientAbandonRate, &q.EstimatedIncidence, &q.RemainingExclusive, &q.RemainingShared,
			&q.ActualClientLOI, &q.EstimatedLOI, &q.AchievedInterviews, &q.TableID, &q.TableName,
			&q.QuotaID, &q.QuotaName, &q.QuotaType, &questions); err != nil {
			return nil, fmt.Errorf("all quotas: %w", err)
		}
		if questions != "[]" && questions != "null" {
			if err := json.Unmarshal([]byte(questions), &q.Questions); err != nil {
				return nil, fmt.Errorf("conditions of quota %d of subsample %d: %w", q.QuotaID, id, err)
			}
		}
		out[id] = append(out[id], q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("all quotas: %w", err)
	}
	return out, nil
}

func allEligibilityRules(ctx context.Context, q sqlx.QueryerContext, subsampleID int64) (map[int64]domain.EligibilityRules, error) {
	var rows []struct {
		SubsampleID int64 `db:"subsample_id"`
		ruleRow
	}
	err := sqlx.SelectContext(ctx, q, &rows, `
		SELECT subsample_id, kind, ref_id, name, main_category_id, generic_category_id, specific_category_id, num_days, return_codes
		FROM eligibility_rules`+onlySubsample(subsampleID)+` ORDER BY subsample_id, position`, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("all eligibility rules: %w", err)
	}
	out := make(map[int64]domain.EligibilityRules)
	for _, r := range rows {
		rules := out[r.SubsampleID]
		if err := r.ruleRow.appendTo(&rules); err != nil {
			return nil, fmt.Errorf("eligibility rules of subsample %d: %w", r.SubsampleID, err)
		}
		out[r.SubsampleID] = rules
	}
	return out, nil
}

func allEntryLinks(ctx context.Context, q sqlx.QueryerContext, subsampleID int64) (map[int64][]domain.SubsampleLocale, error) {
	var rows []struct {
		SubsampleID int64  `db:"subsample_id"`
		Locale      string `db:"locale"`
		Live        string `db:"live_link"`
		Testing     string `db:"testing_link"`
	}
	err := sqlx.SelectContext(ctx, q, &rows, `
		SELECT subsample_id, locale, live_link, testing_link FROM live_locales
		`+onlySubsample(subsampleID)+` ORDER BY subsample_id, position`, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("entry links: %w", err)
	}
	out := make(map[int64][]domain.SubsampleLocale)
	for _, r := range rows {
		out[r.SubsampleID] = append(out[r.SubsampleID], domain.SubsampleLocale{Name: r.Locale, LiveEntryLink: r.Live, TestingEntryLink: r.Testing})
	}
	return out, nil
}

// allCountries reads the country codes live-details lists for each live
// subsample, in its order.
func allCountries(ctx context.Context, q sqlx.QueryerContext, subsampleID int64) (map[int64][]string, error) {
	var rows []struct {
		SubsampleID int64  `db:"subsample_id"`
		Code        string `db:"code"`
	}
	err := sqlx.SelectContext(ctx, q, &rows, `
		SELECT subsample_id, code FROM live_countries
		`+onlySubsample(subsampleID)+` ORDER BY subsample_id, position`, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("countries: %w", err)
	}
	out := make(map[int64][]string)
	for _, r := range rows {
		out[r.SubsampleID] = append(out[r.SubsampleID], r.Code)
	}
	return out, nil
}

// allCategories reads each live subsample's categories, in the
// provider's order.
func allCategories(ctx context.Context, q sqlx.QueryerContext, subsampleID int64) (map[int64][]domain.Category, error) {
	var rows []struct {
		SubsampleID int64  `db:"subsample_id"`
		Main        string `db:"main"`
		MainID      int64  `db:"main_id"`
		Generic     string `db:"generic"`
		GenericID   int64  `db:"generic_id"`
		Name        string `db:"category"`
		ID          int64  `db:"category_id"`
	}
	err := sqlx.SelectContext(ctx, q, &rows, `
		SELECT subsample_id, main, main_id, generic, generic_id, category, category_id FROM live_categories
		`+onlySubsample(subsampleID)+` ORDER BY subsample_id, position`, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("categories: %w", err)
	}
	out := make(map[int64][]domain.Category)
	for _, r := range rows {
		out[r.SubsampleID] = append(out[r.SubsampleID], domain.Category{MainCategory: r.Main, MainCategoryID: r.MainID,
			GenericCategory: r.Generic, GenericCategoryID: r.GenericID, Category: r.Name, CategoryID: r.ID})
	}
	return out, nil
}

// allEvents reads the events event/all and live-details group every
// subsample in, each event once, event/all's first.
func allEvents(ctx context.Context, q sqlx.QueryerContext) (map[int64][]int64, error) {
	var rows []struct {
		SubsampleID int64 `db:"subsample_id"`
		EventID     int64 `db:"event_id"`
	}
	err := sqlx.SelectContext(ctx, q, &rows, `
		SELECT subsample_id, event_id FROM subsamples WHERE event_id != 0
		UNION ALL
		SELECT subsample_id, event_id FROM live_subsamples WHERE event_id != 0`)
	if err != nil {
		return nil, fmt.Errorf("events of the subsamples: %w", err)
	}
	out := make(map[int64][]int64, len(rows))
	for _, r := range rows {
		if !slices.Contains(out[r.SubsampleID], r.EventID) {
			out[r.SubsampleID] = append(out[r.SubsampleID], r.EventID)
		}
	}
	return out, nil
}

// Snapshot is the current snapshot as ReadSnapshot reads it: the
// subsamples with their quotas, eligibility rules, entry links and
// countries, by subsample id.
type Snapshot struct {
	Version   int64 // the snapshot version the data was read at
	Rows      []SubsampleRow
	Quotas    map[int64][]domain.Quota
	Rules     map[int64]domain.EligibilityRules
	Links     map[int64][]domain.SubsampleLocale
	Countries map[int64][]string
	// Events are the events the provider groups each subsample in
	// (event/all's and live-details', which may differ), for every
	// subsample, even when one alone is read: a history record on any of
	// them counts in those events.
	Events map[int64][]int64
	// FieldClosures are the cells closed for routing by the field, by
	// subsample, as stored: the checks decide which still hold
	// (rules.FieldClosureHolds).
	FieldClosures map[int64][]domain.FieldClosure
	// Categories are each live subsample's categories, in the provider's
	// order: what our blocks of a category match.
	Categories map[int64][]domain.Category
	// Policy is the supplier's own rules in force and the hands' words on
	// panelists (readPolicy): a change of either moves the version on.
	Policy domain.Policy
}

// ReadSnapshot reads every subsample, or only subsampleID when it is not 0,
// in one read transaction, so a refresh that commits meanwhile cannot mix
// two snapshots in one answer.
func (s *Store) ReadSnapshot(ctx context.Context, subsampleID int64) (Snapshot, error) {
	var d Snapshot
	tx, err := s.reader.BeginTxx(ctx, s.dialect.snapshotTx())
	if err != nil {
		return d, fmt.Errorf("read snapshot: %w", err)
	}
	defer tx.Rollback()
	if err := tx.GetContext(ctx, &d.Version, `SELECT version FROM snapshot_version WHERE id = 1`); err != nil {
		return d, fmt.Errorf("snapshot version: %w", err)
	}
	if d.Rows, err = subsampleRows(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	if d.Quotas, err = allQuotas(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	if d.Rules, err = allEligibilityRules(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	if d.Links, err = allEntryLinks(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	if d.Countries, err = allCountries(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	for i := range d.Rows {
		d.Rows[i].LiveCountries = d.Countries[d.Rows[i].SubsampleID]
	}
	if d.Events, err = allEvents(ctx, tx); err != nil {
		return d, err
	}
	if d.FieldClosures, err = allFieldClosures(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	if d.Categories, err = allCategories(ctx, tx, subsampleID); err != nil {
		return d, err
	}
	if d.Policy, err = readPolicy(ctx, tx); err != nil {
		return d, err
	}
	return d, nil
}

// onlySubsample is the WHERE clause that narrows a per-subsample table to
// subsampleID, or keeps every row for 0, with the one ? both forms take.
// The narrow form uses the table's primary key; a single clause serving
// both (? IN (0, subsample_id)) would scan the whole table.
func onlySubsample(subsampleID int64) string {
	if subsampleID == 0 {
		return ` WHERE ? = 0`
	}
	return ` WHERE subsample_id = ?`
}
