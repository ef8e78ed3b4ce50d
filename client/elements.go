package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"fieldboard/rules/domain"
)

// A list endpoint's body is read in two steps: first as an array of raw
// elements (a body that is not an array, or not JSON, fails the call as a
// whole), then element by element. An element that does not decode, or
// lacks a field the list requires, is dropped and reported as a
// domain.MalformedElement, so that one bad element costs one subsample
// (of the event lists) or itself (of a reference or library list), never
// the whole list.

// requiredFields are the fields an element of a list must carry, matched
// case-insensitively as encoding/json matches keys. A field present as null
// counts as absent, except a list, written with a trailing "[]", for which
// null is the empty list (as everywhere in the client).
type requiredFields []string

// The fields required of each list's elements, and why:
var (
	// event/all: the spec marks none; these are the ones every decision
	// reads (which subsample, of which event, in which status).
	summaryRequired = requiredFields{"subsampleId", "eventId", "subsampleStatus"}
	// live-details: every field the spec marks required, but needRecontact,
	// which the spec says "may be absent in some entries".
	liveRequired = requiredFields{
		"eventId", "eventName", "categories[]", "allowDesktop", "allowMobile", "allowTablet",
		"subsampleId", "subsampleStatus", "subsampleName", "countries[]", "locales[]",
		"fieldStartDate", "fieldEndDate", "surveyAPIcompatibility", "requiresFlash", "collectPII",
		"facialCoding", "researchType", "researchTypeId", "targetedCurrency", "targetedCPI",
	}
	// The ids of a live subsample's categories, which the spec marks
	// required: a category rule matches on them.
	categoryRequired = requiredFields{"mainCategoryId", "genericCategoryId", "categoryId"}
	// quotas: the spec marks none; these are the ones the quota rules read.
	// Without its table a cell would be counted in another table's, and
	// without its remaining completes it would read as closed.
	// quotaId too: the store keeps a subsample's quotas by it.
	quotaRequired = requiredFields{"quotaId", "tableId", "quotaType", "remainingExclusive", "remainingShared", "questions[]"}
)

// libraryRequired: a question or an answer of the library is known by its
// id alone (a question without one would be asked for the answers of
// question 0, which no library has).
var libraryRequired = requiredFields{"id"}

// nonZeroID refuses an element whose id is 0: the spec numbers questions
// and answers from 1, the age range question as -1, and 0 names none.
func nonZeroID(obj map[string]json.RawMessage) string {
	raw, _ := lookup(obj, "id")
	if v := bytes.TrimSpace(raw); len(v) == 1 && v[0] == '0' {
		return "id is 0, which names no question or answer"
	}
	return ""
}

// missing returns the first required field that obj lacks, or "".
func (r requiredFields) missing(obj map[string]json.RawMessage) string {
	for _, name := range r {
		list := strings.HasSuffix(name, "[]")
		name = strings.TrimSuffix(name, "[]")
		v, ok := lookup(obj, name)
		if !ok || (!list && bytes.Equal(bytes.TrimSpace(v), []byte("null"))) {
			return name
		}
	}
	return ""
}

