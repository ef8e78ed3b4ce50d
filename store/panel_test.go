package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// panelCSV builds a CSV panel file: the header, then lines.
func panelCSV(lines ...string) string {
	return store.PanelHeader + "\n" + strings.Join(lines, "\n") + "\n"
}

// importPanel imports a CSV panel file that must be valid.
func importPanel(t *testing.T, s *store.Store, content string) store.PanelImportReport {
	t.Helper()
	report, err := s.ImportPanelCSV(context.Background(), strings.NewReader(content))
	if err != nil {
		t.Fatalf("import: %v (report %+v)", err, report)
	}
	return report
}

// panelOf returns a panelist's row of the panel, or a zero one with the
// error.
func panelOf(t *testing.T, s *store.Store, panelistID string) domain.PanelMember {
	t.Helper()
	m, err := s.PanelOf(context.Background(), panelistID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	return m
}

func panelCount(t *testing.T, s *store.Store) int64 {
	t.Helper()
	n, err := s.CountPanel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wantReport fails unless r read records and wrote written rows,
// replacing replaced, with no bad line.
func wantReport(t *testing.T, name string, r store.PanelImportReport, records, written, replaced int) {
	t.Helper()
	if r.Records != records || r.Written != written || r.Replaced != replaced || r.BadLines != 0 || len(r.Errors) != 0 {
		t.Errorf("%s: report = %+v, want %d records, %d written, %d replaced", name, r, records, written, replaced)
	}
}

func TestPanelHeaderIsExact(t *testing.T) {
	t.Parallel()
	if store.PanelHeader != "panelistId,country,locale" {
		t.Errorf("PanelHeader = %q", store.PanelHeader)
	}
}

func TestImportPanelCSV(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		report := importPanel(t, s, panelCSV(
			"P1,FR,fr-fr",
			"P2,ca,FR_CA", // any case, _ for -
			" P3 , us , ", // spaces around fields are dropped; no locale
			"P4,GB,",
		))
		wantReport(t, "first import", report, 4, 4, 0)
		for _, want := range []domain.PanelMember{
			{PanelistID: "P1", Country: "FR", Locale: "fr-fr"},
			{PanelistID: "P2", Country: "CA", Locale: "fr-ca"},
			{PanelistID: "P3", Country: "US"},
			{PanelistID: "P4", Country: "GB"},
		} {
			if got := panelOf(t, s, want.PanelistID); got != want {
				t.Errorf("PanelOf(%s) = %+v, want %+v", want.PanelistID, got, want)
			}
		}
		if n := panelCount(t, s); n != 4 {
			t.Errorf("CountPanel = %d, want 4", n)
		}
		m, err := s.PanelOf(context.Background(), "nobody")
		if !errors.Is(err, store.ErrNotFound) || m != (domain.PanelMember{}) {
			t.Errorf("PanelOf(nobody) = %+v, %v; want ErrNotFound", m, err)
		}
	})
}

func TestImportPanelCSVAcceptedEncodings(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		lines := []string{"P1,FR,fr-fr", "P2,DE,"}
		cases := acceptedEncodings(panelCSV, lines,
			`"panelistId","country","locale"`+"\n"+`"P1","FR","fr-fr"`+"\n"+lines[1]+"\n")
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t, db)
				wantReport(t, c.name, importPanel(t, s, c.content), 2, 2, 0)
				if got, want := panelOf(t, s, "P1"), (domain.PanelMember{PanelistID: "P1", Country: "FR", Locale: "fr-fr"}); got != want {
					t.Errorf("P1 = %+v, want %+v", got, want)
				}
				if got, want := panelOf(t, s, "P2"), (domain.PanelMember{PanelistID: "P2", Country: "DE"}); got != want {
					t.Errorf("P2 = %+v, want %+v", got, want)
				}
			})
		}
	})
}

