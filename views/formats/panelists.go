package formats

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"

	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// maxListErrors bounds the bad lines listed for a rejected file.
const maxListErrors = 100

// ErrInvalidList is wrapped by ParsePanelistList's errors that are the
// list's fault (a bad header or line, no ids): the caller answers them
// with the reason, and any other error as its own failure.
var ErrInvalidList = errors.New("invalid list of panelist ids")

// invalidList is an error of the list itself; it is ErrInvalidList and
// reads as its message alone.
type invalidList string

func (e invalidList) Error() string        { return string(e) }
func (e invalidList) Is(target error) bool { return target == ErrInvalidList }

// PanelistList is a checked list of panelist ids (ParsePanelistList),
// kept one id a line in a temporary file rather than in memory: a bulk
// check's list may be a gigabyte, and memory must not grow with it. Ids
// hold no control character (domain.ParsePanelistID), so a line break
// cannot be part of one. Close removes it.
type PanelistList struct {
	file *os.File
	len  int
	err  error
}

// Len is how many ids the list holds, one per line of the file read.
func (l *PanelistList) Len() int { return l.len }

// All yields the ids in the order of the file, read back from the start;
// Err says afterwards whether reading them failed.
func (l *PanelistList) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		if _, err := l.file.Seek(0, io.SeekStart); err != nil {
			l.err = fmt.Errorf("read back the list of panelist ids: %w", err)
			return
		}
		sc := bufio.NewScanner(bufio.NewReaderSize(l.file, 64<<10))
		for sc.Scan() {
			if !yield(sc.Text()) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			l.err = fmt.Errorf("read back the list of panelist ids: %w", err)
		}
	}
}

// Err is the error of the last reading of All, nil when it read every id.
func (l *PanelistList) Err() error { return l.err }

// Close closes and removes the list's file.
func (l *PanelistList) Close() error { return l.file.Close() }

// ParsePanelistList reads a CSV of panelist ids: a `panelistId` header line,
// then one id a line. A file with any bad line is rejected with each bad
// line's number (up to 100) and reason, wrapping ErrInvalidList. The ids
// are checked as they are read and kept in a temporary file, so the whole
// file is checked before any id is, and memory stays the same whatever
// its size; the caller closes the list.
func ParsePanelistList(r io.Reader) (*PanelistList, []store.LineError, error) {
	file, err := os.CreateTemp("", "fieldboard-ids-*")
	if err != nil {
		return nil, nil, fmt.Errorf("keep the list of panelist ids: %w", err)
	}
	os.Remove(file.Name()) // gone once closed; the open file stays readable
	list := &PanelistList{file: file}
	lineErrs, err := list.fill(r)
	if err != nil {
		file.Close()
		return nil, lineErrs, err
	}
	return list, nil, nil
}

// fill checks the CSV of r and writes its ids to the list's file.
func (l *PanelistList) fill(r io.Reader) ([]store.LineError, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, invalidList("the file is empty; it needs a panelistId header line, then one id a line")
	}
	if err != nil {
		return nil, invalidList(fmt.Sprintf("line 1: %v", err))
	}
	if len(header) != 1 || strings.TrimSpace(header[0]) != "panelistId" {
		return nil, invalidList(fmt.Sprintf("line 1: the header must be exactly panelistId, found %q", strings.Join(header, ",")))
	}
	out := bufio.NewWriterSize(l.file, 64<<10)
	var lineErrs []store.LineError
	bad := 0
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		var reason string
		switch {
		case err != nil:
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			reason = err.Error()
		case len(rec) != 1:
			line, _ = cr.FieldPos(0)
			reason = "expected one column, found " + strconv.Itoa(len(rec))
		default:
			line, _ = cr.FieldPos(0)
			id, perr := domain.ParsePanelistID(rec[0])
			if perr != nil {
				reason = "panelistId " + perr.Error()
			} else if bad == 0 {
				out.WriteString(id)
				out.WriteByte('\n')
				l.len++
			}
		}
		if reason != "" {
			bad++
			if len(lineErrs) < maxListErrors {
				lineErrs = append(lineErrs, store.LineError{Line: line, Reason: reason})
			}
			if err != nil && !isRecoverable(err) {
				break
			}
		}
	}
	if bad > 0 {
		return lineErrs, invalidList(fmt.Sprintf("%d bad line(s); nothing was checked", bad))
	}
	if l.len == 0 {
		return nil, invalidList("the file has a header but no panelist ids")
	}
	if err := out.Flush(); err != nil {
		return nil, fmt.Errorf("keep the list of panelist ids: %w", err)
	}
	return nil, nil
}

// isRecoverable reports whether the CSV reader can go on after err.
func isRecoverable(err error) bool {
	var pe *csv.ParseError
	return errors.As(err, &pe)
}

// bulkHeader is the header of a bulk check's answer.
var bulkHeader = []string{"panelistId", "eligible", "quota", "send", "reasons"}

// BulkChecker checks panelists against a live subsample:
// checks.Service.BulkCheck.
type BulkChecker interface {
	BulkCheck(ctx context.Context, subsampleID int64, panelists iter.Seq[string], emit func(checks.BulkResult) error) error
}

// WriteBulkCSV checks ids against a live subsample and writes
// `panelistId,eligible,quota,send,reasons`, one line per id in input
// order: quota is the panelist's quota verdict, send whether to invite them
// (rules.Send); reasons are joined with "; ". With exactIDs (the API and
// the CLI, whose answers scripts join back to their input) the ids are
// echoed byte for byte; otherwise (a download for a spreadsheet) they are
// neutralised like every other cell. Lines are written as each chunk of
// ids is decided (checks.Service.BulkCheck), not kept.
func WriteBulkCSV(ctx context.Context, checker BulkChecker, subsampleID int64, ids *PanelistList, w io.Writer, exactIDs bool) error {
	out := NewWriter(w)
	if err := out.Write(slices.Clone(bulkHeader)...); err != nil {
		return err
	}
	err := checker.BulkCheck(ctx, subsampleID, ids.All(), func(r checks.BulkResult) error {
		eligible, quota, send, reasons := strconv.FormatBool(r.Eligible), string(r.Quota), strconv.FormatBool(r.Send), strings.Join(r.Reasons, "; ")
		if !exactIDs {
			return out.Write(r.PanelistID, eligible, quota, send, reasons)
		}
		return out.WriteKeyed(r.PanelistID, eligible, quota, send, reasons)
	})
	if err == nil {
		err = ids.Err()
	}
	if err != nil {
		return err
	}
	return out.Flush()
}
