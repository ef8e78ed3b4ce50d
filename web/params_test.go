package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// TestEmptyAPIParametersAreRefused sends every query parameter of the API
// with an empty value (and one of spaces): each is a 400 that names the
// parameter, as any value that cannot be read, rather than the default
// (POST /api/v1/refresh?subsample= started a refresh of everything), and
// no refresh is started.
func TestEmptyAPIParametersAreRefused(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	var sendable []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &sendable)
	if len(sendable) == 0 {
		t.Fatal("the simulator has no sendable subsample")
	}
	id := strconv.FormatInt(sendable[0].SubsampleID, 10)
	a.livesIn(t, "US", "P1")

	for _, tt := range []struct {
		method, path, param string
	}{
		{"POST", "/api/v1/refresh?subsample=", "subsample"},
		{"POST", "/api/v1/refresh?subsample=%20", "subsample"},
		{"GET", "/api/v1/subsamples?status=", "status"},
		{"GET", "/api/v1/subsamples?sendability=", "sendability"},
		{"GET", "/api/v1/subsamples?country=", "country"},
		{"GET", "/api/v1/subsamples?country=US&status=%20", "status"},
		{"GET", "/api/v1/subsamples/" + id + "/targets?limit=", "limit"},
		{"GET", "/api/v1/eligibility?panelistId=&subsampleId=" + id, "panelistId"},
		{"GET", "/api/v1/eligibility?panelistId=P1&subsampleId=", "subsampleId"},
		{"GET", "/api/v1/panelists/P1/surveys?all=", "all"},
		{"GET", "/api/v1/panelists/P1/next?limit=", "limit"},
		{"GET", "/api/v1/outcomes?group=", "group"},
		{"GET", "/api/v1/outcomes?from=2026-01-01&to=", "to"},
		{"GET", "/api/v1/invoice?month=", "month"},
		{"GET", "/api/v1/changes?since=", "since"},
		{"GET", "/api/v1/changes?limit=", "limit"},
		{"GET", "/api/v1/changes?since=0&limit=+", "limit"},
	} {
		before := a.refresher.Progress()
		resp, body := a.do(t, tt.method, tt.path, nil)
		var answer struct{ Error string }
		_ = json.Unmarshal([]byte(body), &answer)
		if want := "the query parameter " + tt.param + " is empty"; resp.StatusCode != 400 || !strings.Contains(answer.Error, want) {
			t.Errorf("%s %s = %d %.200s; want 400 saying %q", tt.method, tt.path, resp.StatusCode, body, want)
		}
		if after := a.refresher.Progress(); after.Running || !after.StartedAt.Equal(before.StartedAt) {
			t.Errorf("%s %s started a refresh (%+v)", tt.method, tt.path, after)
		}
	}
}

// TestEmptyFilterFieldsAreNoFilter: the dashboard's filter forms send
// every field, those left blank empty; on the pages and their CSVs a blank
// field is the same as none, not a 400.
func TestEmptyFilterFieldsAreNoFilter(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	for _, path := range []string{
		"/live?sendability=&status=&country=&rtype=&category=&device=&cpimin=&cpimax=&q=&risk=&sort=&page=",
		"/live.csv?country=&status=&page=",
		"/events?status=&country=&from=&to=&q=",
		"/events.csv?status=&country=&from=&to=&q=",
		"/changes?kind=&country=&event=&from=&to=&page=",
		"/changes.csv?kind=&country=&event=&from=&to=",
		"/routing?panelist=&subsample=&outcome=&from=&to=&page=",
		"/routing.csv?panelist=&subsample=&outcome=&from=&to=",
		"/outcomes?group=&from=&to=&country=&event=&subsample=&page=",
		"/outcomes.csv?group=&from=&to=&country=&event=&subsample=",
		"/outcomes/invoice?month=",
		"/library?locale=&q=",
		"/panelists?panelist=",
	} {
		bare, _, _ := strings.Cut(path, "?")
		_, want := a.do(t, "GET", bare, nil)
		resp, got := a.do(t, "GET", path, nil)
		if resp.StatusCode != 200 {
			t.Errorf("GET %s = %d, want 200 as for %s:\n%.300s", path, resp.StatusCode, bare, got)
			continue
		}
		if strings.HasSuffix(bare, ".csv") && got != want {
			t.Errorf("GET %s answers another CSV than %s", path, bare)
		}
	}
}