func TestImportPanelCSVRejectsBadFiles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		cases := []struct {
			name     string
			content  string
			wantLine int
			want     string // in the reason
		}{
			{"empty file", "", 1, "no records: the file is empty; its first line must be the header panelistId,country,locale"},
			{"header only", store.PanelHeader + "\n", 1, "no records: the file has a header but no lines"},
			{"wrong header", "panelistId,country,language\nP1,FR,fr-fr\n", 1, "the first line must be the header " + store.PanelHeader},
			{"header in another case", "PanelistId,Country,Locale\nP1,FR,fr-fr\n", 1, "must be the header"},
			{"no header", "P1,FR,fr-fr\n", 1, "must be the header"},
			{"too few columns", panelCSV("P1,FR,fr-fr", "P2,FR"), 3, "expected 3 columns (panelistId,country,locale), found 2"},
			{"too many columns", panelCSV("P1,FR,fr-fr,x"), 2, "found 4"},
			{"empty panelist", panelCSV(",FR,fr-fr"), 2, "panelistId is empty"},
			{"panelist too long", panelCSV(strings.Repeat("x", 129) + ",FR,"), 2, "panelistId is 129 bytes long; at most 128"},
			{"control character in panelist", panelCSV("P\x011,FR,"), 2, "panelistId holds control characters"},
			{"empty country", panelCSV("P1,,fr-fr"), 2, "country is empty"},
			{"country of three letters", panelCSV("P1,FRA,"), 2, `country "FRA" is not a two-letter country code such as FR`},
			{"country as a number", panelCSV("P1,33,"), 2, `country "33" is not a two-letter country code`},
			{"country name", panelCSV("P1,France,"), 2, "is not a two-letter country code"},
			{"locale without a country", panelCSV("P1,FR,fr"), 2, `locale "fr" is not a locale in the language-country form such as fr-ca`},
			{"locale with a region number", panelCSV("P1,MX,es-419"), 2, `locale "es-419" is not a locale`},
			{"locale of another country", panelCSV("P1,FR,fr-ca"), 2, "locale fr-ca is of country CA, not of the panelist's FR"},
			{"locale of another country in another case", panelCSV("P1,be,NL_NL"), 2, "locale nl-nl is of country NL, not of the panelist's BE"},
			{"every problem of a line", panelCSV(",F,xx"), 2, "panelistId is empty; country"},
			{"bad line after good ones", panelCSV("P1,FR,fr-fr", "P2,DE,de-de", "P3,XX1,"), 4, "country"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t, db)
				importPanel(t, s, panelCSV("P1,IT,it-it", "P9,ES,"))
				report, err := s.ImportPanelCSV(context.Background(), strings.NewReader(c.content))
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
				if report.Written != 0 || report.Replaced != 0 {
					t.Errorf("a rejected file reports writes: %+v", report)
				}
				// Nothing written, the earlier rows kept.
				if n := panelCount(t, s); n != 2 {
					t.Errorf("CountPanel = %d after a rejected file, want the 2 earlier rows", n)
				}
				if got := panelOf(t, s, "P1"); got.Country != "IT" || got.Locale != "it-it" {
					t.Errorf("P1 = %+v after a rejected file, want the earlier IT, it-it", got)
				}
			})
		}
	})
}

func TestImportPanelEveryBadLineListed(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		report, err := s.ImportPanelCSV(context.Background(), strings.NewReader(panelCSV(
			"P1,FR,fr-fr", "P2,XX1,", "P3,DE,", "P4,FR,de-de", ",US,en-us", "P6,US,en-us")))
		if !errors.Is(err, store.ErrInvalidImport) || !strings.Contains(err.Error(), "3 bad lines; line 3: country") {
			t.Errorf("err = %v", err)
		}
		var lines []int
		for _, e := range report.Errors {
			lines = append(lines, e.Line)
		}
		if !slices.Equal(lines, []int{3, 5, 6}) || report.BadLines != 3 || report.Records != 3 {
			t.Errorf("report = %+v, want bad lines 3, 5, 6 and 3 valid records", report)
		}
	})
}

func TestImportPanelListsAtMost100BadLines(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		lines := make([]string, 150)
		for i := range lines {
			lines[i] = fmt.Sprintf("P%d,F%d,", i, i)
		}
		report, err := s.ImportPanelCSV(context.Background(), strings.NewReader(panelCSV(lines...)))
		if !errors.Is(err, store.ErrInvalidImport) || report.BadLines != 150 || len(report.Errors) != 100 || report.Errors[99].Line != 101 {
			t.Errorf("report = %d bad lines, %d listed, %v", report.BadLines, len(report.Errors), err)
		}
	})
}

