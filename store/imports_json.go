package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxJSONElementBytes caps how far the JSON decoder may read beyond the
// start of one array element of a JSON import file.
const maxJSONElementBytes = 1 << 20

// readImportJSON reads a JSON array of import records one element at a
// time, each at most maxJSONElementBytes and decoded into a T, and hands
// the texts of each element's fields to sink with the element's 1-based
// index, as readImportCSV hands it a line. what names the records in
// messages ("history"); fields are their names, in order, and header the
// same as text. Problems of the file are reported to sink.bad (element 0
// for the file as a whole); only an error reading r or from
// sink.addFields is returned.
func readImportJSON[T any, P jsonRecord[T]](r io.Reader, what string, fields []string, header string, sink lineSink) error {
	capped := &cappedReader{r: r, limit: maxJSONElementBytes}
	dec := json.NewDecoder(capped)
	fail := func(index int, err error) error {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			sink.bad(index, fmt.Sprintf("not valid JSON at byte %d: %v", syntax.Offset, err))
		case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
			sink.bad(index, "the file ends before the array is closed")
		case errors.Is(err, errElementTooLarge):
			sink.bad(index, fmt.Sprintf("the element is larger than %d KiB", maxJSONElementBytes>>10))
		default:
			return fmt.Errorf("read element %d: %w", index, err)
		}
		return nil
	}
	tok, err := dec.Token()
	switch {
	case err == io.EOF:
		sink.bad(0, "no records: the file is empty; it must be a JSON array of "+what+" records")
		return nil
	case err != nil:
		return fail(0, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		sink.bad(0, "the file must be a JSON array of "+what+" records, with the fields "+header)
		return nil
	}
	record := make([]string, len(fields))
	index := 0
	for dec.More() {
		index++
		capped.limit = dec.InputOffset() + maxJSONElementBytes
		var e T
		if err := dec.Decode(&e); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				sink.bad(index, "the element must be an object with the fields "+header)
				continue
			}
			return fail(index, err)
		}
		if reason := P(&e).texts(record); reason != "" {
			sink.bad(index, reason)
			continue
		}
		if err := sink.addFields(index, record); err != nil {
			return err
		}
	}
	capped.limit = dec.InputOffset() + maxJSONElementBytes
	if _, err := dec.Token(); err != nil { // the closing ]
		return fail(index+1, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return fail(0, err)
		}
		sink.bad(0, "there is more after the end of the array")
		return nil
	}
	if index == 0 {
		sink.bad(0, "no records: the array is empty")
	}
	return nil
}

// jsonRecord is the pointer to an element type of a JSON import file
// (jsonHistoryRecord, jsonProfileRecord): an object whose fields are
// jsonScalars.
type jsonRecord[T any] interface {
	*T
	// texts puts the text of each field into record, in the header's
	// order, and returns the reasons some hold the wrong kind of value
	// (jsonTexts).
	texts(record []string) string
}

// jsonTexts puts the text of each value into record and names, from names
// (in the same order), those that hold an object, an array or a boolean.
func jsonTexts(record, names []string, values ...jsonScalar) string {
	var reasons []string
	for i, v := range values {
		if v.wrongKind {
			reasons = append(reasons, names[i]+" must be a string or a number")
		}
		record[i] = v.text
	}
	return strings.Join(reasons, "; ")
}

// jsonScalar is a string or number field kept as its text, so that the
// JSON and CSV files are validated alike. null leaves it empty.
type jsonScalar struct {
	text      string
	wrongKind bool
}

func (s *jsonScalar) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || string(b) == "null":
		s.text = ""
	case b[0] == '"':
		if bytes.IndexByte(b, '\\') < 0 {
			s.text = string(b[1 : len(b)-1])
			return nil
		}
		return json.Unmarshal(b, &s.text)
	case b[0] == '-' || ('0' <= b[0] && b[0] <= '9'):
		s.text = string(b)
	default:
		s.wrongKind = true
	}
	return nil
}

var errElementTooLarge = errors.New("element too large")

// cappedReader fails once limit bytes have been read, so that one huge
// JSON element cannot eat memory.
type cappedReader struct {
	r     io.Reader
	read  int64
	limit int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.read >= c.limit {
		return 0, errElementTooLarge
	}
	if room := c.limit - c.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}
