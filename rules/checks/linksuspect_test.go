package checks_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestReturnsWithoutACompleteFlagTheLink: Target converts 30% in field
// (its total quota's actualClientConversionRate), so 19 screen-outs in a
// row say nothing and the 20th (0.7^20 is 0.08%) flags its survey link
// once in the change feed, not again at the 25th; the subsample is
// flagged until a complete comes back, which ends the run, and a new run
// of 20 flags it again. On both databases.
func TestReturnsWithoutACompleteFlagTheLink(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st, func(snap *store.EventsSnapshot) {
			d := snap.Details[checkstest.Target]
			d.Quotas = slices.Clone(d.Quotas)
			d.Quotas[0].ActualClientConversionRate = 30
			snap.Details[checkstest.Target] = d
		})
		now := checkstest.ReadAt.Add(time.Minute)
		s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}

		// returns sends P-open to Target and returns them n times with status.
		returns := func(n int, status int64) {
			t.Helper()
			for range n {
				now = now.Add(time.Second)
				if err := st.RecordRoutings(ctx, []domain.RoutingDecision{{At: now, PanelistID: "P-open", Intended: checkstest.Target,
					Chosen: checkstest.Target, Outcome: domain.RoutedIntended}}); err != nil {
					t.Fatal(err)
				}
				now = now.Add(time.Second)
				res, err := s.Return(ctx, checks.Return{PanelistID: "P-open", StatusID: status, At: now, Via: domain.ReturnByPost})
				if err != nil || res.Refused != "" {
					t.Fatalf("return %d: %+v, %v", status, res, err)
				}
				s.SettleLinks()
			}
		}
		flags := func() []domain.Change {
			t.Helper()
			got, _, err := st.Changes(ctx, store.ChangeFilter{Kind: domain.ChangeLinkSuspect}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		flagged := func(step string, want bool) {
			t.Helper()
			got, err := st.LinkSuspects(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if on := len(got) == 1 && got[0].SubsampleID == checkstest.Target; on != want || len(got) > 1 {
				t.Errorf("%s: flagged now %+v; want Target flagged %v", step, got, want)
			}
		}

		returns(19, domain.ReturnScreenOut)
		if got := flags(); len(got) != 0 {
			t.Fatalf("19 screen-outs at a 30%% conversion flagged %+v; want nothing yet", got)
		}
		flagged("19 screen-outs", false)
		returns(1, domain.ReturnQuotaFull)
		const why = "Subsample 10: 20 returns in a row without a complete, where its conversion in field of 30% would have given one almost surely: its survey link may be broken."
		if got := flags(); len(got) != 1 || got[0].After != why || got[0].EventID != checkstest.Event || got[0].SubsampleName != "Target" {
			t.Fatalf("the 20th return flagged %+v; want one change saying %q", got, why)
		}
		flagged("20 returns", true)
		returns(5, domain.ReturnScreenOut)
		if got := flags(); len(got) != 1 {
			t.Errorf("25 returns in the run flagged %d times; want once a run", len(got))
		}

		returns(1, domain.ReturnComplete)
		flagged("a complete came back", false)
		returns(19, domain.ReturnScreenOut)
		if got := flags(); len(got) != 1 {
			t.Errorf("19 returns after the complete flagged %d times in all; want the first run's one", len(got))
		}
		returns(1, domain.ReturnScreenOut)
		if got := flags(); len(got) != 2 {
			t.Errorf("a second run of 20 flagged %d times in all; want 2", len(got))
		}
		flagged("a second run of 20", true)
	})
}
