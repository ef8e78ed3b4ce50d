package checks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// Alt is checkstest's second subsample, where P-open goes when our rules
// keep it out of Target; policyWorld is checkstest's world with it.
const Alt = checkstest.Alt

var policyWorld = checkstest.WithAlt

// policyService opens a store on db, builds the policy world in it and
// returns a service whose clock stands a minute after the world's read.
func policyService(t *testing.T, db storetest.Dialect) (*checks.Service, *store.Store) {
	t.Helper()
	s, st, _ := policyInstance(t, db)
	return s, st
}

// policyInstance is policyService, with what names its database, for a
// second instance to open.
func policyInstance(t *testing.T, db storetest.Dialect) (*checks.Service, *store.Store, string) {
	t.Helper()
	target := db.Target(t)
	st, err := store.Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	checkstest.Build(t, st, policyWorld)
	now := checkstest.ReadAt.Add(time.Minute)
	return &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}, st, target
}

// TestEverySendPathAppliesOurRules: each kind of our own rules, put in
// force, keeps P-open out of Target on every send path (the router, a
// click, a panelist's surveys, one eligibility, the send list, the bulk
// check), with a sentence that names the rule, who set it and when; the
// click goes to Alt instead. Taken out of force, P-open is sent to Target
// again: it was the rule. A rule that does not bite (another currency, a
// floor the survey meets, a device it allows) sends as before.
func TestEverySendPathAppliesOurRules(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s, _ := policyService(t, db)
		for _, tc := range []struct {
			rule string
			want string // the refusal, in full; "" when the rule lets Target through
		}{
			{"max-loi 20", "Our maximum LOI is 20 minutes (set by maria on 20 Nov); this survey is 25."},
			{"max-loi 25", ""}, // the boundary: a survey as long as the maximum is sent
			{"min-cpi 2.01 USD", "Our minimum CPI is 2.01 USD (set by maria on 20 Nov); this survey pays 2.00 USD."},
			{"min-cpi 2 USD", ""}, // the boundary: as much as the minimum is enough
			{"min-cpi 9 EUR", ""}, // another currency's floor: Target is priced in USD
			{"min-epc 0.41 USD", "Our minimum expected earnings per entrant are 0.41 USD (set by maria on 20 Nov); this survey's are 0.40 USD."},
			{"min-epc 0.40 USD", ""},
			{"min-incidence 21", "Our minimum incidence is 21% (set by maria on 20 Nov); this survey expects 20%."},
			{"min-incidence 20", ""},
			{"devices tablet,desktop", "Our panel answers on desktop or tablet (set by maria on 20 Nov); this survey allows mobile only."},
			{"devices mobile", ""},
			{"block subsample 10", "We block subsample 10 (set by maria on 20 Nov)."},
			{"block event 1", "We block event 1 (set by maria on 20 Nov)."},
			{"block research-type consumer", "We block research type consumer (set by maria on 20 Nov)."},
			{"block research-type 5", "We block research type 5 (set by maria on 20 Nov)."},
			{"block category Drinks", "We block category Drinks (set by maria on 20 Nov)."},
			{"block category 111", "We block category 111 (set by maria on 20 Nov)."},
			{"block country us", "We block country US (set by maria on 20 Nov)."},
			{"block billing-entity acme research", ""}, // the words are the value: "acme" alone is not Target's entity
			{"pause subsample 10", "We paused this subsample on our side (set by maria on 20 Nov): the links break on mobile."},
		} {
			t.Run(tc.rule, func(t *testing.T) {
				words := strings.Fields(tc.rule)
				if words[0] == "block" && words[1] == "billing-entity" {
					words = []string{"block", "billing-entity", "acme research"}
					tc.want = "We block billing entity acme research (set by maria on 20 Nov)."
				}
				r, err := s.SetRule(ctx, words, "maria", "the links break on mobile")
				if err != nil {
					t.Fatalf("SetRule(%q): %v", tc.rule, err)
				}
				for _, p := range sendPaths {
					if got := p.sent(ctx, t, s, "P-open", checkstest.Target); got != (tc.want == "") {
						t.Errorf("%s: P-open sent to Target under %q = %v, want %v", p.name, tc.rule, got, tc.want == "")
					}
				}
				routed, err := s.Route(ctx, invite.Invitation{PanelistID: "P-open", SubsampleID: checkstest.Target})
				if err != nil {
					t.Fatal(err)
				}
				parts, err := s.Subsample(ctx, checkstest.Target)
				if err != nil {
					t.Fatal(err)
				}
				if tc.want != "" {
					// Alt pays 1.00 USD (0.30 USD an entrant) in the United States: the floors
					// and the block of the country keep P-open out of it
					// too.
					wantChosen := Alt
					if tc.rule == "min-cpi 2.01 USD" || tc.rule == "min-epc 0.41 USD" || tc.rule == "block country us" {
						wantChosen = 0
					}
					if routed.Chosen != wantChosen || !strings.Contains(routed.Reason, tc.want) {
						t.Errorf("a click on Target under %q went to %d: %q; want %d, saying %q", tc.rule, routed.Chosen, routed.Reason, wantChosen, tc.want)
					}
					if parts.Verdict.State != rules.BlockedByUs || len(parts.Verdict.Reasons) == 0 || !strings.HasPrefix(parts.Verdict.Reasons[0], tc.want) {
						t.Errorf("Target's verdict under %q = %s %q, want blocked by our rules, saying %q", tc.rule, parts.Verdict.State, parts.Verdict.Reasons, tc.want)
					}
				} else if parts.Verdict.State != rules.Sendable || len(parts.Ours) > 0 {
					t.Errorf("Target's verdict under %q = %s %q, ours %v; want sendable", tc.rule, parts.Verdict.State, parts.Verdict.Reasons, parts.Ours)
				}
				if _, err := s.RemoveRule(ctx, r.ID, "maria", "done"); err != nil {
					t.Fatal(err)
				}
				for _, p := range sendPaths {
					if !p.sent(ctx, t, s, "P-open", checkstest.Target) {
						t.Errorf("%s: P-open not sent to Target once %q was removed", p.name, tc.rule)
					}
				}
			})
		}
	})
}