func TestImportPanelLaterRowReplacesEarlierOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		// More lines than one write batch (64) between a panelist's lines.
		var far []string
		far = append(far, "Z1,FR,fr-fr")
		for i := range 200 {
			far = append(far, fmt.Sprintf("A%03d,DE,de-de", i))
		}
		far = append(far, "Z1,CA,en-ca")
		cases := []struct {
			name     string
			lines    []string
			written  int
			want     domain.PanelMember
			earlierP bool // import an earlier row of P1 first
		}{
			{"on the next line", []string{"P1,FR,fr-fr", "P1,BE,nl-be"}, 1, domain.PanelMember{PanelistID: "P1", Country: "BE", Locale: "nl-be"}, false},
			{"further down", []string{"P1,FR,fr-fr", "P2,DE,", "P0,US,", "P1,BE,"}, 3, domain.PanelMember{PanelistID: "P1", Country: "BE"}, false},
			{"over an earlier import", []string{"P1,CH,de-ch", "P2,DE,", "P1,CH,fr-ch"}, 2, domain.PanelMember{PanelistID: "P1", Country: "CH", Locale: "fr-ch"}, true},
			{"the locale dropped", []string{"P1,FR,"}, 1, domain.PanelMember{PanelistID: "P1", Country: "FR"}, true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := open(t, db)
				replaced := 0
				if c.earlierP {
					importPanel(t, s, panelCSV("P1,IT,it-it", "Q1,IT,"))
					replaced = 1
				}
				wantReport(t, c.name, importPanel(t, s, panelCSV(c.lines...)), len(c.lines), c.written, replaced)
				if got := panelOf(t, s, "P1"); got != c.want {
					t.Errorf("P1 = %+v, want %+v", got, c.want)
				}
			})
		}
		t.Run("across batches", func(t *testing.T) {
			for _, earlier := range []bool{false, true} {
				s := open(t, db)
				replaced := 0
				if earlier {
					importPanel(t, s, panelCSV("Z1,IT,", "A100,IT,", "B1,IT,"))
					replaced = 2
				}
				wantReport(t, "across batches", importPanel(t, s, panelCSV(far...)), 202, 201, replaced)
				if got, want := panelOf(t, s, "Z1"), (domain.PanelMember{PanelistID: "Z1", Country: "CA", Locale: "en-ca"}); got != want {
					t.Errorf("Z1 = %+v, want %+v", got, want)
				}
			}
		})
		t.Run("a second import", func(t *testing.T) {
			s := open(t, db)
			importPanel(t, s, panelCSV("P1,FR,fr-fr", "P2,FR,"))
			wantReport(t, "again", importPanel(t, s, panelCSV("P2,FR,fr-fr", "P3,US,")), 2, 2, 1)
			wantReport(t, "the same again", importPanel(t, s, panelCSV("P2,FR,fr-fr", "P3,US,")), 2, 2, 2)
			if got, want := panelOf(t, s, "P2"), (domain.PanelMember{PanelistID: "P2", Country: "FR", Locale: "fr-fr"}); got != want {
				t.Errorf("P2 = %+v, want %+v", got, want)
			}
			if n := panelCount(t, s); n != 3 {
				t.Errorf("CountPanel = %d, want 3", n)
			}
		})
	})
}

// TestImportPanelMatchesAModel imports random files, with repeated
// panelists in no order, one after the other into one store, and compares
// the reports and the store with a model: the last line of a panelist
// wins, written counts the file's panelists and replaced those who had a
// row before the file.
func TestImportPanelMatchesAModel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		rng := rand.New(rand.NewPCG(3, 5))
		countries := []string{"FR", "DE", "US", "CA"}
		locales := map[string][]string{"FR": {"fr-fr", ""}, "DE": {"de-de"}, "US": {"en-us", "es-us", ""}, "CA": {"fr-ca", "en-ca"}}
		model := map[string]domain.PanelMember{}
		for round := range 10 {
			panelists := 1 + rng.IntN(300)
			file := map[string]domain.PanelMember{}
			var lines []string
			for range 1 + rng.IntN(500) {
				id := fmt.Sprintf("M%03d", rng.IntN(panelists))
				country := countries[rng.IntN(len(countries))]
				locale := locales[country][rng.IntN(len(locales[country]))]
				file[id] = domain.PanelMember{PanelistID: id, Country: country, Locale: locale}
				lines = append(lines, id+","+strings.ToLower(country)+","+locale)
			}
			replaced := 0
			for id := range file {
				if _, ok := model[id]; ok {
					replaced++
				}
			}
			maps.Copy(model, file)
			wantReport(t, "round "+strconv.Itoa(round), importPanel(t, s, panelCSV(lines...)), len(lines), len(file), replaced)
		}
		if n := panelCount(t, s); n != int64(len(model)) {
			t.Errorf("CountPanel = %d, want %d", n, len(model))
		}
		ids := slices.Sorted(maps.Keys(model))
		facts, err := s.PanelistsOf(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]domain.PanelMember{}
		for id, f := range facts {
			got[id] = f.Panel
		}
		if !maps.Equal(got, model) {
			t.Errorf("PanelistsOf differs from the model")
		}
	})
}

