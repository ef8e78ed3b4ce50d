package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestPriceHistoryKeepsEachChange: a refresh adds a price point only when
// a subsample's currency or CPI moved, and the points and the invoice
// parties outlive the subsample's last live snapshot.
func TestPriceHistoryKeepsEachChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		save := func(at time.Time, edit func(*store.EventsSnapshot)) {
			t.Helper()
			snap := snapshotAt(at, 40)
			snap.Summaries[0].BillingEntity = "" // event/all may leave it empty
			snap.Live[0].BillingEntity = ptr("Acme US")
			snap.Live[0].JobBookID = ptr("J-1")
			if edit != nil {
				edit(&snap)
			}
			if _, err := s.SaveEvents(ctx, snap, 30*24*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		save(t0, nil)
		save(t0.Add(time.Hour), nil) // the same price: no point
		save(t0.Add(2*time.Hour), func(snap *store.EventsSnapshot) { snap.Live[0].TargetedCPI = 3 })
		save(t0.Add(3*time.Hour), func(snap *store.EventsSnapshot) { snap.Live[0].TargetedCurrency = " EUR " })
		save(t0.Add(4*time.Hour), func(snap *store.EventsSnapshot) { snap.Live[0].TargetedCurrency = "GBP" }) // the currency alone changed: a point
		save(t0.Add(5*time.Hour), func(snap *store.EventsSnapshot) { snap.Live[0].TargetedCPI = 0 })          // no price: no point
		save(t0.Add(6*time.Hour), func(snap *store.EventsSnapshot) { snap.Live[0].TargetedCurrency = " " })   // a CPI but no currency: no price, no point
		save(t0.Add(7*time.Hour), func(snap *store.EventsSnapshot) { snap.Live, snap.Details = nil, nil })

		prices, err := s.PriceHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		finished := func(h time.Duration) time.Time { return t0.Add(h*time.Hour + time.Second) }
		want := []domain.PricePoint{
			{SubsampleID: 100, Currency: "USD", CPI: 2.5, From: finished(0)},
			{SubsampleID: 100, Currency: "USD", CPI: 3, From: finished(2)},
			{SubsampleID: 100, Currency: "EUR", CPI: 2.5, From: finished(3)},
			{SubsampleID: 100, Currency: "GBP", CPI: 2.5, From: finished(4)},
		}
		got := prices[100]
		for i := range got {
			got[i].From = got[i].From.UTC()
		}
		if len(prices) != 1 || !reflect.DeepEqual(got, want) {
			t.Errorf("price history = %+v, want subsample 100's %+v", prices, want)
		}

		// Points kept elsewhere join the history; one at a time a
		// subsample already has a point is skipped.
		if err := s.AddPriceHistory(ctx, []domain.PricePoint{
			{SubsampleID: 100, Currency: "USD", CPI: 2, From: t0.Add(-24 * time.Hour)},
			{SubsampleID: 100, Currency: "GBP", CPI: 9, From: finished(2)},
		}); err != nil {
			t.Fatal(err)
		}
		if prices, err = s.PriceHistory(ctx); err != nil {
			t.Fatal(err)
		}
		if got := prices[100]; len(got) != 5 || got[0].CPI != 2 || got[2].Currency != "USD" {
			t.Errorf("price history after adding = %+v, want the added point first and the refresh's kept", got)
		}

		parties, err := s.InvoiceParties(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantParties := map[int64]domain.InvoiceParty{
			100: {BillingEntity: "Acme US", JobBookID: "J-1", EventID: 10}, // no longer live: the entity and the job number kept
			101: {BillingEntity: "", JobBookID: "", EventID: 10},
		}
		if !reflect.DeepEqual(parties, wantParties) {
			t.Errorf("invoice parties = %+v, want %+v", parties, wantParties)
		}
	})
}

