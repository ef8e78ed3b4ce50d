package store

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"sync"
	"time"

	"fieldboard/rules/domain"
)

// A snapshot write compares what it is given with what the snapshot it
// replaces stored, and writes only the rows that differ: most of a
// snapshot is the same from one refresh to the next (a few thousand quota
// counts move of some 21,000 quotas; a subsample's details, rules and
// event-list row seldom change). To compare without reading every column
// back, each such row, or each subsample's set of rows, keeps a digest of
// the values it was written with (the digest columns, migration 020): a
// row whose new values have the digest stored is left as it is.

// rowDigest computes the digest of the values of one row, or of several
// rows in order, as a snapshot write hands them to its writers.
type rowDigest struct{ buf []byte }

// reset starts a new digest.
func (d *rowDigest) reset() { d.buf = d.buf[:0] }

// add adds values, each told apart from its neighbours and from a value
// of another type (a NULL from 0 or "").
func (d *rowDigest) add(values ...any) {
	for _, v := range values {
		d.buf = appendDigestValue(d.buf, v)
	}
}

// sum is the digest of the values added since reset: the first 64 bits
// of their SHA-256, as a column of either database holds them.
func (d *rowDigest) sum() int64 {
	s := sha256.Sum256(d.buf)
	return int64(binary.BigEndian.Uint64(s[:8]))
}

// digestOf is the digest of values alone.
func digestOf(values ...any) int64 {
	d := digests.Get().(*rowDigest)
	d.reset()
	d.add(values...)
	sum := d.sum()
	digests.Put(d)
	return sum
}

// digests keeps the buffers of digestOf.
var digests = sync.Pool{New: func() any { return &rowDigest{buf: make([]byte, 0, 512)} }}

// quotaDigest is the digest of the row of quota q of a subsample, at
// position: its values as digestOf would take them, its conditions
// (quotaRow's JSON of them) told field by field, so that a quota is
// compared without writing its JSON. A field added to the conditions
// must be added here (TestQuotaDigestCoversEveryField).
func quotaDigest(d *rowDigest, position int, q *domain.Quota) int64 {
	d.reset()
	d.buf = binary.AppendVarint(d.buf, int64(position))
	d.buf = binary.AppendVarint(d.buf, q.QuotaID)
	d.buf = binary.AppendVarint(d.buf, q.TableID)
	for _, s := range []string{q.TableName, q.QuotaName, q.QuotaType, q.SubsampleStatus} {
		d.buf = appendDigestValue(d.buf, s)
	}
	for _, n := range []int64{q.AchievedInterviews, q.RemainingExclusive, q.RemainingShared} {
		d.buf = binary.AppendVarint(d.buf, n)
	}
	for _, f := range []float64{q.ActualClientIncidenceRate, q.ActualClientConversionRate, q.ActualClientAbandonRate,
		q.EstimatedIncidence, q.ActualClientLOI, q.EstimatedLOI} {
		d.buf = binary.BigEndian.AppendUint64(d.buf, math.Float64bits(f))
	}
	if q.Questions == nil {
		d.buf = append(d.buf, digestNull)
	}
	d.buf = binary.AppendUvarint(d.buf, uint64(len(q.Questions)))
	for i := range q.Questions {
		c := &q.Questions[i]
		d.buf = binary.AppendVarint(d.buf, c.ID)
		d.buf = appendDigestValue(d.buf, c.Operator)
		d.buf = appendOptional(d.buf, c.Locale)
		if c.Answers == nil {
			d.buf = append(d.buf, digestNull)
		}
		d.buf = binary.AppendUvarint(d.buf, uint64(len(c.Answers)))
		for _, a := range c.Answers {
			if a.ID == nil {
				d.buf = append(d.buf, digestNull)
			} else {
				d.buf = binary.AppendVarint(append(d.buf, digestInt), *a.ID)
			}
			d.buf = appendOptional(d.buf, a.RangeStart)
			d.buf = appendOptional(d.buf, a.RangeEnd)
		}
	}
	return d.sum()
}

func appendOptional(buf []byte, s *string) []byte {
	if s == nil {
		return append(buf, digestNull)
	}
	return appendDigestValue(buf, *s)
}

const (
	digestNull byte = iota
	digestInt
	digestUint
	digestFloat
	digestString
	digestBool
	digestTime
	digestOther
)

func appendDigestValue(buf []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(buf, digestNull)
	case int64:
		return binary.AppendVarint(append(buf, digestInt), v)
	case int:
		return binary.AppendVarint(append(buf, digestInt), int64(v))
	case string:
		return append(binary.AppendUvarint(append(buf, digestString), uint64(len(v))), v...)
	case bool:
		if v {
			return append(buf, digestBool, 1)
		}
		return append(buf, digestBool, 0)
	case float64:
		return binary.BigEndian.AppendUint64(append(buf, digestFloat), math.Float64bits(v))
	case time.Time: // the instant, wherever it is told
		return binary.AppendVarint(binary.AppendVarint(append(buf, digestTime), v.Unix()), int64(v.Nanosecond()))
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Pointer:
		if r.IsNil() {
			return append(buf, digestNull)
		}
		return appendDigestValue(buf, r.Elem().Interface())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(append(buf, digestInt), r.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(append(buf, digestUint), r.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.BigEndian.AppendUint64(append(buf, digestFloat), math.Float64bits(r.Float()))
	case reflect.String:
		s := r.String()
		return append(binary.AppendUvarint(append(buf, digestString), uint64(len(s))), s...)
	case reflect.Bool:
		return appendDigestValue(buf, r.Bool())
	}
	s := fmt.Sprintf("%T %v", v, v)
	return append(binary.AppendUvarint(append(buf, digestOther), uint64(len(s))), s...)
}
