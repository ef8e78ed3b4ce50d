package outcomes_test

import (
	"context"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// targetLine is the invoice's line of Target at its price (2 USD).
func targetLine(t *testing.T, inv outcomes.InvoiceReport) rules.InvoiceLine {
	t.Helper()
	for _, l := range inv.Lines {
		if l.SubsampleID == checkstest.Target && l.Known {
			return l
		}
	}
	t.Fatalf("no priced line of Target in %+v", inv.Lines)
	return rules.InvoiceLine{}
}

// TestReturnsAreUnconfirmedUntilImported: a complete a return reported
// counts among the outcomes at once, told apart as unconfirmed (and too
// fast when flagged), and is not invoiced; a quota full a return reported
// is a wrong send at once, said to have come by return. The history
// import of the same panelist and subsample confirms the complete: on the
// invoice, no longer unconfirmed.
func TestReturnsAreUnconfirmedUntilImported(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := world(t, db)
		st := s.Store
		from := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		q := outcomes.Query{From: from, To: from.AddDate(0, 0, 10)}
		before, err := s.Outcomes(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		invBefore, err := s.Invoice(ctx, "2026-11")
		if err != nil {
			t.Fatal(err)
		}

		if err := st.RecordRoutings(ctx, []domain.RoutingDecision{
			{At: at(time.Hour), PanelistID: "R1", Intended: checkstest.Target, Chosen: checkstest.Target, Outcome: domain.RoutedIntended, Reason: "sent"},
			{At: at(time.Hour), PanelistID: "R2", Intended: checkstest.Target, Chosen: checkstest.Target, Outcome: domain.RoutedIntended, Reason: "sent", Cells: "1"},
		}); err != nil {
			t.Fatal(err)
		}
		returnOf := func(panelist string, status int64, when time.Time, flag string) {
			t.Helper()
			send, err := st.LastSend(ctx, panelist, at(0))
			if err != nil {
				t.Fatal(err)
			}
			rec := domain.HistoryRecord{PanelistID: panelist, SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: status, RegisteredAt: when}
			if err := st.RecordReturn(ctx, store.Returned{Send: send, Record: rec, Flag: flag, Via: domain.ReturnByRedirect}); err != nil {
				t.Fatal(err)
			}
		}
		returnOf("R1", domain.ReturnComplete, at(70*time.Minute), domain.ReturnTooFast)
		returnOf("R2", domain.ReturnQuotaFull, at(75*time.Minute), "")

		rep, err := s.Outcomes(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		was, got := before.Rows[0], rep.Rows[0]
		if got.SubsampleID != checkstest.Target || got.Completes != was.Completes+1 || got.UnconfirmedCompletes != 1 || got.TooFast != 1 {
			t.Errorf("Target's completes %d (unconfirmed %d, too fast %d), want %d (1, 1): imported and unconfirmed, told apart",
				got.Completes, got.UnconfirmedCompletes, got.TooFast, was.Completes+1)
		}
		if got.WrongSends != was.WrongSends+1 || got.WrongSendsByReturn != 1 || rep.Total.WrongSendsByReturn != 1 {
			t.Errorf("wrong sends %d (by return %d, in total %d), want %d (1, 1): a returned quota full counts as it arrives",
				got.WrongSends, got.WrongSendsByReturn, rep.Total.WrongSendsByReturn, was.WrongSends+1)
		}
		if n := len(rep.FullOnOpenCells); n != len(before.FullOnOpenCells)+1 {
			t.Errorf("%d quota fulls on cells judged open, want %d: R2's", n, len(before.FullOnOpenCells)+1)
		}
		if rep.Total.UnconfirmedCompletes != 1 || rep.Total.TooFast != 1 {
			t.Errorf("total unconfirmed %d, too fast %d; want 1 and 1", rep.Total.UnconfirmedCompletes, rep.Total.TooFast)
		}

		inv, err := s.Invoice(ctx, "2026-11")
		if err != nil {
			t.Fatal(err)
		}
		line, lineBefore := targetLine(t, inv), targetLine(t, invBefore)
		if line.Completes != lineBefore.Completes || line.Unconfirmed != 1 || inv.Unconfirmed != 1 {
			t.Errorf("Target's line: %d completes (%d unconfirmed, %d in the month), want %d (1, 1): a complete only a return reported is not invoiced",
				line.Completes, line.Unconfirmed, inv.Unconfirmed, lineBefore.Completes)
		}
		if inv.Totals.Amounts["USD"] != invBefore.Totals.Amounts["USD"] {
			t.Errorf("total %v, want %v: unconfirmed completes are not invoiced", inv.Totals.Amounts, invBefore.Totals.Amounts)
		}

		// The import confirms R1's complete, at the provider's own time.
		if r, err := st.ImportHistory(ctx, []domain.HistoryRecord{
			{PanelistID: "R1", SubsampleID: checkstest.Target, EventID: checkstest.Event, StatusID: domain.ReturnComplete, RegisteredAt: at(72 * time.Minute)},
		}); err != nil || r.BadLines > 0 {
			t.Fatalf("import: %v %+v", err, r)
		}
		inv, err = s.Invoice(ctx, "2026-11")
		if err != nil {
			t.Fatal(err)
		}
		if line := targetLine(t, inv); line.Completes != lineBefore.Completes+1 || line.Unconfirmed != 0 || inv.Unconfirmed != 0 {
			t.Errorf("after the import, Target's line: %d completes (%d unconfirmed), want %d (0)", line.Completes, line.Unconfirmed, lineBefore.Completes+1)
		}
		if want := invBefore.Totals.Amounts["USD"] + 200; inv.Totals.Amounts["USD"] != want {
			t.Errorf("after the import, total %v, want %d USD cents", inv.Totals.Amounts, want)
		}
		rep, err = s.Outcomes(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Rows[0]; got.Completes != was.Completes+1 || got.UnconfirmedCompletes != 0 || got.TooFast != 0 || got.WrongSendsByReturn != 1 {
			t.Errorf("after the import, completes %d (unconfirmed %d, too fast %d, wrong sends by return %d), want %d (0, 0, 1)",
				got.Completes, got.UnconfirmedCompletes, got.TooFast, got.WrongSendsByReturn, was.Completes+1)
		}
	})
}
