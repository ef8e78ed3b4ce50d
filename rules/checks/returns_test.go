package checks_test

import (
	"context"
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

// TestReturnFindsASendStillQueued: a send is written a moment after its
// redirect (web's routing log), so a respondent back at once finds none,
// or the send before it, returned already; the return then has what is
// queued written (Returns.Pending) and is recorded against the send that
// was queued, not refused; so is one whose newest send is still queued
// behind an open one written (Returns.Queued). Past the window, or with
// nothing queued, it is refused. On both databases.
func TestReturnFindsASendStillQueued(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		st, err := store.Open(ctx, db.Target(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		checkstest.Build(t, st)
		now := checkstest.ReadAt.Add(time.Minute)
		var queued []domain.RoutingDecision
		s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter,
			Returns: checks.Returns{Window: time.Hour, Pending: func(ctx context.Context) error {
				err := st.RecordRoutings(ctx, queued)
				queued = nil
				return err
			}, Queued: func(panelistID string) bool {
				for _, d := range queued {
					if d.PanelistID == panelistID {
						return true
					}
				}
				return false
			}}}
		send := func(at time.Time) domain.RoutingDecision {
			return domain.RoutingDecision{At: at, PanelistID: "P-open", Chosen: checkstest.Target, Outcome: domain.RoutedNext, Reason: "best"}
		}
		back := func(status int64) checks.ReturnResult {
			t.Helper()
			res, err := s.Return(ctx, checks.Return{PanelistID: "P-open", StatusID: status, At: now, Via: domain.ReturnByPost})
			if err != nil {
				t.Fatal(err)
			}
			s.SettleLinks() // the link judged after it reads the clock the test moves
			return res
		}

		// A first send, still queued when its respondent comes back.
		queued = []domain.RoutingDecision{send(now)}
		now = now.Add(time.Minute)
		if res := back(domain.ReturnScreenOut); res.Refused != "" || res.Send.Hop != 1 {
			t.Fatalf("a return of a send still queued: %+v; want it recorded", res)
		}
		// Its hop, queued as the route on left it, and the respondent
		// back from that survey at once: recorded against the hop.
		hop := send(now)
		hop.Hop, hop.Outcome = 2, domain.RoutedOnReturn
		queued = []domain.RoutingDecision{hop}
		now = now.Add(time.Second)
		if res := back(domain.ReturnScreenOut); res.Refused != "" || res.Send.Hop != 2 {
			t.Errorf("a return of the hop still queued: %+v; want it recorded against hop 2", res)
		}
		// Nothing queued: the newest send is returned already.
		if res := back(domain.ReturnComplete); res.Refused != checks.RefusedReturned {
			t.Errorf("a second return of the hop: %+v; want it refused as returned already", res)
		}
		// An open send written, and a newer one (a click a moment later)
		// still queued: the return is the newer one's, whose survey the
		// respondent comes back from.
		written := send(now)
		if err := st.RecordRoutings(ctx, []domain.RoutingDecision{written}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Second)
		click := send(now)
		click.Outcome = domain.RoutedIntended
		queued = []domain.RoutingDecision{click}
		now = now.Add(time.Second)
		if res := back(domain.ReturnScreenOut); res.Refused != "" || res.Send.Outcome != domain.RoutedIntended {
			t.Errorf("a return with an open send written and a newer one queued: %+v; want it recorded against the queued click", res)
		}
		// A send older than the window: none open.
		if err := st.RecordRoutings(ctx, []domain.RoutingDecision{{At: now.Add(-time.Hour - time.Minute), PanelistID: "P-full", Chosen: checkstest.Target,
			Outcome: domain.RoutedNext, Reason: "best"}}); err != nil {
			t.Fatal(err)
		}
		res, err := s.Return(ctx, checks.Return{PanelistID: "P-full", StatusID: domain.ReturnComplete, At: now, Via: domain.ReturnByPost})
		if err != nil || res.Refused != checks.RefusedNoSend {
			t.Errorf("a return an hour and a minute after its send: %+v, %v; want no open send", res, err)
		}
	})
}

// TestClickSaysWhyTheInvitedSubsampleRefuses: a click on an invitation to
// a subsample the panelist may not enter says why in the rule's own words
// (spec rule 5, "respondents are unique across the event": P-sibling
// completed the event's other subsample), even though a click that names
// no subsample builds no such sentence.
func TestClickSaysWhyTheInvitedSubsampleRefuses(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	checkstest.Build(t, st)
	s := &checks.Service{Store: st, Now: func() time.Time { return checkstest.ReadAt.Add(time.Minute) }, StaleAfter: checkstest.StaleAfter}
	routed, err := s.Route(ctx, invite.Invitation{PanelistID: "P-sibling", SubsampleID: checkstest.Target})
	if err != nil {
		t.Fatal(err)
	}
	if routed.Chosen == checkstest.Target || !strings.Contains(routed.Reason, "of the same event") {
		t.Errorf("P-sibling's click on Target: %+v; want it sent elsewhere, saying the same event excludes them", routed.RoutingDecision)
	}
}