// TestOurPriorityReordersTheRouter: the router sends P-open to Target,
// the better paid; raising Alt (or its event) by a place puts Alt first,
// lowering it again puts Target back.
func TestOurPriorityReordersTheRouter(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s, _ := policyService(t, db)
		first := func() int64 {
			t.Helper()
			routes, err := s.NextSurveys(ctx, "P-open", 5)
			if err != nil || len(routes) == 0 {
				t.Fatalf("NextSurveys: %v %v", routes, err)
			}
			return routes[0].SubsampleID
		}
		if got := first(); got != checkstest.Target {
			t.Fatalf("the router's first pick without priorities = %d, want Target", got)
		}
		for _, words := range [][]string{{"priority", "subsample", "12", "+1"}, {"priority", "event", "3", "+2"}} {
			r, err := s.SetRule(ctx, words, "maria", "")
			if err != nil {
				t.Fatal(err)
			}
			if got := first(); got != Alt {
				t.Errorf("the router's first pick under %v = %d, want Alt", words, got)
			}
			if _, err := s.RemoveRule(ctx, r.ID, "maria", ""); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.SetRule(ctx, []string{"priority", "subsample", "10", "-1"}, "maria", ""); err != nil {
			t.Fatal(err)
		}
		if got := first(); got != Alt {
			t.Errorf("the router's first pick with Target lowered = %d, want Alt", got)
		}
	})
}

