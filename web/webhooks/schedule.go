package webhooks

import (
	"net/http"
	"strconv"
	"time"
)

// RetryDelays are the waits before the second, third, ... attempt at a
// delivery whose attempt failed (the first goes at once); after the last
// one, every RetryEvery, until GiveUpAfter from the first attempt's due
// time, when the delivery is marked failed.
var RetryDelays = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}

// RetryEvery and GiveUpAfter close the schedule (RetryDelays).
const (
	RetryEvery  = 12 * time.Hour
	GiveUpAfter = 72 * time.Hour
)

// maxRetryAfter caps a receiver's Retry-After: it may slow the schedule
// down, not hold a delivery beyond a step of it.
const maxRetryAfter = RetryEvery

// NextAttempt is when a delivery due first at queued, that has now failed
// its attempts-th attempt, goes again: the schedule's delay, or the
// receiver's Retry-After when later (capped at 12 h). ok is false when
// that is past GiveUpAfter: the delivery has failed.
func NextAttempt(queued time.Time, attempts int, now time.Time, retryAfter time.Duration) (next time.Time, ok bool) {
	delay := RetryEvery
	if attempts-1 < len(RetryDelays) {
		delay = RetryDelays[attempts-1]
	}
	delay = max(delay, min(retryAfter, maxRetryAfter))
	next = now.Add(delay)
	return next, !next.After(queued.Add(GiveUpAfter))
}

// retryAfter reads a Retry-After header, seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
