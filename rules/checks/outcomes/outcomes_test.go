package outcomes_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// at is a time d after checkstest's world was read.
func at(d time.Duration) time.Time { return checkstest.ReadAt.Add(d) }

// world is checkstest's world (Target priced 2 USD from ReadAt) with the
// field's records of four more panelists on Target, and the router's
// sends of two of them.
func world(t *testing.T, db storetest.Dialect) *outcomes.Service {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	incidence := 25.0
	checkstest.Build(t, st, func(snap *store.EventsSnapshot) { snap.Live[0].ExpectedIncidenceRate = &incidence })
	rec := func(panelist string, status int64, when time.Time) domain.HistoryRecord {
		return domain.HistoryRecord{PanelistID: panelist, SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: status, RegisteredAt: when}
	}
	if r, err := st.ImportHistory(ctx, []domain.HistoryRecord{
		rec("Q1", domain.ReturnInSurvey, at(time.Hour)), rec("Q1", domain.ReturnComplete, at(80*time.Minute)),
		rec("Q2", domain.ReturnComplete, at(-time.Hour)), rec("Q2", domain.ReturnErroneousComplete, at(48*time.Hour)),
		rec("Q3", domain.ReturnQuotaFull, at(3*time.Hour)),
		rec("Q4", domain.ReturnScreenOut, at(5*time.Hour)),
		rec("Q6", domain.ReturnScreenOut, at(6*time.Hour)),
		{PanelistID: "Q5", SubsampleID: 77, EventID: 9, StatusID: domain.ReturnComplete, RegisteredAt: at(time.Hour)}, // never listed
	}); err != nil || r.BadLines > 0 {
		t.Fatalf("import: %v %+v", err, r)
	}
	if err := st.RecordRoutings(ctx, []domain.RoutingDecision{
		{At: at(2 * time.Hour), PanelistID: "Q3", Intended: checkstest.Target, Chosen: checkstest.Target, Outcome: domain.RoutedIntended, Reason: "sent", Cells: "1,2"},
		{At: at(4 * time.Hour), PanelistID: "Q6", Chosen: checkstest.Target, Outcome: domain.RoutedAnswer, Reason: "named first"},
		{At: at(5*time.Hour - outcomes.SendLookback - time.Minute), PanelistID: "Q4", Intended: checkstest.Target, Chosen: checkstest.Target, Outcome: domain.RoutedIntended, Reason: "sent"},
	}); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return at(time.Minute) }
	return &outcomes.Service{Store: st, Checks: &checks.Service{Store: st, Now: now}}
}

