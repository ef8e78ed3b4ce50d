package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestSnapshotWrittenOverAnotherIsAsWrittenAlone: a snapshot write
// writes only the rows that differ from the snapshot it replaces; the
// tables a snapshot replaces then hold exactly what writing it into an
// empty database leaves, whatever was written before (quotas moved,
// added and dropped, rules changed, subsamples gone live, closed and
// renamed, an unreadable element, a subsample listed twice, a failed
// fetch, a refresh of one subsample's details in between).
func TestSnapshotWrittenOverAnotherIsAsWrittenAlone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		a, b := diffSnapshotA(), diffSnapshotB()
		over, overTarget := openTarget(t, db)
		for _, snap := range []store.EventsSnapshot{a, b} {
			if _, err := over.SaveEvents(ctx, snap, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		alone, aloneTarget := openTarget(t, db)
		if _, err := alone.SaveEvents(ctx, b, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		sameTables(t, "B over A", overTarget, aloneTarget, snapshotTables)

		// One subsample's details refreshed alone, then B again: as B.
		if err := over.SaveSubsampleDetail(ctx, 100, a.Details[100]); err != nil {
			t.Fatal(err)
		}
		again := b
		again.Run.FinishedAt = again.Run.FinishedAt.Add(time.Minute)
		for _, st := range []*store.Store{over, alone} {
			if _, err := st.SaveEvents(ctx, again, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		sameTables(t, "B over one subsample's details", overTarget, aloneTarget, snapshotTables)

		// A failed fetch keeps the rows it would have replaced, and a
		// later fetch of what was stored before that writes them as they
		// are.
		failed := b
		failed.Details = map[int64]store.SubsampleDetail{}
		for id, d := range b.Details {
			failed.Details[id] = d
		}
		failed.Details[100] = store.SubsampleDetail{FetchedAt: t0.Add(9 * time.Minute), QuotasErr: errors.New("timeout"), RulesErr: errors.New("timeout")}
		if _, err := over.SaveEvents(ctx, failed, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := over.SaveEvents(ctx, b, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		sameTables(t, "B over a failed fetch", overTarget, aloneTarget, snapshotTables)

		// A quota whose conditions alone change is written again, down
		// to the end of a range.
		for _, end := range []string{"24", "34"} {
			c := diffSnapshotB()
			c.Details[100].Quotas[1].Questions[0].Answers = []domain.QuotaAnswer{{ID: ptr[int64](1)}, {RangeStart: ptr("18"), RangeEnd: ptr(end)}}
			if _, err := over.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			cAlone, cTarget := openTarget(t, db)
			if _, err := cAlone.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			sameTables(t, "conditions changed", overTarget, cTarget, []string{"quotas"})
		}

		// A quota whose counts alone move (each of them) is written with
		// them, and one whose counts and name move, with both.
		for i, move := range []func(q *domain.Quota){
			func(q *domain.Quota) { q.AchievedInterviews++ },
			func(q *domain.Quota) { q.RemainingExclusive++ },
			func(q *domain.Quota) { q.RemainingShared-- },
			func(q *domain.Quota) { q.AchievedInterviews++; q.QuotaName = "Men" },
		} {
			c := diffSnapshotB()
			c.Run.FinishedAt = c.Run.FinishedAt.Add(time.Duration(2*i+2) * time.Minute)
			if _, err := over.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			move(&c.Details[100].Quotas[1])
			c.Run.FinishedAt = c.Run.FinishedAt.Add(time.Minute)
			if _, err := over.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			cAlone, cTarget := openTarget(t, db)
			if _, err := cAlone.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			sameTables(t, fmt.Sprintf("counts moved (%d)", i), overTarget, cTarget, []string{"quotas"})
		}

		// A state of which one value moves is written with it.
		for i, move := range []func(st *store.SubsampleState){
			func(st *store.SubsampleState) { st.AtRisk = "" },
			func(st *store.SubsampleState) { st.FieldEnd = ptr(st.FieldEnd.Add(time.Hour)) },
			func(st *store.SubsampleState) { st.CPI = ptr(2.75) },
			func(st *store.SubsampleState) { st.ClosedQuotas = []string{"1", "3"} },
			func(st *store.SubsampleState) { st.Sendability = "sendable" },
		} {
			c := diffSnapshotB()
			if _, err := over.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			st := c.States[104]
			move(&st)
			c.States[104] = st
			if _, err := over.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			cAlone, cTarget := openTarget(t, db)
			if _, err := cAlone.SaveEvents(ctx, c, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			sameTables(t, fmt.Sprintf("state moved (%d)", i), overTarget, cTarget, []string{"subsample_states"})
		}

		// And back to A: the subsamples that went live close again.
		first, firstTarget := openTarget(t, db)
		if _, err := first.SaveEvents(ctx, a, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if _, err := over.SaveEvents(ctx, a, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		sameTables(t, "A over B", overTarget, firstTarget, slices.DeleteFunc(slices.Clone(snapshotTables), func(table string) bool {
			return table == "subsample_categories" // 104's are kept after it closes
		}))
	})
}

// TestQuotaDigestCoversEveryField: a snapshot write tells a quota that
// changed from one stored by a digest of its fields (store.quotaDigest)
// that names each field of a quota and of its conditions; one added to
// them must be added there, or a quota differing only in it would be
// left as stored.
func TestQuotaDigestCoversEveryField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		of     any
		fields int
	}{{domain.Quota{}, 16}, {domain.QuotaQuestion{}, 4}, {domain.QuotaAnswer{}, 3}} {
		if n := reflect.TypeOf(c.of).NumField(); n != c.fields {
			t.Errorf("%T has %d fields, store.quotaDigest knows %d: add the new ones to it, then here", c.of, n, c.fields)
		}
	}
}

// snapshotTables are the tables that hold a snapshot's rows alone (and
// subsample_categories, which keeps those of the subsamples that close).
var snapshotTables = []string{"subsamples", "live_subsamples", "live_categories", "live_countries", "live_locales",
	"quotas", "eligibility_rules", "subsample_fetches", "subsample_states", "subsample_categories"}

// openTarget opens a store on a fresh database of db and returns what
// names it.
func openTarget(t *testing.T, db storetest.Dialect) (*store.Store, string) {
	target := db.Target(t)
	if db.Name == "sqlite" {
		target = storetest.MigratedSQLitePath(t)
	}
	return openAt(t, target), target
}

// sameTables fails t unless the databases a and b hold the same rows in
// each of tables.
func sameTables(t *testing.T, what, a, b string, tables []string) {
	t.Helper()
	for _, table := range tables {
		rowsA, rowsB := dumpTable(t, a, table), dumpTable(t, b, table)
		if !slices.Equal(rowsA, rowsB) {
			t.Errorf("%s: %s holds\n  %s\nwant, as the snapshot written alone,\n  %s", what, table,
				strings.Join(rowsA, "\n  "), strings.Join(rowsB, "\n  "))
		}
	}
}

// dumpTable lists the rows of table, each as text, sorted.
func dumpTable(t *testing.T, target, table string) []string {
	t.Helper()
	db := storetest.Raw(t, target)
	rows, err := db.QueryContext(context.Background(), `SELECT * FROM `+table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		values := make([]any, len(columns))
		pointers := make([]any, len(columns))
		for i := range values {
			pointers[i] = &values[i]
		}
		if err := rows.Scan(pointers...); err != nil {
			t.Fatal(err)
		}
		var row []string
		for i, v := range values {
			switch x := v.(type) {
			case []byte:
				v = string(x)
			case time.Time:
				v = x.UTC().Format(time.RFC3339Nano)
			case bool: // a flag is an INTEGER on SQLite
				v = map[bool]int64{false: 0, true: 1}[x]
			case int32:
				v = int64(x)
			}
			row = append(row, fmt.Sprintf("%s=%v", columns[i], v))
		}
		out = append(out, strings.Join(row, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// diffSnapshotA is snapshotAt's with a second live subsample, 102, and
// two more subsamples in the event list.
func diffSnapshotA() store.EventsSnapshot {
	snap := snapshotAt(t0, 40)
	second := snap.Live[0]
	second.SubsampleID, second.SubsampleName, second.Categories = 102, "US wave 4", nil
	snap.Live = append(snap.Live, second)
	snap.Details[102] = store.SubsampleDetail{FetchedAt: t0, Quotas: snap.Details[100].Quotas[:1], Rules: snap.Details[100].Rules}
	snap.Summaries = append(snap.Summaries,
		domain.SubsampleSummary{EventID: 10, SubsampleID: 102, SubsampleStatus: domain.StatusLive, SubsampleName: "US wave 4", Country: domain.Country{ID: 1, Code: "US"}},
		domain.SubsampleSummary{EventID: 11, SubsampleID: 103, SubsampleStatus: domain.StatusComplete, SubsampleName: "FR wave 1", Country: domain.Country{ID: 3, Code: "FR"}})
	snap.States = map[int64]store.SubsampleState{
		100: {Status: domain.StatusLive, Sendability: "sendable", EventID: 10, Country: "US", CPI: ptr(2.5), Currency: "USD", QuotasRead: true, ClosedQuotas: []string{}},
		101: {Status: domain.StatusComplete, Sendability: "closed", EventID: 10, Country: "GB"},
		102: {Status: domain.StatusLive, Sendability: "sendable", EventID: 10, Country: "US", CPI: ptr(2.5), Currency: "USD", QuotasRead: true},
		103: {Status: domain.StatusComplete, Sendability: "closed", EventID: 11, Country: "FR"},
	}
	return snap
}

// diffSnapshotB moves on from A: 100's total quota moves, its second
// quota goes and a third comes, its rules change, its group id is 0
// where it was none, its testing link changes, and it is listed twice
// (the second time with a category more), and so is its event/all
// element; 102 closes; 104 goes live; 101 is renamed and an element of
// it is unreadable; 103 is left out of event/all; 105 is unreadable in
// both lists.
func diffSnapshotB() store.EventsSnapshot {
	at := t0.Add(6 * time.Minute)
	snap := snapshotAt(at, 45)
	d := snap.Details[100]
	d.Quotas = []domain.Quota{d.Quotas[0],
		{QuotaID: 3, TableID: 2, TableName: "Gender", QuotaName: "Male", QuotaType: "hard", AchievedInterviews: 1, RemainingShared: 49,
			Questions: []domain.QuotaQuestion{{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: ptr[int64](1)}}}}},
		d.Quotas[0]}
	d.Rules.Surveys[0].NumDays = 60
	snap.Details[100] = d
	snap.Live[0].GroupID = ptr[int64](0) // NULL before
	snap.Live[0].Locales = []domain.SubsampleLocale{{Name: "en-us", LiveEntryLink: "https://e.test/s?p=abc&id=", TestingEntryLink: "https://e.test/t?p=xyz&id="}}
	twice := snap.Live[0]
	twice.SubsampleName = "listed again"
	twice.Categories = append(slices.Clone(twice.Categories), domain.Category{MainCategoryID: 2, MainCategory: "Media", GenericCategoryID: 20,
		GenericCategory: "TV", CategoryID: 201, Category: "Streaming"})
	fresh := snap.Live[0]
	fresh.SubsampleID, fresh.SubsampleName, fresh.EventID = 104, "DE wave 1", 12
	fresh.Countries = []domain.Country{{ID: 4, Code: "DE", Name: "Germany"}}
	snap.Live = append(snap.Live, twice, fresh)
	snap.Details[104] = store.SubsampleDetail{FetchedAt: at, Quotas: snap.Details[100].Quotas[:1]}
	snap.Summaries[1].SubsampleName = "GB wave 3 (renamed)"
	snap.Summaries = append(snap.Summaries,
		domain.SubsampleSummary{EventID: 10, SubsampleID: 102, SubsampleStatus: domain.StatusComplete, SubsampleName: "US wave 4", Country: domain.Country{ID: 1, Code: "US"}},
		domain.SubsampleSummary{EventID: 12, SubsampleID: 104, SubsampleStatus: domain.StatusLive, SubsampleName: "DE wave 1", Country: domain.Country{ID: 4, Code: "DE"}},
		snap.Summaries[0])
	snap.Unreadable = map[int64]string{101: "event/all element 2 could not be read.", 105: "live-details element 4 could not be read."}
	snap.States = map[int64]store.SubsampleState{
		100: {Status: domain.StatusLive, Sendability: "sendable", EventID: 10, Country: "US", CPI: ptr(2.5), Currency: "USD", QuotasRead: true, ClosedQuotas: []string{}},
		101: {Status: domain.StatusComplete, Sendability: "closed", EventID: 10, Country: "GB"},
		102: {Status: domain.StatusComplete, Sendability: "closed", EventID: 10, Country: "US"},
		104: {Status: domain.StatusLive, Sendability: "paused", EventID: 12, Country: "DE", CPI: ptr(2.5), Currency: "USD", QuotasRead: true,
			FieldEnd: ptr(at.Add(72 * time.Hour)), ClosedQuotas: []string{"1"}, AtRisk: "too slow"},
	}
	return snap
}

// TestSubsamplesNoLongerListedKeepWhenLastSeen: a snapshot write leaves
// the invoice party and the topics of a subsample it does not list as
// they were, last seen when the snapshot it replaces was read.
func TestSubsamplesNoLongerListedKeepWhenLastSeen(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s, target := openTarget(t, db)
		a, b := diffSnapshotA(), diffSnapshotB()
		for _, snap := range []store.EventsSnapshot{a, b} {
			if _, err := s.SaveEvents(ctx, snap, 7*24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		seen := func(table string, id int64) string {
			t.Helper()
			var at any
			if err := storetest.Raw(t, target).QueryRowContext(ctx, rebindFor(db, `SELECT last_seen_at FROM `+table+` WHERE subsample_id = ?`), id).Scan(&at); err != nil {
				t.Fatalf("%s of %d: %v", table, id, err)
			}
			if ms, ok := at.(int64); ok { // SQLite's DATETIME: Unix milliseconds
				at = time.UnixMilli(ms)
			}
			return at.(time.Time).UTC().Format(time.RFC3339)
		}
		wasRead, isRead := a.FinishedAt.UTC().Format(time.RFC3339), b.FinishedAt.UTC().Format(time.RFC3339)
		for _, c := range []struct {
			table string
			id    int64
			want  string
		}{
			{"invoice_parties", 103, wasRead},  // in no list now
			{"invoice_parties", 102, isRead},   // still in event/all
			{"subsample_topics", 102, wasRead}, // no longer live
			{"subsample_topics", 104, isRead},  // live for the first time
		} {
			if got := seen(c.table, c.id); got != c.want {
				t.Errorf("%s of subsample %d last seen %s, want %s", c.table, c.id, got, c.want)
			}
		}
	})
}

// rebindFor writes query's ? placeholders as db's own.
func rebindFor(db storetest.Dialect, query string) string {
	if db.Name != "postgres" {
		return query
	}
	for i := 1; strings.Contains(query, "?"); i++ {
		query = strings.Replace(query, "?", fmt.Sprintf("$%d", i), 1)
	}
	return query
}
