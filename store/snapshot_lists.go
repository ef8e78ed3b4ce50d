package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// storedDigests reads the digest of every row of table (keyed by
// subsample_id) as the snapshot being replaced left it; a row written
// before its table kept digests has none (Valid false).
func storedDigests(ctx context.Context, tx *sqlx.Tx, table, column string) (map[int64]sql.NullInt64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT subsample_id, `+column+` FROM `+table)
	if err != nil {
		return nil, fmt.Errorf("stored %s: %w", table, err)
	}
	defer rows.Close()
	out := map[int64]sql.NullInt64{}
	for rows.Next() {
		var id int64
		var d sql.NullInt64
		if err := rows.Scan(&id, &d); err != nil {
			return nil, fmt.Errorf("stored %s: %w", table, err)
		}
		out[id] = d
	}
	return out, rows.Err()
}

// same says whether stored holds digest d for id.
func same(stored map[int64]sql.NullInt64, id, d int64) bool {
	s, ok := stored[id]
	return ok && s.Valid && s.Int64 == d
}

// goneOf lists, sorted, the ids of stored that kept is not holding.
func goneOf[V any](stored map[int64]sql.NullInt64, kept map[int64]V) []int64 {
	var out []int64
	for id := range stored {
		if _, ok := kept[id]; !ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// deleteOf deletes the rows of table of the subsamples in ids, many a
// statement.
func deleteOf(ctx context.Context, tx *sqlx.Tx, table string, ids []int64) error {
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE subsample_id IN (`+placeholders(n)+`)`, appendIDs(nil, ids[:n])...); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
		ids = ids[n:]
	}
	return nil
}

