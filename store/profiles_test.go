package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// profileCSV builds a CSV profile file: the header, then lines.
func profileCSV(lines ...string) string {
	return store.ProfileHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

// importProfiles imports a CSV profile file that must be valid, every
// question known.
func importProfiles(t *testing.T, s *store.Store, content string) store.ProfileImportReport {
	t.Helper()
	report, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(content), nil)
	if err != nil {
		t.Fatalf("import: %v (report %+v)", err, report)
	}
	return report
}

// profileOf returns a panelist's stored profile.
func profileOf(t *testing.T, s *store.Store, panelistID string) domain.Profile {
	t.Helper()
	p, err := s.ProfileOf(context.Background(), panelistID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func profileCount(t *testing.T, s *store.Store) int64 {
	t.Helper()
	n, err := s.CountProfiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// wantProfile fails unless p has exactly answers and birth.
func wantProfile(t *testing.T, name string, p domain.Profile, answers map[int64][]int64, birth time.Time) {
	t.Helper()
	if answers == nil {
		answers = map[int64][]int64{}
	}
	if !reflect.DeepEqual(p.Answers, answers) || !p.BirthDate.Equal(birth) {
		t.Errorf("%s: profile = %v born %v, want %v born %v", name, p.Answers, p.BirthDate, answers, birth)
	}
}

func TestImportProfilesCSV(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		report := importProfiles(t, s, profileCSV(
			"P1,-1,1985-03-17",
			"P1,43,101",
			"P1,7064,301",
			"P1,7064,303",
			" P2 , 43 , 102 ", // spaces around fields are trimmed
			"P2,96,220",
		))
		want := store.ProfileImportReport{Records: 6, Inserted: 6}
		if report.Records != want.Records || report.Inserted != want.Inserted || report.Replaced != 0 || report.BadLines != 0 || report.UnknownQuestions != 0 {
			t.Errorf("report = %+v, want %+v", report, want)
		}
		wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{43: {101}, 7064: {301, 303}}, date(1985, 3, 17))
		wantProfile(t, "P2", profileOf(t, s, "P2"), map[int64][]int64{43: {102}, 96: {220}}, time.Time{})
		if n := profileCount(t, s); n != 2 {
			t.Errorf("CountProfiles = %d, want 2", n)
		}
	})
}

// TestProfilesMigrationReachesNewerDatabases opens a database migrated
// before 005_profiles existed but after 006: the profiles still come.
func TestProfilesMigrationReachesNewerDatabases(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		target := d.Target(t)
		s, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		db := storetest.Raw(t, target)
		for _, q := range []string{`DROP TABLE profiles`, `DROP TABLE profile_imports`, `DELETE FROM schema_version WHERE version = 5`} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		s = openAt(t, target)
		importProfiles(t, s, profileCSV("P1,43,101"))
		if n := profileCount(t, s); n != 1 {
			t.Errorf("CountProfiles = %d after reopening, want 1", n)
		}
	})
}

func TestProfileOfUnknownPanelistIsEmpty(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, profileCSV("P1,43,101"))
		p, err := s.ProfileOf(context.Background(), "nobody")
		if err != nil || p.Answers == nil || len(p.Answers) != 0 || !p.BirthDate.IsZero() {
			t.Errorf("ProfileOf(nobody) = %+v, %v; want an empty profile and no error", p, err)
		}
	})
}

func TestImportProfilesCSVAcceptedEncodings(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		lines := []string{"P1,43,101", "P1,-1,1990-01-31"}
		cases := acceptedEncodings(profileCSV, lines,
			`"panelistId","questionId","value"`+"\n"+`"P1","43","101"`+"\n"+lines[1]+"\n")
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t, db)
				report := importProfiles(t, s, c.content)
				if report.Records != 2 || report.Inserted != 2 {
					t.Errorf("report = %+v, want 2 records inserted", report)
				}
				wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{43: {101}}, date(1990, 1, 31))
			})
		}
	})
}

