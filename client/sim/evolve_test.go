package sim

import (
	"slices"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestTimeMoves advances the clock by 30 minutes: quotas fill, remaining
// counts fall, some subsamples close and leave live-details.
func TestTimeMoves(t *testing.T) {
	s, clk := newSim(Options{Seed: 4, Subsamples: 600})
	before := liveDetails(t, s)
	quotasBefore := make(map[int64][]domain.Quota)
	for _, d := range before {
		quotasBefore[d.SubsampleID] = quotas(t, s, d.SubsampleID)
	}

	clk.Advance(30 * time.Minute)
	after := liveDetails(t, s)
	stillLive := make(map[int64]bool)
	for _, d := range after {
		stillLive[d.SubsampleID] = true
	}
	status := make(map[int64]string)
	for _, ss := range summaries(t, s) {
		status[ss.SubsampleID] = ss.SubsampleStatus
	}

	var grew, closed int
	for _, d := range before {
		qs := quotas(t, s, d.SubsampleID)
		old := quotasBefore[d.SubsampleID]
		if len(qs) != len(old) {
			t.Fatalf("subsample %d: %d quotas, then %d", d.SubsampleID, len(old), len(qs))
		}
		for i, q := range qs {
			o := old[i]
			if q.QuotaID != o.QuotaID || q.AchievedInterviews < o.AchievedInterviews || q.Remaining() > o.Remaining() ||
				q.RemainingExclusive < 0 || q.RemainingShared < 0 {
				t.Errorf("quota %d went from %+v to %+v", q.QuotaID, o, q)
			}
			if q.AchievedInterviews > o.AchievedInterviews && q.Remaining() < o.Remaining() {
				grew++
			}
		}
		if !stillLive[d.SubsampleID] {
			closed++
			if status[d.SubsampleID] != domain.StatusComplete || !qs[0].IsTotal() || qs[0].Remaining() != 0 ||
				qs[0].SubsampleStatus != domain.StatusComplete {
				t.Errorf("subsample %d left live-details as %q with total %+v", d.SubsampleID, status[d.SubsampleID], qs[0])
			}
		}
	}
	t.Logf("%d live before, %d after; %d quotas grew, %d subsamples closed", len(before), len(after), grew, closed)
	if grew == 0 {
		t.Error("no quota gained completes in 30 minutes")
	}
	if closed == 0 {
		t.Error("no subsample closed in 30 minutes")
	}
}

func TestPendingGoesLive(t *testing.T) {
	s, clk := newSim(Options{Seed: 4, Subsamples: 600})
	pending := make(map[int64]bool)
	for _, ss := range summaries(t, s) {
		if ss.SubsampleStatus == domain.StatusPending {
			pending[ss.SubsampleID] = true
		}
	}
	clk.Advance(2 * time.Hour)
	wentLive := 0
	for _, d := range liveDetails(t, s) {
		if pending[d.SubsampleID] {
			wentLive++
			if d.SubsampleStatus != domain.StatusLive {
				t.Errorf("subsample %d went from Pending to %q", d.SubsampleID, d.SubsampleStatus)
			}
		}
	}
	if wentLive == 0 {
		t.Error("no Pending subsample went live within two hours")
	}
}

func TestStateIsAFunctionOfTime(t *testing.T) {
	s, clk := newSim(Options{Seed: 8, Subsamples: 200})
	first := do(s, "POST", pathAll).Body.String()
	clk.Advance(59 * time.Second)
	if do(s, "POST", pathAll).Body.String() != first {
		t.Error("event/all changed within the first minute")
	}

	// A fresh simulator whose clock is already 45 minutes on serves what the
	// first one serves 45 minutes after its creation.
	clk.Advance(45*time.Minute - 59*time.Second)
	fresh, freshClk := newSim(Options{Seed: 8, Subsamples: 200})
	freshClk.Advance(45 * time.Minute)
	for _, p := range [][2]string{{"POST", pathAll}, {"POST", pathLive}} {
		if do(s, p[0], p[1]).Body.String() != do(fresh, p[0], p[1]).Body.String() {
			t.Errorf("%s %s depends on more than seed and elapsed time", p[0], p[1])
		}
	}

	// A clock moved before the creation counts as no time elapsed.
	back, backClk := newSim(Options{Seed: 8, Subsamples: 200})
	backClk.Advance(-time.Hour)
	if do(back, "POST", pathAll).Body.String() != first {
		t.Error("a clock before creation changed the state")
	}
}

func TestLiveSubsampleIDs(t *testing.T) {
	s, clk := newSim(Options{Seed: 6, Subsamples: 300})
	for range 3 {
		var want []int64
		for _, d := range liveDetails(t, s) {
			want = append(want, d.SubsampleID)
		}
		if got := s.LiveSubsampleIDs(); !slices.Equal(got, want) {
			t.Fatalf("LiveSubsampleIDs() = %v, live-details lists %v", got, want)
		}
		clk.Advance(40 * time.Minute)
	}
	// Live subsamples without an allocation are in event/all only.
	listed := make(map[int64]bool)
	for _, id := range s.LiveSubsampleIDs() {
		listed[id] = true
	}
	unlisted := 0
	for _, ss := range summaries(t, s) {
		if ss.SubsampleStatus == domain.StatusLive && !listed[ss.SubsampleID] {
			unlisted++
		}
	}
	if unlisted == 0 {
		t.Error("every Live subsample is in live-details; some should have no allocation")
	}
}