// writeSummaries makes the subsamples table hold the event list
// (event/all: the first element of a subsample listed twice), each
// subsample not decided on for a malformed element with why (unreadable),
// and a row for such a subsample that event/all did not list readably,
// with what live-details said of it when it did. Only the rows that
// differ from those stored are written: it returns the ids of those
// (written) and of the rows it deleted as no longer listed (gone).
func writeSummaries(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx, summaries []domain.SubsampleSummary,
	unreadable map[int64]string, live []domain.LiveSubsample) (written, gone []int64, err error) {
	stored, err := storedDigests(ctx, tx, "subsamples", "digest")
	if err != nil {
		return nil, nil, err
	}
	const malformed = 11 // the column of args
	rows := make(map[int64][]any, len(summaries)+len(unreadable))
	var order []int64
	for _, s := range summaries {
		if _, ok := rows[s.SubsampleID]; ok {
			continue
		}
		rows[s.SubsampleID] = []any{s.SubsampleID, s.EventID, s.SubsampleName, s.SubsampleStatus, s.BillingEntity,
			s.Country.ID, s.Country.Code, s.Country.Name, s.Country.RegionName,
			nullTime(s.FieldStartDate.Time), nullTime(s.FieldEndDate.Time), "", nil}
		order = append(order, s.SubsampleID)
	}
	if len(unreadable) > 0 {
		byID := make(map[int64]*domain.LiveSubsample, len(live))
		for i := range live {
			if byID[live[i].SubsampleID] == nil {
				byID[live[i].SubsampleID] = &live[i]
			}
		}
		for _, id := range slices.Sorted(maps.Keys(unreadable)) {
			if row, ok := rows[id]; ok {
				row[malformed] = unreadable[id]
				continue
			}
			var eventID int64
			var name string
			var country domain.Country
			if l := byID[id]; l != nil {
				eventID, name = l.EventID, l.SubsampleName
				if len(l.Countries) > 0 {
					country = l.Countries[0]
				}
			}
			rows[id] = []any{id, eventID, name, "", "", country.ID, country.Code, country.Name, country.RegionName,
				nil, nil, unreadable[id], nil}
			order = append(order, id)
		}
	}
	gone = goneOf(stored, rows)
	replaced := slices.Clone(gone)
	var changed []int64
	for _, id := range order {
		row := rows[id]
		digest := digestOf(row[:len(row)-1]...)
		row[len(row)-1] = digest
		if !same(stored, id, digest) {
			changed = append(changed, id)
			if _, ok := stored[id]; ok {
				replaced = append(replaced, id)
			}
		}
	}
	if err := deleteOf(ctx, tx, "subsamples", replaced); err != nil {
		return nil, nil, err
	}
	ins := newFreshRows(d, conn, tx, "subsamples", `subsample_id, event_id, name, status, billing_entity,
			country_id, country_code, country_name, country_region, field_start, field_end, malformed, digest`,
		`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "", 0)
	defer ins.close()
	for _, id := range changed {
		if err := ins.add(ctx, rows[id]...); err != nil {
			return nil, nil, err
		}
	}
	return changed, gone, ins.flush(ctx)
}

// liveRecord is the rows of one live subsample: its row of live_subsamples
// and those of its categories, countries and locales.
type liveRecord struct {
	row                            []any
	categories, countries, locales [][]any
	digest                         int64
}

// writeLive makes the live tables hold the live details (the first
// element of a subsample listed twice; of its categories, countries and
// locales, the first at each position) and keeps the category tree.
// Only the live subsamples whose rows differ from those stored are
// written, each with all its rows. It returns the ids of the live
// subsamples written (their rows changed or are new) and of those it
// deleted as no longer listed (gone).
func writeLive(ctx context.Context, d dialect, conn *sqlx.Conn, tx *sqlx.Tx, live []domain.LiveSubsample, seenAt time.Time) (changed, gone []int64, err error) {
	stored, err := storedDigests(ctx, tx, "live_subsamples", "digest")
	if err != nil {
		return nil, nil, err
	}
	listed := make(map[int64]*liveRecord, len(live))
	var order []int64
	// The category tree: each category once, as the first subsample
	// listing it names it (an upsert may not write a row twice in one
	// statement), with why it is not understood when another names it
	// under other parents.
	tree := map[int64]domain.Category{}
	contradictions := map[int64]string{}
	var treeOrder []int64
	for _, l := range live {
		r := listed[l.SubsampleID]
		if r == nil {
			r = &liveRecord{row: []any{l.SubsampleID, l.EventID, l.EventName, l.SubsampleName, l.SubsampleStatus,
				l.JobBookID, l.BillingEntity, l.PrimaryProjectManager, l.SecondaryProjectManager, l.ContactEmailAddress, l.GroupID,
				l.AllowDesktop, l.AllowMobile, l.AllowTablet, nullTime(l.FieldStartDate.Time), nullTime(l.FieldEndDate.Time),
				l.SurveyAPICompatibility, l.RequiresFlash, l.ChildSurvey, l.CollectPII, l.FacialCoding,
				l.SampleCategoryID, l.SampleSubCategoryID, l.ResearchType, l.ResearchTypeID, l.InterviewType,
				l.ExpectedClientLOI, l.ExpectedIncidenceRate, l.TargetedCurrency, l.TargetedCPI,
				rawJSON(l.CompletesAutoIncrementSchedule), l.FeasibilityID,
				l.Automation, l.MarketplaceEnabled, l.NeedRecontact, nil}}
			listed[l.SubsampleID] = r
			order = append(order, l.SubsampleID)
		}
		// A subsample listed twice keeps the rows of its first element,
		// and of a later one those at positions the first did not reach.
		for i, c := range l.Categories {
			if i >= len(r.categories) {
				r.categories = append(r.categories, []any{l.SubsampleID, i, c.MainCategoryID, c.MainCategory,
					c.GenericCategoryID, c.GenericCategory, c.CategoryID, c.Category})
			}
			if c.CategoryID != 0 {
				first, ok := tree[c.CategoryID]
				switch {
				case !ok:
					treeOrder = append(treeOrder, c.CategoryID)
					tree[c.CategoryID] = c
				case first.GenericCategoryID != c.GenericCategoryID || first.MainCategoryID != c.MainCategoryID:
					if contradictions[c.CategoryID] == "" {
						contradictions[c.CategoryID] = categoryContradiction(first, c)
					}
				}
			}
		}
		for i, c := range l.Countries {
			if i >= len(r.countries) {
				r.countries = append(r.countries, []any{l.SubsampleID, i, c.ID, c.Code, c.Name, c.RegionName})
			}
		}
		for i, loc := range l.Locales {
			if i >= len(r.locales) {
				r.locales = append(r.locales, []any{l.SubsampleID, i, loc.Name, loc.LiveEntryLink, loc.TestingEntryLink})
			}
		}
	}
	gone = goneOf(stored, listed)
	replaced := slices.Clone(gone)
	var dg rowDigest
	for _, id := range order {
		r := listed[id]
		dg.reset()
		dg.add(r.row[:len(r.row)-1]...)
		for _, rows := range [][][]any{r.categories, r.countries, r.locales} {
			dg.add(len(rows))
			for _, row := range rows {
				dg.add(row...)
			}
		}
		r.digest = dg.sum()
		r.row[len(r.row)-1] = r.digest
		if !same(stored, id, r.digest) {
			changed = append(changed, id)
			if _, ok := stored[id]; ok {
				replaced = append(replaced, id)
			}
		}
	}
	for _, table := range []string{"live_subsamples", "live_categories", "live_countries", "live_locales"} {
		if err := deleteOf(ctx, tx, table, replaced); err != nil {
			return nil, nil, err
		}
	}
	insLive := newFreshRows(d, conn, tx, "live_subsamples", `subsample_id, event_id, event_name, name, status,
			job_book_id, billing_entity, primary_manager, secondary_manager, contact_email, group_id,
			allow_desktop, allow_mobile, allow_tablet, field_start, field_end,
			api_compatible, requires_flash, child_survey, collect_pii, facial_coding,
			sample_category_id, sample_sub_category_id, research_type, research_type_id, interview_type,
			expected_loi, expected_incidence, currency, cpi, auto_increment, feasibility_id,
			automation, marketplace_enabled, need_recontact, digest`,
		`(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "", 0)
	insCategory := newFreshRows(d, conn, tx, "live_categories", `subsample_id, position, main_id, main, generic_id, generic, category_id, category`,
		`(?, ?, ?, ?, ?, ?, ?, ?)`, "", 0)
	insCountry := newFreshRows(d, conn, tx, "live_countries", `subsample_id, position, country_id, code, name, region`,
		`(?, ?, ?, ?, ?, ?)`, "", 0)
	insLocale := newFreshRows(d, conn, tx, "live_locales", `subsample_id, position, locale, live_link, testing_link`,
		`(?, ?, ?, ?, ?)`, "", 0)
	upsertCategory := newInserter(tx, "categories", `category_id, category, generic_id, generic, main_id, main, last_seen_at, contradiction`,
		`(?, ?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (category_id) DO UPDATE SET category = excluded.category,
			generic_id = excluded.generic_id, generic = excluded.generic,
			main_id = excluded.main_id, main = excluded.main, last_seen_at = excluded.last_seen_at,
			contradiction = excluded.contradiction`)
	all := []rowWriter{insLive, insCategory, insCountry, insLocale, upsertCategory}
	defer closeInserters(all...)
	for _, id := range changed {
		r := listed[id]
		if err := insLive.add(ctx, r.row...); err != nil {
			return nil, nil, err
		}
		for _, w := range []struct {
			to   rowWriter
			rows [][]any
		}{{insCategory, r.categories}, {insCountry, r.countries}, {insLocale, r.locales}} {
			for _, row := range w.rows {
				if err := w.to.add(ctx, row...); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	for _, id := range treeOrder {
		c := tree[id]
		if err := upsertCategory.add(ctx, c.CategoryID, c.Category, c.GenericCategoryID,
			c.GenericCategory, c.MainCategoryID, c.MainCategory, seenAt, contradictions[id]); err != nil {
			return nil, nil, err
		}
	}
	return changed, gone, flushAll(ctx, all...)
}

// categoryContradiction says that live-details named one category under
// two parents, a and b, as a coordinator reads it.
func categoryContradiction(a, b domain.Category) string {
	path := func(c domain.Category) string {
		return "generic category " + strconv.FormatInt(c.GenericCategoryID, 10) + " and main category " + strconv.FormatInt(c.MainCategoryID, 10)
	}
	return "live-details puts category " + strconv.FormatInt(a.CategoryID, 10) + " under " + path(a) + " for one subsample and under " + path(b) + " for another"
}
