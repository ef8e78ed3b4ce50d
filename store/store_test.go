package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// open opens a store on a fresh, empty database of dialect db (the store
// tests run on each: storetest.Each).
func open(t *testing.T, db storetest.Dialect) *store.Store {
	t.Helper()
	if db.Name == "sqlite" { // a copy of a migrated file: migrations are tested in migrations_test.go
		return openAt(t, storetest.MigratedSQLitePath(t))
	}
	return openAt(t, db.Target(t))
}

// openAt opens the store at target, closed when the test ends.
func openAt(t *testing.T, target string) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// snapshotAt builds a small events snapshot: event 10 with a live and a
// complete subsample, live subsample 100 with a total quota and one cell.
func snapshotAt(at time.Time, achieved int64) store.EventsSnapshot {
	live := domain.LiveSubsample{
		EventID: 10, EventName: "Soft drinks tracker", SubsampleID: 100, SubsampleName: "US wave 3",
		SubsampleStatus: domain.StatusLive, SurveyAPICompatibility: true, TargetedCPI: 2.5, TargetedCurrency: "USD",
		ResearchType: "Tracker", ResearchTypeID: 2, ExpectedClientLOI: ptr(12.0),
		Categories:     []domain.Category{{MainCategory: "Consumer", MainCategoryID: 1, GenericCategory: "Food", GenericCategoryID: 10, Category: "Soft drinks", CategoryID: 101}},
		Countries:      []domain.Country{{ID: 1, Code: "US", Name: "United States"}},
		Locales:        []domain.SubsampleLocale{{Name: "en-us", LiveEntryLink: "https://e.test/s?p=abc&id=", TestingEntryLink: "https://e.test/t?p=def&id="}},
		FieldStartDate: domain.LocalTime{Time: at.Add(-48 * time.Hour)},
		NeedRecontact:  nil,
	}
	quotas := []domain.Quota{
		{QuotaID: 1, TableID: 1, TableName: "Total Quota", QuotaName: "Total", QuotaType: "counting", AchievedInterviews: achieved, RemainingExclusive: 100 - achieved},
		{QuotaID: 2, TableID: 2, TableName: "Gender", QuotaName: "Female", QuotaType: "hard", AchievedInterviews: 5, RemainingShared: 45,
			Questions: []domain.QuotaQuestion{{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: ptr[int64](2)}}}}},
	}
	rules := domain.EligibilityRules{
		Surveys:    []domain.SurveyRule{{ID: ptr[int64](99), NumDays: 30, ReturnCodes: []int64{3, 82}}},
		Categories: []domain.CategoryRule{{GenericCategoryID: ptr[int64](10), ReturnCodes: []int64{3}}},
		Events:     []domain.EventRule{{ID: ptr[int64](0), ReturnCodes: []int64{0}}},
	}
	return store.EventsSnapshot{
		Run: store.Run{Dataset: store.DatasetEvents, StartedAt: at, FinishedAt: at.Add(time.Second), Requests: 4},
		Summaries: []domain.SubsampleSummary{
			{EventID: 10, SubsampleID: 100, SubsampleStatus: domain.StatusLive, SubsampleName: "US wave 3", Country: domain.Country{ID: 1, Code: "US"}},
			{EventID: 10, SubsampleID: 101, SubsampleStatus: domain.StatusComplete, SubsampleName: "GB wave 3", Country: domain.Country{ID: 2, Code: "GB"}},
		},
		Live:    []domain.LiveSubsample{live},
		Details: map[int64]store.SubsampleDetail{100: {FetchedAt: at, Quotas: quotas, Rules: rules}},
	}
}