func TestImportPanelJSON(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		report, err := s.ImportPanelJSON(context.Background(), strings.NewReader(`[
		{"panelistId": "P1", "country": "fr", "locale": "fr_FR"},
		{"panelistId": 1002, "country": "US"},
		{"panelistId": "P3", "country": "DE", "locale": null},
		{"panelistId": "P1", "country": "BE", "locale": "fr-be"}
	]`))
		wantReport(t, "JSON", report, 4, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []domain.PanelMember{
			{PanelistID: "P1", Country: "BE", Locale: "fr-be"},
			{PanelistID: "1002", Country: "US"},
			{PanelistID: "P3", Country: "DE"},
		} {
			if got := panelOf(t, s, want.PanelistID); got != want {
				t.Errorf("PanelOf(%s) = %+v, want %+v", want.PanelistID, got, want)
			}
		}

		cases := []struct {
			name     string
			content  string
			wantLine int
			want     string
		}{
			{"empty file", ``, 0, "no records: the file is empty; it must be a JSON array of panel records"},
			{"not an array", `{"panelistId": "P1"}`, 0, "must be a JSON array of panel records, with the fields panelistId,country,locale"},
			{"empty array", `[]`, 0, "no records: the array is empty"},
			{"bad locale", `[{"panelistId": "P2", "country": "FR"}, {"panelistId": "P2", "country": "FR", "locale": "en-us"}]`, 2, "locale en-us is of country US, not of the panelist's FR"},
			{"no country", `[{"panelistId": "P2"}]`, 1, "country is empty"},
			{"boolean field", `[{"panelistId": "P2", "country": true}]`, 1, "country must be a string or a number"},
			{"element not an object", `["P2,FR,"]`, 1, "must be an object"},
			{"cut short", `[{"panelistId": "P2", "country": "FR"},`, 2, "ends before the array is closed"},
			{"broken JSON", `[{"panelistId": "P2" "country": "FR"}]`, 1, "not valid JSON"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				report, err := s.ImportPanelJSON(context.Background(), strings.NewReader(c.content))
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
		if n := panelCount(t, s); n != 3 {
			t.Errorf("rejected files changed the panel: %d rows", n)
		}
	})
}

func TestImportPanelFromValues(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		records := []domain.PanelMember{
			{PanelistID: "P1", Country: "fr", Locale: "FR_fr"},
			{PanelistID: " P2 ", Country: "CA"},
		}
		report, err := s.ImportPanel(context.Background(), slices.Values(records))
		if err != nil {
			t.Fatal(err)
		}
		wantReport(t, "values", report, 2, 2, 0)
		if got, want := panelOf(t, s, "P1"), (domain.PanelMember{PanelistID: "P1", Country: "FR", Locale: "fr-fr"}); got != want {
			t.Errorf("P1 = %+v, want %+v", got, want)
		}
		if got, want := panelOf(t, s, "P2"), (domain.PanelMember{PanelistID: "P2", Country: "CA"}); got != want {
			t.Errorf("P2 = %+v, want %+v", got, want)
		}

		records = append(records, domain.PanelMember{PanelistID: "P3", Country: "US", Locale: "en-gb"})
		if _, err := s.ImportPanel(context.Background(), slices.Values(records)); !errors.Is(err, store.ErrInvalidImport) ||
			!strings.Contains(err.Error(), "record 3: locale en-gb is of country GB") {
			t.Errorf("a bad record: %v", err)
		}
		if _, err := s.ImportPanel(context.Background(), slices.Values([]domain.PanelMember(nil))); !errors.Is(err, store.ErrInvalidImport) {
			t.Errorf("no records: %v", err)
		}
		if n := panelCount(t, s); n != 2 {
			t.Errorf("CountPanel = %d after rejected records, want 2", n)
		}
	})
}

