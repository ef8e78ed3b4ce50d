package rules

import (
	"fmt"
	"strings"
	"time"
)

// ParsePeriod reads a period of whole days as pages and commands take it:
// from and to (yyyy-MM-dd in loc, either empty for an open end, to
// included), returned as midnight of from and midnight after to. A date
// that does not parse, or a from after to, is refused in a sentence that
// names the field.
func ParsePeriod(from, to string, loc *time.Location) (since, until time.Time, err error) {
	if since, err = parseDay("from", from, loc); err != nil {
		return since, until, err
	}
	if until, err = parseDay("to", to, loc); err != nil {
		return since, until, err
	}
	if !until.IsZero() {
		until = until.AddDate(0, 0, 1)
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return since, until, fmt.Errorf("from (%s) is after to (%s)", strings.TrimSpace(from), strings.TrimSpace(to))
	}
	return since, until, nil
}

// FirstYear and LastYear bound the dates and months a period or an
// invoice takes: nothing Fieldboard keeps lies outside them, and a date
// far outside (0001-01-01, 9999-12-31) would be read as no date, or give
// an end no answer can write.
const (
	FirstYear = 2000
	LastYear  = 2999
)

// yearRange is the sentence that refuses a date outside FirstYear and
// LastYear.
var yearRange = fmt.Sprintf("use one from %d to %d", FirstYear, LastYear)

// parseDay reads a yyyy-MM-dd date as midnight in loc (UTC when nil);
// empty is the zero time. A date outside FirstYear and LastYear is
// refused.
func parseDay(name, raw string, loc *time.Location) (time.Time, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return time.Time{}, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.ParseInLocation(time.DateOnly, raw, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not a date: use yyyy-MM-dd, such as 2026-03-31", name, raw)
	}
	if t.Year() < FirstYear || t.Year() > LastYear {
		return time.Time{}, fmt.Errorf("%s %q is out of range: %s", name, raw, yearRange)
	}
	return t, nil
}

// DefaultPeriodDays is how many days a period covers when its start is
// not given: the last 30, today included.
const DefaultPeriodDays = 30

// MaxPeriodDays is the longest period PeriodOrLast30Days takes: a year
// and a day, so one request never reads the whole history.
const MaxPeriodDays = 366

// PeriodOrLast30Days is ParsePeriod with defaults for the ends left
// out: to is today (now's day in loc), from DefaultPeriodDays days before
// to's end. A period longer than MaxPeriodDays is refused.
func PeriodOrLast30Days(from, to string, now time.Time, loc *time.Location) (since, until time.Time, err error) {
	if loc == nil {
		loc = time.UTC
	}
	if since, until, err = ParsePeriod(from, to, loc); err != nil {
		return since, until, err
	}
	if until.IsZero() {
		y, m, d := now.In(loc).Date()
		until = time.Date(y, m, d+1, 0, 0, 0, 0, loc)
		if !since.IsZero() && !since.Before(until) {
			return since, until, fmt.Errorf("from (%s) is after today", strings.TrimSpace(from))
		}
	}
	if since.IsZero() {
		since = until.AddDate(0, 0, -DefaultPeriodDays)
	}
	if since.AddDate(0, 0, MaxPeriodDays).Before(until) {
		return since, until, fmt.Errorf("from (%s) to (%s) is longer than %d days: ask for a shorter period", since.Format(time.DateOnly), until.AddDate(0, 0, -1).Format(time.DateOnly), MaxPeriodDays)
	}
	return since, until, nil
}