func TestImportProfilesCSVRejectsBadFiles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		future := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
		cases := []struct {
			name     string
			content  string
			wantLine int
			want     string // in the reason
		}{
			{"empty file", "", 1, "no records: the file is empty"},
			{"header only", store.ProfileHeader + "\n", 1, "no records: the file has a header but no lines"},
			{"wrong header", "panelist,question,answer\nP1,43,101\n", 1, "the first line must be the header " + store.ProfileHeader},
			{"header in another case", "panelistid,questionid,value\nP1,43,101\n", 1, "must be the header"},
			{"no header", "P1,43,101\n", 1, "must be the header"},
			{"too few columns", profileCSV("P1,43,101", "P1,43"), 3, "expected 3 columns (panelistId,questionId,value), found 2"},
			{"too many columns", profileCSV("P1,43,101,7"), 2, "found 4"},
			{"bare quote", profileCSV(`P"1,43,101`), 2, "a quote"},
			{"empty panelist", profileCSV(",43,101"), 2, "panelistId is empty"},
			{"control character in panelist", profileCSV("P\x011,43,101"), 2, "control character"},
			{"panelist too long", profileCSV(strings.Repeat("x", 129) + ",43,101"), 2, "panelistId is 129 bytes long; at most 128"},
			{"question not a number", profileCSV("P1,gender,101"), 2, `questionId must be -1 (the age question) or a positive integer, not "gender"`},
			{"question 0", profileCSV("P1,0,101"), 2, "questionId must be -1"},
			{"question -2", profileCSV("P1,-2,101"), 2, "questionId must be -1"},
			{"question not whole", profileCSV("P1,43.0,101"), 2, "questionId"},
			{"negative answer id", profileCSV("P1,43,-101"), 2, `value must be an answer id (a positive integer) for question 43, not "-101"`},
			{"answer id 0", profileCSV("P1,43,0"), 2, "value must be an answer id"},
			{"answer id text", profileCSV("P1,43,Male"), 2, "value must be an answer id"},
			{"empty answer", profileCSV("P1,43,"), 2, "not an empty field"},
			{"impossible date", profileCSV("P1,-1,2026-02-30"), 2, `value must be a birth date like 1985-03-17 for question -1 (agerange), not "2026-02-30"`},
			{"two-digit year", profileCSV("P1,-1,26-01-01"), 2, "must be a birth date"},
			{"day first", profileCSV("P1,-1,17-03-1985"), 2, "must be a birth date"},
			{"date and time", profileCSV("P1,-1,1985-03-17T00:00:00"), 2, "must be a birth date"},
			{"birth date in the future", profileCSV("P1,-1," + future), 2, "birth date " + future + " is in the future"},
			{"birth date before 1900", profileCSV("P1,-1,1899-12-31"), 2, "birth date 1899-12-31 is before 1900-01-01"},
			{"two birth dates in a row", profileCSV("P1,-1,1985-03-17", "P1,-1,1986-03-17"), 3, `panelist "P1" has another birth date, 1985-03-17, earlier in the file`},
			{"two birth dates far apart", profileCSV("P1,-1,1985-03-17", "P2,43,101", "P1,-1,1986-03-17"), 4, "another birth date, 1985-03-17"},
			{"every bad line listed", profileCSV("P1,43,101", "P1,x,1", "P2,43,101", "P3,-1,1985-13-01"), 3, "questionId"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t, db)
				report, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(c.content), nil)
				if !errors.Is(err, store.ErrInvalidImport) {
					t.Fatalf("err = %v, want ErrInvalidImport (report %+v)", err, report)
				}
				if len(report.Errors) == 0 || report.Errors[0].Line != c.wantLine || !strings.Contains(report.Errors[0].Reason, c.want) {
					t.Fatalf("errors = %+v, want line %d with %q", report.Errors, c.wantLine, c.want)
				}
				if report.BadLines != len(report.Errors) {
					t.Errorf("badLines = %d, errors listed %d", report.BadLines, len(report.Errors))
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("line %d: ", c.wantLine)) {
					t.Errorf("error %q does not name line %d", err, c.wantLine)
				}
				if report.Inserted != 0 || report.Replaced != 0 {
					t.Errorf("a rejected file reports writes: %+v", report)
				}
				if n := profileCount(t, s); n != 0 {
					t.Errorf("a rejected file wrote %d profiles", n)
				}
			})
		}
	})
}

