package checks_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestEverySendPathHoldsACellClosedByTheField: a quota full that came back
// from the field for the Male cell (2) of Target, which the provider still
// shows with 5 remaining, stops P-open (Male) on every send path, while
// P-full, whose Female cell is open in this world, is still sent. The
// closure holds until its time is up (at until it has lapsed, though no
// read came), and a read whose counts moved lifts it; one whose counts
// did not keeps it. On both databases.
func TestEverySendPathHoldsACellClosedByTheField(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		femaleOpen := func(snap *store.EventsSnapshot) {
			d := snap.Details[checkstest.Target]
			d.Quotas = slices.Clone(d.Quotas)
			d.Quotas[2].RemainingExclusive = 5
			snap.Details[checkstest.Target] = d
		}
		checkstest.Build(t, st, femaleOpen)
		closedAt := checkstest.ReadAt.Add(time.Minute)
		now := closedAt
		var stale []int64
		s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold,
			FieldCloseFor: 20 * time.Minute, QuotasStale: func(id int64) { stale = append(stale, id) }}
		sentTo := func(step string, want map[string]bool) {
			t.Helper()
			for _, p := range sendPaths {
				for panelist, sent := range want {
					if got := p.sent(ctx, t, s, panelist, checkstest.Target); got != sent {
						t.Errorf("%s: %s: %s sent to subsample %d at %s = %v, want %v", step, p.name, panelist, checkstest.Target,
							now.Format("15:04:05.000"), got, sent)
					}
				}
			}
		}
		sentTo("before the closure", map[string]bool{"P-open": true, "P-full": true})

		if err := s.CloseFromField(ctx, checkstest.Target, []int64{2}, closedAt); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(stale, []int64{checkstest.Target}) {
			t.Errorf("QuotasStale told of %v, want [%d]", stale, checkstest.Target)
		}
		sentTo("the Male cell closed by the field", map[string]bool{"P-open": false, "P-full": true})

		// Said so, on the panelist's surveys and on an invitation's click.
		const why = "A quota full came back from the field at 09:01 UTC for cell 2 (Male), which the provider still shows open: " +
			"closed for routing until its counts move, at most until 09:21 UTC."
		surveys, err := s.PanelistSurveys(ctx, "P-open")
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(surveys, func(pc checks.PanelistCheck) bool { return pc.SubsampleID == checkstest.Target }); i < 0 ||
			surveys[i].Quota != "quota_full" || !slices.Contains(surveys[i].QuotaWhy, why) {
			t.Errorf("P-open's surveys %+v: want Target quota full, saying %q", surveys, why)
		}
		routed, err := s.Route(ctx, invite.Invitation{PanelistID: "P-open", SubsampleID: checkstest.Target})
		if err != nil || !strings.Contains(routed.Reason, why) {
			t.Errorf("Route(P-open to Target) = %q, %v; want the reason %q", routed.Reason, err, why)
		}

		now = closedAt.Add(20*time.Minute - time.Nanosecond)
		sentTo("a nanosecond before the closure's end", map[string]bool{"P-open": false})
		now = closedAt.Add(20 * time.Minute)
		sentTo("at the closure's end, no read between", map[string]bool{"P-open": true, "P-full": true})

		// A read whose counts did not move keeps the closure; one whose
		// counts moved lifts it.
		now = closedAt.Add(2 * time.Minute)
		snap := checkstest.Snapshot()
		femaleOpen(&snap)
		detail := snap.Details[checkstest.Target]
		detail.FetchedAt = now
		if err := st.SaveSubsampleDetail(ctx, checkstest.Target, detail); err != nil {
			t.Fatal(err)
		}
		sentTo("after a read of the same counts", map[string]bool{"P-open": false, "P-full": true})
		detail.Quotas = slices.Clone(detail.Quotas)
		detail.Quotas[1].AchievedInterviews = 1
		if err := st.SaveSubsampleDetail(ctx, checkstest.Target, detail); err != nil {
			t.Fatal(err)
		}
		sentTo("after a read whose counts moved", map[string]bool{"P-open": true, "P-full": true})
		if left, err := st.FieldClosures(ctx); err != nil || len(left) != 0 {
			t.Errorf("closures after a read whose counts moved: %+v, %v; want none", left, err)
		}
		changes, _, err := st.Changes(ctx, store.ChangeFilter{}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, c := range changes {
			kinds = append(kinds, string(c.Kind)+":"+c.QuotaID)
		}
		if want := []string{string(domain.ChangeFieldClosureLifted) + ":2", string(domain.ChangeQuotaClosedByField) + ":2"}; !slices.Equal(kinds, want) {
			t.Errorf("the change feed, newest first: %v, want %v", kinds, want)
		}
	})
}