func TestImportPanelMovesTheSnapshotVersion(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		v0, err := s.SnapshotVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		importPanel(t, s, panelCSV("P1,FR,"))
		v1, _ := s.SnapshotVersion(ctx)
		if v1 == v0 {
			t.Errorf("a panel import left the snapshot version at %d", v0)
		}
		s.ImportPanelCSV(ctx, strings.NewReader(panelCSV("P1,XX1,")))
		if v2, _ := s.SnapshotVersion(ctx); v2 != v1 {
			t.Errorf("a rejected panel file moved the snapshot version from %d to %d", v1, v2)
		}
	})
}

// TestPanelistsOf: one query gives each panelist's panel row and profile,
// whichever they have; a panelist with neither is absent.
func TestPanelistsOf(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importPanel(t, s, panelCSV("P1,FR,fr-fr", "P2,US,", "P3,DE,", "P<&>\u2028é,FR,"))
		importProfiles(t, s, profileCSV("P1,43,1", "P1,-1,1980-05-17", "P2,43,2", "P2,7064,300", "P2,7064,310", "P4,43,1"))
		odd := "P<&>\u2028é" // what JSON escapes, found all the same
		got, err := s.PanelistsOf(context.Background(), []string{"P2", "P9", "P1", "P3", "P4", odd})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 5 || got[odd].Panel.Country != "FR" {
			t.Fatalf("PanelistsOf = %v, want P1 to P4 and %q only", got, odd)
		}
		wantPanel := map[string]domain.PanelMember{
			"P1": {PanelistID: "P1", Country: "FR", Locale: "fr-fr"},
			"P2": {PanelistID: "P2", Country: "US"},
			"P3": {PanelistID: "P3", Country: "DE"},
			"P4": {},
		}
		for id, want := range wantPanel {
			if got[id].Panel != want {
				t.Errorf("panel row of %s = %+v, want %+v", id, got[id].Panel, want)
			}
		}
		wantProfile(t, "P1", got["P1"].Profile, map[int64][]int64{43: {1}}, date(1980, 5, 17))
		wantProfile(t, "P2", got["P2"].Profile, map[int64][]int64{43: {2}, 7064: {300, 310}}, time.Time{})
		wantProfile(t, "P4", got["P4"].Profile, map[int64][]int64{43: {1}}, time.Time{})
		if len(got["P3"].Profile.Answers) != 0 {
			t.Errorf("P3 has no profile, got %+v", got["P3"].Profile)
		}
		if empty, err := s.PanelistsOf(context.Background(), nil); err != nil || len(empty) != 0 {
			t.Errorf("PanelistsOf(nil) = %v, %v", empty, err)
		}
	})
}

func TestScanPanelists(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		// More panelists than one chunk (1000), and a multiple of it; a panel
		// row for every third, and panel rows of panelists without a profile
		// between them, before them and after them.
		for _, n := range []int{0, 1, 2000, 2345} {
			t.Run(strconv.Itoa(n), func(t *testing.T) {
				s := open(t, db)
				var panel strings.Builder
				panel.WriteString(store.PanelHeader + "\nA0,US,en-us\nZ9,US,\n")
				if n > 0 {
					var b strings.Builder
					b.WriteString(store.ProfileHeader + "\n")
					for i := range n {
						p := (i * 7919) % n
						fmt.Fprintf(&b, "S%05d,43,%d\n", p, 1+p%2)
						switch p % 3 {
						case 0:
							fmt.Fprintf(&panel, "S%05d,FR,fr-fr\n", p)
						case 1:
							fmt.Fprintf(&panel, "S%05d,CA,\nS%05da,DE,de-de\n", p, p) // S00001a has no profile
						}
					}
					importProfiles(t, s, b.String())
				}
				importPanel(t, s, panel.String())
				var ids []string
				check := func(id string, m domain.PanelMember, p domain.Profile) error {
					k, _ := strconv.Atoi(id[1:])
					want := domain.PanelMember{PanelistID: id}
					switch k % 3 {
					case 0:
						want.Country, want.Locale = "FR", "fr-fr"
					case 1:
						want.Country = "CA"
					}
					if m != want {
						t.Fatalf("%s: panel row %+v, want %+v", id, m, want)
					}
					if !slices.Equal(p.Answers[43], []int64{int64(1 + k%2)}) {
						t.Fatalf("%s: profile %v", id, p.Answers)
					}
					ids = append(ids, id)
					return nil
				}
				if err := s.ScanPanelists(context.Background(), check); err != nil {
					t.Fatal(err)
				}
				if len(ids) != n || !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != n {
					t.Errorf("scanned %d panelists (sorted: %v), want %d distinct in order", len(ids), slices.IsSorted(ids), n)
				}
				// ScanProfiles visits the same panelists in the same order.
				var profiled []string
				err := s.ScanProfiles(context.Background(), func(id string, _ domain.Profile) error { profiled = append(profiled, id); return nil })
				if err != nil || !slices.Equal(profiled, ids) {
					t.Errorf("ScanProfiles visited %d panelists (%v), ScanPanelists %d", len(profiled), err, len(ids))
				}
			})
		}
	})
}

