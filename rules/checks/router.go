package checks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// ErrNotOnPanel is returned by NextSurveys for a panelist the panel does
// not hold: without a country no survey can be chosen for them.
var ErrNotOnPanel = errors.New("not on the panel")

// Route is a survey the router would send a panelist to now: a subsample
// on which PanelistCheck.Send holds, with the live entry link of the
// panelist's locale filled for them.
type Route struct {
	*SubsampleReport // the decisions', shared: read-only
	EntryLink        string
	// Cells are the quota ids (comma-separated, as the routing log keeps
	// them) of the cells the panelist surely falls in there, all open:
	// what the router judged when it chose. NextSurveys sets them on the
	// first route only, the one the routing log records.
	Cells string
}

// NextSurveys returns up to limit subsamples the panelist would be sent to
// now (PanelistCheck.Send), best first in the router's order
// (routerOrder). It looks only at the sendable subsamples of the
// panelist's country, so its work follows their number, not the size of
// the snapshot. A panelist the panel does not hold is ErrNotOnPanel.
//
// The first route is the send the router's answer makes: it is counted
// under our caps (capTaker), and a survey whose cap has no place left is
// passed over; the others are only read against them.
func (s *Service) NextSurveys(ctx context.Context, panelistID string, limit int) ([]Route, error) {
	return s.nextSurveys(ctx, panelistID, limit, true)
}

// PreviewNextSurveys is NextSurveys looked at, not sent: nothing is
// counted under our caps, which are only read. The panelist page names
// the router's pick with it.
func (s *Service) PreviewNextSurveys(ctx context.Context, panelistID string, limit int) ([]Route, error) {
	return s.nextSurveys(ctx, panelistID, limit, false)
}

// nextSurveys is NextSurveys, counting the first route's send under our
// caps when take is set.
func (s *Service) nextSurveys(ctx context.Context, panelistID string, limit int, take bool) ([]Route, error) {
	p, err := s.ReadPanelist(ctx, panelistID)
	if err != nil {
		return nil, fmt.Errorf("next surveys: %w", err)
	}
	if !p.rows.OnPanel {
		return nil, fmt.Errorf("panelist %q: %w", panelistID, ErrNotOnPanel)
	}
	d := p.d
	places := d.byCountry[p.rows.Member.Country]
	caps := &capTaker{s: s, ctx: ctx, ours: d.ours, now: s.now()}
	if len(places) == 0 || caps.panelist(panelistID, take) != "" {
		return nil, nil
	}
	var routes []Route
	if len(places) > 0 {
		routes = make([]Route, 0, max(0, min(limit, len(places))))
	}
	// Only whether the panelist is sent matters here: the exclusions'
	// sentences are not built (eachOf without why).
	p.eachOf(places, false, func(i int, now time.Time, pc PanelistCheck) bool {
		if !pc.Send() {
			return true
		}
		link := d.liveLink(pc, panelistID)
		if link == "" || caps.subsample(pc.SubsampleID, take && len(routes) == 0) != "" {
			return true
		}
		route := Route{SubsampleReport: pc.SubsampleReport, EntryLink: link}
		if len(routes) == 0 {
			route.Cells = d.targets[i].cellsText(p.rows.Profile, now)
		}
		routes = append(routes, route)
		return len(routes) < limit
	})
	if len(routes) == 0 {
		caps.giveBack() // the panelist's place: nobody is sent
	}
	return routes, nil
}

// ErrNotCandidate refuses to continue a panelist's candidates after a
// subsample that is not among them in this version of the decisions: a
// page asked for after one the previous version listed, or a made-up one.
var ErrNotCandidate = errors.New("not among the panelist's candidates")

// EachCandidate decides the panelist against the sendable subsamples of
// their country only, in the router's order (routerOrder), handing each
// answer to fn with the subsample's place in EachLive's order, until fn
// returns false. With after set (a subsample id, 0 for none) it starts
// with the candidate after that subsample, deciding none before it: a
// page of a panelist's surveys costs that page, not those before it. The
// order is fixed per version of the decisions, so pages of one version
// never list a subsample twice; after a subsample that is not a candidate
// of this version (the version moved on, or it never was one) it is
// ErrNotCandidate, and nothing is decided.
//
// Any subsample the panelist may enter is among the candidates: the
// others are not sendable or not of their country. Like EachLive, it fills
// neither QuotaWhy nor PanelistLinks; unlike it, it says only whether the
// panelist is eligible (Eligibility.Eligible), not what excludes them
// (Eligibility.Exclusions holds at most a quality hold's): it serves the
// subsamples the panelist may enter, whom nothing excludes.
func (p *Panelist) EachCandidate(after int64, fn func(i int, pc PanelistCheck) bool) error {
	places := p.d.byCountry[p.rows.Member.Country]
	if after != 0 {
		k := slices.IndexFunc(places, func(i int32) bool { return p.d.targets[i].report.SubsampleID == after })
		if k < 0 {
			return fmt.Errorf("subsample %d: %w", after, ErrNotCandidate)
		}
		places = places[k+1:]
	}
	p.eachOf(places, false, func(i int, _ time.Time, pc PanelistCheck) bool {
		pc.Capped = p.capped(pc)
		return fn(i, pc)
	})
	return nil
}

