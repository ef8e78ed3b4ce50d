package sim

import (
	"iter"
	"math/rand/v2"
	"time"

	"fieldboard/rules/domain"
)

// History generates a respondent history that fits the simulated world,
// for tests and benchmarks: records of panelists P0000000, P0000001, ... on
// the world's subsamples, each with its event, primary category and
// research type, in a realistic mix of statuses, registered over the two
// years before the world was created (more of them recent). The records
// come grouped by panelist, the way a supplier's export is sorted; each
// panelist has between half and one and a half times the average number of
// records, and the total is exactly records. Deterministic for the
// simulator's world and seed.
func (s *Simulator) History(seed int64, records, panelists int) iter.Seq[domain.HistoryRecord] {
	return func(yield func(domain.HistoryRecord) bool) {
		if records <= 0 || panelists <= 0 || len(s.world.subs) == 0 {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_4157))
		created := s.world.created
		const span = 2 * 365 * 24 * time.Hour
		avg := records / panelists
		extra := records % panelists
		var shift int // balances the variation of one panelist with the next
		for p := range panelists {
			n := avg
			if p < extra {
				n++
			}
			if p%2 == 0 && p+1 < panelists && avg > 1 {
				shift = rng.IntN(avg/2 + 1)
				n += shift
			} else {
				n -= shift
				shift = 0
			}
			id := s.PanelistID(p)
			for range n {
				sub := s.world.subs[rng.IntN(len(s.world.subs))]
				// The square makes recent dates likelier than old ones.
				age := time.Duration(float64(span) * rng.Float64() * rng.Float64())
				r := domain.HistoryRecord{
					PanelistID:     id,
					SubsampleID:    sub.id,
					StatusID:       historyStatus(rng),
					RegisteredAt:   created.Add(-age).Truncate(time.Millisecond),
					EventID:        sub.event.id,
					ResearchTypeID: sub.event.rtype.id,
				}
				if len(sub.event.categories) > 0 {
					r.CategoryID = sub.event.categories[0].id
				}
				if !yield(r) {
					return
				}
			}
		}
	}
}

// historyStatus draws a final status in the proportions a panel sees:
// screen-outs most, then completes, abandons and quota fulls.
func historyStatus(rng *rand.Rand) int64 {
	switch x := rng.IntN(100); {
	case x < 35:
		return domain.ReturnScreenOut
	case x < 60:
		return domain.ReturnComplete
	case x < 80:
		return domain.ReturnAbandon
	case x < 90:
		return domain.ReturnQuotaFull
	case x < 95:
		return domain.ReturnPotentiallyUnengaged
	case x < 98:
		return domain.ReturnErroneousComplete
	default:
		return domain.ReturnInSurvey
	}
}
