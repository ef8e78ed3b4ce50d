package store_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Paris whether or not the host has zoneinfo

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// historyCSV builds a CSV history file: the header, then lines.
func historyCSV(lines ...string) string {
	return store.HistoryHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

// historyCount returns how many history records s holds.
func historyCount(t *testing.T, s *store.Store) int64 {
	t.Helper()
	n, err := s.CountHistory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// goodLines returns n valid, distinct lines of a history file.
func goodLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("G%d,%d,3,2025-01-02T03:04:05.000,1,0,0", i, 10+i%50)
	}
	return lines
}

// importCSV imports a CSV history file that must be valid.
func importCSV(t *testing.T, s *store.Store, content string) store.ImportReport {
	t.Helper()
	report, err := s.ImportHistoryCSV(context.Background(), strings.NewReader(content), time.UTC)
	if err != nil {
		t.Fatalf("import: %v (report %+v)", err, report)
	}
	return report
}

func TestImportHistoryCSVEveryDateLayout(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		f, err := os.Open(filepath.Join("testdata", "history", "good.csv"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		paris, err := time.LoadLocation("Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		report, err := s.ImportHistoryCSV(ctx, f, paris)
		if err != nil {
			t.Fatalf("import: %v (%+v)", err, report)
		}
		if want := (store.ImportReport{Records: 7, Inserted: 7}); report.Records != want.Records || report.Inserted != want.Inserted ||
			report.Duplicates != 0 || report.BadLines != 0 || len(report.Errors) != 0 {
			t.Errorf("report = %+v, want %+v", report, want)
		}
		if n := historyCount(t, s); n != 7 {
			t.Errorf("CountHistory = %d, want 7", n)
		}

		// Zone-less times are in loc (Paris is UTC+1 in March); RFC 3339 times
		// keep their own zone.
		cases := []struct {
			panelist string
			want     []time.Time
		}{
			{"P-1001", []time.Time{
				time.Date(2025, 3, 2, 10, 30, 0, 0, time.UTC),   // 2025-03-02T11:30:00 Paris
				time.Date(2025, 3, 1, 9, 0, 0, 123e6, time.UTC), // 2025-03-01T10:00:00.123 Paris
			}},
			{"P-1002", []time.Time{
				time.Date(2025, 3, 4, 7, 0, 0, 0, time.UTC),  // 2025-03-04T09:00:00+02:00
				time.Date(2025, 3, 3, 7, 15, 0, 0, time.UTC), // 2025-03-03 08:15:00 Paris
			}},
			{"P-1003", []time.Time{ // panelist and ids trimmed of spaces
				time.Date(2025, 3, 6, 6, 0, 0, 500e6, time.UTC), // 2025-03-06 07:00:00.5 Paris
				time.Date(2025, 3, 5, 23, 59, 59, 0, time.UTC),  // 2025-03-05T23:59:59Z
			}},
			{"P-1004", []time.Time{time.Date(2025, 3, 7, 11, 0, 0, 0, time.UTC)}},
		}
		for _, c := range cases {
			recs, err := s.HistoryOf(ctx, c.panelist)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(c.want) {
				t.Errorf("%s: %d records, want %d: %+v", c.panelist, len(recs), len(c.want), recs)
				continue
			}
			for i, r := range recs {
				if !r.RegisteredAt.Equal(c.want[i]) {
					t.Errorf("%s record %d registered %v, want %v", c.panelist, i, r.RegisteredAt.UTC(), c.want[i])
				}
				if r.PanelistID != c.panelist {
					t.Errorf("%s record %d has panelist %q", c.panelist, i, r.PanelistID)
				}
			}
		}
		recs, _ := s.HistoryOf(ctx, "P-1002")
		want := domain.HistoryRecord{PanelistID: "P-1002", SubsampleID: 5003, StatusID: 99, EventID: 702, CategoryID: 205, ResearchTypeID: 4}
		got := recs[0]
		got.RegisteredAt = time.Time{}
		if got != want {
			t.Errorf("record = %+v, want %+v", got, want)
		}
	})
}

func TestImportHistoryTwiceAddsNoDuplicates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		content, err := os.ReadFile(filepath.Join("testdata", "history", "good.csv"))
		if err != nil {
			t.Fatal(err)
		}
		importCSV(t, s, string(content))
		again := importCSV(t, s, string(content))
		if again.Records != 7 || again.Inserted != 0 || again.Duplicates != 7 {
			t.Errorf("second import = %+v, want 7 records, 0 inserted, 7 duplicates", again)
		}
		if n := historyCount(t, s); n != 7 {
			t.Errorf("CountHistory = %d, want 7", n)
		}
	})
}

