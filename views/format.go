package views

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"fieldboard/rules"
)

// Timestamp formats t in the page's time zone, such as "22 Nov 14:05".
func (p Page) Timestamp(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	loc := p.Location
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(rules.TimeLayout)
}

// Ago says how long before the page's now t was: "just now", "4 minutes
// ago", "in 2 minutes" for a time still to come.
func (p Page) Ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := p.Now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		if future {
			return "in under a minute"
		}
		return "just now"
	case d < time.Hour:
		s = plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		s = plural(int(d/time.Hour), "hour")
	default:
		s = plural(int(d/(24*time.Hour)), "day")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// Date formats a field date in the page's time zone.
func (p Page) Date(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "–"
	}
	loc := p.Location
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("2 Jan 2006")
}

// Money formats a price with its currency, such as "2.50 USD"; "–" for
// one that is not a finite number.
func Money(amount float64, currency string) string {
	if math.IsInf(amount, 0) || math.IsNaN(amount) {
		return "–"
	}
	return strconv.FormatFloat(amount, 'f', 2, 64) + " " + currency
}

// Number formats an optional figure with the given decimals, "–" when
// absent or not a finite number.
func Number(v *float64, decimals int) string {
	if v == nil || math.IsInf(*v, 0) || math.IsNaN(*v) {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', decimals, 64)
}

// Percent returns part as a whole percentage of whole, 0 when whole is 0.
func Percent(part, whole int64) int {
	if whole <= 0 {
		return 0
	}
	return int(math.Round(float64(part) * 100 / float64(whole)))
}

// Itoa formats an integer.
func Itoa[T ~int | ~int64](v T) string { return strconv.FormatInt(int64(v), 10) }

// Fraction formats "done / total".
func Fraction(done, total int) string { return fmt.Sprintf("%d / %d", done, total) }

// statusClass picks the CSS class of a subsample status.
func statusClass(status string) string {
	switch status {
	case "Live":
		return "status-live"
	case "Live for testing":
		return "status-testing"
	case "Pending":
		return "status-pending"
	default:
		return "status-closed"
	}
}

// pickCurrency names the currency of the router's pick in a sentence
// (" (USD here)"), "" when it has none.
func pickCurrency(currency string) string {
	if currency == "" {
		return ""
	}
	return " (" + currency + " here)"
}
