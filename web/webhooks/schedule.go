package webhooks

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
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

// NextAttempt is when a delivery due first at queued, that has now failed
// its attempts-th attempt, goes again: after the schedule's delay, or the
// receiver's Retry-After when that is later, however long, as long as it
// ends within GiveUpAfter of queued. Otherwise the delivery has failed,
// and the error says why: the schedule is over, or the receiver asked for
// a wait beyond it.
func NextAttempt(queued time.Time, attempts int, now time.Time, retryAfter time.Duration) (time.Time, error) {
	delay := RetryEvery
	if attempts-1 < len(RetryDelays) {
		delay = RetryDelays[attempts-1]
	}
	end := queued.Add(GiveUpAfter)
	if next := now.Add(max(delay, retryAfter)); !next.After(end) {
		return next, nil
	}
	days := fmt.Sprintf("%d days", GiveUpAfter/(24*time.Hour))
	if now.Add(retryAfter).After(end) {
		return time.Time{}, fmt.Errorf("not tried again: asked to retry after %s, beyond the %s a delivery is tried", shortDuration(retryAfter), days)
	}
	return time.Time{}, fmt.Errorf("not tried again: the %s a delivery is tried are over", days)
}

// shortDuration writes d to the second, without the zero minutes and
// seconds Duration.String ends with: "96h", "2h30m", "1m40s".
func shortDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// maxWait is the longest Retry-After read: longer ones are read as it
// (they are beyond the schedule anyway), so that the seconds do not
// overflow a Duration.
const maxWait = 10 * 365 * 24 * time.Hour

// retryAfter reads a Retry-After header, seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return 0
	}
	s, err := strconv.ParseInt(h, 10, 64)
	switch {
	case err == nil && s > 0:
		return time.Duration(min(s, int64(maxWait/time.Second))) * time.Second
	case errors.Is(err, strconv.ErrRange) && s > 0: // more seconds than an int64 holds
		return maxWait
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return min(t.Sub(now), maxWait)
	}
	return 0
}
