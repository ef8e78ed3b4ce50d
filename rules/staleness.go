package rules

import (
	"fmt"
	"strings"
	"time"
)

// Staleness says why a snapshot is too old to decide on, "" when it is
// not: when its events were last read more than after ago (never decide on
// data that is too old). lastFailure is when a refresh that read the
// events last failed (nil: none since), lastError why. after 0 sets no
// limit. Times are named in UTC.
func Staleness(lastRead time.Time, lastFailure *time.Time, lastError string, now time.Time, after time.Duration) string {
	if after <= 0 || lastRead.IsZero() || now.Sub(lastRead) <= after {
		return ""
	}
	age := now.Sub(lastRead)
	msg := "Data is " + ageText(age) + " old"
	if lastFailure != nil && lastFailure.After(lastRead) {
		msg += ": the last refresh that read the events failed at " + lastFailure.UTC().Format("15:04 UTC")
		if e := strings.TrimRight(strings.TrimSpace(lastError), "."); e != "" {
			msg += " (" + e + ")"
		}
	} else {
		msg += ": no refresh has read the events since " + lastRead.UTC().Format("15:04 UTC")
	}
	return msg + ". Nothing is sendable until a refresh succeeds."
}

// ageText words a duration for a coordinator: "47 minutes", "3 hours",
// "2 days".
func ageText(d time.Duration) string {
	switch {
	case d < 2*time.Hour:
		return fmt.Sprintf("%d minutes", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}
