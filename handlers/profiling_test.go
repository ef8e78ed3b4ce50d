package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/handlers"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// fakeProfiling answers the profiling advice from a report written in the
// test.
type fakeProfiling struct{ rep checks.ProfilingReport }

func (f fakeProfiling) Profiling(context.Context) (checks.ProfilingReport, error) { return f.rep, nil }

// Mapping answers no mapping: the page shows its empty section.
func (f fakeProfiling) Mapping(context.Context) (checks.MappingReport, error) {
	return checks.MappingReport{}, nil
}

// fakeSubsample answers one subsample, sendable or not, for the coverage
// fragment.
type fakeSubsample struct{ sendable bool }

func (f fakeSubsample) Subsample(_ context.Context, id int64) (checks.SubsampleParts, error) {
	p := checks.SubsampleParts{}
	p.SubsampleID, p.Live = id, true
	p.Verdict = rules.Verdict{State: rules.Paused}
	if f.sendable {
		p.Verdict.State = rules.Sendable
	}
	return p, nil
}

func (fakeSubsample) QuotaPacing(context.Context, checks.SubsampleParts) (map[int64]checks.QuotaPace, error) {
	return nil, nil
}
func (fakeSubsample) MustBeLive(context.Context, int64) error { return nil }

// profilingReport is the advice of a small world: FR's age question
// first, one of its subsamples without a CPI, gender priced in two
// currencies; DE's region last.
var profilingReport = checks.ProfilingReport{Countries: []string{"DE", "FR"}, ProfilingReport: rules.ProfilingReport{
	Questions: []rules.QuestionStake{
		{QuestionID: -1, Country: "FR", Subsamples: []int64{1, 4}, RemainingCompletes: 45, PanelistsWithoutAnswer: 3, Panelists: 6,
			Stake: rules.Money{"EUR": 6250}, Currency: "EUR", UnpricedSubsamples: 1, UnpricedCompletes: 20},
		{QuestionID: 12, Question: "Gender", Country: "FR", Code: "gender", Subsamples: []int64{1, 2, 3}, RemainingCompletes: 28,
			PanelistsWithoutAnswer: 3, Panelists: 6, Stake: rules.Money{"EUR": 3300, "USD": 3000}, Currency: "EUR"},
		{QuestionID: 21, Question: "Region", Country: "DE", Subsamples: []int64{5}, RemainingCompletes: 9, PanelistsWithoutAnswer: 2, Panelists: 3,
			Stake: rules.Money{"EUR": 1800}, Currency: "EUR"},
	},
	Coverage: []rules.TableCoverage{
		{SubsampleID: 5, SubsampleName: "S5", Country: "DE", TableID: 5, TableName: "Region", Questions: []int64{21}, Panelists: 3, Decided: 1, Undecided: 2},
		{SubsampleID: 1, SubsampleName: "S1", Country: "FR", TableID: 3, TableName: "Gender", Questions: []int64{12}, Panelists: 20355, Decided: 18204, Undecided: 2151},
	},
}}

// profilingServer serves the profiling routes over a fresh store.
func profilingServer(t *testing.T, sendable bool) *echo.Echo {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &handlers.Handler{Store: st, ProfilingChecks: fakeProfiling{profilingReport}, SubsampleChecks: fakeSubsample{sendable},
		Now: func() time.Time { return time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC) }, Location: time.UTC}
	e := echo.New()
	e.GET("/profiling", h.Profiling)
	e.GET("/profiling.csv", h.Profiling)
	e.GET("/api/v1/profiling", h.APIProfiling)
	e.GET("/subsamples/:id/coverage", h.SubsampleCoverage)
	return e
}

