package store

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fieldboard/rules/domain"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// parseProfileFields validates the fields of one record, in ProfileHeader's
// order; latest is the latest birth date accepted (yyyymmdd). It returns
// the answer and the panelist, or the reasons the record is bad.
func parseProfileFields(f *[3]string, latest int32) (profileAnswer, string, string) {
	var a profileAnswer
	var reasons []string
	fail := func(format string, args ...any) { reasons = append(reasons, fmt.Sprintf(format, args...)) }

	panelistID, err := domain.ParsePanelistID(f[0])
	if err != nil {
		fail("panelistId %v", err)
	}
	var ok bool
	if a.question, ok = parseID(f[1], domain.AgeRangeQuestionID); !ok || a.question == 0 {
		fail("questionId must be -1 (the age question) or a positive integer, not %s", quoteField(f[1]))
		ok = false
	}
	switch {
	case !ok:
		// The value cannot be judged without its question.
	case a.question == domain.AgeRangeQuestionID:
		birth, ok := parseBirthDate(strings.TrimSpace(f[2]))
		switch {
		case !ok:
			fail("value must be a birth date like 1985-03-17 for question -1 (agerange), not %s", quoteField(f[2]))
		case birth < minBirthDate:
			fail("birth date %s is before 1900-01-01", formatBirthDate(birth))
		case birth > latest:
			fail("birth date %s is in the future", formatBirthDate(birth))
		}
		a.answer = int64(birth)
	default:
		if a.answer, ok = parseID(f[2], 1); !ok {
			fail("value must be an answer id (a positive integer) for question %d, not %s", a.question, quoteField(f[2]))
		}
	}
	if reasons != nil {
		return profileAnswer{}, "", strings.Join(reasons, "; ")
	}
	return a, panelistID, ""
}

// parseBirthDate parses yyyy-MM-dd, a real calendar date, into yyyymmdd.
func parseBirthDate(s string) (int32, bool) {
	year, month, day, ok := domain.ParseDate(s)
	return int32(year*10000 + month*100 + day), ok
}

func formatBirthDate(d int32) string {
	return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
}

// latestBirthDate is the latest birth date an import accepts: today where
// the day is furthest ahead (UTC+14), so that no time zone's today is
// refused.
func latestBirthDate(now time.Time) int32 {
	y, m, d := now.UTC().Add(14 * time.Hour).Date()
	return int32(y*10000 + int(m)*100 + d)
}

// csvSink receives what readImportCSV reads: bad lines, records (the slice
// is reused for the next line) and, at the end, says how many of each it
// got.
type csvSink interface {
	bad(line int, reason string)
	addFields(line int, record []string) error
	counts() (records, badLines int)
}

// readImportCSV reads a CSV import file whose header is fields (header as
// text, for messages), the way ImportHistoryCSV reads a history file: lines
// are cut by a bufio.Reader the size of maxLineBytes, so a longer line is
// reported and skipped without being held, and each line is handed alone
// to a csv.Reader, which keeps line numbers exact and makes a quoted field
// that runs over a line break an error. Only an error reading r or from
// addFields is returned.
func readImportCSV(r io.Reader, fields []string, header string, sink csvSink) error {
	lines := bufio.NewReaderSize(r, maxLineBytes)
	if bom, _ := lines.Peek(3); bytes.Equal(bom, []byte("\xEF\xBB\xBF")) {
		lines.Discard(3)
	}
	feed := &lineFeed{}
	cr := csv.NewReader(feed)
	cr.FieldsPerRecord = len(fields)
	cr.ReuseRecord = true

	lineNo, headerLine := 0, 0
	for {
		line, err := lines.ReadSlice('\n')
		if len(line) == 0 && err == io.EOF {
			break
		}
		lineNo++
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lines.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return fmt.Errorf("read line %d: %w", lineNo, err)
			}
			if headerLine == 0 {
				sink.bad(lineNo, fmt.Sprintf("the first line is longer than %d KiB; it must be the header %s", maxLineBytes>>10, header))
				return nil
			}
			sink.bad(lineNo, fmt.Sprintf("line is longer than %d KiB", maxLineBytes>>10))
			if err == io.EOF {
				break
			}
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read line %d: %w", lineNo, err)
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			if err == io.EOF {
				break
			}
			continue // blank line
		}

		feed.line = line
		record, perr := cr.Read()
		feed.line = nil
		switch {
		case headerLine == 0:
			headerLine = lineNo
			if perr != nil || !equalFields(record, fields) {
				sink.bad(lineNo, fmt.Sprintf("the first line must be the header %s, not %s",
					header, clip(strconv.Quote(string(bytes.TrimRight(line, "\r\n"))), 200)))
				return nil
			}
		case perr != nil:
			sink.bad(lineNo, csvLineReason(perr, len(record), len(fields), header))
		default:
			if err := sink.addFields(lineNo, record); err != nil {
				return err
			}
		}
		if err == io.EOF {
			break
		}
	}
	records, badLines := sink.counts()
	switch {
	case headerLine == 0:
		sink.bad(1, "no records: the file is empty; its first line must be the header "+header)
	case records == 0 && badLines == 0:
		sink.bad(headerLine, "no records: the file has a header but no lines after it")
	}
	return nil
}