func TestImportHistoryRepeatedLineIsADuplicate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		line := "P1,10,3,2025-01-02T03:04:05.000,1,0,0"
		report := importCSV(t, s, historyCSV(line, "P1,10,82,2025-01-02T03:04:05.000,1,0,0", line))
		if report.Records != 3 || report.Inserted != 2 || report.Duplicates != 1 {
			t.Errorf("report = %+v, want 3 records, 2 inserted, 1 duplicate", report)
		}
	})
}

// TestImportHistoryOfStoredAndRepeatedRecords: a file holding a record
// already stored, a record twice and a new one stores each once and
// counts the rest as duplicates (on PostgreSQL the plain INSERT of the
// records not stored fails on the repeated one and the import goes on by
// ON CONFLICT DO NOTHING, the first of the two kept).
func TestImportHistoryOfStoredAndRepeatedRecords(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importCSV(t, s, historyCSV("P1,10,3,2025-01-02T03:04:05.000,1,0,0"))
		report := importCSV(t, s, historyCSV("P1,10,3,2025-01-02T03:04:05.000,1,0,0",
			"P2,10,3,2025-01-02T03:04:05.000,1,0,0", "P2,10,3,2025-01-02T03:04:05.000,7,0,0", "P3,10,3,2025-01-02T03:04:05.000,1,0,0"))
		if report.Records != 4 || report.Inserted != 2 || report.Duplicates != 2 {
			t.Errorf("report = %+v, want 4 records, 2 inserted, 2 duplicates", report)
		}
		if n := historyCount(t, s); n != 3 {
			t.Errorf("CountHistory = %d, want 3", n)
		}
		if records, err := s.HistoryOf(ctx, "P2"); err != nil || len(records) != 1 || records[0].EventID != 1 {
			t.Errorf("HistoryOf(P2) = %+v, %v; want the first of the two lines (event 1)", records, err)
		}
	})
}

// TestImportHistoryBesideAWriteOfTheSameRecord: a record another
// transaction writes while an import of it is under way (an import
// beside it, on another instance) is a duplicate of that import, not its
// failure, whether history held records before or not. On PostgreSQL an
// import into an empty history COPYs straight into it: the COPY waits for
// the other transaction, fails on the key once it commits, and the import
// runs again from the file's start, checked. Into a history holding
// records, the import's plain INSERT from its temporary table waits,
// fails on the key, and the import goes on by ON CONFLICT DO NOTHING. On
// SQLite the import waits for the writer.
func TestImportHistoryBesideAWriteOfTheSameRecord(t *testing.T) {
	for _, stored := range []bool{false, true} {
		t.Run(fmt.Sprintf("stored before %v", stored), func(t *testing.T) {
			importBesideAWriteOfTheSameRecord(t, stored)
		})
	}
}