// TestScanPanelistsOverASparsePanel reads a panel with many more
// panelists than the profiles, between and after two profiled ones.
func TestScanPanelistsOverASparsePanel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, profileCSV("A,43,1", "M,43,2", "Z,43,3"))
		var panel strings.Builder
		panel.WriteString(store.PanelHeader + "\nA,FR,fr-fr\nZ,DE,de-de\n")
		for i := range 9000 {
			fmt.Fprintf(&panel, "B%04d,US,\nZ%04d,US,\n", i, i)
		}
		importPanel(t, s, panel.String())
		got := map[string]domain.PanelMember{}
		err := s.ScanPanelists(context.Background(), func(id string, m domain.PanelMember, _ domain.Profile) error {
			got[id] = m
			return nil
		})
		want := map[string]domain.PanelMember{
			"A": {PanelistID: "A", Country: "FR", Locale: "fr-fr"},
			"M": {PanelistID: "M"},
			"Z": {PanelistID: "Z", Country: "DE", Locale: "de-de"},
		}
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("ScanPanelists gave %v, %v; want %v", got, err, want)
		}
	})
}

func TestScanPanelistsStopsOnError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importProfiles(t, s, profileCSV("P1,43,1", "P2,43,1", "P3,43,1"))
		stop := errors.New("stop")
		calls := 0
		err := s.ScanPanelists(context.Background(), func(string, domain.PanelMember, domain.Profile) error {
			calls++
			if calls == 2 {
				return stop
			}
			return nil
		})
		if err != stop || calls != 2 {
			t.Errorf("ScanPanelists = %v after %d calls, want fn's error after 2", err, calls)
		}
	})
}

// generatedPanel writes a CSV panel file of the panelists of
// generatedProfiles: every one but each tenth, in one of a few countries,
// the locale known for most.
func generatedPanel(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 24)
	b.WriteString(store.PanelHeader + "\n")
	places := [4][2]string{{"US", "en-us"}, {"FR", "fr-fr"}, {"CA", "fr-ca"}, {"DE", ""}}
	for p := range n {
		if p%10 == 9 {
			continue
		}
		fmt.Fprintf(&b, "P%07d,%s,%s\n", p, places[p%4][0], places[p%4][1])
	}
	return b.Bytes()
}

// BenchmarkScanPanelists scans every profile of a database filled once,
// with its panel row (PROFILE_BENCH_N panelists, nine in ten of them with
// a panel row); compare with BenchmarkScanProfiles.
func BenchmarkScanPanelists(b *testing.B) {
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
	if _, err := s.ImportPanelCSV(ctx, bytes.NewReader(generatedPanel(n))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		seen, placed := 0, 0
		err := s.ScanPanelists(ctx, func(_ string, m domain.PanelMember, _ domain.Profile) error {
			seen++
			if m.Country != "" {
				placed++
			}
			return nil
		})
		if err != nil || seen != n || placed != n-n/10 {
			b.Fatalf("scan: %v, %d panelists, %d with a panel row", err, seen, placed)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "panelists/s")
}