func TestImportProfilesEveryBadLineListed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		report, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(profileCSV(
			"P1,43,101", "P1,x,1", "P2,43,101", "P3,-1,1985-13-01", "P4,43,-1", "P5,-1,1980-01-01", "P5,-1,1981-01-01")), nil)
		if !errors.Is(err, store.ErrInvalidImport) || !strings.Contains(err.Error(), "4 bad lines; line 3: questionId") {
			t.Errorf("err = %v", err)
		}
		var lines []int
		for _, e := range report.Errors {
			lines = append(lines, e.Line)
		}
		if !slices.Equal(lines, []int{3, 5, 6, 8}) || report.BadLines != 4 || report.Records != 3 {
			t.Errorf("report = %+v, want bad lines 3, 5, 6, 8 and 3 valid records", report)
		}
	})
}

func TestImportProfilesUnknownQuestionsAreAcceptedWithAWarning(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		library := map[int64]bool{43: true, 96: true}
		known := func(id int64) bool { return library[id] }
		report, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(profileCSV(
			"P1,-1,1970-01-01", // the age question is known, whatever the library says
			"P1,43,101",
			"P1,555,1",
			"P1,555,2",
			"P2,777,9",
		)), known)
		if err != nil {
			t.Fatal(err)
		}
		if report.Records != 5 || report.Inserted != 5 || report.UnknownQuestions != 3 || !slices.Equal(report.UnknownQuestionIDs, []int64{555, 777}) {
			t.Errorf("report = %+v, want 5 records written, 3 of unknown questions 555 and 777", report)
		}
		wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{43: {101}, 555: {1, 2}}, date(1970, 1, 1))
	})
}

func TestImportProfilesReplacesEarlierAnswersToTheSameQuestion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, profileCSV("P1,-1,1985-03-17", "P1,5,1", "P1,5,2", "P1,6,7", "P2,5,1"))
		report := importProfiles(t, s, profileCSV("P1,5,3"))
		if report.Records != 1 || report.Inserted != 1 || report.Replaced != 2 {
			t.Errorf("report = %+v, want 1 inserted, 2 replaced", report)
		}
		wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{5: {3}, 6: {7}}, date(1985, 3, 17))
		wantProfile(t, "P2", profileOf(t, s, "P2"), map[int64][]int64{5: {1}}, time.Time{})

		// A new birth date replaces the old one; an answer given again is
		// replaced by itself.
		report = importProfiles(t, s, profileCSV("P1,-1,1986-04-18", "P1,6,7", "P3,5,4"))
		if report.Inserted != 3 || report.Replaced != 2 {
			t.Errorf("report = %+v, want 3 inserted, 2 replaced", report)
		}
		wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{5: {3}, 6: {7}}, date(1986, 4, 18))
		if n := profileCount(t, s); n != 3 {
			t.Errorf("CountProfiles = %d, want 3", n)
		}
	})
}

func TestImportProfilesAnswersOfOneFileAddUp(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		cases := []struct {
			name  string
			lines []string
			want  map[int64][]int64
			birth time.Time
		}{
			{"multi-punch on consecutive lines", []string{"P1,5,2", "P1,5,1", "P1,5,3"}, map[int64][]int64{5: {1, 2, 3}}, time.Time{}},
			{"multi-punch far apart", []string{"P1,5,1", "P2,5,9", "P1,6,4", "P3,5,9", "P1,5,2"}, map[int64][]int64{5: {1, 2}, 6: {4}}, time.Time{}},
			{"a line given twice", []string{"P1,5,1", "P1,5,1", "P2,5,1", "P1,5,1"}, map[int64][]int64{5: {1}}, time.Time{}},
			{"the same birth date twice", []string{"P1,-1,2000-02-29", "P2,5,1", "P1,-1,2000-02-29"}, map[int64][]int64{}, date(2000, 2, 29)},
		}
		for _, c := range cases {
			for _, earlier := range []bool{false, true} {
				name := c.name
				if earlier {
					name += ", over an earlier profile"
				}
				t.Run(name, func(t *testing.T) {
					s := open(t, db)
					if earlier {
						importProfiles(t, s, profileCSV("P1,5,8", "P1,-1,1950-05-05", "P0,5,1"))
					}
					importProfiles(t, s, profileCSV(c.lines...))
					// The earlier profile's answers to other questions stay.
					want, birth := maps.Clone(c.want), c.birth
					if _, ok := want[5]; earlier && !ok {
						want[5] = []int64{8}
					}
					if earlier && birth.IsZero() {
						birth = date(1950, 5, 5)
					}
					wantProfile(t, "P1", profileOf(t, s, "P1"), want, birth)
				})
			}
		}
	})
}