func TestSaveEventsReadBack(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		rows, err := s.LiveRows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("got %d live rows, want 1", len(rows))
		}
		r := rows[0]
		if r.SubsampleID != 100 || r.Countries != "US" || r.Locales != "en-us" || r.CPI != 2.5 || !r.APICompatible {
			t.Errorf("live row = %+v", r)
		}
		if r.TotalAchieved == nil || *r.TotalAchieved != 40 || r.TotalRemaining == nil || *r.TotalRemaining != 60 {
			t.Errorf("total quota = %v/%v, want 40 achieved, 60 remaining", r.TotalAchieved, r.TotalRemaining)
		}
		if r.FieldStart == nil || !r.FieldStart.Equal(t0.Add(-48*time.Hour)) {
			t.Errorf("field start = %v, want %v", r.FieldStart, t0.Add(-48*time.Hour))
		}
		quotas, err := s.QuotasOf(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(quotas) != 2 || !quotas[0].IsTotal() || quotas[1].Questions[0].ID != 43 || *quotas[1].Questions[0].Answers[0].ID != 2 {
			t.Errorf("quotas read back = %+v", quotas)
		}
		rules, err := s.EligibilityRulesOf(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(rules.Surveys) != 1 || *rules.Surveys[0].ID != 99 || rules.Surveys[0].NumDays != 30 || len(rules.Surveys[0].ReturnCodes) != 2 ||
			len(rules.Categories) != 1 || *rules.Categories[0].GenericCategoryID != 10 || rules.Categories[0].SpecificCategoryID != nil ||
			len(rules.Events) != 1 || *rules.Events[0].ID != 0 {
			t.Errorf("rules read back = %+v", rules)
		}
		n, err := s.CountSubsamples(ctx)
		if err != nil || n != 2 {
			t.Errorf("CountSubsamples = %d, %v; want 2", n, err)
		}
		states, err := s.Datasets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ev := states[store.DatasetEvents]
		if ev.LastSuccessAt == nil || !ev.LastSuccessAt.Equal(t0.Add(time.Second)) || ev.Failing() {
			t.Errorf("events dataset state = %+v", ev)
		}
	})
}

// TestUnreadableSubsamplesAreKept: a subsample not decided on for a
// malformed element is kept with why, with what live-details said of it
// when event/all did not list it readably, and with a row of its own when
// neither did; the run's count of dropped elements is kept with it.
func TestUnreadableSubsamplesAreKept(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		snap := snapshotAt(t0, 40)
		snap.Summaries = snap.Summaries[1:] // 100's event/all element was dropped
		snap.Unreadable = map[int64]string{100: "event/all element 1 could not be read.", 300: "live-details element 3 could not be read."}
		snap.Run.MalformedCount, snap.Run.MalformedFirst = 2, "event/all element 1 (subsample 100): eventId is missing"
		if _, err := s.SaveEvents(ctx, snap, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		rows, err := s.SubsampleRows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[int64]store.SubsampleRow{}
		for _, r := range rows {
			byID[r.SubsampleID] = r
		}
		if len(rows) != 3 {
			t.Fatalf("%d subsample rows, want 100, 101 and 300: %+v", len(rows), rows)
		}
		if r := byID[100]; r.EventID != 10 || r.Name != "US wave 3" || r.SummaryStatus != "" || !r.Live || r.Malformed != snap.Unreadable[100] {
			t.Errorf("subsample 100 = %+v; want event 10 and its name from live-details, no summary status, why", r)
		}
		if r := byID[300]; r.EventID != 0 || r.Live || r.Malformed != snap.Unreadable[300] {
			t.Errorf("subsample 300, known by its dropped element only = %+v", r)
		}
		if r := byID[101]; r.Malformed != "" {
			t.Errorf("subsample 101, read fine, = %+v", r)
		}
		states, err := s.Datasets(ctx)
		if ev := states[store.DatasetEvents]; err != nil || ev.MalformedCount != 2 || ev.MalformedFirst != snap.Run.MalformedFirst {
			t.Errorf("events dataset = %+v, %v; want 2 malformed elements, the first named", ev, err)
		}
	})
}

func TestFailedRefreshKeepsPreviousSnapshot(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		run := store.Run{Dataset: store.DatasetEvents, StartedAt: t0.Add(3 * time.Minute), FinishedAt: t0.Add(4 * time.Minute)}
		if err := s.RecordFailure(ctx, run, "POST /supplier/v1/event/all", errors.New("503 Service Unavailable")); err != nil {
			t.Fatal(err)
		}
		rows, err := s.LiveRows(ctx)
		if err != nil || len(rows) != 1 || *rows[0].TotalAchieved != 40 {
			t.Fatalf("after a failed refresh the live list is %+v, %v; want the previous snapshot", rows, err)
		}
		states, _ := s.Datasets(ctx)
		ev := states[store.DatasetEvents]
		if !ev.Failing() || ev.LastErrorEndpoint != "POST /supplier/v1/event/all" || ev.LastError != "503 Service Unavailable" {
			t.Errorf("events dataset state = %+v, want the failure recorded", ev)
		}
	})
}

