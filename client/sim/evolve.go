package sim

import "time"

// The world is generated once; its state at a later time is a pure function
// of the generated world and the whole minutes elapsed since its creation.
// Completes accrue per minute at each subsample's rate, spread over its
// quota cells by their shares; a live subsample whose total quota fills
// becomes Complete (under Options.BusyDay some stay Live a while first),
// and some Pending subsamples go Live after a delay.

// minutesAt is the number of whole minutes from the world's creation to
// now; a clock set before the creation counts as no time at all.
func (w *world) minutesAt(now time.Time) int64 {
	d := now.Sub(w.created)
	if d < 0 {
		return 0
	}
	return int64(d / time.Minute)
}

// fieldFrom is the minute fieldwork starts: at the creation for Live
// subsamples (or when one Options.BusyDay holds back goes live), when a
// Pending one that goes live does; -1 for the rest, which never field.
func (ss *subsample) fieldFrom() int64 {
	switch {
	case ss.base == statusLive:
		return ss.pendingUntil
	case ss.base == statusPending && ss.goLive > 0:
		return ss.goLive
	}
	return -1
}

// activeMinutes is how many minutes of fieldwork the subsample has had at
// minute m: those since its fieldwork started (fieldFrom), none for those
// that never field; fieldwork stops when the total quota fills.
func (ss *subsample) activeMinutes(m int64) int64 {
	from := ss.fieldFrom()
	if from < 0 || m < from {
		return 0
	}
	a := m - from
	if ss.closeAt >= 0 && a > ss.closeAt {
		a = ss.closeAt
	}
	return a
}

// statusAt is the subsample's status at minute m: Pending until its
// fieldwork starts, Live while it runs, Complete from linger minutes
// after its total quota filled.
func (ss *subsample) statusAt(m int64) status {
	from := ss.fieldFrom()
	switch {
	case from < 0:
		return ss.base
	case m < from:
		return statusPending
	case ss.closeAt >= 0 && m >= from+ss.closeAt+ss.linger:
		return statusComplete
	}
	return statusLive
}

// listedLive reports whether live-details lists the subsample at minute m:
// it is live and the supplier has an allocation in it.
func (ss *subsample) listedLive(m int64) bool {
	return ss.allocated && ss.statusAt(m).isLive()
}