func importBesideAWriteOfTheSameRecord(t *testing.T, stored bool) {
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		target := db.Target(t)
		s := openAt(t, target)
		before := int64(0)
		waitingFor := `copy "history"%` // the straight COPY into an empty history
		if stored {
			importCSV(t, s, historyCSV("P9,10,3,2025-01-02T03:04:05.000,1,0,0"))
			before, waitingFor = 1, `INSERT INTO history%`
		}
		raw := storetest.Raw(t, target)
		at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
		insert := `INSERT INTO history (panelist_id, subsample_id, status_id, registered_at, event_id, category_id, research_type_id) VALUES (?, 10, 3, ?, 1, 0, 0)`
		var registered any = at.UnixMilli()
		if db.Name == "postgres" {
			insert, registered = strings.NewReplacer("?, 10", "$1, 10", "3, ?", "3, $2").Replace(insert), at
		}
		other, err := raw.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Rollback()
		if _, err := other.ExecContext(ctx, insert, "P1", registered); err != nil {
			t.Fatal(err)
		}
		type result struct {
			report store.ImportReport
			err    error
		}
		done := make(chan result, 1)
		go func() {
			report, err := s.ImportHistoryCSV(ctx, strings.NewReader(historyCSV("P1,10,3,2025-01-02T03:04:05.000,1,0,0", "P2,10,3,2025-01-02T03:04:05.000,1,0,0")), time.UTC)
			done <- result{report, err}
		}()
		if db.Name == "postgres" {
			// The import's COPY or INSERT waits for the other transaction's row.
			deadline := time.Now().Add(5 * time.Minute) // a hang, not a speed
			for waiting := 0; waiting == 0; {
				if err := raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity
					WHERE wait_event_type = 'Lock' AND query LIKE $1`, waitingFor).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if time.Now().After(deadline) {
					t.Fatal("in five minutes the import was never seen waiting for the other transaction's record")
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		if err := other.Commit(); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil || r.report.Records != 2 || r.report.Inserted != 1 || r.report.Duplicates != 1 {
			t.Errorf("import = %+v, %v; want 2 records, 1 inserted, 1 duplicate", r.report, r.err)
		}
		if n := historyCount(t, s); n != before+2 {
			t.Errorf("CountHistory = %d, want %d", n, before+2)
		}
	})
}

// TestImportHistoryOfAStreamIsChecked: an import whose input cannot be
// read again (an upload's stream, not an io.Seeker) is checked as it
// goes, into an empty history too: a record repeated in it is a
// duplicate.
func TestImportHistoryOfAStreamIsChecked(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		line := "P1,10,3,2025-01-02T03:04:05.000,1,0,0"
		stream := io.MultiReader(strings.NewReader(historyCSV(line, "P2,10,3,2025-01-02T03:04:05.000,1,0,0", line)))
		report, err := s.ImportHistoryCSV(context.Background(), stream, time.UTC)
		if err != nil || report.Records != 3 || report.Inserted != 2 || report.Duplicates != 1 {
			t.Errorf("import = %+v, %v; want 3 records, 2 inserted, 1 duplicate", report, err)
		}
		if n := historyCount(t, s); n != 2 {
			t.Errorf("CountHistory = %d, want 2", n)
		}
	})
}

func TestImportHistoryCSVAcceptedEncodings(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		lines := []string{"P1,10,3,2025-01-02T03:04:05.000,1,0,0", "P2,11,82,2025-01-02T03:04:05.000,1,0,0"}
		cases := acceptedEncodings(historyCSV, lines,
			`"panelistId","subsampleId","statusId","registeredAt","eventId","categoryId","researchTypeId"`+"\n"+
				`"P1","10","3","2025-01-02T03:04:05.000","1","0","0"`+"\n"+lines[1]+"\n")
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t, db)
				report := importCSV(t, s, c.content)
				if report.Records != 2 || report.Inserted != 2 {
					t.Errorf("report = %+v, want 2 records inserted", report)
				}
				recs, err := s.HistoryOf(context.Background(), "P1")
				if err != nil || len(recs) != 1 || recs[0].SubsampleID != 10 {
					t.Errorf("HistoryOf(P1) = %+v, %v", recs, err)
				}
			})
		}
	})
}

func TestImportHistoryCSVRejectsBadFiles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		good := "P1,10,3,2025-01-02T03:04:05.000,1,0,0"
		cases := []struct {
			name     string
			content  string
			wantLine int
			want     string // in the reason
		}{
			{"empty file", "", 1, "no records: the file is empty"},
			{"only a byte order mark", "\xEF\xBB\xBF", 1, "no records"},
			{"header only", store.HistoryHeader + "\n", 1, "no records: the file has a header but no lines"},
			{"wrong header", "panelist,subsample,status,registered,event,category,researchType\n" + good + "\n", 1,
				"the first line must be the header " + store.HistoryHeader},
			{"header with a column missing", "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId\n" + good + "\n", 1,
				"must be the header"},
			{"no header", good + "\n" + good + "\n", 1, "must be the header"},
			{"too few columns", historyCSV(good, "P1,10,3,2025-01-02T03:04:05.000,1,0"), 3, "expected 7 columns"},
			{"too many columns", historyCSV("P1,10,3,2025-01-02T03:04:05.000,1,0,0,9"), 2, "found 8"},
			{"bare quote", historyCSV(`P"1,10,3,2025-01-02T03:04:05.000,1,0,0`), 2, "column 2: a quote"},
			{"quoted field over a line break", historyCSV(`"P1,10,3,2025-01-02T03:04:05.000,1,0,0`, good), 2, "not closed on its line"},
			{"bad date", historyCSV("P1,10,3,02/01/2025 03:04,1,0,0"), 2, `registeredAt: "02/01/2025 03:04" is not a date and time`},
			{"impossible date", historyCSV("P1,10,3,2025-02-30T03:04:05.000,1,0,0"), 2, "registeredAt"},
			{"empty date", historyCSV("P1,10,3,,1,0,0"), 2, "registeredAt: empty"},
			{"date far in the future", historyCSV("P1,10,3,2099-01-01T00:00:00.000,1,0,0"), 2, "more than a day in the future"},
			{"date before 2001-09-09", historyCSV("P1,10,3,1999-12-31T23:59:59.000,1,0,0"), 2, "earlier than the history can hold"},
			{"unknown status 5", historyCSV("P1,10,5,2025-01-02T03:04:05.000,1,0,0"), 2, `statusId must be a respondent return code, 2 (In survey), 3 (Complete), 82 (Screen out), 83 (Quota full), 92 (Abandon), 98 (Erroneous complete) or 99 (Potentially unengaged), not "5"`},
			{"negative subsample id", historyCSV("P1,-10,3,2025-01-02T03:04:05.000,1,0,0"), 2, `subsampleId must be a positive integer, not "-10"`},
			{"zero event id", historyCSV("P1,10,3,2025-01-02T03:04:05.000,0,0,0"), 2, "eventId must be a positive integer"},
			{"negative category id", historyCSV("P1,10,3,2025-01-02T03:04:05.000,1,-1,0"), 2, "categoryId must be an integer of 0 or more"},
			{"non-numeric id", historyCSV("P1,abc,3,2025-01-02T03:04:05.000,1,0,x"), 2, `subsampleId must be a positive integer, not "abc"; researchTypeId`},
			{"decimal id", historyCSV("P1,10.0,3,2025-01-02T03:04:05.000,1,0,0"), 2, "subsampleId"},
			{"empty panelist", historyCSV(" ,10,3,2025-01-02T03:04:05.000,1,0,0"), 2, "panelistId is empty"},
			{"control character in panelist", historyCSV("P\x011,10,3,2025-01-02T03:04:05.000,1,0,0"), 2, "panelistId holds control characters"},
			{"tab in panelist", historyCSV("P\t1,10,3,2025-01-02T03:04:05.000,1,0,0"), 2, "control character"},
			{"C1 control in panelist", historyCSV("P\u00851,10,3,2025-01-02T03:04:05.000,1,0,0"), 2, "control character"},
			{"invalid UTF-8 in panelist", historyCSV("P\xff1,10,3,2025-01-02T03:04:05.000,1,0,0"), 2, "not valid UTF-8"},
			{"panelist over 128 bytes", historyCSV(strings.Repeat("p", 129) + ",10,3,2025-01-02T03:04:05.000,1,0,0"), 2, "panelistId is 129 bytes long; at most 128"},
			{"huge line", historyCSV(good, "P1,10,3,2025-01-02T03:04:05.000,1,0,"+strings.Repeat("9", 200<<10), good), 3, "line is longer than 64 KiB"},
			{"huge last line without line break", historyCSV(good) + strings.Repeat("x", 100<<10), 3, "longer than 64 KiB"},
			{"huge first line", strings.Repeat("x", 100<<10) + "\n" + good + "\n", 1, "the first line is longer than 64 KiB"},
			{"bad line after good ones", historyCSV(good, "P2,11,3,2025-01-02T03:04:05.000,1,0,0", "P3,12,3,nope,1,0,0"), 4, "registeredAt"},
			{"bad line after 1,000 good ones, past many written batches", historyCSV(append(goodLines(1000), "P3,12,3,nope,1,0,0")...), 1002, "registeredAt"},
			{"negative status id", historyCSV("P1,10,-3,2025-01-02T03:04:05.000,1,0,0"), 2, `statusId must be a respondent return code, 2 (In survey), 3 (Complete), 82 (Screen out), 83 (Quota full), 92 (Abandon), 98 (Erroneous complete) or 99 (Potentially unengaged), not "-3"`},
			{"status id 0", historyCSV("P1,10,0,2025-01-02T03:04:05.000,1,0,0"), 2, `statusId must be a respondent return code`},
			{"negative event id", historyCSV("P1,10,3,2025-01-02T03:04:05.000,-7,0,0"), 2, `eventId must be a positive integer, not "-7"`},
			{"negative research type id", historyCSV("P1,10,3,2025-01-02T03:04:05.000,1,0,-2"), 2, `researchTypeId must be an integer of 0 or more (0 when unknown), not "-2"`},
			{"id beyond int64", historyCSV("P1,9223372036854775808,3,2025-01-02T03:04:05.000,1,0,0"), 2, `subsampleId must be a positive integer, not "9223372036854775808"`},
			{"date without a time", historyCSV("P1,10,3,2025-01-02,1,0,0"), 2, `registeredAt: "2025-01-02" is not a date and time`},
			{"2 MiB in one field", historyCSV(good, "P1,10,3,2025-01-02T03:04:05.000,1,0,"+strings.Repeat("9", 2<<20), good), 3, "line is longer than 64 KiB"},
			{"2 MiB first line without a line break", strings.Repeat("x", 2<<20), 1, "the first line is longer than 64 KiB"},
			{"header repeated, as when two files are joined", historyCSV(good, store.HistoryHeader, good), 3, `subsampleId must be a positive integer, not "subsampleId"`},
			{"byte order mark before a wrong header", "\xEF\xBB\xBFpanelist,subsample\n" + good + "\n", 1,
				"must be the header " + store.HistoryHeader + `, not "panelist,subsample"`},
			{"byte order mark and CRLF, header only", "\xEF\xBB\xBF" + store.HistoryHeader + "\r\n", 1, "no records: the file has a header but no lines"},
			{"CRLF: a bad line is numbered as an editor shows it", strings.ReplaceAll(historyCSV(good, "", "P1,10,3,2025-01-02T03:04:05.000,1,0"), "\n", "\r\n"), 4, "expected 7 columns"},
			{"CR alone does not end a line", strings.ReplaceAll(historyCSV(good), "\n", "\r"), 1, `the first line must be the header ` + store.HistoryHeader + `, not "panelistId,`},
			{"only blank lines", "\n\r\n\n", 1, "no records: the file is empty"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				s := open(t, db)
				importCSV(t, s, historyCSV("EARLIER,1,3,2024-06-01T00:00:00.000,1,0,0"))

				report, err := s.ImportHistoryCSV(ctx, strings.NewReader(c.content), time.UTC)
				if !errors.Is(err, store.ErrInvalidImport) {
					t.Fatalf("err = %v, want ErrInvalidImport (report %+v)", err, report)
				}
				if report.BadLines != 1 || len(report.Errors) != 1 {
					t.Fatalf("report = %+v, want one bad line", report)
				}
				if got := report.Errors[0]; got.Line != c.wantLine || !strings.Contains(got.Reason, c.want) {
					t.Errorf("error = line %d %q, want line %d containing %q", got.Line, got.Reason, c.wantLine, c.want)
				}
				if got := report.Errors[0].Reason; len(got) > 1<<10 || strings.ContainsAny(got, "\r\n\uFEFF") {
					t.Errorf("reason %.100q… is not one short line", got)
				}
				if report.Inserted != 0 || report.Duplicates != 0 {
					t.Errorf("rejected import reports %d inserted, %d duplicates", report.Inserted, report.Duplicates)
				}
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q does not say %q", err, c.want)
				}
				if n := historyCount(t, s); n != 1 {
					t.Errorf("CountHistory = %d after a rejected import, want the 1 earlier record", n)
				}
			})
		}
	})
}