func equalFields(record, fields []string) bool {
	if len(record) != len(fields) {
		return false
	}
	for i := range fields {
		if record[i] != fields[i] {
			return false
		}
	}
	return true
}

// csvLineReason words a csv.Reader error for a user.
func csvLineReason(err error, got, want int, header string) string {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return fmt.Sprintf("expected %d columns (%s), found %d", want, header, got)
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf(`column %d: a quote (") in a field that is not quoted`, pe.Column)
	case errors.Is(pe.Err, csv.ErrQuote):
		return fmt.Sprintf(`column %d: a quoted field is not closed on its line, or a quote inside it is not doubled`, pe.Column)
	}
	return fmt.Sprintf("column %d: %v", pe.Column, pe.Err)
}

// readJSON reads a JSON array of profile records (readImportJSON).
func (im *profileImport) readJSON(r io.Reader) error {
	return readImportJSON(r, "profile", ProfileHeader, im.bad, func(index int, e *jsonProfileRecord) error {
		if reason := e.kindErrors(); reason != "" {
			im.bad(index, reason)
			return nil
		}
		f := [3]string{e.PanelistID.text, e.QuestionID.text, e.Value.text}
		return im.add(index, &f)
	})
}

// readImportJSON reads a JSON array of import records one element at a
// time, each at most maxJSONElementBytes, and hands each decoded element
// to add with its 1-based index. what names the records in messages
// ("history"), header their fields. Problems of the file are reported to
// bad (element 0 for the file as a whole); only an error reading r or from
// add is returned.
func readImportJSON[T any](r io.Reader, what, header string, bad func(index int, reason string), add func(index int, e *T) error) error {
	capped := &cappedReader{r: r, limit: maxJSONElementBytes}
	dec := json.NewDecoder(capped)
	fail := func(index int, err error) error {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			bad(index, fmt.Sprintf("not valid JSON at byte %d: %v", syntax.Offset, err))
		case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
			bad(index, "the file ends before the array is closed")
		case errors.Is(err, errElementTooLarge):
			bad(index, fmt.Sprintf("the element is larger than %d KiB", maxJSONElementBytes>>10))
		default:
			return fmt.Errorf("read element %d: %w", index, err)
		}
		return nil
	}
	tok, err := dec.Token()
	switch {
	case err == io.EOF:
		bad(0, "no records: the file is empty; it must be a JSON array of "+what+" records")
		return nil
	case err != nil:
		return fail(0, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		bad(0, "the file must be a JSON array of "+what+" records, with the fields "+header)
		return nil
	}
	index := 0
	for dec.More() {
		index++
		capped.limit = dec.InputOffset() + maxJSONElementBytes
		var e T
		if err := dec.Decode(&e); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				bad(index, "the element must be an object with the fields "+header)
				continue
			}
			return fail(index, err)
		}
		if err := add(index, &e); err != nil {
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
		bad(0, "there is more after the end of the array")
		return nil
	}
	if index == 0 {
		bad(0, "no records: the array is empty")
	}
	return nil
}

// jsonProfileRecord is one element of a JSON profile file.
type jsonProfileRecord struct {
	PanelistID jsonScalar `json:"panelistId"`
	QuestionID jsonScalar `json:"questionId"`
	Value      jsonScalar `json:"value"`
}

// kindErrors names the fields that hold an object, an array or a boolean.
func (e *jsonProfileRecord) kindErrors() string {
	var reasons []string
	for i, v := range []jsonScalar{e.PanelistID, e.QuestionID, e.Value} {
		if v.wrongKind {
			reasons = append(reasons, profileFields[i]+" must be a string or a number")
		}
	}
	return strings.Join(reasons, "; ")
}
