package sim

import "time"

// The world is generated once; its state at a later time is a pure function
// of the generated world and the whole minutes elapsed since its creation.
// Completes accrue per minute at each subsample's rate, spread over its
// quota cells by their shares; a live subsample whose total quota fills
// becomes Complete, and some Pending subsamples go Live after a delay.

// minutesAt is the number of whole minutes from the world's creation to
// now; a clock set before the creation counts as no time at all.
func (w *world) minutesAt(now time.Time) int64 {
	d := now.Sub(w.created)
	if d < 0 {
		return 0
	}
	return int64(d / time.Minute)
}

// activeMinutes is how many minutes of fieldwork the subsample has had at
// minute m: all of them for Live subsamples, those since going live for
// Pending ones that do, none for the rest; fieldwork stops when the total
// quota fills.
func (ss *subsample) activeMinutes(m int64) int64 {
	var a int64
	switch {
	case ss.base == statusLive:
		a = m
	case ss.base == statusPending && ss.goLive > 0 && m >= ss.goLive:
		a = m - ss.goLive
	}
	if ss.closeAt >= 0 && a > ss.closeAt {
		a = ss.closeAt
	}
	return a
}

// statusAt is the subsample's status at minute m.
func (ss *subsample) statusAt(m int64) status {
	st := ss.base
	if st == statusPending && ss.goLive > 0 && m >= ss.goLive {
		st = statusLive
	}
	if st == statusLive && ss.closeAt >= 0 && ss.activeMinutes(m) >= ss.closeAt {
		st = statusComplete
	}
	return st
}

// listedLive reports whether live-details lists the subsample at minute m:
// it is live and the supplier has an allocation in it.
func (ss *subsample) listedLive(m int64) bool {
	return ss.allocated && ss.statusAt(m).isLive()
}
