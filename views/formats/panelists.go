package formats

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"

	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// maxListErrors bounds the bad lines listed for a rejected file.
const maxListErrors = 100

// ParsePanelistList reads a CSV of panelist ids: a `panelistId` header line,
// then one id a line. A file with any bad line is rejected with each bad
// line's number (up to 100) and reason.
func ParsePanelistList(r io.Reader) ([]string, []store.LineError, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, errors.New("the file is empty; it needs a panelistId header line, then one id a line")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("line 1: %w", err)
	}
	if len(header) != 1 || strings.TrimSpace(header[0]) != "panelistId" {
		return nil, nil, fmt.Errorf("line 1: the header must be exactly panelistId, found %q", strings.Join(header, ","))
	}
	var ids []string
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
			} else {
				ids = append(ids, id)
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
		return nil, lineErrs, fmt.Errorf("%d bad line(s); nothing was checked", bad)
	}
	if len(ids) == 0 {
		return nil, nil, errors.New("the file has a header but no panelist ids")
	}
	return ids, nil, nil
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
// neutralised like every other cell.
func WriteBulkCSV(ctx context.Context, checker BulkChecker, subsampleID int64, ids []string, w io.Writer, exactIDs bool) error {
	out := NewWriter(w)
	if err := out.Write(slices.Clone(bulkHeader)...); err != nil {
		return err
	}
	err := checker.BulkCheck(ctx, subsampleID, slices.Values(ids), func(r checks.BulkResult) error {
		eligible, quota, send, reasons := strconv.FormatBool(r.Eligible), string(r.Quota), strconv.FormatBool(r.Send), strings.Join(r.Reasons, "; ")
		if !exactIDs {
			return out.Write(r.PanelistID, eligible, quota, send, reasons)
		}
		return out.WriteKeyed(r.PanelistID, eligible, quota, send, reasons)
	})
	if err != nil {
		return err
	}
	return out.Flush()
}
