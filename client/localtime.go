package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// LocalTimeLayout is the provider's date-time format: ISO 8601 local time
// with milliseconds and no zone designator.
const LocalTimeLayout = "2006-01-02T15:04:05.000"

// localTimeLayouts are accepted when decoding; the provider documents the
// first, the others are seen from systems that drop milliseconds or send a
// date alone.
var localTimeLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02",
}

// wallClock tags a decoded time whose zone is not known yet.
var wallClock = time.FixedZone("provider", 0)

// LocalTime is a provider date-time. The provider sends wall-clock times
// without a zone; they are decoded as wall clock and then placed in
// the provider's time zone by the Client (see Client.Location). A null or
// empty value decodes to the zero time.
type LocalTime struct {
	time.Time
}

// ParseLocalTime parses s as a provider date-time in loc. A time that
// carries its own zone (RFC 3339) keeps it.
func ParseLocalTime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range localTimeLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("date %q is not in the form yyyy-MM-ddTHH:mm:ss.fff", s)
}

// UnmarshalJSON decodes a zone-less date-time as wall clock, to be placed in
// the provider's zone by the Client.
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
	parsed, err := ParseLocalTime(s, wallClock)
	if err != nil {
		return err
	}
	t.Time = parsed
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

// in reinterprets the decoded wall clock as a time in loc. Times that
// carried their own zone (RFC 3339) keep their instant.
func (t LocalTime) in(loc *time.Location) LocalTime {
	if t.IsZero() || t.Location() != wallClock || loc == nil {
		return t
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return LocalTime{time.Date(y, mo, d, h, mi, s, t.Nanosecond(), loc)}
}
