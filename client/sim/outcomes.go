package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// RecentHistory generates what the field returned over the days before
// the world was created, for the panel given (Panel's): each panelist
// entered up to three of the world's subsamples fielded in their own
// country that live-details lists then with a price (one entry in 25 on
// one that is no longer live, whose price a new Fieldboard never saw),
// each entry an "In survey" record then, minutes later, a final
// one (screen-outs most, then completes, abandons and quota fulls; a few
// still in survey); about one complete in fifteen is reversed (98 or 99)
// two to ten days later. The panelists at heldFrom and the two after it
// each had three completes reversed in the period: a supplier's quality
// hold catches them. Sorted by panelist; deterministic for the world and
// seed.
func (s *Simulator) RecentHistory(seed int64, panel []domain.PanelMember, days, heldFrom int) []domain.HistoryRecord {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x0c0e5))
	created := s.world.created
	span := time.Duration(days) * 24 * time.Hour
	byCountry := map[string][]*subsample{} // live now, with a price
	closed := map[string][]*subsample{}    // allocated once, not live now
	for _, ss := range s.world.subs {
		switch {
		case ss.listedLive(0) && ss.cpi > 0:
			byCountry[ss.country.Code] = append(byCountry[ss.country.Code], ss)
		case ss.allocated && !ss.listedLive(0):
			closed[ss.country.Code] = append(closed[ss.country.Code], ss)
		}
	}
	var out []domain.HistoryRecord
	for i, m := range panel {
		subs := byCountry[m.Country]
		if len(subs) == 0 {
			continue
		}
		record := func(ss *subsample, status int64, at time.Time) {
			r := domain.HistoryRecord{PanelistID: m.PanelistID, SubsampleID: ss.id, StatusID: status,
				RegisteredAt: at.Truncate(time.Millisecond), EventID: ss.event.id, ResearchTypeID: ss.event.rtype.id}
			if len(ss.event.categories) > 0 {
				r.CategoryID = ss.event.categories[0].id
			}
			out = append(out, r)
		}
		held := i >= heldFrom && i < heldFrom+3
		entries := rng.IntN(4)
		if held {
			entries = 3
		}
		// Distinct subsamples: respondents are unique across one.
		for _, k := range rng.Perm(len(subs))[:min(entries, len(subs))] {
			ss := subs[k]
			if c := closed[m.Country]; len(c) > 0 && !held && rng.IntN(25) == 0 {
				ss = c[rng.IntN(len(c))] // one that closed since: its price never seen
			}
			entered := created.Add(-time.Duration(rng.Float64() * float64(span)))
			record(ss, domain.ReturnInSurvey, entered)
			final := entered.Add(time.Duration(5+rng.IntN(25)) * time.Minute)
			status := recentStatus(rng)
			if held {
				status = domain.ReturnComplete
			}
			if status == domain.ReturnInSurvey || !final.Before(created) {
				continue
			}
			record(ss, status, final)
			if status != domain.ReturnComplete || (!held && rng.IntN(15) > 0) {
				continue
			}
			var verdict int64 = domain.ReturnErroneousComplete
			if rng.IntN(2) == 0 {
				verdict = domain.ReturnPotentiallyUnengaged
			}
			reversed := final.Add(time.Duration(2+rng.IntN(9)) * 24 * time.Hour)
			if held {
				reversed = final.Add(time.Hour)
			}
			if reversed.Before(created) {
				record(ss, verdict, reversed)
			}
		}
	}
	return out
}

// recentStatus draws the final status of one entry.
func recentStatus(rng *rand.Rand) int64 {
	switch x := rng.IntN(100); {
	case x < 40:
		return domain.ReturnScreenOut
	case x < 70:
		return domain.ReturnComplete
	case x < 85:
		return domain.ReturnAbandon
	case x < 97:
		return domain.ReturnQuotaFull
	default:
		return domain.ReturnInSurvey
	}
}

// PriceHistory is the price history a supplier's Fieldboard would have
// kept over the days before the world was created, of every subsample
// live-details lists then with a price: each priced from days before at
// its current CPI, except about one in five, priced lower until a change
// three to twenty-five days before. Oldest first per subsample.
func (s *Simulator) PriceHistory(seed int64, days int) []domain.PricePoint {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e1ce))
	created := s.world.created
	first := created.AddDate(0, 0, -days)
	var out []domain.PricePoint
	for _, ss := range s.world.subs {
		if !ss.listedLive(0) || ss.cpi <= 0 {
			continue
		}
		currency := ss.country.currency
		if rng.IntN(5) == 0 {
			earlier := round2(max(0.5, ss.cpi-0.25*float64(1+rng.IntN(4))))
			changed := created.Add(-time.Duration(3+rng.IntN(23)) * 24 * time.Hour)
			out = append(out, domain.PricePoint{SubsampleID: ss.id, Currency: currency, CPI: earlier, From: first},
				domain.PricePoint{SubsampleID: ss.id, Currency: currency, CPI: ss.cpi, From: changed})
			continue
		}
		out = append(out, domain.PricePoint{SubsampleID: ss.id, Currency: currency, CPI: ss.cpi, From: first})
	}
	slices.SortStableFunc(out, func(a, b domain.PricePoint) int { return int(a.SubsampleID - b.SubsampleID) })
	return out
}

// Returns is what the field returned of a panelist a supplier's router
// sent to a subsample at a time: an "In survey" record then and, five
// to thirty minutes later, a final one (sentStatus: one who fits an open
// quota cell completes more often than RecentHistory's entrants; none
// when the panelist is still in survey), with the subsample's event,
// primary category and research type. Deterministic for the seed, the
// panelist, the subsample and the time; nil for a subsample the world
// does not have.
func (s *Simulator) Returns(seed int64, panelistID string, subsampleID int64, at time.Time) []domain.HistoryRecord {
	ss, ok := s.world.byID[subsampleID]
	if !ok {
		return nil
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", panelistID, subsampleID, at.UnixNano())
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	record := func(status int64, t time.Time) domain.HistoryRecord {
		r := domain.HistoryRecord{PanelistID: panelistID, SubsampleID: ss.id, StatusID: status,
			RegisteredAt: t.Truncate(time.Millisecond), EventID: ss.event.id, ResearchTypeID: ss.event.rtype.id}
		if len(ss.event.categories) > 0 {
			r.CategoryID = ss.event.categories[0].id
		}
		return r
	}
	out := []domain.HistoryRecord{record(domain.ReturnInSurvey, at)}
	final := at.Add(time.Duration(5+rng.IntN(25)) * time.Minute)
	if status := sentStatus(rng); status != domain.ReturnInSurvey {
		out = append(out, record(status, final))
	}
	return out
}

// sentStatus draws the final status of one entry a router sent.
func sentStatus(rng *rand.Rand) int64 {
	switch x := rng.IntN(100); {
	case x < 30:
		return domain.ReturnScreenOut
	case x < 75:
		return domain.ReturnComplete
	case x < 88:
		return domain.ReturnAbandon
	case x < 94:
		return domain.ReturnQuotaFull
	default:
		return domain.ReturnInSurvey
	}
}