// eachOf decides the panelist against the live subsamples at places, in
// that order, until fn returns false; fn is handed the time of the check
// too. With why, each check's Eligibility holds the exclusions that say
// why the panelist is not eligible; without, only whether they are
// (rules.RuleBook.CheckTargetsEligible: the same Eligible, no sentence
// built).
func (p *Panelist) eachOf(places []int32, why bool, fn func(i int, now time.Time, pc PanelistCheck) bool) {
	if len(places) == 0 {
		return
	}
	d, member, profile, history := p.d, p.rows.Member, p.rows.Profile, p.rows.History
	now := p.s.now()
	held := p.heldWhy(now)
	if !why {
		// Nothing keeps the records past the check: completed on the
		// stack. A subsample the panelist may not enter carries the
		// hold's exclusion or none: the sentences are not wanted here.
		var buf [48]domain.HistoryRecord
		d.book.CheckTargetsEligible(rules.WithTopicsIn(buf[:0], history, d.topics), now, places, func(i int, eligible bool) bool {
			return fn(i, now, d.check(i, member, profile, now, rules.WithQualityHold(rules.EligibilityResult{Eligible: eligible}, held)))
		})
		return
	}
	d.book.CheckTargets(rules.WithTopics(history, d.topics), now, places, func(i int, r rules.EligibilityResult) bool {
		return fn(i, now, d.check(i, member, profile, now, rules.WithQualityHold(r, held)))
	})
}

// cellsText is the quota cells the panelist surely falls in on t, in the
// order of its tables (the Cells of rules.QuotaCells.Match, without its
// sentences), as the routing log keeps them (formatCells); "" when its
// quotas were not read.
func (t *liveTarget) cellsText(p domain.Profile, now time.Time) string {
	if t.quotasUnread != "" {
		return ""
	}
	var ids [16]int64
	return formatCells(t.cells.AppendCells(ids[:0], p, now))
}

// check is the panelist's answer on the live subsample at place i, given
// what the rule book made of their history.
func (d *Decisions) check(i int, member domain.PanelMember, profile domain.Profile, now time.Time, r rules.EligibilityResult) PanelistCheck {
	return d.checkFit(i, d.fitPanel(&d.targets[i], member), profile, now, r)
}

// checkFit is check, the panelist's country and language already fitted
// to the subsample (fitPanel).
func (d *Decisions) checkFit(i int, fit rules.PanelFit, profile domain.Profile, now time.Time, r rules.EligibilityResult) PanelistCheck {
	t := &d.targets[i]
	return PanelistCheck{SubsampleReport: t.report, Panel: fit, RulesUnread: t.unread,
		Eligibility: r, Quota: t.quotaVerdict(profile, now)}
}

// liveLink is the live entry link of the locale chosen for the panelist
// (pc.Panel.Locale) on pc's subsample, filled for them; "" when there is
// none, which rules.FitPanel's choice of a usable locale rules out: a
// guard, never a decision.
func (d *Decisions) liveLink(pc PanelistCheck, panelistID string) string {
	// The live link alone, filled as PanelistLinks fills it
	// (rules.FillEntryLink): its testing link, which makes PanelistLinks
	// prepare both again when it has a problem, does not matter here.
	for _, l := range pc.Links {
		if pc.Panel.Locale != "" && strings.EqualFold(l.Locale, pc.Panel.Locale) {
			if l.LiveProblem == "" {
				if link, ok := rules.FillEntryLink(l.Live, panelistID); ok {
					return link
				}
			}
			break
		}
	}
	links := d.PanelistLinks(pc.SubsampleReport, pc.Panel.Locale, panelistID)
	if len(links) == 0 {
		return ""
	}
	return links[0].Live
}

// indexCountries fills d.byCountry: for each country, the places of the
// sendable live subsamples fielded in it, in the router's order.
func (d *Decisions) indexCountries() {
	live := map[string][]int32{} // every live subsample, sendable or not
	for i := range d.targets {
		for _, c := range d.targets[i].panel.Countries {
			// In any case, as rules.FitPanel compares them, and once
			// however often the provider lists it.
			c = strings.ToUpper(c)
			if places := live[c]; len(places) == 0 || places[len(places)-1] != int32(i) {
				live[c] = append(places, int32(i))
			}
		}
	}
	d.byCountry = make(map[string][]int32, len(live))
	for country, places := range live {
		sendable := slices.DeleteFunc(slices.Clone(places), func(i int32) bool {
			return d.targets[i].report.Verdict.State != rules.Sendable
		})
		if len(sendable) > 0 {
			d.byCountry[country] = d.routerOrder(places, sendable)
		}
	}
}

// routerOrder orders the sendable subsamples of one country for the
// router: the currency most of the country's live subsamples (places) are
// priced in first, then the others by how many subsamples use them (then
// by code); within a currency the highest priority our rules give first
// (rules.OurRules.Priority; none is 0), then the highest expected earnings
// per entrant and those without a figure last, then by subsample id. Figures in
// different currencies are never compared as numbers.
func (d *Decisions) routerOrder(places, sendable []int32) []int32 {
	perCurrency := map[string]int{}
	for _, i := range places {
		perCurrency[d.currencyOf(i)]++
	}
	slices.SortFunc(sendable, func(a, b int32) int {
		ca, cb := d.currencyOf(a), d.currencyOf(b)
		if ca != cb {
			if n := cmp.Compare(perCurrency[cb], perCurrency[ca]); n != 0 {
				return n
			}
			return strings.Compare(ca, cb)
		}
		if pa, pb := d.targets[a].report.Priority, d.targets[b].report.Priority; pa != pb {
			return cmp.Compare(pb, pa)
		}
		ea, eb := d.targets[a].report.EPC, d.targets[b].report.EPC
		switch {
		case ea.Known() != eb.Known():
			if ea.Known() {
				return -1
			}
			return 1
		case ea.Value != eb.Value:
			return cmp.Compare(eb.Value, ea.Value)
		}
		return cmp.Compare(d.targets[a].target.SubsampleID, d.targets[b].target.SubsampleID)
	})
	return sendable
}

// currencyOf is the currency the live subsample at place i is priced in.
func (d *Decisions) currencyOf(i int32) string {
	return strings.ToUpper(strings.TrimSpace(d.targets[i].report.Currency))
}
