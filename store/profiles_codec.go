package store

import (
	"encoding/binary"
	"errors"
	"time"

	"fieldboard/rules/domain"
)

// A profile is stored packed in one BLOB (the format is described in
// migrations/sqlite/005_profiles.sql): a question after another, ascending by id,
// each with its answer ids ascending, all as varints of differences. Ten
// answers take about fifty bytes.

// appendQuestion packs one question after the question prev (0 before the
// first). answers must be ascending and not empty.
func appendQuestion(dst []byte, prev, question int64, fresh bool, answers []int64) []byte {
	dst = binary.AppendVarint(dst, question-prev)
	head := uint64(len(answers)) << 1
	if fresh {
		head |= 1
	}
	dst = binary.AppendUvarint(dst, head)
	var last int64
	for _, a := range answers {
		dst = binary.AppendUvarint(dst, uint64(a-last))
		last = a
	}
	return dst
}

var errBadProfile = errors.New("stored profile is damaged")

// profileReader reads a packed profile one question at a time.
type profileReader struct {
	b    []byte
	prev int64
	n    int // questions read
}

// next reads the next question, appending its answers to buf. ok is false
// at the end; err is set when the packing is damaged.
func (r *profileReader) next(buf []int64) (question int64, fresh bool, answers []int64, ok bool, err error) {
	if len(r.b) == 0 {
		return 0, false, buf, false, nil
	}
	delta, k := binary.Varint(r.b)
	if k <= 0 || (r.n > 0 && delta <= 0) {
		return 0, false, buf, false, errBadProfile
	}
	r.b = r.b[k:]
	head, k := binary.Uvarint(r.b)
	count := head >> 1
	if k <= 0 || count == 0 || count > uint64(len(r.b)) {
		return 0, false, buf, false, errBadProfile
	}
	r.b = r.b[k:]
	var last int64
	for i := range count {
		d, k := binary.Uvarint(r.b)
		if k <= 0 || (i > 0 && d == 0) {
			return 0, false, buf, false, errBadProfile
		}
		r.b = r.b[k:]
		last += int64(d)
		buf = append(buf, last)
	}
	r.prev += delta
	r.n++
	return r.prev, head&1 == 1, buf, true, nil
}

// DecodeProfile unpacks a profile as the store keeps it (the answers
// column of the profiles table), for a tool that reads the database
// itself: the benchmark's floor of the bulk check.
func DecodeProfile(blob []byte) (domain.Profile, error) {
	p := domain.Profile{Answers: map[int64][]int64{}}
	_, err := decodeProfile(blob, &p, nil)
	return p, err
}

// decodeProfile unpacks a stored profile into p, whose Answers map must be
// empty. The answer lists are slices of arena, which is returned grown:
// they stay valid until arena is reused.
func decodeProfile(blob []byte, p *domain.Profile, arena []int64) ([]int64, error) {
	// Every answer takes a byte at least, so arena never moves below.
	if cap(arena)-len(arena) < len(blob) {
		grown := make([]int64, len(arena), len(arena)+2*len(blob)+64)
		copy(grown, arena)
		arena = grown
	}
	r := profileReader{b: blob}
	for {
		start := len(arena)
		question, _, answers, ok, err := r.next(arena)
		if err != nil {
			return arena, err
		}
		if !ok {
			return arena, nil
		}
		arena = answers
		if question == domain.AgeRangeQuestionID {
			p.BirthDate = birthDateTime(arena[start])
			continue
		}
		p.Answers[question] = arena[start:len(arena):len(arena)]
	}
}

// birthDateTime is a stored birth date yyyymmdd as a time: midnight UTC of
// the day (quota matching uses only the year, month and day).
func birthDateTime(d int64) time.Time {
	return time.Date(int(d/10000), time.Month(d/100%100), int(d%100), 0, 0, 0, 0, time.UTC)
}