func get(e *echo.Echo, target string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

var rankingRow = regexp.MustCompile(`data-question="(-?\d+)" data-country="(\w+)"`)

func TestProfilingPage(t *testing.T) {
	e := profilingServer(t, true)
	tests := []struct {
		name     string
		target   string
		htmx     bool
		rows     []string // question/country of the ranking's rows, in order
		contains []string
		absent   []string
	}{
		{"every country, best first", "/profiling", false, []string{"-1/FR", "12/FR", "21/DE"},
			[]string{"<html", "What to profile next", `href="/profiling.csv"`, "62.50 EUR + unknown (20 completes without a CPI)",
				"33.00 EUR + 30.00 USD", "<code>gender</code>", "Age (from the birth date)", "18,204", `data-subsample="5"`},
			[]string{"63.00", "0.00 EUR"}},
		{"a country", "/profiling?country=de", false, []string{"21/DE"},
			[]string{`href="/profiling.csv?country=DE"`, `<option value="DE" selected`}, []string{`data-subsample="1"`}},
		{"a blank filter is no filter on a page", "/profiling?country=", false, []string{"-1/FR", "12/FR", "21/DE"}, nil, nil},
		{"htmx gets the body alone", "/profiling?country=FR", true, []string{"-1/FR", "12/FR"}, []string{`id="profiling-body"`}, []string{"<html", "<form"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.htmx {
				header["HX-Request"] = "true"
			}
			rec := get(e, tt.target, header)
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", tt.target, rec.Code, rec.Body.String())
			}
			body := rec.Body.String()
			var rows []string
			for _, m := range rankingRow.FindAllStringSubmatch(body, -1) {
				rows = append(rows, m[1]+"/"+m[2])
			}
			if strings.Join(rows, " ") != strings.Join(tt.rows, " ") {
				t.Errorf("rows %v, want %v", rows, tt.rows)
			}
			for _, s := range tt.contains {
				if !strings.Contains(body, s) {
					t.Errorf("the page lacks %q", s)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(body, s) {
					t.Errorf("the page shows %q", s)
				}
			}
		})
	}
	if rec := get(e, "/profiling?country=France", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("country=France: %d, want 400", rec.Code)
	}
}

func TestProfilingCSVAndAPI(t *testing.T) {
	e := profilingServer(t, true)
	rec := get(e, "/profiling.csv?country=DE", nil)
	want := strings.Join(formats.ProfilingColumns, ",") + "\n21,Region,DE,,5,9,2,3,18.00,EUR,0,0\n"
	if rec.Code != http.StatusOK || rec.Body.String() != want || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Errorf("CSV: %d %q\n%s\nwant\n%s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), want)
	}
	if cd := rec.Header().Get("Content-Disposition"); !strings.Contains(cd, "profiling_country-DE_") {
		t.Errorf("Content-Disposition %q does not name the country", cd)
	}
	if api := get(e, "/api/v1/profiling?country=DE&format=csv", nil); api.Body.String() != want {
		t.Errorf("the API's CSV differs from the page's:\n%s", api.Body.String())
	}

	rec = get(e, "/api/v1/profiling", nil)
	var got formats.ProfilingJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("API: %d %v %s", rec.Code, err, rec.Body.String())
	}
	if len(got.Questions) != 3 || got.Questions[0].QuestionID != -1 || got.Questions[0].UnpricedCompletes != 20 ||
		got.Questions[1].Stake == nil || *got.Questions[1].Stake != 33 || len(got.Questions[1].OtherStakes) != 1 || len(got.Coverage) != 2 {
		t.Errorf("API answered %+v", got)
	}
	for target, status := range map[string]int{"/api/v1/profiling?country=": 400, "/api/v1/profiling?country=1": 400, "/api/v1/profiling?country=fr": 200} {
		if rec := get(e, target, nil); rec.Code != status {
			t.Errorf("%s: %d, want %d", target, rec.Code, status)
		}
	}
}

func TestSubsampleCoverage(t *testing.T) {
	tests := []struct {
		name     string
		sendable bool
		htmx     bool
		status   int
		contains string
	}{
		{"a sendable subsample's tables", true, true, 200, "Gender: decides 18,204 of 20,355 panelists of FR who speak its languages"},
		{"one that may take no traffic", false, true, 200, "Counted for the sendable subsamples only"},
		{"a browser is sent to the page", true, false, http.StatusSeeOther, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.htmx {
				header["HX-Request"] = "true"
			}
			rec := get(profilingServer(t, tt.sendable), "/subsamples/1/coverage", header)
			if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.contains) {
				t.Errorf("%d %s; want %d with %q", rec.Code, rec.Body.String(), tt.status, tt.contains)
			}
			if tt.status == http.StatusSeeOther && rec.Header().Get("Location") != "/profiling" {
				t.Errorf("Location %q", rec.Header().Get("Location"))
			}
		})
	}
}

// TestProfilingCoveragePages: the page shows the coverage 50 tables at a
// time, its pager keeping the country; a page past the last shows the
// last; a page that is not a number is a 400.
func TestProfilingCoveragePages(t *testing.T) {
	rep := checks.ProfilingReport{Countries: []string{"FR"}}
	for i := range 120 {
		rep.Coverage = append(rep.Coverage, rules.TableCoverage{SubsampleID: int64(1000 + i), Country: "FR", TableID: int64(i), TableName: "Gender", Panelists: 10, Decided: 10})
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := echo.New()
	e.GET("/profiling", (&handlers.Handler{Store: st, ProfilingChecks: fakeProfiling{rep}, Now: time.Now, Location: time.UTC}).Profiling)
	tableRow := regexp.MustCompile(`data-subsample="(\d+)"`)
	tests := []struct {
		target      string
		first, last string
		rows        int
		contains    []string
	}{
		{"/profiling", "1000", "1049", 50, []string{"Page 1 of 3", `href="/profiling?page=2"`, "120 hard tables"}},
		{"/profiling?country=FR&page=2", "1050", "1099", 50, []string{"Page 2 of 3", `href="/profiling?country=FR&amp;page=1"`, `href="/profiling?country=FR&amp;page=3"`}},
		{"/profiling?page=99", "1100", "1119", 20, []string{"Page 3 of 3", `href="/profiling?page=2"`}},
	}
	for _, tt := range tests {
		rec := get(e, tt.target, nil)
		body := rec.Body.String()
		rows := tableRow.FindAllStringSubmatch(body, -1)
		if rec.Code != http.StatusOK || len(rows) != tt.rows || rows[0][1] != tt.first || rows[len(rows)-1][1] != tt.last {
			t.Errorf("%s: %d, %d rows; want %d from %s to %s", tt.target, rec.Code, len(rows), tt.rows, tt.first, tt.last)
		}
		for _, s := range tt.contains {
			if !strings.Contains(body, s) {
				t.Errorf("%s lacks %q", tt.target, s)
			}
		}
	}
	if rec := get(e, "/profiling?page=x", nil); rec.Code != http.StatusBadRequest {
		t.Errorf("page=x: %d, want 400", rec.Code)
	}
}