func TestImportHistoryListsAtMost100BadLines(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importCSV(t, s, historyCSV("EARLIER,1,3,2024-06-01T00:00:00.000,1,0,0"))

		var b strings.Builder
		b.WriteString(store.HistoryHeader + "\n")
		for i := range 200 {
			if i%4 == 0 { // 50 good lines among 150 bad ones
				fmt.Fprintf(&b, "P%d,10,3,2025-01-02T03:04:05.000,1,0,0\n", i)
			} else {
				fmt.Fprintf(&b, "P%d,10,5,2025-01-02T03:04:05.000,1,0,0\n", i)
			}
		}
		report, err := s.ImportHistoryCSV(ctx, strings.NewReader(b.String()), time.UTC)
		if !errors.Is(err, store.ErrInvalidImport) {
			t.Fatalf("err = %v, want ErrInvalidImport", err)
		}
		if want := "150 bad lines; line 3: statusId"; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
		if report.BadLines != 150 || len(report.Errors) != 100 || report.Records != 50 {
			t.Errorf("report: %d bad lines, %d listed, %d records; want 150, 100, 50", report.BadLines, len(report.Errors), report.Records)
		}
		if first, last := report.Errors[0], report.Errors[99]; first.Line != 3 || last.Line != 135 {
			t.Errorf("listed lines %d..%d, want 3..135", first.Line, last.Line)
		}
		if n := historyCount(t, s); n != 1 {
			t.Errorf("CountHistory = %d, want 1: nothing of a rejected file is written", n)
		}
		if recs, err := s.HistoryOf(ctx, "EARLIER"); err != nil || len(recs) != 1 {
			t.Errorf("earlier history = %+v, %v; want it intact", recs, err)
		}
		if recs, _ := s.HistoryOf(ctx, "P0"); len(recs) != 0 {
			t.Errorf("a good line of a rejected file was written: %+v", recs)
		}
	})
}

