package sim

import (
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestBusyDay walks a BusyDay world through its first day hour by hour,
// through the endpoints: subsamples go live in its second half too, some
// stay Live with their total quota full (paused) before they turn
// Complete, some close, and at its end most of the live work is still
// live.
func TestBusyDay(t *testing.T) {
	s, clk := newSim(Options{Seed: 1, BusyDay: true})
	status := func() map[int64]string {
		out := map[int64]string{}
		for _, ss := range summaries(t, s) {
			out[ss.SubsampleID] = ss.SubsampleStatus
		}
		return out
	}
	start := status()
	liveAtStart := len(liveDetails(t, s))
	was := start
	wentLiveLate, closed := 0, 0
	paused := map[int64]bool{}
	pausedThenComplete := 0
	for hour := 1; hour <= 24; hour++ {
		clk.Advance(time.Hour)
		now := status()
		for id, st := range now {
			switch {
			case was[id] == domain.StatusPending && st == domain.StatusLive && hour > 12:
				wentLiveLate++
			case was[id] == domain.StatusLive && st == domain.StatusComplete:
				closed++
				if paused[id] {
					pausedThenComplete++
				}
			}
		}
		for _, d := range liveDetails(t, s) {
			if d.SubsampleStatus != domain.StatusLive {
				continue
			}
			if qs := quotas(t, s, d.SubsampleID); qs[0].IsTotal() && qs[0].Remaining() == 0 {
				paused[d.SubsampleID] = true
			}
		}
		was = now
	}
	liveAtEnd := len(liveDetails(t, s))
	t.Logf("live %d, then %d; %d went live in the second half, %d closed, %d paused, %d of them then Complete",
		liveAtStart, liveAtEnd, wentLiveLate, closed, len(paused), pausedThenComplete)
	if wentLiveLate == 0 {
		t.Error("no Pending subsample went live in the day's second half")
	}
	if closed == 0 || pausedThenComplete == 0 {
		t.Errorf("%d subsamples closed, %d after a pause; want some of each", closed, pausedThenComplete)
	}
	if liveAtEnd < liveAtStart*3/4 {
		t.Errorf("%d live at the day's end of %d at its start; want most still live", liveAtEnd, liveAtStart)
	}
}

// TestBusyDayOffIsTheWorld: without BusyDay the world is the one it
// always was; with it, the same subsamples at creation.
func TestBusyDayOffIsTheWorld(t *testing.T) {
	plain, _ := newSim(Options{Seed: 3, Subsamples: 120})
	busy, _ := newSim(Options{Seed: 3, Subsamples: 120, BusyDay: true})
	a, b := summaries(t, plain), summaries(t, busy)
	if len(a) != len(b) {
		t.Fatalf("%d subsamples, %d with BusyDay", len(a), len(b))
	}
	for i := range a {
		if a[i].SubsampleID != b[i].SubsampleID || a[i].SubsampleName != b[i].SubsampleName {
			t.Fatalf("subsample %d is %d %q with BusyDay, %d %q without", i, b[i].SubsampleID, b[i].SubsampleName, a[i].SubsampleID, a[i].SubsampleName)
		}
	}
}