// TestHoldAndReleaseByHand: a panelist held by hand is sent nowhere, on
// every path, with the hand's sentence, until the hold's end; a release
// by hand lifts a quality hold made of the reversals before it.
func TestHoldAndReleaseByHand(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s, _ := policyService(t, db)
		now := s.Now()
		until := now.Add(2 * time.Hour)
		if err := s.HoldPanelist(ctx, "P-open", &until, "maria", "answers in two seconds"); err != nil {
			t.Fatal(err)
		}
		for _, p := range sendPaths {
			if p.sent(ctx, t, s, "P-open", checkstest.Target) {
				t.Errorf("%s: P-open held by hand is sent to Target", p.name)
			}
		}
		pc, err := s.Eligibility(ctx, "P-open", checkstest.Target)
		if err != nil {
			t.Fatal(err)
		}
		want := "Held by hand (set by maria on 20 Nov, until 20 Nov 2026 11:01 UTC): answers in two seconds."
		if len(pc.Eligibility.Exclusions) == 0 || pc.Eligibility.Exclusions[len(pc.Eligibility.Exclusions)-1].Reason != want {
			t.Errorf("P-open's exclusions = %+v, want the hand's %q", pc.Eligibility.Exclusions, want)
		}
		// At the hold's end (its very instant), the hold no longer holds.
		later := &checks.Service{Store: s.Store, Now: func() time.Time { return until }, StaleAfter: 3 * time.Hour, QualityHold: checkstest.QualityHold}
		for _, p := range sendPaths {
			if !p.sent(ctx, t, later, "P-open", checkstest.Target) {
				t.Errorf("%s: P-open not sent to Target at the end of the hold", p.name)
			}
		}
		if err := s.HoldPanelist(ctx, "P-open", &now, "maria", ""); !errors.Is(err, checks.ErrBadRule) {
			t.Errorf("a hold until now = %v, want refused", err)
		}
		// P-held is held for quality; released by hand, they are sent.
		if err := s.ReleasePanelist(ctx, "P-held", "maria", "the client confirmed the completes"); err != nil {
			t.Fatal(err)
		}
		for _, p := range sendPaths {
			if !p.sent(ctx, t, s, "P-held", checkstest.Target) {
				t.Errorf("%s: P-held released by hand is not sent to Target", p.name)
			}
		}
		changes, err := s.PolicyChanges(ctx, 0)
		if err != nil || len(changes) != 2 || changes[0].Action != "release" || changes[0].Before != "" || changes[0].After != "released" || changes[1].After != "held until 20 Nov 2026 11:01 UTC" {
			t.Errorf("audit = %+v, %v; want the hold and the release, newest first", changes, err)
		}
	})
}

// TestOurCapsAreTakenInTheDecision: a cap of two sends an hour on Target
// lets two clicks go there and sends the third to Alt, saying so; the
// checks that send nobody read the cap without taking a place; the next
// hour Target takes sends again. A cap of one send per panelist a day
// sends P-open nowhere after their first.
func TestOurCapsAreTakenInTheDecision(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s, st := policyService(t, db)
		if _, err := s.SetRule(ctx, strings.Fields("cap subsample 10 sends 2 per hour"), "maria", ""); err != nil {
			t.Fatal(err)
		}
		click := func(s *checks.Service) checks.Routed {
			t.Helper()
			routed, err := s.Route(ctx, invite.Invitation{PanelistID: "P-open", SubsampleID: checkstest.Target})
			if err != nil {
				t.Fatal(err)
			}
			return routed
		}
		for i := range 2 {
			// Reading the cap takes no place.
			if _, err := s.PanelistSurveys(ctx, "P-open"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.PreviewNextSurveys(ctx, "P-open", 3); err != nil {
				t.Fatal(err)
			}
			if got := click(s); got.Chosen != checkstest.Target {
				t.Fatalf("click %d went to %d (%s), want Target", i+1, got.Chosen, got.Reason)
			}
		}
		third := click(s)
		want := "Our cap of 2 sends an hour on subsample 10 (set by maria on 20 Nov) is reached: 2 this hour."
		if third.Chosen != Alt || !strings.Contains(third.Reason, want) {
			t.Errorf("the third click went to %d: %q; want Alt, saying %q", third.Chosen, third.Reason, want)
		}
		for _, p := range sendPaths {
			if p.sent(ctx, t, s, "P-open", checkstest.Target) {
				t.Errorf("%s: P-open sent to Target with its cap reached", p.name)
			}
		}
		nextHour := checkstest.ReadAt.Add(time.Hour)
		later := &checks.Service{Store: st, Now: func() time.Time { return nextHour }, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
		if got := click(later); got.Chosen != checkstest.Target {
			t.Errorf("a click the next hour went to %d (%s), want Target", got.Chosen, got.Reason)
		}
		if _, err := s.SetRule(ctx, strings.Fields("cap panelist sends 1 per day"), "maria", ""); err != nil {
			t.Fatal(err)
		}
		if got := click(later); got.Chosen == 0 {
			t.Fatalf("P-open's first send of the day under a panelist's cap went nowhere: %s", got.Reason)
		}
		got := click(later)
		want = "Our cap of 1 send per panelist a day (set by maria on 20 Nov) is reached: the panelist was sent once today."
		if got.Chosen != 0 || !strings.Contains(got.Reason, want) {
			t.Errorf("P-open's second send of the day went to %d: %q; want nowhere, saying %q", got.Chosen, got.Reason, want)
		}
	})
}