func TestOutcomesOfAPeriod(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := world(t, db)
		from := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		rep, err := s.Outcomes(context.Background(), outcomes.Query{From: from, To: from.AddDate(0, 0, 10)})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rows) != 2 || rep.Rows[1].SubsampleID != 77 || rep.Rows[1].Name != "" || rep.Rows[1].EventID != 9 || rep.Rows[1].Unpriced != 1 {
			t.Fatalf("rows %+v, want Target's and 77's, never listed, of event 9 (its record's), unpriced", rep.Rows)
		}
		got := rep.Rows[0]
		want := rules.Tally{Entrants: 5, Completes: 1, Reversed: 1, QuotaFulls: 1, ScreenOuts: 2, Earned: rules.Money{"USD": 200}}
		if got.SubsampleID != checkstest.Target || got.Name != "Target" || got.Country != "US" || !reflect.DeepEqual(got.Tally, want) {
			t.Errorf("Target's row %+v, want subsample %d named Target in US with %+v", got, checkstest.Target, want)
		}
		// Q3's quota full came an hour after the router sent Q3 there
		// judging cells 1 and 2 open: a wrong send. Q6's screen-out came
		// two hours after a next-survey answer named it (a send, not a
		// redirect): a screen-out of a send, no wrong send. Q4's
		// screen-out a minute more than the lookback after its click.
		if got.WrongSends != 1 || got.SentScreenOuts != 1 || got.Redirects != 1 {
			t.Errorf("wrong sends %d, screen-outs of sends %d, redirects %d; want 1, 1 and 1", got.WrongSends, got.SentScreenOuts, got.Redirects)
		}
		wantMiss := []outcomes.FullOnOpenCell{{PanelistID: "Q3", SubsampleID: checkstest.Target, SentAt: at(2 * time.Hour), At: at(3 * time.Hour),
			Cells: []outcomes.Cell{{QuotaID: 1, Name: "Total Quota: Total"}, {QuotaID: 2, Name: "Gender: Male"}}}}
		if len(rep.FullOnOpenCells) != 1 || !rep.FullOnOpenCells[0].At.Equal(wantMiss[0].At) || !rep.FullOnOpenCells[0].SentAt.Equal(wantMiss[0].SentAt) ||
			!reflect.DeepEqual(rep.FullOnOpenCells[0].Cells, wantMiss[0].Cells) || rep.FullOnOpenCells[0].PanelistID != "Q3" {
			t.Errorf("quota fulls on cells judged open %+v, want %+v", rep.FullOnOpenCells, wantMiss)
		}
		if got.Predicted.Value != 0.5 || got.Predicted.Currency != "USD" {
			t.Errorf("predicted EPC %+v, want the live subsample's", got.Predicted)
		}
		wantTotal := want
		wantTotal.Entrants, wantTotal.Completes, wantTotal.Unpriced = 6, 2, 1
		if !reflect.DeepEqual(rep.Total.Tally, wantTotal) || rep.Total.WrongSends != 1 || rep.Total.SentScreenOuts != 1 {
			t.Errorf("total %+v, want %+v", rep.Total, wantTotal)
		}
		if len(rep.Days) != 10 || rep.Days[0].Completes != 3 || rep.Days[2].Reversed != 1 {
			t.Errorf("days %+v, want 10, three completes on the first (Q2's not reversed yet) and a reversal on the third", rep.Days)
		}

		byDay, err := s.Outcomes(context.Background(), outcomes.Query{From: from, To: from.AddDate(0, 0, 10), Group: outcomes.ByDay})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range byDay.Rows {
			keys = append(keys, r.Key)
		}
		if want := []string{"2026-11-20", "2026-11-22"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("days %v, want %v", keys, want)
		}
		if d := byDay.Rows[0]; d.Entrants != 6 || d.Completes != 3 || d.WrongSends != 1 || d.SentScreenOuts != 1 || d.Redirects != 1 {
			t.Errorf("the first day %+v: want 6 entrants, 3 completes (Q2's not reversed yet), a wrong send, a screen-out of a send and a redirect", d)
		}

		none, err := s.Outcomes(context.Background(), outcomes.Query{From: from, To: from.AddDate(0, 0, 10), Country: "FR"})
		if err != nil || len(none.Rows) != 0 || none.Total.Entrants != 0 {
			t.Errorf("outcomes in FR: %+v, %v; want none", none, err)
		}
	})
}

// TestWrongSendsAreThoseOfThePeriod: "a wrong send is a quota full (83)
// registered within 7 days after Fieldboard sent the panelist there
// judging every cell they fell in open; a screen-out (82) of such a send
// is counted apart", each in the period it was registered in. Q7 was
// sent to Target, screened out and then filled a quota there on the
// world's first day, and came back the next day: a period from that day
// scans Q7's records on Target, the earlier ones with them, yet neither
// the screen-out nor the quota full is counted in it. Q8 was sent judging
// no cell (the log holds none) and filled a quota: no wrong send.
func TestWrongSendsAreThoseOfThePeriod(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := world(t, db)
		ctx := context.Background()
		rec := func(status int64, when time.Time) domain.HistoryRecord {
			return domain.HistoryRecord{PanelistID: "Q7", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: status, RegisteredAt: when}
		}
		if r, err := s.Store.ImportHistory(ctx, []domain.HistoryRecord{
			rec(domain.ReturnScreenOut, at(3*time.Hour)), rec(domain.ReturnQuotaFull, at(4*time.Hour)),
			rec(domain.ReturnInSurvey, at(26*time.Hour)),
			{PanelistID: "Q8", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: domain.ReturnQuotaFull, RegisteredAt: at(4 * time.Hour)},
		}); err != nil || r.BadLines > 0 {
			t.Fatalf("import: %v %+v", err, r)
		}
		if err := s.Store.RecordRoutings(ctx, []domain.RoutingDecision{
			{At: at(2 * time.Hour), PanelistID: "Q7", Intended: checkstest.Target, Chosen: checkstest.Target, Outcome: domain.RoutedIntended, Reason: "sent", Cells: "1"},
			{At: at(2 * time.Hour), PanelistID: "Q8", Intended: checkstest.Target, Chosen: checkstest.Target, Outcome: domain.RoutedIntended, Reason: "sent"},
		}); err != nil {
			t.Fatal(err)
		}
		day1 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		for _, period := range []struct {
			name       string
			from       time.Time
			wrong      int // Target's
			screenOuts int
			fullOpen   int
		}{
			// Q3's and Q7's quota fulls; Q6's and Q7's screen-outs.
			{"the first day, when they were registered", day1, 2, 2, 2},
			{"from the next day", day1.AddDate(0, 0, 1), 0, 0, 0},
		} {
			for _, group := range []outcomes.Grouping{outcomes.BySubsample, outcomes.ByDay} {
				rep, err := s.Outcomes(ctx, outcomes.Query{From: period.from, To: day1.AddDate(0, 0, 10), Group: group})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Total.WrongSends != period.wrong || rep.Total.SentScreenOuts != period.screenOuts || len(rep.FullOnOpenCells) != period.fullOpen {
					t.Errorf("%s, by %s: %d wrong sends, %d screen-outs of sends and %d quota fulls on cells judged open %+v; want %d, %d and %d",
						period.name, group, rep.Total.WrongSends, rep.Total.SentScreenOuts, len(rep.FullOnOpenCells), rep.FullOnOpenCells, period.wrong, period.screenOuts, period.fullOpen)
				}
			}
		}
	})
}