// lookup finds key in obj as encoding/json would: the exact key first, then
// any that matches it case-insensitively.
func lookup(obj map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := obj[key]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// decodeElements decodes each of raws into a T. An element that is not an
// object, has a key twice (in any case, with different values), lacks a
// field of required, fails check (when given) or does not decode is left
// out and reported as malformed, with its subsample id when the elements
// are subsamples (keyed) and it can be read. When keyed, the elements are subsamples: one listed twice the same
// way is kept once, one listed twice differently is malformed at each
// place, as the list disagrees with itself.
func decodeElements[T any](list string, raws []json.RawMessage, required requiredFields, check func(obj map[string]json.RawMessage) string, keyed bool) ([]T, []domain.MalformedElement) {
	out := make([]T, 0, len(raws))
	var bad []domain.MalformedElement
	objs := make([]map[string]json.RawMessage, len(raws))
	reasons := make([]string, len(raws))
	for i, raw := range raws {
		obj, dup, ok := object(raw)
		var syntax any
		switch {
		case !json.Valid(raw):
			reasons[i] = "it is not valid JSON: " + json.Unmarshal(raw, &syntax).Error()
		case !ok:
			reasons[i] = "it is " + jsonKind(raw) + ", not an object"
		case dup != "":
			reasons[i] = dup + " appears twice"
		}
		objs[i] = obj
	}
	if keyed {
		repeatedSubsamples(raws, objs, reasons)
	}
	for i, raw := range raws {
		obj, reason := objs[i], reasons[i]
		if reason == "" {
			if name := required.missing(obj); name != "" {
				reason = name + " is missing"
			} else if check != nil {
				reason = check(obj)
			}
		}
		var v T
		if reason == "" {
			if err := json.Unmarshal(raw, &v); err != nil {
				reason = typeReason[T](obj, err)
			} else if b, ok := any(v).(bounded); ok {
				reason = b.OutOfBounds()
			}
		}
		switch {
		case reason == "skip":
		case reason != "":
			var id int64
			switch {
			case !keyed:
			case obj == nil:
				id = subsampleIDInBroken(raw)
			default:
				id = subsampleIDOf(obj)
			}
			bad = append(bad, domain.MalformedElement{List: list, Index: i, SubsampleID: id, Reason: reason})
		default:
			capStrings(&v)
			out = append(out, v)
		}
	}
	return out, bad
}

// repeatedSubsamples marks, in reasons, the elements of a subsample listed
// more than once: a later copy identical to the first is skipped ("skip"),
// and every copy of one listed differently is malformed.
func repeatedSubsamples(raws []json.RawMessage, objs []map[string]json.RawMessage, reasons []string) {
	at := map[int64][]int{}
	for i, obj := range objs {
		if id := subsampleIDOf(obj); id != 0 && reasons[i] == "" {
			at[id] = append(at[id], i)
		}
	}
	for id, places := range at {
		if len(places) < 2 {
			continue
		}
		same := true
		for _, i := range places[1:] {
			same = same && bytes.Equal(bytes.TrimSpace(raws[i]), bytes.TrimSpace(raws[places[0]]))
		}
		for n, i := range places {
			switch {
			case same && n > 0:
				reasons[i] = "skip"
			case !same:
				reasons[i] = fmt.Sprintf("subsample %d is listed %d times, differently", id, len(places))
			}
		}
	}
}

// object reads a JSON object's members as written; ok is false when raw is
// not an object. dup names a key that appears twice, in the same case or
// another, with different values, in the object or in any object nested
// in it, by its path ("questions[0].answers[1].id"): encoding/json would
// keep one of them without a word, and the spec's two spellings of a key
// (Id/id, NumDays/numDays) denote one field, so two values contradict.
func object(raw json.RawMessage) (obj map[string]json.RawMessage, dup string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, "", false
	}
	obj = map[string]json.RawMessage{}
	seen := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, "", false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, "", false
		}
		folded := foldKey(key)
		if earlier, ok := seen[folded]; ok && dup == "" && !sameJSON(earlier, value) {
			dup = key
		}
		if dup == "" {
			if nested := duplicateIn(value); nested != "" {
				dup = key + nested
			}
		}
		seen[folded] = value
		obj[key] = value
	}
	return obj, dup, true
}

// foldKey folds a key as encoding/json matches keys to fields: each rune
// to the smallest of its simple case-folding orbit, so that "numDays",
// "NumDays" and "numDayſ" (a long s) fold alike. Folding any less would let
// a second spelling json reads as the same field slip past unseen.
func foldKey(key string) string {
	var b strings.Builder
	for _, r := range key {
		for {
			next := unicode.SimpleFold(r)
			if next <= r {
				r = next
				break
			}
			r = next
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sameJSON reports whether two JSON values say the same: 1 and 1.0, or
// [1,2] and [1, 2], are one value written twice, not a contradiction.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// duplicateIn is the path, from raw, of a key given twice with different
// values in an object anywhere in raw (".id", "[2].numDays"); "" when
// there is none, or raw is neither an object nor a list.
func duplicateIn(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '{':
		if _, dup, ok := object(raw); ok && dup != "" {
			return "." + dup
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return ""
		}
		for i, item := range items {
			if nested := duplicateIn(item); nested != "" {
				return "[" + strconv.Itoa(i) + "]" + nested
			}
		}
	}
	return ""
}

// checkCategories requires the ids of every category of a live subsample.
func checkCategories(obj map[string]json.RawMessage) string {
	raw, _ := lookup(obj, "categories")
	var categories []map[string]json.RawMessage
	if json.Unmarshal(raw, &categories) != nil {
		return "" // the type error says more
	}
	for i, c := range categories {
		if c == nil {
			return fmt.Sprintf("category %d is null", i+1)
		}
		if name := categoryRequired.missing(c); name != "" {
			return fmt.Sprintf("category %d has no %s", i+1, name)
		}
	}
	return ""
}

// subsampleIDOf reads an element's subsampleId when it is a positive whole
// number; 0 when it is not, or obj is nil.
func subsampleIDOf(obj map[string]json.RawMessage) int64 {
	raw, ok := lookup(obj, "subsampleId")
	if !ok {
		return 0
	}
	var id int64
	if json.Unmarshal(raw, &id) != nil || id <= 0 {
		return 0
	}
	return id
}

// typeReason says which field of an element failed to decode into a T, and
// why, in words: "targetedCPI is a string, not a number".
func typeReason[T any](obj map[string]json.RawMessage, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field + " is " + valueKind(te.Value) + ", not " + goKind(te.Type)
	}
	// An error of a field's own decoder (a date) names no field: find the
	// field by decoding each alone, in key order so the answer is the same
	// every time.
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		var probe T
		one, _ := json.Marshal(map[string]json.RawMessage{key: obj[key]})
		if json.Unmarshal(one, &probe) != nil {
			return key + ": " + err.Error()
		}
	}
	return err.Error()
}

