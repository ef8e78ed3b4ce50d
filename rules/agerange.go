package rules

// Age ranges of quota cells, as the provider sends them.

import (
	"math"
	"strconv"
	"strings"

	"fieldboard/rules/domain"
)

// ageRange is rangeStart..rangeEnd, both ends included; an open end is
// noLower or noUpper.
type ageRange struct{ from, to int }

// The ends of an age range with an open end.
const (
	noLower = math.MinInt
	noUpper = math.MaxInt
)

// parseAgeRange reads rangeStart..rangeEnd, both ends included, spaces
// trimmed. An end is a whole number, a whole number followed by "+", or
// empty (or null):
//   - an empty or null rangeStart has no lower bound ("" to "34": 34 or
//     younger);
//   - an empty or null rangeEnd has no upper bound ("65" to "": 65 or
//     older), and so has an end written "N+": "65+" to "" and "65" to
//     "99+" are 65 or older; an end "N+" is still not before the start;
//   - a rangeStart "N+" says there is no upper bound, so the rangeEnd must
//     not give one: "65+" to "99" is not understood, never guessed;
//   - a range with no bound at all ("" to "", "" to "99+") is not
//     understood, nor is one that starts after it ends, nor an end that is
//     anything else ("abc", "65-").
//
// why is "" when the range is understood, else what is wrong with it.
func parseAgeRange(a domain.QuotaAnswer) (r ageRange, why string) {
	from, fromKind := rangeEnd(a.RangeStart)
	to, toKind := rangeEnd(a.RangeEnd)
	switch {
	case fromKind == endBad || toKind == endBad:
		return ageRange{}, "has an end that is neither a whole number, nor one followed by +, nor empty"
	case fromKind == endOpen && toKind != endNumber:
		return ageRange{}, "bounds no age"
	case fromKind == endPlus && toKind == endNumber:
		return ageRange{}, "has no upper bound by its start but one by its end"
	case fromKind != endOpen && toKind != endOpen && from > to:
		return ageRange{}, "starts after it ends"
	}
	r = ageRange{from, to}
	if fromKind == endOpen {
		r.from = noLower
	}
	if toKind != endNumber {
		r.to = noUpper
	}
	return r, ""
}

// endKind is what one end of an age range says.
type endKind uint8

const (
	endBad    endKind = iota // not understood
	endOpen                  // empty or null: no bound on its side
	endNumber                // "34"
	endPlus                  // "65+": 65, and no upper bound
)

// rangeEnd reads one end of an age range, spaces trimmed: its number and
// what kind of end it is.
func rangeEnd(s *string) (int, endKind) {
	if s == nil {
		return 0, endOpen
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return 0, endOpen
	}
	kind := endNumber
	if digits, plus := strings.CutSuffix(t, "+"); plus {
		t, kind = strings.TrimSpace(digits), endPlus
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return 0, endBad
	}
	return n, kind
}

// AgeBand is an age range as quota matching reads it (parseAgeRange):
// From to To, both included; NoLower and NoUpper when a side is open.
type AgeBand struct {
	From, To         int
	NoLower, NoUpper bool
}

// ReadAgeBand reads a range answer of the age question as quota matching
// does, for pages that word it; ok is false when it is not understood.
func ReadAgeBand(a domain.QuotaAnswer) (band AgeBand, ok bool) {
	r, why := parseAgeRange(a)
	if why != "" {
		return AgeBand{}, false
	}
	return AgeBand{From: r.from, To: r.to, NoLower: r.from == noLower, NoUpper: r.to == noUpper}, true
}

// rangeText writes a range as the provider sent it, for a reason.
func rangeText(a domain.QuotaAnswer) string {
	end := func(s *string) string {
		if s == nil {
			return "(none)"
		}
		return strconv.Quote(*s)
	}
	return end(a.RangeStart) + " to " + end(a.RangeEnd)
}
