package domain

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPanelistIDBytes bounds a panelist id.
const MaxPanelistIDBytes = 128

// ParsePanelistID validates a panelist id, wherever it comes from (a
// history or profile file, a list to check, a URL): not empty, at most
// MaxPanelistIDBytes bytes of valid UTF-8, no control characters. Spaces
// around it are dropped. The error says what is wrong, to follow the
// field's name ("panelistId is empty").
func ParsePanelistID(raw string) (string, error) {
	return parseText(raw, MaxPanelistIDBytes)
}

// parseText checks a supplier's text field (a panelist id, a code): spaces
// around it dropped, not empty, at most max bytes of valid UTF-8, no
// control characters. The error says what is wrong, to follow the field's
// name.
func parseText(raw string, max int) (string, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return "", errors.New("is empty")
	case len(s) > max:
		return "", fmt.Errorf("is %d bytes long; at most %d", len(s), max)
	case !utf8.ValidString(s):
		return "", errors.New("is not valid UTF-8")
	case hasControl(s):
		return "", errors.New("holds control characters")
	}
	return s, nil
}

// hasControl reports whether s holds a control character, looking at
// bytes until the first non-ASCII one.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		} else if c >= 0x80 {
			return strings.IndexFunc(s[i:], unicode.IsControl) >= 0
		}
	}
	return false
}
