package client

import (
	"errors"
	"fmt"
	"strings"
)

// ParseHeader parses "Name: value", the form of the --upstream-header flag.
// Its errors never quote s, which may hold a secret.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", errors.New(`header must have the form "Name: value" (no colon found)`)
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case name == "":
		return "", "", errors.New(`header must have the form "Name: value" (empty name)`)
	case !isToken(name):
		return "", "", errors.New("header name may only hold letters, digits and !#$%&'*+-.^_`|~")
	case value == "":
		return "", "", fmt.Errorf("header %s has an empty value", name)
	case !validHeaderValue(value):
		return "", "", fmt.Errorf("header %s has a value with control characters", name)
	}
	return name, value, nil
}

// isToken reports whether s is an RFC 9110 token, as a header name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue rejects control characters other than tab, which would
// break or smuggle header lines.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}
