package demo

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// Coordinator is the demo's coordinator (Colleagues): the name our rules,
// holds and releases are set by.
const Coordinator = "maria"

// DemoRule is one of our rules the demo puts in force: its words, as
// the command line writes them, and why.
type DemoRule struct {
	Words []string
	Why   string
}

// PickRules chooses, from the live list, the rules a supplier might have
// set: a maximum LOI that only the longest sendable surveys exceed, a
// block of the rarest research type among them, a priority on the event
// with the most sendable subsamples, a cap of sends on one subsample and
// a pause of another. Each picks among the subsamples the rules before it
// still let take traffic, so that some are blocked by our rules and most
// still take it. None when no subsample is sendable.
func PickRules(rows []checks.LiveRow) []DemoRule {
	var open []checks.LiveRow
	for _, r := range rows {
		if r.Verdict.State == rules.Sendable {
			open = append(open, r)
		}
	}
	if len(open) == 0 {
		return nil
	}
	// The best paid first, so that the priority, the cap and the pause
	// fall on subsamples a coordinator looks at.
	slices.SortStableFunc(open, func(a, b checks.LiveRow) int {
		return cmp.Or(cmp.Compare(b.EPC.Value, a.EPC.Value), cmp.Compare(a.SubsampleID, b.SubsampleID))
	})
	var picked []DemoRule
	keep := func(refuses func(checks.LiveRow) bool) {
		open = slices.DeleteFunc(open, refuses)
	}

	// The LOI below which seven in eight sendable surveys lie, in whole
	// five minutes, and only if some survey is longer.
	var lois []float64
	for _, r := range open {
		if r.ExpectedLOI != nil {
			lois = append(lois, *r.ExpectedLOI)
		}
	}
	slices.Sort(lois)
	if len(lois) > 0 {
		maxLOI := max(5, math.Floor(lois[len(lois)*7/8]/5)*5)
		if lois[len(lois)-1] > maxLOI {
			picked = append(picked, DemoRule{Words: []string{"max-loi", strconv.FormatFloat(maxLOI, 'f', -1, 64)},
				Why: "longer surveys are broken off on phones and cost us panelists"})
			keep(func(r checks.LiveRow) bool { return r.ExpectedLOI == nil || *r.ExpectedLOI > maxLOI })
		}
	}

	// The rarest research type, when there are at least two.
	types := map[string]int{}
	for _, r := range open {
		if r.ResearchType != "" {
			types[r.ResearchType]++
		}
	}
	if len(types) > 1 {
		names := slices.Sorted(maps.Keys(types))
		rarest := slices.MinFunc(names, func(a, b string) int { return cmp.Compare(types[a], types[b]) })
		picked = append(picked, DemoRule{Words: []string{"block", "research-type", rarest},
			Why: "our panel is not screened for " + rarest + " studies; the client's recruiters reject them"})
		keep(func(r checks.LiveRow) bool { return r.ResearchType == rarest })
	}
	if len(open) == 0 {
		return picked
	}

	// The event with the most subsamples still open.
	events := map[int64]int{}
	for _, r := range open {
		events[r.EventID]++
	}
	busiest, name := open[0].EventID, open[0].EventName
	for _, r := range open {
		if events[r.EventID] > events[busiest] {
			busiest, name = r.EventID, r.EventName
		}
	}
	picked = append(picked, DemoRule{Words: []string{"priority", "event", strconv.FormatInt(busiest, 10), "+1"},
		Why: "we promised the client to fill " + cmp.Or(name, "this event") + " by Friday"})

	// A cap on the best paid subsample and a pause of the next, each of
	// another event than the priority's when there is one.
	others := slices.DeleteFunc(slices.Clone(open), func(r checks.LiveRow) bool { return r.EventID == busiest })
	if len(others) < 2 {
		others = open
	}
	picked = append(picked, DemoRule{Words: []string{"cap", "subsample", strconv.FormatInt(others[0].SubsampleID, 10), "sends", "200", "per", "hour"},
		Why: "the client's survey server slows down above 200 starts an hour"})
	if len(others) > 1 {
		picked = append(picked, DemoRule{Words: []string{"pause", "subsample", strconv.FormatInt(others[1].SubsampleID, 10)},
			Why: "the client asked us to wait for their new screener"})
	}
	return picked
}

// Policy puts in force, through the checks service, the rules PickRules
// chooses from svc's live list, holds two panelists by hand (one until
// three days from now) and releases the first panelist held for quality
// (HeldFrom), all set by Coordinator: /policy lists the rules and their
// audit, /live marks the subsamples they refuse, /panelists/held shows
// both kinds of holds and the change feed the changes. It does so once:
// only while the audit of our rules is empty, so a restart, or a user
// who removed the demo's rules, keeps what is there.
func (d Seeder) Policy(ctx context.Context, svc *checks.Service) error {
	audit, err := svc.PolicyChanges(ctx, 1)
	if err != nil || len(audit) > 0 {
		return err
	}
	decided, err := svc.Current(ctx)
	if err != nil {
		return fmt.Errorf("demo rules: %w", err)
	}
	picked := PickRules(decided.LiveRows())
	for _, r := range picked {
		if _, err := svc.SetRule(ctx, r.Words, Coordinator, r.Why); err != nil {
			return fmt.Errorf("demo rules: %w", err)
		}
	}
	until := svc.Now().Add(72 * time.Hour).Truncate(time.Hour)
	held := []struct {
		id    string
		until *time.Time
		why   string
	}{
		{d.Sim.PanelistID(1), nil, "asked by mail for no more invitations until they write again"},
		{d.Sim.PanelistID(2), &until, "straight-lined two grids this week; held while the client checks their data"},
	}
	for _, h := range held {
		if err := svc.HoldPanelist(ctx, h.id, h.until, Coordinator, h.why); err != nil {
			return fmt.Errorf("demo holds: %w", err)
		}
	}
	released := d.Sim.PanelistID(HeldFrom)
	if err := svc.ReleasePanelist(ctx, released, Coordinator, "the client confirmed the reversals were their own data-cleaning error"); err != nil {
		return fmt.Errorf("demo holds: %w", err)
	}
	d.Logger.Info("demo: "+Coordinator+" put our own rules in force, held two panelists by hand and released one held for quality; see /policy and /panelists/held",
		"rules", len(picked), "held by hand", held[0].id+", "+held[1].id, "released", released)
	return nil
}
