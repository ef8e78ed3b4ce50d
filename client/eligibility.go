package client

import (
	"bytes"
	"encoding/json"
	"fmt"

	"fieldboard/rules/domain"
)

// listEligibility names a subsample's eligibility rules in a
// MalformedListError.
const listEligibility = "eligibility rules"

// eligibilityRules is the decoding target of the eligibility-rules
// endpoint. The rules of a subsample are one element: anything in them
// that cannot be read rightly fails the whole answer with a
// *MalformedListError (Index -1), and the subsample's rules are not read,
// so nobody is sent to it until they are:
//   - a body that is not an object (null included), or an object without
//     one of the four arrays: it says nothing of whom the rules exclude,
//     and reading it as "no rules" would send everyone;
//   - a key given twice with different values anywhere in the object (the
//     spec's Id/id and NumDays/numDays denote one field: encoding/json
//     would keep the last value without a word);
//   - an entry that applies (an id, or for categories one of the three
//     ids, neither 0 nor null: evaluation rule 1) without returnCodes,
//     with returnCodes null, or with an empty list: "every entry has ...
//     returnCodes", and the spec writes "no status" as the placeholder 0,
//     so which statuses such an entry excludes is not known. An entry
//     that does not apply excludes nobody whatever its codes;
//   - a number outside its range (domain.EligibilityRules.OutOfBounds).
type eligibilityRules struct {
	rules domain.EligibilityRules
}

// eligibilityArrays are the four arrays of the rules and the keys of the
// ids that make one of their entries apply.
var eligibilityArrays = []struct {
	name string
	ids  []string
}{
	{"surveys", []string{"id"}},
	{"researchTypes", []string{"id"}},
	{"categories", []string{"mainCategoryId", "genericCategoryId", "specificCategoryId"}},
	{"events", []string{"id"}},
}

func (e *eligibilityRules) UnmarshalJSON(body []byte) error { return e.decodeBody(body) }

func (e *eligibilityRules) decodeBody(body []byte) error {
	obj, dup, ok := object(body)
	if !ok {
		if !json.Valid(body) {
			return json.Unmarshal(body, &e.rules) // the syntax error
		}
		return unreadRules("the answer is " + jsonKind(body) + ", not the object with the four arrays of rules")
	}
	why := ""
	if dup != "" {
		why = dup + " appears twice, with different values"
	} else if why = missingArray(obj); why == "" {
		why = missingReturnCodes(obj)
	}
	if why != "" {
		return unreadRules(why)
	}
	if err := json.Unmarshal(body, &e.rules); err != nil {
		return err
	}
	if why := e.rules.OutOfBounds(); why != "" {
		return unreadRules(why)
	}
	capStrings(&e.rules)
	return nil
}

// unreadRules is the error of rules that cannot be read rightly.
func unreadRules(why string) error {
	return &MalformedListError{List: listEligibility, Total: 1,
		Elements: []domain.MalformedElement{{List: listEligibility, Index: -1, Reason: why}}}
}

// missingArray names the first of the four arrays obj lacks: an answer
// without them says nothing of what it excludes ({} is not "no rules").
// An array given as null is missing too: the spec's answer is "an object
// with four arrays", and a null in place of one says no more of whom it
// excludes than its absence (unlike elsewhere in the client, where null
// is the empty list, reading it so here would send on doubt).
func missingArray(obj map[string]json.RawMessage) string {
	for _, a := range eligibilityArrays {
		raw, ok := lookup(obj, a.name)
		if !ok {
			return a.name + " is missing: which panelists the rules exclude is not known"
		}
		if isNull(raw) {
			return a.name + " is null, not a list: which panelists the rules exclude is not known"
		}
	}
	return ""
}

// missingReturnCodes names the first entry without numDays (the spec:
// "every entry has numDays"; an entry without it, {} included, is not one
// the spec describes), or that applies and has no returnCodes, null ones
// or an empty list: "events[0] has no returnCodes".
func missingReturnCodes(obj map[string]json.RawMessage) string {
	for _, a := range eligibilityArrays {
		raw, ok := lookup(obj, a.name)
		if !ok {
			continue
		}
		var entries []map[string]json.RawMessage
		if json.Unmarshal(raw, &entries) != nil {
			return "" // the type error says more
		}
		for i, entry := range entries {
			if days, ok := lookup(entry, "numDays"); !ok || isNull(days) {
				return fmt.Sprintf("%s[%d] has no numDays: every entry has one, and how long it excludes is not known", a.name, i)
			}
			if !applies(entry, a.ids) {
				continue
			}
			codes, ok := lookup(entry, "returnCodes")
			if !ok || isNull(codes) {
				return fmt.Sprintf("%s[%d] applies but has no returnCodes: which statuses it excludes is not known", a.name, i)
			}
			if isEmptyList(codes) {
				return fmt.Sprintf("%s[%d] applies but its returnCodes are empty: the specification writes \"no status\" as 0, so which statuses it excludes is not known", a.name, i)
			}
		}
	}
	return ""
}

// isEmptyList reports whether raw is the JSON list [] (spaces allowed).
func isEmptyList(raw json.RawMessage) bool {
	var items []json.RawMessage
	return json.Unmarshal(raw, &items) == nil && items != nil && len(items) == 0
}

// applies reports whether one of an entry's ids is neither 0 nor null
// (evaluation rule 1). An id that is not a number counts as applying: the
// type error will say what is wrong with it.
func applies(entry map[string]json.RawMessage, ids []string) bool {
	for _, key := range ids {
		raw, ok := lookup(entry, key)
		if !ok || isNull(raw) {
			continue
		}
		var id int64
		if json.Unmarshal(raw, &id) != nil || id != 0 {
			return true
		}
	}
	return false
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
