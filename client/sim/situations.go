package sim

// The demo situations of the simulated survey (Options.BrokenLink,
// Options.FieldFullLag) each take one subsample, chosen at New from the
// generated world without a draw: among the subsamples that are Live,
// allocated and sendable from the world's creation (fielding, a CPI, no
// hard cell full, sources that agree), the one whose quotas stay open the
// longest.

// pickSituations chooses the subsamples of the demo situations opts asks
// for.
func (sv *survey) pickSituations(opts Options, w *world) {
	if opts.BrokenLink {
		sv.broken = longestOpen(w, func(ss *subsample) int64 { return openMinutes(ss) })
	}
	if opts.FieldFullLag > 0 {
		sv.lag = opts.FieldFullLag
		sv.fullCell = 1
		sv.fieldFull = longestOpen(w, func(ss *subsample) int64 {
			if ss == sv.broken || len(ss.quotas) < 2 || ss.quotas[1].typ != quotaHard {
				return -1
			}
			return min(openMinutes(ss), cellOpenMinutes(ss, &ss.quotas[1]))
		})
	}
}

// longestOpen is the sendable subsample for which open gives the most
// minutes, the first in the world's order among equals; nil when open
// gives none more than 0.
func longestOpen(w *world, open func(*subsample) int64) *subsample {
	var best *subsample
	var most int64
	for _, ss := range w.subs {
		if !sendableFromStart(ss) {
			continue
		}
		if m := open(ss); m > most {
			best, most = ss, m
		}
	}
	return best
}

// sendableFromStart reports whether ss is Live, listed and open from the
// world's creation.
func sendableFromStart(ss *subsample) bool {
	if ss.base != statusLive || !ss.allocated || ss.pendingUntil != 0 || ss.rate <= 0 ||
		ss.quotasSayComplete || ss.cpi <= 0 || ss.detail == nil {
		return false
	}
	for i := range ss.quotas {
		q := &ss.quotas[i]
		if (q.total || q.typ == quotaHard) && q.remExcl+q.remShared == 0 {
			return false
		}
	}
	return true
}

// openMinutes is how many minutes of fieldwork ss's total quota stays
// open; a large number for one that never fills.
func openMinutes(ss *subsample) int64 {
	if ss.closeAt < 0 {
		return 1 << 40
	}
	return ss.closeAt
}

// cellOpenMinutes is how many minutes of fieldwork the hard cell q of ss
// stays open, at most 30 days.
func cellOpenMinutes(ss *subsample, q *quotaBase) int64 {
	const most = 30 * 24 * 60
	lo, hi := int64(0), int64(most)
	for lo < hi { // the first minute the cell is full
		mid := (lo + hi) / 2
		if now := q.at(ss.rate, mid); now.remExcl+now.remShared == 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// BrokenLinkSubsample is the subsample whose survey screens out every
// respondent (Options.BrokenLink); false when there is none.
func (s *Simulator) BrokenLinkSubsample() (int64, bool) {
	if s.survey == nil {
		return 0, false
	}
	s.survey.mu.Lock()
	defer s.survey.mu.Unlock()
	if s.survey.broken == nil {
		return 0, false
	}
	return s.survey.broken.id, true
}

// SetBrokenLink makes subsampleID the subsample whose survey screens out
// every respondent (BrokenLinkSubsample) in place of the one chosen at
// New: for a demo that knows which subsamples its panel is sent to,
// which the simulator does not. It reports false, and changes nothing,
// when the survey is off, Options.BrokenLink is, or there is no such
// subsample.
func (s *Simulator) SetBrokenLink(subsampleID int64) bool {
	sv := s.survey
	ss := s.world.byID[subsampleID]
	if sv == nil || ss == nil {
		return false
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.broken == nil {
		return false
	}
	sv.broken = ss
	return true
}

// FieldFullQuota is the subsample and the quota cell that is full in the
// field while the quotas endpoint reports it open (Options.FieldFullLag,
// or SetFieldFull); false when there is none.
func (s *Simulator) FieldFullQuota() (subsampleID, quotaID int64, ok bool) {
	if s.survey == nil {
		return 0, 0, false
	}
	s.survey.mu.Lock()
	defer s.survey.mu.Unlock()
	if s.survey.fieldFull == nil {
		return 0, 0, false
	}
	return s.survey.fieldFull.id, s.survey.fieldFull.quotas[s.survey.fullCell].id, true
}

// SetFieldFull makes quotaID of subsampleID the cell full in the field
// (FieldFullQuota) in place of the one chosen at New, its lag
// (Options.FieldFullLag) counted from now: for a demo that knows which
// cells its panel falls in, which the simulator does not. It reports
// false, and changes nothing, when the survey is off or FieldFullLag is
// 0, or the subsample has no such cell besides its total.
func (s *Simulator) SetFieldFull(subsampleID, quotaID int64) bool {
	sv := s.survey
	if sv == nil || sv.lag == 0 {
		return false
	}
	ss := s.world.byID[subsampleID]
	if ss == nil {
		return false
	}
	for i := 1; i < len(ss.quotas); i++ {
		if ss.quotas[i].id == quotaID && !ss.quotas[i].total {
			sv.mu.Lock()
			defer sv.mu.Unlock()
			sv.fieldFull, sv.fullCell, sv.fullsSent = ss, i, 0
			return true
		}
	}
	return false
}

// reportedFull is the index in ss.quotas of a cell the quotas endpoint
// reports full whatever the world says, 0 for none: FieldFullQuota's once
// the lag has passed.
func (s *Simulator) reportedFull(ss *subsample) int {
	sv := s.survey
	if sv == nil {
		return 0
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if ss != sv.fieldFull || sv.fullsSent < sv.lag {
		return 0
	}
	return sv.fullCell
}