// TestImportProfilesAnswersAddUpAcrossBatches spreads one panelist's
// answers over a file with more panelists than one write batch between
// them.
func TestImportProfilesAnswersAddUpAcrossBatches(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		lines := []string{"Z1,5,1", "Z1,-1,1980-01-01"}
		for i := range 300 {
			lines = append(lines, fmt.Sprintf("A%03d,5,%d", i, i+1))
		}
		lines = append(lines, "Z1,5,2", "Z1,6,3", "Z1,-1,1980-01-01")
		report := importProfiles(t, s, profileCSV(lines...))
		if report.Records != 305 || report.Inserted != 304 {
			t.Errorf("report = %+v, want 305 records, 304 inserted", report)
		}
		wantProfile(t, "Z1", profileOf(t, s, "Z1"), map[int64][]int64{5: {1, 2}, 6: {3}}, date(1980, 1, 1))

		_, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(profileCSV(append(lines, "Z1,-1,1981-01-01")...)), nil)
		if !errors.Is(err, store.ErrInvalidImport) || !strings.Contains(err.Error(), fmt.Sprintf("line %d: ", len(lines)+2)) {
			t.Errorf("a second birth date far down the file: %v", err)
		}
	})
}

func TestImportProfilesAllOrNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, profileCSV("P0001,5,1", "P0001,-1,1985-03-17"))
		lines := make([]string, 0, 1001)
		for i := range 1000 {
			lines = append(lines, fmt.Sprintf("P%04d,5,%d", i, 2+i%7))
		}
		lines = append(lines, "P9999,5,x")
		report, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(profileCSV(lines...)), nil)
		if !errors.Is(err, store.ErrInvalidImport) {
			t.Fatalf("err = %v, want the file rejected", err)
		}
		if report.BadLines != 1 || report.Errors[0].Line != 1002 || report.Records != 1000 || report.Inserted != 0 || report.Replaced != 0 {
			t.Errorf("report = %+v, want line 1002 bad, 1000 valid records, nothing written", report)
		}
		if n := profileCount(t, s); n != 1 {
			t.Errorf("CountProfiles = %d, want the one earlier profile", n)
		}
		wantProfile(t, "P0001", profileOf(t, s, "P0001"), map[int64][]int64{5: {1}}, date(1985, 3, 17))

		// The store takes the next file as if nothing had happened.
		importProfiles(t, s, profileCSV("P0002,5,4"))
		if n := profileCount(t, s); n != 2 {
			t.Errorf("CountProfiles = %d after a good import, want 2", n)
		}
	})
}

