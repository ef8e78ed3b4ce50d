package domain

import (
	"strconv"
	"unicode/utf8"
)

// Clip shortens s to at most n bytes and an ellipsis, on a rune boundary:
// what a provider or a file sent is quoted in a message, never whole.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// QuoteField quotes a field's text for a message about a bad line,
// clipped.
func QuoteField(s string) string {
	if s == "" {
		return "an empty field"
	}
	return Clip(strconv.Quote(s), 60)
}