// TestInvoicePartyIsLiveDetailsFirst: a subsample is invoiced to live
// details' billing entity when they name one, else to the event list's;
// the event list's never wins over live details'.
func TestInvoicePartyIsLiveDetailsFirst(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		for i, step := range []struct {
			name string
			live string // live details' billing entity of subsample 100
			want map[int64]domain.InvoiceParty
		}{
			{"live details name one: theirs", "Acme US", map[int64]domain.InvoiceParty{
				100: {BillingEntity: "Acme US", JobBookID: "J-1", EventID: 10},
				101: {BillingEntity: "Acme UK", EventID: 10}, // not live: the event list's
			}},
			{"live details leave it empty: the event list's", " ", map[int64]domain.InvoiceParty{
				100: {BillingEntity: "Acme Global", JobBookID: "J-1", EventID: 10},
				101: {BillingEntity: "Acme UK", EventID: 10},
			}},
		} {
			snap := snapshotAt(t0.Add(time.Duration(i)*time.Hour), 40)
			snap.Summaries[0].BillingEntity = "Acme Global"
			snap.Summaries[1].BillingEntity = "Acme UK"
			snap.Live[0].BillingEntity = ptr(step.live)
			snap.Live[0].JobBookID = ptr("J-1")
			if _, err := s.SaveEvents(ctx, snap, 30*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			parties, err := s.InvoiceParties(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(parties, step.want) {
				t.Errorf("%s: invoice parties = %+v, want %+v", step.name, parties, step.want)
			}
		}
	})
}

// TestScanPeriod: the records of every panelist who has one on a
// subsample in the period, with their earlier records there, grouped and
// oldest first; later records and other subsamples' are left out.
func TestScanPeriod(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		r := func(panelist string, subsample, status int64, at time.Time) domain.HistoryRecord {
			return domain.HistoryRecord{PanelistID: panelist, SubsampleID: subsample, StatusID: status, RegisteredAt: at, EventID: 10}
		}
		importRecords(t, s, []domain.HistoryRecord{
			r("A", 1, 3, day(2)), r("A", 1, 98, day(12)), r("A", 1, 99, day(25)), // a reversal in the period of a complete before it
			r("A", 2, 3, day(3)),                                                 // on another subsample, before the period: not scanned
			r("B", 1, 2, day(10)), r("B", 1, 3, day(10)), r("B", 1, 82, day(21)), // the period's end is not in it
			r("C", 2, 83, day(20).Add(-time.Second)),
			r("D", 2, 3, day(20)), // at the end: not in the period
		})
		type group struct {
			subsample int64
			panelist  string
			statuses  []int64
		}
		var got []group
		err := s.ScanPeriod(ctx, store.Period{From: day(10), To: day(20)}, func(subsample int64, panelist string, records []domain.HistoryRecord) error {
			g := group{subsample: subsample, panelist: panelist}
			for _, rec := range records {
				g.statuses = append(g.statuses, rec.StatusID)
			}
			got = append(got, g)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []group{{1, "A", []int64{3, 98}}, {1, "B", []int64{2, 3}}, {2, "C", []int64{83}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("groups = %+v, want %+v", got, want)
		}

		// Only completes and verdicts: C's quota full names no pair.
		got = nil
		err = s.ScanPeriod(ctx, store.Period{From: day(10), To: day(20), Statuses: []int64{3, 98, 99}}, func(subsample int64, panelist string, records []domain.HistoryRecord) error {
			g := group{subsample: subsample, panelist: panelist}
			for _, rec := range records {
				g.statuses = append(g.statuses, rec.StatusID)
			}
			got = append(got, g)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []group{{1, "A", []int64{3, 98}}, {1, "B", []int64{3}}}; !reflect.DeepEqual(got, want) {
			t.Errorf("groups of completes and verdicts = %+v, want %+v", got, want)
		}

		// One subsample's: C's, on subsample 2.
		got = nil
		err = s.ScanPeriod(ctx, store.Period{From: day(10), To: day(20), SubsampleID: 2}, func(subsample int64, panelist string, records []domain.HistoryRecord) error {
			got = append(got, group{subsample: subsample, panelist: panelist, statuses: []int64{records[0].StatusID}})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []group{{2, "C", []int64{83}}}; !reflect.DeepEqual(got, want) {
			t.Errorf("subsample 2's groups = %+v, want %+v", got, want)
		}
	})
}