func TestImportProfilesCapsAnswersPerPanelist(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		var b strings.Builder
		b.WriteString(store.ProfileHeader + "\n")
		for i := range 10_001 {
			fmt.Fprintf(&b, "P1,%d,1\n", 1+i)
		}
		_, err := s.ImportProfilesCSV(context.Background(), strings.NewReader(b.String()), nil)
		if !errors.Is(err, store.ErrInvalidImport) || !strings.Contains(err.Error(), `line 10002: panelist "P1" has more than 10000 answers`) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestImportProfilesJSON(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		report, err := s.ImportProfilesJSON(context.Background(), strings.NewReader(`[
		{"panelistId": "P1", "questionId": -1, "value": "1985-03-17"},
		{"panelistId": "P1", "questionId": 43, "value": 101},
		{"panelistId": "P1", "questionId": "7064", "value": "301"},
		{"panelistId": "P1", "questionId": 7064, "value": 303}
	]`), nil)
		if err != nil || report.Records != 4 || report.Inserted != 4 {
			t.Fatalf("import = %+v, %v", report, err)
		}
		wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{43: {101}, 7064: {301, 303}}, date(1985, 3, 17))

		cases := []struct {
			name     string
			content  string
			wantLine int
			want     string
		}{
			{"empty file", ``, 0, "no records: the file is empty"},
			{"not an array", `{"panelistId": "P1"}`, 0, "must be a JSON array"},
			{"empty array", `[]`, 0, "no records: the array is empty"},
			{"bad value", `[{"panelistId": "P2", "questionId": 43, "value": 101}, {"panelistId": "P2", "questionId": 43, "value": -5}]`, 2, "value must be an answer id"},
			{"boolean field", `[{"panelistId": "P2", "questionId": true, "value": 1}]`, 1, "questionId must be a string or a number"},
			{"element not an object", `[1]`, 1, "must be an object"},
			{"cut short", `[{"panelistId": "P2", "questionId": 43, "value": 1},`, 2, "ends before the array is closed"},
			{"broken JSON", `[{"panelistId": "P2" "questionId": 43}]`, 1, "not valid JSON"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				report, err := s.ImportProfilesJSON(context.Background(), strings.NewReader(c.content), nil)
				if !errors.Is(err, store.ErrInvalidImport) {
					t.Fatalf("err = %v, want the file rejected", err)
				}
				if report.Errors[0].Line != c.wantLine || !strings.Contains(report.Errors[0].Reason, c.want) {
					t.Errorf("errors = %+v, want element %d with %q", report.Errors, c.wantLine, c.want)
				}
				if c.wantLine > 0 && !strings.Contains(err.Error(), fmt.Sprintf("element %d: ", c.wantLine)) {
					t.Errorf("error %q does not name element %d", err, c.wantLine)
				}
			})
		}
		if n := profileCount(t, s); n != 1 {
			t.Errorf("rejected files changed the profiles: %d", n)
		}
	})
}

func TestImportProfilesFromValues(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		records := []domain.ProfileRecord{
			{PanelistID: "P1", QuestionID: domain.AgeRangeQuestionID, Value: "1999-12-31"},
			{PanelistID: "P1", QuestionID: 43, Value: "102"},
		}
		report, err := s.ImportProfiles(context.Background(), slices.Values(records), nil)
		if err != nil || report.Inserted != 2 {
			t.Fatalf("import = %+v, %v", report, err)
		}
		wantProfile(t, "P1", profileOf(t, s, "P1"), map[int64][]int64{43: {102}}, date(1999, 12, 31))

		records = append(records, domain.ProfileRecord{PanelistID: "P2", QuestionID: 0, Value: "1"})
		if _, err := s.ImportProfiles(context.Background(), slices.Values(records), nil); !errors.Is(err, store.ErrInvalidImport) || !strings.Contains(err.Error(), "record 3: questionId") {
			t.Errorf("a bad record: %v", err)
		}
	})
}

// TestImportProfilesMatchesAModel imports random files, in random order
// and with repeated lines, one after the other into one store, and
// compares the store with what the rules say it must hold: each
// (panelist, question) pair of a file replaces that pair's answers with the
// file's, the other pairs stay.
func TestImportProfilesMatchesAModel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		rng := rand.New(rand.NewPCG(7, 11))
		type key struct {
			panelist string
			question int64
		}
		model := map[key]map[int64]bool{} // the birth date is question -1, its one answer yyyymmdd
		for round := range 12 {
			panelists := 1 + rng.IntN(150)
			file := map[key]map[int64]bool{}
			births := map[string]int64{}
			var lines []string
			for range 1 + rng.IntN(600) {
				p := fmt.Sprintf("M%03d", rng.IntN(panelists))
				if rng.IntN(8) == 0 {
					birth, ok := births[p]
					if !ok {
						birth = int64(1950+rng.IntN(50))*10000 + int64(1+rng.IntN(12))*100 + int64(1+rng.IntN(28))
						births[p] = birth
					}
					lines = append(lines, fmt.Sprintf("%s,-1,%d-%02d-%02d", p, birth/10000, birth/100%100, birth%100))
					file[key{p, -1}] = map[int64]bool{birth: true}
					continue
				}
				k := key{p, int64(1 + rng.IntN(6))}
				a := int64(1 + rng.IntN(5))
				if file[k] == nil {
					file[k] = map[int64]bool{}
				}
				file[k][a] = true
				lines = append(lines, fmt.Sprintf("%s,%d,%d", k.panelist, k.question, a))
			}
			inserted, replaced := 0, 0
			for k, answers := range file {
				inserted += len(answers)
				replaced += len(model[k])
				model[k] = answers
			}
			report := importProfiles(t, s, profileCSV(lines...))
			if report.Records != len(lines) || report.Inserted != inserted || report.Replaced != replaced {
				t.Fatalf("round %d: report = %+v, want %d records, %d inserted, %d replaced", round, report, len(lines), inserted, replaced)
			}
		}
		want := map[string]domain.Profile{}
		for k, answers := range model {
			p, ok := want[k.panelist]
			if !ok {
				p = domain.Profile{Answers: map[int64][]int64{}}
			}
			ids := slices.Sorted(maps.Keys(answers))
			if k.question == -1 {
				p.BirthDate = date(int(ids[0]/10000), time.Month(ids[0]/100%100), int(ids[0]%100))
			} else {
				p.Answers[k.question] = ids
			}
			want[k.panelist] = p
		}
		got := 0
		err := s.ScanProfiles(context.Background(), func(id string, p domain.Profile) error {
			got++
			wantProfile(t, id, p, want[id].Answers, want[id].BirthDate)
			wantProfile(t, id+" (ProfileOf)", profileOf(t, s, id), want[id].Answers, want[id].BirthDate)
			return nil
		})
		if err != nil || got != len(want) {
			t.Errorf("scanned %d panelists (%v), want %d", got, err, len(want))
		}
	})
}