// TestOurCapHoldsAcrossInstances: two instances sharing one database
// route clicks into Target at once under a cap of sends an hour; no more
// go there than the cap allows, whatever the interleaving: the places are
// counted and taken in one serialized transaction
// (store.TakeCapPlaces), not counted before and written after. Under a
// cap of 5 each instance takes its places one at a time, and exactly 5
// go; under 500, five at a time (capBlock), and at most the places the
// two instances hold unused when the clicks stop (a block each) are lost. Run on both
// databases; on PostgreSQL the two instances are two pools on one
// cluster.
func TestOurCapHoldsAcrossInstances(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		for _, tc := range []struct{ limit, clicks, atLeast int }{{5, 40, 5}, {500, 700, 500 - 2*5}} {
			ctx := context.Background()
			s, _, target := policyInstance(t, db)
			if _, err := s.SetRule(ctx, strings.Fields(fmt.Sprintf("cap subsample 10 sends %d per hour", tc.limit)), "maria", ""); err != nil {
				t.Fatal(err)
			}
			other, err := store.Open(ctx, target)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { other.Close() })
			instances := []*checks.Service{s, {Store: other, Now: s.Now, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}}
			var mu sync.Mutex
			var chosen []int64
			var wg sync.WaitGroup
			for i := range tc.clicks {
				wg.Go(func() {
					routed, err := instances[i%2].Route(ctx, invite.Invitation{PanelistID: "P-open", SubsampleID: checkstest.Target})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					chosen = append(chosen, routed.Chosen)
					mu.Unlock()
				})
			}
			wg.Wait()
			if slices.Contains(chosen, 0) {
				t.Errorf("a click went nowhere, though Alt takes every panelist Target does not: %v", chosen)
			}
			n := len(slices.DeleteFunc(slices.Clone(chosen), func(id int64) bool { return id != checkstest.Target }))
			if n > tc.limit || n < tc.atLeast {
				t.Errorf("%d of %d concurrent clicks on two instances went to Target under a cap of %d sends an hour, want from %d to %d",
					n, tc.clicks, tc.limit, tc.atLeast, tc.limit)
			}
		}
	})
}

// TestACapThatRefusesGivesBackTheOthersPlaces: under a cap of three sends
// a day and one an hour on Target, a click the hour's cap refuses gives
// back the place it took under the day's, to its instance's stock: the
// day still sends three, one an hour.
func TestACapThatRefusesGivesBackTheOthersPlaces(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s, st := policyService(t, db)
		for _, rule := range []string{"cap subsample 10 sends 3 per day", "cap subsample 10 sends 1 per hour"} {
			if _, err := s.SetRule(ctx, strings.Fields(rule), "maria", ""); err != nil {
				t.Fatal(err)
			}
		}
		// One instance, its clock moving: the places it gives back are
		// its own to use again.
		var now time.Time
		one := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: 24 * time.Hour, QualityHold: checkstest.QualityHold}
		clickAt := func(hour int) int64 {
			t.Helper()
			now = checkstest.ReadAt.Add(time.Duration(hour) * time.Hour)
			routed, err := one.Route(ctx, invite.Invitation{PanelistID: "P-open", SubsampleID: checkstest.Target})
			if err != nil {
				t.Fatal(err)
			}
			return routed.Chosen
		}
		for i, want := range []struct {
			hour   int
			chosen int64
		}{{0, checkstest.Target}, {0, Alt}, {0, Alt}, {1, checkstest.Target}, {2, checkstest.Target}, {3, Alt}} {
			if got := clickAt(want.hour); got != want.chosen {
				t.Errorf("click %d, at hour %d, went to %d, want %d", i+1, want.hour, got, want.chosen)
			}
		}
	})
}
