package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// FuzzImportHistoryCSV imports any file into a store of each dialect and
// checks the all-or-nothing contract: no panic; either the file is
// rejected with ErrInvalidImport, the bad lines listed in order with their
// 1-based numbers and reasons and the history left as it was, or it is
// accepted, the history grown by exactly the rows reported inserted, and
// a second import of the same file adds nothing.
func FuzzImportHistoryCSV(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("testdata", "history", "good.csv"))
	if err != nil {
		f.Fatal(err)
	}
	line := "P1,10,3,2025-01-02T03:04:05.000,1,0,0"
	for _, seed := range []string{
		string(good),
		historyCSV(line, "P2,11,82,2025-01-02 03:04:05,2,7,4"),
		"\xEF\xBB\xBF" + strings.ReplaceAll(historyCSV(line, "", `"P 3","12","99","2025-01-02T03:04:05Z","3","0","0"`), "\n", "\r\n"),
		"",
		"\xEF\xBB\xBF",
		"\n\r\n",
		store.HistoryHeader,
		store.HistoryHeader + "\r\n",
		"panelist,subsample,status,registered,event,category,researchType\n" + line + "\n",
		historyCSV(line, "P1,10,3,2025-01-02T03:04:05.000,1,0"),
		historyCSV(line, "P1,10,3,2025-01-02T03:04:05.000,1,0,0,9"),
		historyCSV(`P"1,10,3,2025-01-02T03:04:05.000,1,0,0`, `"P1,10,3`, line),
		historyCSV("P1,10,3,2025-02-30T03:04:05.000,1,0,0", "P1,10,3,2099-01-01T00:00:00,1,0,0", "P1,10,3,1999-12-31 23:59:59,1,0,0"),
		historyCSV("P1,10,5,2025-01-02T03:04:05.000,1,0,0", "P1,10,-3,2025-01-02T03:04:05.000,1,0,0"),
		historyCSV("P1,-10,3,2025-01-02T03:04:05.000,-1,-1,-1", "P1,9223372036854775808,3,2025-01-02T03:04:05.000,1,0,0"),
		historyCSV("P\x001,10,3,2025-01-02T03:04:05.000,1,0,0", "P\xff,10,3,2025-01-02T03:04:05.000,1,0,0", " ,10,3,2025-01-02T03:04:05.000,1,0,0"),
		historyCSV(line, store.HistoryHeader, line),
		historyCSV(line, "P1,10,3,2025-01-02T03:04:05.000,1,0,"+strings.Repeat("9", 65<<10), line),
	} {
		f.Add([]byte(seed))
	}

	// One store per dialect: each file goes to each (PostgreSQL's only
	// where the tests have it, as storetest.PostgresURL decides).
	ctx := context.Background()
	targets := []string{storetest.SQLitePath(f)}
	if os.Getenv(storetest.PostgresEnv) != "" || os.Getenv("CI") == "true" {
		targets = append(targets, storetest.PostgresURL(f))
	}
	var stores []*store.Store
	for _, target := range targets {
		s, err := store.Open(ctx, target)
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	count := func(t *testing.T, s *store.Store) int64 {
		t.Helper()
		n, err := s.CountHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	f.Fuzz(func(t *testing.T, content []byte) {
		for _, s := range stores {
			before := count(t, s)
			report, err := s.ImportHistoryCSV(ctx, bytes.NewReader(content), time.UTC)
			after := count(t, s)
			if err != nil {
				checkRejected(t, content, report, err)
				if after != before {
					t.Fatalf("a rejected file changed the history from %d to %d rows: %v", before, after, err)
				}
				continue
			}
			if report.BadLines != 0 || len(report.Errors) != 0 || report.Records < 1 ||
				report.Inserted < 0 || report.Inserted+report.Duplicates != report.Records {
				t.Fatalf("accepted file with report %+v", report)
			}
			if after != before+int64(report.Inserted) {
				t.Fatalf("history went from %d to %d rows, but the report says %d inserted", before, after, report.Inserted)
			}
			again, err := s.ImportHistoryCSV(ctx, bytes.NewReader(content), time.UTC)
			if err != nil || again.Inserted != 0 || again.Duplicates != report.Records {
				t.Fatalf("second import of an accepted file = %+v, %v; want %d duplicates and nothing inserted", again, err, report.Records)
			}
			if n := count(t, s); n != after {
				t.Fatalf("second import of an accepted file changed the history from %d to %d rows", after, n)
			}
		}
	})
}

// checkRejected fails t unless err and report reject content clearly: the
// error wraps ErrInvalidImport and names the first bad line; the report
// lists bad lines in order, each within the file and with a reason.
func checkRejected(t *testing.T, content []byte, report store.ImportReport, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrInvalidImport) {
		t.Fatalf("import failed without ErrInvalidImport: %v (report %+v)", err, report)
	}
	if report.BadLines < 1 || len(report.Errors) < 1 || len(report.Errors) > min(report.BadLines, 100) {
		t.Fatalf("rejected with %d bad lines, %d listed: %+v", report.BadLines, len(report.Errors), report)
	}
	if report.Inserted != 0 || report.Duplicates != 0 {
		t.Errorf("rejected import reports %d inserted, %d duplicates", report.Inserted, report.Duplicates)
	}
	lines := bytes.Count(content, []byte("\n")) + 1
	prev := 0
	for _, e := range report.Errors {
		if e.Line <= prev || e.Line > lines {
			t.Errorf("bad line %d listed after line %d, in a file of %d lines", e.Line, prev, lines)
		}
		if strings.TrimSpace(e.Reason) == "" {
			t.Errorf("bad line %d without a reason", e.Line)
		}
		if !utf8.ValidString(e.Reason) || strings.IndexFunc(e.Reason, unicode.IsControl) >= 0 {
			t.Errorf("bad line %d: reason %q holds control characters or invalid UTF-8", e.Line, e.Reason)
		}
		prev = e.Line
	}
	if first := report.Errors[0]; !strings.Contains(err.Error(), fmt.Sprintf("line %d: %s", first.Line, first.Reason)) {
		t.Errorf("error %q does not name the first bad line %d and its reason", err, first.Line)
	}
}
