package store

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"

	"fieldboard/rules/domain"
)

// maxLineBytes caps a line of a CSV import file, so that a file with no
// line breaks cannot eat memory: such a line is reported as bad.
const maxLineBytes = 64 << 10

// lineSink receives what readImportCSV and readImportJSON read: bad lines,
// and records as the texts of their fields in the header's order (the
// slice is reused for the next line); counts says how many of each it got
// so far. An import's lineTally gives it bad and counts.
type lineSink interface {
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
func readImportCSV(r io.Reader, fields []string, header string, sink lineSink) error {
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
					header, domain.Clip(strconv.Quote(string(bytes.TrimRight(line, "\r\n"))), 200)))
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

// lineFeed hands the csv.Reader one line at a time: the line, then io.EOF
// until the next line is set.
type lineFeed struct{ line []byte }

func (f *lineFeed) Read(p []byte) (int, error) {
	if len(f.line) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.line)
	f.line = f.line[n:]
	return n, nil
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