// valueKind names the JSON value encoding/json reports in a type error:
// "string", "bool", "number 1.5".
func valueKind(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	case v == "number":
		return "a number"
	case v == "bool":
		return "true or false"
	}
	return "a " + v
}

// goKind names what a Go type takes, in JSON terms.
func goKind(t reflect.Type) string {
	if t == nil {
		return "what was expected"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// jsonKind names the kind of a raw JSON value.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case 'n':
		return "null"
	case '"':
		return "a string"
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	}
	return "a number"
}

// MalformedListError is the error of a list nothing of which could be read
// (no element, not even a subsample id), or of a subsample's quotas with
// one malformed element: a partial quota list cannot be decided on, as the
// dropped cell may be the closed one. Elements holds what was wrong with
// each; an Index of -1 stands for the list as a whole.
type MalformedListError struct {
	List     string
	Total    int
	Elements []domain.MalformedElement
}

func (e *MalformedListError) Error() string {
	first := e.Elements[0]
	switch {
	case first.Index < 0:
		return fmt.Sprintf("the %s could not be read: %s", e.List, first.Reason)
	case len(e.Elements) == 1:
		return fmt.Sprintf("%s element %d of %d could not be read: %s", e.List, first.Index+1, e.Total, first.Reason)
	}
	return fmt.Sprintf("%d of %d elements of %s could not be read; element %d: %s", len(e.Elements), e.Total, e.List, first.Index+1, first.Reason)
}

// elements is the decoding target of a list endpoint: encoding/json hands
// it the body, which it reads element by element (decodeElements). A list
// of which nothing can be read, no element and no subsample id, is a broken
// answer, not news, and fails the call; so does any malformed element of a
// strict list (quotas).
type elements[T any] struct {
	list     string
	required requiredFields
	check    func(obj map[string]json.RawMessage) string
	keyed    bool // the elements are subsamples, each listed once
	strict   bool
	// redact takes secrets out of a reason, which quotes the provider's
	// values, before it is clipped to its bound.
	redact func(string) string
	// unique, when set, says why two elements cannot stand together: a
	// quota id given twice.
	unique func(items []T) string

	items     []T
	malformed []domain.MalformedElement
}

func (l *elements[T]) UnmarshalJSON(body []byte) error { return l.decodeBody(body) }

// decodeBody reads the list. A body that is not valid JSON is still split
// into its elements when its brackets and strings close: a literal JSON
// does not know (NaN, Infinity) costs its element only.
func (l *elements[T]) decodeBody(body []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		var syntax *json.SyntaxError
		split, splitErr := splitArray(body)
		if !errors.As(err, &syntax) || splitErr != nil {
			return err
		}
		raws = split
	}
	l.items, l.malformed = decodeElements[T](l.list, raws, l.required, l.check, l.keyed)
	for i := range l.malformed {
		if l.redact != nil {
			l.malformed[i].Reason = l.redact(l.malformed[i].Reason)
		}
		l.malformed[i].Reason = domain.Clip(l.malformed[i].Reason, maxDecodeCauseBytes)
	}
	if l.unique != nil && len(l.malformed) == 0 {
		if why := l.unique(l.items); why != "" {
			l.malformed = []domain.MalformedElement{{List: l.list, Index: -1, Reason: why}}
		}
	}
	if len(l.malformed) > 0 && (l.strict || (len(l.items) == 0 && !anyNamed(l.malformed))) {
		return &MalformedListError{List: l.list, Total: len(raws), Elements: l.malformed}
	}
	return nil
}

// bounded is a resource whose numbers have ranges (domain.MaxCompletes
// and the others): a value outside them makes its element malformed.
type bounded interface{ OutOfBounds() string }

// bodyDecoder is a decoding target that reads a body encoding/json would
// refuse whole.
type bodyDecoder interface{ decodeBody(body []byte) error }

// anyNamed reports whether one of ms names its subsample.
func anyNamed(ms []domain.MalformedElement) bool {
	return slices.ContainsFunc(ms, func(m domain.MalformedElement) bool { return m.SubsampleID != 0 })
}

// uniqueQuotaIDs says which quota id a subsample's quotas give twice: the
// store keeps one quota per id, and which one would be a guess.
func uniqueQuotaIDs(quotas []domain.Quota) string {
	seen := make(map[int64]bool, len(quotas))
	for _, q := range quotas {
		if seen[q.QuotaID] {
			return fmt.Sprintf("quota id %d is given twice", q.QuotaID)
		}
		seen[q.QuotaID] = true
	}
	return ""
}
