package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strconv"

	"fieldboard/rules/domain"
)

// wholeNumbers rewrites each number of raw that is an integer written with
// a fraction or an exponent (10.0, 1e3, 2.50e1) as that integer, when it
// fits in 64 bits, so that a field the spec types integer reads it: 10.0
// is 10. Other numbers, and everything in strings, are left as written.
// raw is returned itself when nothing changes.
func wholeNumbers(raw []byte) []byte {
	var out []byte
	last := 0 // raw[:last] is in out already
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			i = stringEnd(raw, i)
		case c == '-' || ('0' <= c && c <= '9'):
			j := i + 1
			for j < len(raw) && bytes.IndexByte([]byte("0123456789.eE+-"), raw[j]) >= 0 {
				j++
			}
			if n, ok := integral(raw[i:j]); ok {
				out = append(append(out, raw[last:i]...), n...)
				last = j
			}
			i = j
		default:
			i++
		}
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// integral is the integer lit stands for, when lit is a number written with
// a fraction or an exponent whose value is an integer of 64 bits. An
// exponent of more than two digits is left alone: 1e99999999 would cost
// its size in memory to look at, and is out of every range anyway.
func integral(lit []byte) ([]byte, bool) {
	e := bytes.IndexAny(lit, "eE")
	dot := bytes.IndexByte(lit, '.')
	switch {
	case dot < 0 && e < 0, !json.Valid(lit):
		// An integer already, or not a number JSON allows (1., 01.0):
		// left for the decoder to refuse.
		return nil, false
	case e < 0:
		// The common case, a price or a rate: whole only when every digit
		// of the fraction is 0, and then its integer part.
		if len(bytes.TrimRight(lit[dot+1:], "0")) > 0 {
			return nil, false
		}
		n, err := strconv.ParseInt(string(lit[:dot]), 10, 64)
		if err != nil {
			return nil, false
		}
		return strconv.AppendInt(nil, n, 10), true
	case len(bytes.TrimLeft(lit[e+1:], "+-")) > 2:
		return nil, false
	}
	var r big.Rat
	if _, ok := r.SetString(string(lit)); !ok || !r.IsInt() || !r.Num().IsInt64() {
		return nil, false
	}
	return strconv.AppendInt(nil, r.Num().Int64(), 10), true
}

// stringEnd is the index just past the JSON string that starts at
// raw[start], or len(raw) when it does not end.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// splitArray splits a top-level JSON array into its elements as written,
// without reading them: an element holding a literal JSON does not know
// (NaN, Infinity, a bare word) is one element that will not decode, and
// costs that element only. A body that is not an array whose brackets and
// strings close is an error.
func splitArray(body []byte) ([]json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '[' || body[len(body)-1] != ']' {
		return nil, errors.New("the answer is not a list")
	}
	var out []json.RawMessage
	depth, start := 0, 1
	for i := 1; i < len(body)-1; i++ {
		switch body[i] {
		case '"':
			i = stringEnd(body, i) - 1
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth < 0 {
				return nil, errors.New("the answer's brackets do not match")
			}
		case ',':
			if depth == 0 {
				out = append(out, json.RawMessage(bytes.TrimSpace(body[start:i])))
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, errors.New("the answer's brackets do not match")
	}
	if last := bytes.TrimSpace(body[start : len(body)-1]); len(last) > 0 || len(out) > 0 {
		out = append(out, json.RawMessage(last))
	}
	return out, nil
}

// subsampleIDInBroken reads the subsampleId of an element that is not
// valid JSON, from the members before the first thing that is not: "with
// its subsampleId when readable". 0 when it cannot be read.
func subsampleIDInBroken(raw json.RawMessage) int64 {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return 0
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return 0
		}
		if foldKey(key) == foldKey("subsampleId") {
			return subsampleIDOf(map[string]json.RawMessage{"subsampleId": value})
		}
	}
	return 0
}

// maxTextBytes bounds every string the provider sends: a longer one is
// cut to it and ends in "…", which says it was cut. Entry links are never
// cut (a cut link is a broken one): domain.MaxLinkBytes bounds them, and
// a longer one makes its element malformed.
const maxTextBytes = 4 << 10

// uncut are the string fields capStrings leaves whole.
var uncut = map[string]bool{"LiveEntryLink": true, "TestingEntryLink": true}

// capStrings cuts, in place, every string reachable from v (a pointer)
// that is longer than maxTextBytes, and replaces raw JSON that is.
func capStrings(v any) {
	capValue(reflect.ValueOf(v))
}

func capValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			capValue(v.Elem())
		}
	case reflect.String:
		if v.Len() > maxTextBytes && v.CanSet() {
			v.SetString(domain.Clip(v.String(), maxTextBytes))
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// json.RawMessage (the auto-increment schedule): kept as sent,
			// or, when longer than the bound, a JSON string saying so.
			if v.Len() > maxTextBytes && v.CanSet() {
				cut, _ := json.Marshal(fmt.Sprintf("(%d bytes, more than the %d kept)", v.Len(), maxTextBytes))
				v.SetBytes(cut)
			}
			return
		}
		for i := range v.Len() {
			capValue(v.Index(i))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if f := t.Field(i); f.IsExported() && !uncut[f.Name] {
				capValue(v.Field(i))
			}
		}
	}
}
