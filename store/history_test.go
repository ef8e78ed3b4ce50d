package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// importRecords stores records that must all be new.
func importRecords(t *testing.T, s *store.Store, recs []domain.HistoryRecord) {
	t.Helper()
	report, err := s.ImportHistory(context.Background(), recs)
	if err != nil || report.Inserted != len(recs) {
		t.Fatalf("import: %v, %+v", err, report)
	}
}

// day is midnight UTC of a day of March 2025.
func day(d int) time.Time { return time.Date(2025, 3, d, 0, 0, 0, 0, time.UTC) }

func TestHistoryOfNewestFirst(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importRecords(t, s, []domain.HistoryRecord{
			{PanelistID: "A", SubsampleID: 1, StatusID: 3, RegisteredAt: day(2), EventID: 10},
			{PanelistID: "A", SubsampleID: 2, StatusID: 82, RegisteredAt: day(5), EventID: 10, CategoryID: 7, ResearchTypeID: 2},
			{PanelistID: "A", SubsampleID: 3, StatusID: 92, RegisteredAt: day(1), EventID: 11},
			{PanelistID: "AB", SubsampleID: 1, StatusID: 3, RegisteredAt: day(9), EventID: 10},
		})
		recs, err := s.HistoryOf(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		var subsamples []int64
		for _, r := range recs {
			subsamples = append(subsamples, r.SubsampleID)
		}
		if !slices.Equal(subsamples, []int64{2, 1, 3}) {
			t.Errorf("subsamples newest first = %v, want [2 1 3]", subsamples)
		}
		want := domain.HistoryRecord{PanelistID: "A", SubsampleID: 2, StatusID: 82, RegisteredAt: day(5), EventID: 10, CategoryID: 7, ResearchTypeID: 2}
		if got := recs[0]; !got.RegisteredAt.Equal(want.RegisteredAt) || got.CategoryID != 7 || got.ResearchTypeID != 2 || got.StatusID != 82 || got.EventID != 10 {
			t.Errorf("record = %+v, want %+v", got, want)
		}
		none, err := s.HistoryOf(ctx, "nobody")
		if err != nil || len(none) != 0 {
			t.Errorf("HistoryOf(nobody) = %+v, %v; want no records and no error", none, err)
		}
	})
}

func TestCategoryParents(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		if _, err := s.SaveEvents(ctx, snapshotAt(t0, 40), 7*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		parents, err := s.CategoryParents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := (domain.CategoryParents{101: {GenericID: 10, MainID: 1}}); len(parents) != 1 || parents[101] != want[101] {
			t.Errorf("CategoryParents = %v, want %v", parents, want)
		}
	})
}

