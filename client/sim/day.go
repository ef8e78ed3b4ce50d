package sim

// busyDay spreads the world's moves over its first day (Options.BusyDay).
// Everything is decided by each subsample's id, so that no random draw of
// the world moves: with the option off the world is the same.
func (w *world) busyDay() {
	for _, ss := range w.subs {
		mix := (uint64(ss.id) * 0x9e3779b97f4a7c15) >> 33
		switch {
		case ss.base == statusPending && ss.goLive > 0:
			ss.goLive *= 15 // 45 minutes to 22.5 hours
		case ss.base == statusLive && ss.allocated && ss.rate > 0 && mix%6 == 1:
			ss.pendingUntil = 60 + int64(mix/6%1320) // some time in hour 1 to 23
		}
		if ss.rate > 0 {
			// Half the rate keeps most of the day's live work live at its
			// end; one in nine is slow enough to be at risk.
			ss.rate /= 2
			if ss.base == statusLive && mix%9 == 4 {
				ss.rate /= 10
			}
			ss.closeAt = closingMinute(ss.rate, ss.quotas[0].remExcl+ss.quotas[0].remShared)
		}
		if ss.closeAt >= 0 && mix%2 == 0 {
			ss.linger = 60 + int64(mix/18%240) // one to five hours
		}
	}
}
