package domain

import (
	"fmt"
	"time"
)

// Birth dates, the answers of the age question (AgeRangeQuestionID), are
// kept as the integer yyyymmdd (19840302), whether a profile file gives
// them in the provider's ids or a mapping translates them from the
// supplier's codes.

// MinBirthDate is the earliest birth date accepted, as yyyymmdd.
const MinBirthDate = 1900_01_01

// ParseBirthDate parses yyyy-mm-dd, a real calendar date, into yyyymmdd;
// it does not bound it (MinBirthDate, LatestBirthDate).
func ParseBirthDate(s string) (int32, bool) {
	year, month, day, ok := ParseDate(s)
	return int32(year*10000 + month*100 + day), ok
}

// LatestBirthDate is the latest birth date accepted: today where the day
// is furthest ahead (UTC+14), as yyyymmdd, so that no time zone's today is
// refused.
func LatestBirthDate(now time.Time) int32 {
	y, m, d := now.UTC().Add(14 * time.Hour).Date()
	return int32(y*10000 + int(m)*100 + d)
}

// FormatBirthDate writes a birth date yyyymmdd as yyyy-mm-dd.
func FormatBirthDate(d int32) string {
	return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
}