// scan runs ScanHistory and returns what fn saw: per call, the panelist and
// the subsample ids of its records, in order.
func scan(t *testing.T, s *store.Store, ids []string, f store.HistoryFilter) []string {
	t.Helper()
	var calls []string
	err := s.ScanHistory(context.Background(), slices.Values(ids), f, func(id string, recs []domain.HistoryRecord) error {
		call := id + ":"
		for _, r := range recs {
			if r.PanelistID != id {
				t.Errorf("record of %q given for %q", r.PanelistID, id)
			}
			call += fmt.Sprintf(" %d", r.SubsampleID)
		}
		calls = append(calls, call)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

func TestScanHistoryFilter(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		// Subsample ids name what each record is: 1xx on subsample 100,
		// 2xx research type 5, 3xx event 30, 4xx category 40, 5xx the target's
		// event 50, 9xx nothing of interest.
		importRecords(t, s, []domain.HistoryRecord{
			{PanelistID: "P1", SubsampleID: 100, StatusID: 3, RegisteredAt: day(1), EventID: 1},
			{PanelistID: "P1", SubsampleID: 101, StatusID: 82, RegisteredAt: day(2), EventID: 1}, // status not in the filter
			{PanelistID: "P1", SubsampleID: 900, StatusID: 3, RegisteredAt: day(3), EventID: 2},  // nothing matches
			{PanelistID: "P2", SubsampleID: 200, StatusID: 3, RegisteredAt: day(4), EventID: 3, ResearchTypeID: 5},
			{PanelistID: "P2", SubsampleID: 300, StatusID: 92, RegisteredAt: day(5), EventID: 30},
			{PanelistID: "P2", SubsampleID: 400, StatusID: 3, RegisteredAt: day(6), EventID: 4, CategoryID: 40},
			{PanelistID: "P3", SubsampleID: 500, StatusID: 2, RegisteredAt: day(7), EventID: 50}, // unique event, any status
			{PanelistID: "P3", SubsampleID: 501, StatusID: 99, RegisteredAt: day(8), EventID: 50},
			{PanelistID: "P4", SubsampleID: 901, StatusID: 3, RegisteredAt: day(9), EventID: 6, CategoryID: 41, ResearchTypeID: 6},
		})
		all := store.HistoryFilter{
			EventID: 50, Statuses: []int64{3, 92}, SubsampleIDs: []int64{100},
			ResearchTypeIDs: []int64{5}, EventIDs: []int64{30}, CategoryIDs: []int64{40},
		}
		ids := []string{"P4", "P2", "nobody", "P1", "P3"}
		cases := []struct {
			name   string
			filter store.HistoryFilter
			want   []string
		}{
			{"every kind of match, newest first", all, []string{"P4:", "P2: 400 300 200", "nobody:", "P1: 100", "P3: 501 500"}},
			{"status filter applies to the rule lists", store.HistoryFilter{Statuses: []int64{82}, SubsampleIDs: []int64{100, 101}},
				[]string{"P4:", "P2:", "nobody:", "P1: 101", "P3:"}},
			{"unique event alone, any status", store.HistoryFilter{EventID: 50}, []string{"P4:", "P2:", "nobody:", "P1:", "P3: 501 500"}},
			{"the target itself, any status, whatever event its records name", store.HistoryFilter{SubsampleID: 101},
				[]string{"P4:", "P2:", "nobody:", "P1: 101", "P3:"}},
			{"categories never seen, of the statuses", store.HistoryFilter{Statuses: []int64{3}, UnknownCategories: true},
				[]string{"P4: 901", "P2: 400", "nobody:", "P1:", "P3:"}},
			{"research type alone", store.HistoryFilter{Statuses: []int64{3}, ResearchTypeIDs: []int64{5, 6}},
				[]string{"P4: 901", "P2: 200", "nobody:", "P1:", "P3:"}},
			{"no statuses match nothing but the event", store.HistoryFilter{EventID: 50, SubsampleIDs: []int64{100}},
				[]string{"P4:", "P2:", "nobody:", "P1:", "P3: 501 500"}},
			{"every record of the hold's statuses, on any subsample", store.HistoryFilter{AnyOf: []int64{3, 99}},
				[]string{"P4: 901", "P2: 400 200", "nobody:", "P1: 900 100", "P3: 501"}},
			{"empty filter matches nothing", store.HistoryFilter{}, []string{"P4:", "P2:", "nobody:", "P1:", "P3:"}},
			{"statuses without lists match nothing", store.HistoryFilter{Statuses: []int64{3}}, []string{"P4:", "P2:", "nobody:", "P1:", "P3:"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if got := scan(t, s, ids, c.filter); !slices.Equal(got, c.want) {
					t.Errorf("calls = %q\nwant    %q", got, c.want)
				}
			})
		}
		t.Run("an id given twice is reported twice", func(t *testing.T) {
			got := scan(t, s, []string{"P1", "P3", "P1"}, all)
			if want := []string{"P1: 100", "P3: 501 500", "P1: 100"}; !slices.Equal(got, want) {
				t.Errorf("calls = %q, want %q", got, want)
			}
		})
		t.Run("no ids, no calls", func(t *testing.T) {
			if got := scan(t, s, nil, all); len(got) != 0 {
				t.Errorf("calls = %q", got)
			}
		})
	})
}

func TestScanHistoryManyChunksKeepsInputOrder(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		const n = 1234 // more than two chunks, the last one short
		var recs []domain.HistoryRecord
		var ids []string
		for i := range n {
			id := fmt.Sprintf("P%04d", i)
			ids = append(ids, id)
			if i%3 == 0 {
				continue // no history
			}
			recs = append(recs,
				domain.HistoryRecord{PanelistID: id, SubsampleID: int64(i), StatusID: 3, RegisteredAt: day(1), EventID: 7},
				domain.HistoryRecord{PanelistID: id, SubsampleID: int64(i), StatusID: 82, RegisteredAt: day(2), EventID: 7})
		}
		importRecords(t, s, recs)
		// Input order unlike the stored order: reversed, then odd before even.
		slices.Reverse(ids)
		slices.SortStableFunc(ids, func(a, b string) int { return int(a[len(a)-1]%2) - int(b[len(b)-1]%2) })

		var got []string
		err := s.ScanHistory(context.Background(), slices.Values(ids), store.HistoryFilter{Statuses: []int64{3, 82}, EventIDs: []int64{7}},
			func(id string, recs []domain.HistoryRecord) error {
				got = append(got, id)
				var i int
				fmt.Sscanf(id, "P%d", &i)
				want := 2
				if i%3 == 0 {
					want = 0
				}
				if len(recs) != want || (want > 0 && recs[0].StatusID != 82) {
					t.Errorf("%s: %+v, want %d records newest first", id, recs, want)
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("fn called for %d ids out of input order", len(got))
		}
	})
}

func TestScanHistoryStopsOnError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importRecords(t, s, []domain.HistoryRecord{{PanelistID: "P1", SubsampleID: 1, StatusID: 3, RegisteredAt: day(1), EventID: 7}})
		stop := errors.New("stop")
		calls := 0
		for _, f := range []store.HistoryFilter{{EventID: 7}, {}} {
			calls = 0
			err := s.ScanHistory(context.Background(), slices.Values([]string{"P1", "P2", "P3"}), f, func(string, []domain.HistoryRecord) error {
				calls++
				return stop
			})
			if !errors.Is(err, stop) || calls != 1 {
				t.Errorf("filter %+v: err = %v after %d calls, want fn's error after 1", f, err, calls)
			}
		}
	})
}