func TestScanProfiles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		// More panelists than one chunk (1000), and a multiple of it, given in
		// no particular order.
		for _, n := range []int{0, 1, 2000, 2345} {
			t.Run(strconv.Itoa(n), func(t *testing.T) {
				s := open(t, db)
				if n > 0 {
					var b strings.Builder
					b.WriteString(store.ProfileHeader + "\n")
					for i := range n {
						p := (i * 7919) % n
						fmt.Fprintf(&b, "S%05d,43,%d\nS%05d,-1,19%02d-01-01\nS%05d,7064,%d\nS%05d,7064,%d\n", p, 1+p%2, p, p%100, p, 300+p%3, p, 310)
					}
					importProfiles(t, s, b.String())
				}
				var ids []string
				err := s.ScanProfiles(context.Background(), func(id string, p domain.Profile) error {
					k, _ := strconv.Atoi(id[1:])
					want := map[int64][]int64{43: {int64(1 + k%2)}, 7064: {int64(300 + k%3), 310}}
					if !maps.EqualFunc(p.Answers, want, slices.Equal) || !p.BirthDate.Equal(date(1900+k%100, 1, 1)) {
						t.Fatalf("%s: %v born %v, want %v born 19%02d-01-01", id, p.Answers, p.BirthDate, want, k%100)
					}
					ids = append(ids, id)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if len(ids) != n || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != n {
					t.Errorf("scanned %d panelists (sorted: %v), want %d distinct in order", len(ids), slices.IsSorted(ids), n)
				}
				if c := profileCount(t, s); c != int64(n) {
					t.Errorf("CountProfiles = %d, want %d", c, n)
				}
			})
		}
	})
}

func TestScanProfilesStopsOnError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, profileCSV("P1,43,1", "P2,43,1", "P3,43,1"))
		stop := errors.New("stop")
		calls := 0
		err := s.ScanProfiles(context.Background(), func(string, domain.Profile) error {
			calls++
			if calls == 2 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 2 {
			t.Errorf("ScanProfiles = %v after %d calls, want fn's error after 2", err, calls)
		}
		// On PostgreSQL the stopped scan closed its connection: the
		// store's reads go on over the others.
		for range 8 {
			n := 0
			if err := s.ScanProfiles(context.Background(), func(string, domain.Profile) error { n++; return nil }); err != nil || n != 3 {
				t.Fatalf("ScanProfiles after a stopped one = %v after %d calls, want 3", err, n)
			}
		}
	})
}

func TestLibraryQuestionIDs(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		ids, err := s.LibraryQuestionIDs(context.Background())
		if err != nil || len(ids) != 0 {
			t.Fatalf("empty library: %v, %v", ids, err)
		}
	})
}

// profileBenchConfig reads the size of the profile benchmarks:
// PROFILE_BENCH_N panelists (default 10,000) of about ten answers each;
// PROFILE_BENCH_ORDER=shuffled gives them out of id order.
func profileBenchConfig() (int, bool) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("PROFILE_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	return n, os.Getenv("PROFILE_BENCH_ORDER") == "shuffled"
}