func TestInvoiceOfAMonth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := world(t, db)
		nov, err := s.Invoice(context.Background(), "2026-11")
		if err != nil {
			t.Fatal(err)
		}
		party := domain.InvoiceParty{EventID: checkstest.Event}
		want := []rules.InvoiceLine{{InvoiceKey: rules.InvoiceKey{InvoiceParty: party, SubsampleID: checkstest.Target, Currency: "USD", CPI: 2, Known: true},
			Completes: 2, Reversed: 1, Estimated: true},
			{InvoiceKey: rules.InvoiceKey{InvoiceParty: domain.InvoiceParty{EventID: 9}, SubsampleID: 77}, Completes: 1},
			// the world's held panelists, on subsamples never seen live
			{InvoiceKey: rules.InvoiceKey{InvoiceParty: domain.InvoiceParty{EventID: checkstest.OtherEvent + 32}, SubsampleID: 32}, Completes: 3, Reversed: 3},
			{InvoiceKey: rules.InvoiceKey{InvoiceParty: domain.InvoiceParty{EventID: checkstest.OtherEvent + 33}, SubsampleID: 33}, Completes: 3, Reversed: 2}}
		if !reflect.DeepEqual(nov.Lines, want) {
			t.Errorf("November's lines %+v, want %+v", nov.Lines, want)
		}
		if !reflect.DeepEqual(nov.Totals, rules.InvoiceTotals{Amounts: rules.Money{"USD": 200}, UnknownLines: 3}) {
			t.Errorf("November's totals %+v, want 2.00 USD and three lines of unknown amount", nov.Totals)
		}
		// October: the world's completes on subsamples never seen live,
		// so never priced: unknown, never 0 (a line each for Sibling,
		// Elsewhere and the held panelists' subsample 31).
		oct, err := s.Invoice(context.Background(), "2026-10")
		if err != nil {
			t.Fatal(err)
		}
		if len(oct.Lines) != 3 || oct.Totals.UnknownLines != 3 || len(oct.Totals.Amounts) != 0 {
			t.Errorf("October %+v, want three lines of unknown amount", oct)
		}
		if _, err := s.Invoice(context.Background(), "2026-13"); err == nil {
			t.Error("a 13th month was invoiced")
		}
	})
}

func TestPanelistCompletesAndHold(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := world(t, db)
		ctx := context.Background()
		rep, err := s.Panelist(ctx, "Q2")
		if err != nil {
			t.Fatal(err)
		}
		// Q2's complete came an hour before the first price seen: it takes
		// it, estimated; the 98 two days later reverses it.
		if len(rep.Completes) != 1 || rep.Reversed != 1 || rep.Held != "" {
			t.Fatalf("Q2: %+v, want one reversed complete, not held (the service holds nobody)", rep)
		}
		c := rep.Completes[0]
		if !c.Reversed() || c.Verdict != domain.ReturnErroneousComplete || !c.Price.Estimated || c.Price.Currency != "USD" {
			t.Errorf("Q2's complete %+v, want reversed by a 98 at the first price, estimated", c)
		}
		s.Checks = &checks.Service{Store: s.Store, Now: func() time.Time { return at(72 * time.Hour) }, QualityHold: rules.QualityHoldPolicy{Reversals: 1, Days: 90}}
		if rep, err = s.Panelist(ctx, "Q2"); err != nil || rep.Held == "" {
			t.Errorf("Q2 under a hold of one reversal: held %q, %v", rep.Held, err)
		}
	})
}