func TestFailedSubsampleFetchKeepsItsQuotasMarked(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		next := snapshotAt(t0.Add(3*time.Minute), 45)
		next.Details[100] = store.SubsampleDetail{FetchedAt: t0.Add(3 * time.Minute), QuotasErr: errors.New("timeout"), Rules: next.Details[100].Rules}
		if _, err := s.SaveEvents(ctx, next, 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		quotas, err := s.QuotasOf(ctx, 100)
		if err != nil || len(quotas) != 2 || quotas[0].AchievedInterviews != 40 {
			t.Fatalf("quotas = %+v, %v; want the previous ones kept", quotas, err)
		}
		f, err := s.FetchOf(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if f.QuotasOK || f.QuotasError != "timeout" || !f.QuotasAt.Equal(t0) || !f.RulesOK {
			t.Errorf("fetch state = %+v, want quotas failed (last good at %v), rules ok", f, t0)
		}
	})
}

func TestQuotaHistoryRecordsChangesAndIsPruned(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		retention := time.Hour
		for i, achieved := range []int64{40, 40, 41} {
			if _, err := s.SaveEvents(ctx, snapshotAt(t0.Add(time.Duration(i)*3*time.Minute), achieved), retention); err != nil {
				t.Fatal(err)
			}
		}
		points, err := s.QuotaHistory(ctx, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(points) != 2 || points[0].Achieved != 40 || points[1].Achieved != 41 {
			t.Fatalf("history of the total quota = %+v, want 40 then 41 (no row for an unchanged count)", points)
		}
		if _, err := s.SaveEvents(ctx, snapshotAt(t0.Add(2*time.Hour), 50), retention); err != nil {
			t.Fatal(err)
		}
		points, err = s.QuotaHistory(ctx, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		// The newest count from before the window stays: where the quota
		// stood when the window starts.
		if len(points) != 2 || points[0].Achieved != 41 || points[1].Achieved != 50 {
			t.Errorf("history after the retention window = %+v, want 41 (where it stood an hour ago) then 50", points)
		}
		// Stalled for longer than the retention, it keeps its last count.
		if _, err := s.SaveEvents(ctx, snapshotAt(t0.Add(4*time.Hour), 50), retention); err != nil {
			t.Fatal(err)
		}
		if points, err = s.QuotaHistory(ctx, 100, 1); err != nil || len(points) != 1 || points[0].Achieved != 50 || !points[0].At.Equal(t0.Add(2*time.Hour)) {
			t.Errorf("history of a quota stalled for 2 hours with a 1-hour retention = %+v, %v; want its last count", points, err)
		}
	})
}

func TestClosedSubsampleLeavesNoQuotas(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), time.Hour); err != nil {
			t.Fatal(err)
		}
		next := snapshotAt(t0.Add(3*time.Minute), 40)
		next.Live, next.Details = nil, nil
		if _, err := s.SaveEvents(ctx, next, time.Hour); err != nil {
			t.Fatal(err)
		}
		quotas, err := s.QuotasOf(ctx, 100)
		if err != nil || len(quotas) != 0 {
			t.Errorf("quotas of a subsample no longer live = %+v, %v; want none", quotas, err)
		}
		if _, err := s.FetchOf(ctx, 100); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("FetchOf a closed subsample: %v, want ErrNotFound", err)
		}
		// Its quota history goes with the retention, all of it.
		later := snapshotAt(t0.Add(2*time.Hour), 40)
		later.Live, later.Details = nil, nil
		if _, err := s.SaveEvents(ctx, later, time.Hour); err != nil {
			t.Fatal(err)
		}
		if points, err := s.QuotaHistory(ctx, 100, 1); err != nil || len(points) != 0 {
			t.Errorf("history of a closed subsample's quota past the retention = %+v, %v; want none", points, err)
		}
	})
}

func TestSaveSubsampleDetailUnknownSubsample(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		err := s.SaveSubsampleDetail(context.Background(), 12345, store.SubsampleDetail{FetchedAt: t0})
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("SaveSubsampleDetail of an unknown subsample: %v, want ErrNotFound", err)
		}
	})
}

func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		target := db.Target(t)
		s, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), time.Hour); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = store.Open(ctx, target)
		if err != nil {
			t.Fatalf("reopen (migrations must be idempotent): %v", err)
		}
		defer s.Close()
		if n, err := s.CountLive(ctx); err != nil || n != 1 {
			t.Errorf("CountLive after reopen = %d, %v; want 1", n, err)
		}
	})
}