// TestPageNumbersPastTheEndShowTheLastPage asks each paged list for pages
// past its last, up to the largest int64 and beyond, where (page-1) × the
// page size overflows: each shows the last page, numbered as such, never
// the first (the offset wrapped around) nor an empty one.
func TestPageNumbersPastTheEndShowTheLastPage(t *testing.T) {
	t.Parallel()
	a := newAppOn(t, sim.Options{Seed: 3, Subsamples: 400, QuestionsPerLocale: 2}) // live subsamples for more than one page
	ctx := context.Background()
	// The first refresh of a database is the baseline and records no
	// change: an empty one stands for it, so that the refresh finds the
	// 400 subsamples new, changes for more than one page.
	at := time.Now().Add(-time.Hour)
	if _, err := a.store.SaveEvents(ctx, store.EventsSnapshot{Run: store.Run{Dataset: store.DatasetEvents, StartedAt: at, FinishedAt: at}}, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	decisions := make([]domain.RoutingDecision, 250)
	start := time.Now().Add(-time.Hour)
	for i := range decisions {
		decisions[i] = domain.RoutingDecision{At: start.Add(time.Duration(i) * time.Second), PanelistID: fmt.Sprintf("P-%03d", i),
			Outcome: domain.RoutedNone, Reason: "No survey takes this panelist now."}
	}
	if err := a.store.RecordRoutings(ctx, decisions); err != nil {
		t.Fatal(err)
	}
	for _, list := range []struct {
		path, row string
		size      int
	}{
		{"/routing", "routing-decision", 100},
		{"/changes", "change", 100},
		{"/live", "live-row", 50},
	} {
		rowRE := regexp.MustCompile(`(?s)<tr data-testid="` + list.row + `"[^>]*>.*?</tr>`)
		_, first := a.do(t, "GET", list.path, nil)
		pages := lastPageNumber(t, first)
		if pages < 2 {
			t.Fatalf("%s has %d page; the test needs two or more", list.path, pages)
		}
		_, last := a.do(t, "GET", fmt.Sprintf("%s?page=%d", list.path, pages), nil)
		want := rowRE.FindAllString(last, -1)
		if len(want) == 0 || slices.Equal(want, rowRE.FindAllString(first, -1)) {
			t.Fatalf("%s?page=%d lists %d rows, the first page's: the test cannot tell them apart", list.path, pages, len(want))
		}
		for _, page := range []string{
			strconv.Itoa(pages + 1),
			strconv.FormatInt(math.MaxInt64/int64(list.size)+1, 10),
			strconv.FormatInt(math.MaxInt64/int64(list.size)+2, 10), // (page-1) × size overflows
			strconv.FormatInt(math.MaxInt64, 10),
			"99999999999999999999", // beyond int64
		} {
			path := list.path + "?page=" + page
			resp, body := a.do(t, "GET", path, nil)
			if resp.StatusCode != 200 {
				t.Errorf("GET %s = %d, want the last page:\n%.300s", path, resp.StatusCode, body)
				continue
			}
			if got := rowRE.FindAllString(body, -1); !slices.Equal(got, want) {
				t.Errorf("GET %s lists %d rows, not the %d of the last page (%d)", path, len(got), len(want), pages)
			}
			if n := lastPageNumber(t, body); !strings.Contains(body, fmt.Sprintf("Page %d of %d", pages, pages)) || n != pages {
				t.Errorf("GET %s does not say it shows page %d of %d", path, pages, pages)
			}
			if n := strings.Count(body, fmt.Sprintf("Page %d of %d", pages, pages)); n > 1 {
				t.Errorf("GET %s says page %d of %d %d times, want once (the pager)", path, pages, pages, n)
			}
		}
	}
}

// lastPageNumber is the number of pages a list's pager says there are.
func lastPageNumber(t *testing.T, body string) int {
	t.Helper()
	m := regexp.MustCompile(`Page \d+ of (\d+)`).FindStringSubmatch(body)
	if m == nil {
		return 1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// csvFileName is the one pattern of a download's name (formats.FileName):
// the dataset, what it was narrowed to, and the snapshot's time in UTC.
var csvFileName = regexp.MustCompile(`^attachment; filename="[a-z0-9]+(-[a-z0-9]+)*(_[a-z]+-[A-Za-z0-9]+(-[A-Za-z0-9]+)*)*_\d{4}-\d{2}-\d{2}T\d{4}Z\.csv"$`)

// TestEveryCSVDownloadIsNamedOneWay walks the server's route list: every
// GET route, its path parameters filled in, and the POST routes that
// answer CSV. Each route ending in .csv must answer CSV, and every CSV
// answer is named in the one pattern, with the subsample, locale or
// panelist it was asked for in its name. A CSV route added later is
// walked too.
func TestEveryCSVDownloadIsNamedOneWay(t *testing.T) {
	t.Parallel()
	a, panelists := profiled(t, 2000)
	target := sendableWithCells(t, a)
	id := strconv.FormatInt(target.SubsampleID, 10)
	locale := libraryLocale(t, a)
	questions, err := a.store.Questions(context.Background(), locale)
	if err != nil {
		t.Fatal(err)
	}
	question := slices.IndexFunc(questions, func(q domain.Question) bool { return q.ID > 0 })
	if question < 0 {
		t.Fatalf("no question of %s has a positive id", locale)
	}
	params := map[string]string{":id": id, ":locale": locale, ":qid": strconv.FormatInt(questions[question].ID, 10), ":table": "countries.csv"}
	// The name each path parameter has in a file name.
	scopeNames := map[string]string{":id": "subsample", ":locale": "locale", ":qid": "question"}
	queries := map[string]string{"/panelists.csv": "?panelist=" + panelists[0]}
	bulk, bulkCT := multipartFile(t, map[string]string{"subsample": id}, "ids.csv", "panelistId\n"+panelists[0]+"\n")
	posts := map[string]struct{ body, contentType string }{
		"/panelists/bulk":                    {bulk.String(), bulkCT},
		"/api/v1/subsamples/:id/eligibility": {"panelistId\n" + panelists[0] + "\n", "text/csv"},
	}
	checked := 0
	for _, r := range a.routes {
		post, isPost := posts[r.Path]
		switch {
		case strings.HasPrefix(r.Path, "/static"), r.Path == "/r/:token", r.Path == "/return/:status":
			continue // files, a panelist's link and their way back
		case r.Method == "GET", r.Method == "POST" && isPost:
		default:
			continue
		}
		path, want := r.Path, []string{}
		for name, value := range params {
			if strings.Contains(path, name) {
				path = strings.ReplaceAll(path, name, value)
				if scope := scopeNames[name]; scope != "" {
					want = append(want, "_"+scope+"-"+value+"_")
				}
			}
		}
		if strings.Contains(path, "/:") {
			t.Errorf("%s %s: the test has no value for its path parameter", r.Method, r.Path)
			continue
		}
		path += queries[r.Path]
		var resp *http.Response
		var body string
		if isPost {
			resp, body = a.post(t, path, post.contentType, post.body)
		} else {
			resp, body = a.do(t, "GET", path, nil)
		}
		isCSV := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv")
		if strings.HasSuffix(r.Path, ".csv") && (resp.StatusCode != 200 || !isCSV) {
			t.Errorf("%s %s = %d %s, want a CSV:\n%.300s", r.Method, path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			continue
		}
		if !isCSV {
			continue
		}
		checked++
		cd := resp.Header.Get("Content-Disposition")
		if !csvFileName.MatchString(cd) {
			t.Errorf("%s %s: Content-Disposition %q is not DATASET[_NAME-VALUE]..._yyyy-MM-ddTHHmmZ.csv", r.Method, r.Path, cd)
		}
		if q := queries[r.Path]; q != "" {
			name, value, _ := strings.Cut(strings.TrimPrefix(q, "?"), "=")
			want = append(want, "_"+name+"-"+value+"_")
		}
		for _, w := range want {
			if !strings.Contains(cd, w) {
				t.Errorf("%s %s: Content-Disposition %q does not name %q", r.Method, path, cd, strings.Trim(w, "_"))
			}
		}
	}
	if checked < 16 {
		t.Errorf("only %d routes answered CSV; the route list has more", checked)
	}
}