func TestImportHistoryJSON(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		f, err := os.Open(filepath.Join("testdata", "history", "good.json"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		report, err := s.ImportHistoryJSON(ctx, f, time.UTC)
		if err != nil {
			t.Fatalf("import: %v (%+v)", err, report)
		}
		if report.Records != 3 || report.Inserted != 3 {
			t.Errorf("report = %+v, want 3 records inserted", report)
		}
		recs, err := s.HistoryOf(ctx, "1002") // a numeric panelist id is kept as its text
		if err != nil || len(recs) != 1 || recs[0].StatusID != 92 || !recs[0].RegisteredAt.Equal(time.Date(2025, 3, 3, 8, 15, 0, 0, time.UTC)) {
			t.Errorf("HistoryOf(1002) = %+v, %v", recs, err)
		}
		recs, _ = s.HistoryOf(ctx, "P-1001")
		if len(recs) != 2 || recs[0].SubsampleID != 5002 {
			t.Errorf("HistoryOf(P-1001) = %+v, want 5002 (a number given as a string) first", recs)
		}
	})
}

func TestImportHistoryJSONRejectsBadFiles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		good := `{"panelistId":"P1","subsampleId":10,"statusId":3,"registeredAt":"2025-01-02T03:04:05.000","eventId":1,"categoryId":0,"researchTypeId":0}`
		cases := []struct {
			name     string
			content  string
			wantLine int
			want     string
		}{
			{"not an array", good, 0, "must be a JSON array"},
			{"empty file", "", 0, "no records: the file is empty"},
			{"empty array", " [ ] ", 0, "no records: the array is empty"},
			{"not JSON", "panelistId,subsampleId", 0, "not valid JSON"},
			{"bad element", "[" + good + "," + strings.Replace(good, `"statusId":3`, `"statusId":5`, 1) + "]", 2, "statusId must be a respondent return code"},
			{"missing field", "[" + good + "," + strings.Replace(good, `"eventId":1,`, "", 1) + "]", 2, "eventId must be a positive integer, not an empty field"},
			{"object as a field", "[" + strings.Replace(good, `"subsampleId":10`, `"subsampleId":{"id":10}`, 1) + "]", 1, "subsampleId must be a string or a number"},
			{"element not an object", "[" + good + ", 42]", 2, "must be an object"},
			{"broken element", "[" + good + ", {\"panelistId\": }]", 2, "not valid JSON"},
			{"missing comma", "[" + good + " " + good + "]", 2, "not valid JSON"},
			{"cut short", "[" + good + "," + good[:40], 2, "the file ends before the array is closed"},
			{"data after the array", "[" + good + "] []", 0, "more after the end of the array"},
			{"huge element", "[" + good + `, {"panelistId": "` + strings.Repeat("x", 2<<20) + `"}]`, 2, "larger than 1024 KiB"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := context.Background()
				s := open(t, db)
				report, err := s.ImportHistoryJSON(ctx, strings.NewReader(c.content), time.UTC)
				if !errors.Is(err, store.ErrInvalidImport) {
					t.Fatalf("err = %v, want ErrInvalidImport (report %+v)", err, report)
				}
				if len(report.Errors) != 1 || report.BadLines != 1 {
					t.Fatalf("report = %+v, want one bad element", report)
				}
				if got := report.Errors[0]; got.Line != c.wantLine || !strings.Contains(got.Reason, c.want) {
					t.Errorf("error = element %d %q, want element %d containing %q", got.Line, got.Reason, c.wantLine, c.want)
				}
				if n := historyCount(t, s); n != 0 {
					t.Errorf("CountHistory = %d after a rejected import", n)
				}
			})
		}
	})
}