// TestSubsampleTopicsOutliveTheSnapshot: what a subsample was about (its
// research type and categories) is kept after it closes, so a history
// record naming it without them can take them.
func TestSubsampleTopicsOutliveTheSnapshot(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), time.Hour); err != nil {
			t.Fatal(err)
		}
		next := snapshotAt(t0.Add(3*time.Minute), 40)
		next.Live, next.Details = nil, nil
		if _, err := s.SaveEvents(ctx, next, time.Hour); err != nil {
			t.Fatal(err)
		}
		topics, err := s.SubsampleTopics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := topics.Of(100); got.ResearchTypeID != 2 || len(got.CategoryIDs) != 1 || got.CategoryIDs[0] != 101 {
			t.Errorf("topics of subsample 100 after it closed = %+v, want research type 2 and category 101", got)
		}
	})
}

// TestNamesAreUnique: a second user or token of a name already taken is
// refused with ErrExists, and the first is kept.
func TestNamesAreUnique(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if err := s.AddUser(ctx, "maria", store.RoleAdmin, "hash-1", t0); err != nil {
			t.Fatal(err)
		}
		if err := s.AddUser(ctx, "maria", store.RoleAdmin, "hash-2", t0); !errors.Is(err, store.ErrExists) {
			t.Errorf("a second user maria: %v, want ErrExists", err)
		}
		if hash, err := s.PasswordHash(ctx, "maria"); err != nil || hash != "hash-1" {
			t.Errorf("maria's password hash = %q, %v; want the first user's", hash, err)
		}
		if err := s.CreateToken(ctx, store.Token{Name: "nightly", Role: store.RoleAdmin, CreatedAt: t0}, []byte("secret-1")); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateToken(ctx, store.Token{Name: "nightly", Role: store.RoleAdmin, CreatedAt: t0}, []byte("secret-2")); !errors.Is(err, store.ErrExists) {
			t.Errorf("a second token nightly: %v, want ErrExists", err)
		}
	})
}

// TestSnapshotWithSharedCategoriesAndARepeatedSubsample: subsamples of
// one category, and one subsample listed twice, make one snapshot: the
// category tree holds the category once, and the repeated subsample its
// quotas and fetch state once. Two subsamples that name the category
// under two generic categories make the tree contradict itself there: it
// says so, with both (no reading wins, or a panelist the other excludes
// would be sent), until a snapshot names it alike again.
func TestSnapshotWithSharedCategoriesAndARepeatedSubsample(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		snap := snapshotAt(t0, 40)
		other := snap.Live[0]
		other.SubsampleID = 200
		other.Categories = []domain.Category{{MainCategory: "Consumer", MainCategoryID: 1, GenericCategory: "Drinks", GenericCategoryID: 11, Category: "Soft drinks", CategoryID: 101}}
		snap.Live = append(snap.Live, snap.Live[0], other)
		snap.Details[200] = snap.Details[100]
		if _, err := s.SaveEvents(ctx, snap, time.Hour); err != nil {
			t.Fatal(err)
		}
		parents, err := s.CategoryParents(ctx)
		want := "live-details puts category 101 under generic category 10 and main category 1 for one subsample and under generic category 11 and main category 1 for another"
		if err != nil || parents[101].Contradiction != want {
			t.Errorf("category 101's parents = %+v, %v; want the contradiction %q", parents[101], err, want)
		}
		if n, err := s.CountLive(ctx); err != nil || n != 2 {
			t.Errorf("CountLive = %d, %v; want 2", n, err)
		}
		for _, id := range []int64{100, 200} {
			if quotas, err := s.QuotasOf(ctx, id); err != nil || len(quotas) != 2 {
				t.Errorf("quotas of subsample %d: %d, %v; want 2", id, len(quotas), err)
			}
		}
		again := snapshotAt(t0.Add(time.Hour), 40)
		if _, err := s.SaveEvents(ctx, again, time.Hour); err != nil {
			t.Fatal(err)
		}
		if parents, err := s.CategoryParents(ctx); err != nil || parents[101] != (domain.CategoryPath{GenericID: 10, MainID: 1}) {
			t.Errorf("named alike again, category 101's parents = %+v, %v; want generic 10, main 1, no contradiction", parents[101], err)
		}
	})
}
