package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// LocalTimeLayout is the provider's date-time format: ISO 8601 local time
// with milliseconds and no zone designator.
const LocalTimeLayout = "2006-01-02T15:04:05.000"

// ParseLocalTime parses a date and time in the provider's form,
// yyyy-MM-ddTHH:mm:ss.fff, as a wall clock in loc (UTC when nil). It also
// accepts the same without milliseconds or with another fraction of up to
// nine digits, a space for the T, and RFC 3339 with a zone, which keeps
// its zone. It is the one parser of the provider's dates: the client's
// decoder and the history import both call it.
func ParseLocalTime(s string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	if t, ok := parseWallClock(s, loc); ok {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if s == "" {
		return time.Time{}, errors.New("empty, expected a date and time like 2024-05-17T14:03:22.123")
	}
	return time.Time{}, fmt.Errorf("%s is not a date and time like 2024-05-17T14:03:22.123", Clip(strconv.Quote(s), 60))
}

// parseWallClock parses yyyy-MM-dd[T ]HH:mm:ss[.f…] without allocating:
// the provider's layout is every line of a history file.
func parseWallClock(s string, loc *time.Location) (time.Time, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, false
	}
	nsec := 0
	if len(s) > 19 {
		frac := s[20:]
		if s[19] != '.' || len(frac) == 0 || len(frac) > 9 {
			return time.Time{}, false
		}
		n, ok := digits(frac)
		if !ok {
			return time.Time{}, false
		}
		for i := len(frac); i < 9; i++ {
			n *= 10
		}
		nsec = n
	}
	if month < 1 || month > 12 || day < 1 || day > DaysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc), true
}

// ParseDate parses a calendar date yyyy-MM-dd into its year, month and
// day; ok is false for anything else, an impossible date included.
func ParseDate(s string) (year, month, day int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !(ok1 && ok2 && ok3) || month < 1 || month > 12 || day < 1 || day > DaysIn(month, year) {
		return 0, 0, 0, false
	}
	return year, month, day, true
}

// digits parses a run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// DaysIn is the number of days of a month (1 to 12) of a year.
func DaysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// wallClock tags a decoded time whose zone is not known yet.
var wallClock = time.FixedZone("provider", 0)

// LocalTime is a provider date-time. The provider sends wall-clock times
// without a zone; they are decoded as wall clock and then placed in the
// provider's time zone by the client (PlaceIn). A null or empty value
// decodes to the zero time.
type LocalTime struct {
	time.Time
	// dateOnly marks a value given as a date alone, until PlaceEndIn
	// reads it as the end of that day.
	dateOnly bool
}

// UnmarshalJSON decodes a zone-less date-time as wall clock, to be placed
// in the provider's zone by PlaceIn. A date alone, which some systems
// send for a field day, is read as its midnight, its start; PlaceEndIn
// reads it as the day's end.
func (t *LocalTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	_, _, _, dateOnly := ParseDate(s)
	if dateOnly {
		s += "T00:00:00"
	}
	parsed, err := ParseLocalTime(s, wallClock)
	if err != nil {
		return fmt.Errorf("date: %w", err)
	}
	t.Time, t.dateOnly = parsed, dateOnly
	return nil
}

// MarshalJSON writes the wall clock in the provider's format, the way the
// simulator sends it.
func (t LocalTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.Format(LocalTimeLayout))
}

// PlaceIn reinterprets the decoded wall clock as a time in loc. Times that
// carried their own zone (RFC 3339) keep their instant.
func (t LocalTime) PlaceIn(loc *time.Location) LocalTime {
	if t.IsZero() || t.Location() != wallClock || loc == nil {
		return t
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return LocalTime{Time: time.Date(y, mo, d, h, mi, s, t.Nanosecond(), loc)}
}

// PlaceEndIn places an end in loc as PlaceIn does, but for a date given
// alone, which is the end of that day in loc (its last millisecond, the
// provider's precision), not its start: a field ending 2026-12-06 is open
// all that day.
func (t LocalTime) PlaceEndIn(loc *time.Location) LocalTime {
	if !t.dateOnly || t.IsZero() {
		return t.PlaceIn(loc)
	}
	if loc == nil {
		loc = time.UTC
	}
	y, mo, d := t.Date()
	return LocalTime{Time: time.Date(y, mo, d+1, 0, 0, 0, 0, loc).Add(-time.Millisecond)}
}