func TestImportHistoryRecords(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		at := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
		recs := []domain.HistoryRecord{
			{PanelistID: "A", SubsampleID: 1, StatusID: 3, RegisteredAt: at, EventID: 9},
			{PanelistID: "A", SubsampleID: 1, StatusID: 3, RegisteredAt: at, EventID: 9},
			{PanelistID: "B", SubsampleID: 1, StatusID: 82, RegisteredAt: at, EventID: 9},
		}
		report, err := s.ImportHistory(ctx, recs)
		if err != nil {
			t.Fatal(err)
		}
		if report.Records != 3 || report.Inserted != 2 || report.Duplicates != 1 {
			t.Errorf("report = %+v, want 3 records, 2 inserted, 1 duplicate", report)
		}
	})
}

// Benchmark sizes: 100,000 records by default. HISTORY_BENCH_N sets
// another count (the 10,000,000-record run: HISTORY_BENCH_N=10000000 go
// test ./store/ -run XXX -bench History -benchtime 1x -timeout 0), and
// HISTORY_BENCH_ORDER=panelist writes the records panelist by panelist
// rather than in registration order.
func historyBenchConfig() (n int, byPanelist bool) {
	n = 100_000
	if v, err := strconv.Atoi(os.Getenv("HISTORY_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	return n, os.Getenv("HISTORY_BENCH_ORDER") == "panelist"
}

// generatedHistory is a CSV history file of n records over n/10 panelists,
// and the same records as values. In registration order the panelists come
// in no particular order, so inserts land all over the key.
func generatedHistory(n int, byPanelist bool) ([]byte, []domain.HistoryRecord) {
	var b bytes.Buffer
	b.WriteString(store.HistoryHeader + "\n")
	recs := make([]domain.HistoryRecord, 0, n)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	statuses := []int64{2, 3, 82, 83, 92, 98, 99}
	panelists := max(n/10, 1)
	for i := range n {
		p := (i * 7919) % panelists
		if byPanelist {
			p = i / 10
		}
		r := domain.HistoryRecord{
			PanelistID: fmt.Sprintf("PN%07d", p), SubsampleID: int64(100000 + i%5000), StatusID: statuses[i%len(statuses)],
			RegisteredAt: start.Add(time.Duration(i) * 1500 * time.Millisecond), EventID: int64(50000 + i%1000),
			CategoryID: int64(i % 300), ResearchTypeID: int64(i % 12),
		}
		recs = append(recs, r)
		fmt.Fprintf(&b, "%s,%d,%d,%s,%d,%d,%d\n", r.PanelistID, r.SubsampleID, r.StatusID,
			r.RegisteredAt.Format("2006-01-02T15:04:05.000"), r.EventID, r.CategoryID, r.ResearchTypeID)
	}
	return b.Bytes(), recs
}

// BenchmarkImportHistoryCSV imports generated records into a fresh
// database per iteration.
func BenchmarkImportHistoryCSV(b *testing.B) {
	n, byPanelist := historyBenchConfig()
	content, _ := generatedHistory(n, byPanelist)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		s, err := store.Open(ctx, filepath.Join(b.TempDir(), fmt.Sprintf("h%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		report, err := s.ImportHistoryCSV(ctx, bytes.NewReader(content), time.UTC)
		if err != nil || report.Inserted != n {
			b.Fatalf("import: %v, %+v", err, report)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkHistoryInsertFloor is what ImportHistoryCSV is measured against:
// the same records, already parsed, written by plain prepared inserts, one
// per record, in one transaction on a connection like the store's writer.
func BenchmarkHistoryInsertFloor(b *testing.B) {
	n, byPanelist := historyBenchConfig()
	_, recs := generatedHistory(n, byPanelist)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), fmt.Sprintf("h%d.db", i))
		s, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_time_integer_format=unix_milli&_inttotime=1")
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		b.StartTimer()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO history
			(panelist_id, subsample_id, status_id, registered_at, event_id, category_id, research_type_id)
			VALUES (?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if _, err := stmt.ExecContext(ctx, r.PanelistID, r.SubsampleID, r.StatusID, r.RegisteredAt, r.EventID, r.CategoryID, r.ResearchTypeID); err != nil {
				b.Fatal(err)
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
