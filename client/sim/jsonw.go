package sim

import (
	"strconv"
	"unicode/utf8"
)

// object appends one JSON object to a byte slice with its keys in the order
// they are written. The provider's answers have a fixed field order, fields
// that are sometimes null and sometimes absent, and keys whose casing varies
// between entries; encoding/json can express none of that without a struct
// per variant, so the irregular resources are written with this instead.
type object struct {
	buf   []byte
	empty bool
}

// beginObject starts an object at the end of buf.
func beginObject(buf []byte) object {
	return object{buf: append(buf, '{'), empty: true}
}

// end closes the object and returns the grown slice.
func (o object) end() []byte { return append(o.buf, '}') }

func (o *object) key(k string) {
	if !o.empty {
		o.buf = append(o.buf, ',')
	}
	o.empty = false
	o.buf = appendString(o.buf, k)
	o.buf = append(o.buf, ':')
}

func (o *object) str(k, v string) {
	o.key(k)
	o.buf = appendString(o.buf, v)
}

func (o *object) int(k string, v int64) {
	o.key(k)
	o.buf = strconv.AppendInt(o.buf, v, 10)
}

// num writes a number with at most two decimals, the precision of prices
// and rates in the provider's answers.
func (o *object) num(k string, v float64) {
	o.key(k)
	o.buf = appendNum(o.buf, v)
}

func (o *object) bool(k string, v bool) {
	o.key(k)
	o.buf = strconv.AppendBool(o.buf, v)
}

func (o *object) null(k string) {
	o.key(k)
	o.buf = append(o.buf, "null"...)
}

// raw writes v, which must already be valid JSON.
func (o *object) raw(k string, v []byte) {
	o.key(k)
	o.buf = append(o.buf, v...)
}

// optStr writes a string, null or nothing depending on p.
func (o *object) optStr(k string, p presence, v string) {
	switch p {
	case present:
		o.str(k, v)
	case null:
		o.null(k)
	}
}

func (o *object) optInt(k string, p presence, v int64) {
	switch p {
	case present:
		o.int(k, v)
	case null:
		o.null(k)
	}
}

func (o *object) optNum(k string, p presence, v float64) {
	switch p {
	case present:
		o.num(k, v)
	case null:
		o.null(k)
	}
}

func (o *object) optBool(k string, p presence, v bool) {
	switch p {
	case present:
		o.bool(k, v)
	case null:
		o.null(k)
	}
}

// presence says how an optional field appears in an entry.
type presence uint8

const (
	present presence = iota
	null
	absent
)

// appendNum formats v the way the provider does: integers without a
// fraction, other values with up to two decimals.
func appendNum(buf []byte, v float64) []byte {
	return strconv.AppendFloat(buf, round2(v), 'f', -1, 64)
}

// appendInts appends a JSON array of integers.
func appendInts(buf []byte, vs []int64) []byte {
	buf = append(buf, '[')
	for i, v := range vs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, v, 10)
	}
	return append(buf, ']')
}

// appendString appends s as a JSON string literal.
func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