// generatedProfiles writes a CSV profile file of n panelists with ten
// answers each: a birth date, six single-punch questions and a
// three-answer multi-punch one.
func generatedProfiles(n int, shuffled bool) []byte {
	var b bytes.Buffer
	b.Grow(n * 180)
	b.WriteString(store.ProfileHeader + "\n")
	for i := range n {
		p := i
		if shuffled {
			p = (i * 7919) % n
		}
		id := fmt.Sprintf("P%07d", p)
		fmt.Fprintf(&b, "%s,-1,%04d-%02d-%02d\n", id, 1940+p%60, 1+p%12, 1+p%28)
		for q, question := range []int{43, 96, 633, 2189, 14785, 20040} {
			fmt.Fprintf(&b, "%s,%d,%d\n", id, question, 100+(p+q)%7)
		}
		for k := range 3 {
			fmt.Fprintf(&b, "%s,7064,%d\n", id, 300+(p+k)%5+k*5)
		}
	}
	return b.Bytes()
}

// BenchmarkImportProfilesCSV imports generated profiles into a fresh
// database per iteration.
func BenchmarkImportProfilesCSV(b *testing.B) {
	n, shuffled := profileBenchConfig()
	content := generatedProfiles(n, shuffled)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), fmt.Sprintf("p%d.db", i))
		s, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		report, err := s.ImportProfilesCSV(ctx, bytes.NewReader(content), nil)
		if err != nil || report.Records != 10*n {
			b.Fatalf("import: %v, %+v", err, report)
		}
		b.StopTimer()
		s.Close()
		if st, err := os.Stat(path); err == nil {
			b.ReportMetric(float64(st.Size())/float64(10*n), "bytes/record")
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(10*n*b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkScanProfiles scans every profile of a database filled once.
func BenchmarkScanProfiles(b *testing.B) {
	n, shuffled := profileBenchConfig()
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "p.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ImportProfilesCSV(ctx, bytes.NewReader(generatedProfiles(n, shuffled)), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		seen := 0
		err := s.ScanProfiles(ctx, func(string, domain.Profile) error { seen++; return nil })
		if err != nil || seen != n {
			b.Fatalf("scan: %v, %d panelists", err, seen)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "panelists/s")
}

// BenchmarkReplaceProfilesCSV imports generated profiles again over the
// same ones: every panelist is looked up and every answer replaced.
func BenchmarkReplaceProfilesCSV(b *testing.B) {
	n, shuffled := profileBenchConfig()
	content := generatedProfiles(n, shuffled)
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "p.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ImportProfilesCSV(ctx, bytes.NewReader(content), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		report, err := s.ImportProfilesCSV(ctx, bytes.NewReader(content), nil)
		if err != nil || report.Replaced != 10*n {
			b.Fatalf("import: %v, %+v", err, report)
		}
	}
	b.ReportMetric(float64(10*n*b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestInstancesImportProfilesOneAfterTheOther: two instances on one
// PostgreSQL database importing profiles of the same panelists at once,
// each answering another question, leave every panelist both answers: the
// second import merges with what the first wrote.
func TestInstancesImportProfilesOneAfterTheOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := storetest.PostgresURL(t)
	a, b := openAt(t, target), openAt(t, target)
	file := func(question int) string {
		var lines []string
		for i := range 2000 {
			lines = append(lines, fmt.Sprintf("P%04d,%d,%d", i, question, 100+question))
		}
		return profileCSV(lines...)
	}
	var wg sync.WaitGroup
	for i, s := range []*store.Store{a, b} {
		wg.Go(func() {
			if _, err := s.ImportProfilesCSV(ctx, strings.NewReader(file(41+i)), nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	incomplete := 0
	err := a.ScanProfiles(ctx, func(id string, p domain.Profile) error {
		if len(p.Answers[41]) != 1 || len(p.Answers[42]) != 1 {
			incomplete++
		}
		return nil
	})
	if err != nil || incomplete > 0 {
		t.Errorf("%d panelists lack one import's answer (%v); want both answers for each", incomplete, err)
	}
}
