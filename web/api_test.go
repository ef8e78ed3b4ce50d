package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Paris whether or not the host has zoneinfo

	"fieldboard/client/sim"
	"fieldboard/handlers"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// refreshed is an app whose store holds a full refresh of the simulator.
func refreshed(t *testing.T) *app {
	t.Helper()
	a := newApp(t)
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	return a
}

// sendableSiblings finds a sendable live subsample whose event has another
// subsample: the unique-respondents rule can then be seen at work.
func sendableSiblings(t *testing.T, a *app) (target, sibling formats.SubsampleJSON) {
	t.Helper()
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	byEvent := map[int64][]formats.SubsampleJSON{}
	for _, s := range all {
		byEvent[s.EventID] = append(byEvent[s.EventID], s)
	}
	for _, s := range all {
		if s.Sendability != "sendable" {
			continue
		}
		for _, o := range byEvent[s.EventID] {
			if o.SubsampleID != s.SubsampleID {
				return s, o
			}
		}
	}
	t.Fatal("the simulator has no sendable subsample with a sibling in its event")
	return
}

func (a *app) getJSON(t *testing.T, path string, out any) *http.Response {
	t.Helper()
	resp, body := a.do(t, "GET", path, nil)
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("GET %s: %d %v:\n%s", path, resp.StatusCode, err, body)
	}
	return resp
}

// livesIn gives panelists a row of the panel: they live in country, with
// no locale on file. Nobody without one is sent anywhere.
func (a *app) livesIn(t *testing.T, country string, ids ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(store.PanelHeader + "\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "%q,%s,\n", id, country)
	}
	if resp, body := a.post(t, "/api/v1/panelists", "text/csv", b.String()); resp.StatusCode != 200 {
		t.Fatalf("panel import: %d %s", resp.StatusCode, body)
	}
}

func (a *app) post(t *testing.T, path, contentType, body string) (*http.Response, string) {
	t.Helper()
	resp, err := a.client.Post(a.url+path, contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestAPISubsamples(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	n, err := a.store.CountSubsamples(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n || n == 0 {
		t.Fatalf("got %d subsamples, the snapshot has %d", len(all), n)
	}
	rows, err := a.store.SubsampleRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	compatible := map[int64]bool{}
	for _, r := range rows {
		compatible[r.SubsampleID] = r.APICompatible
	}
	states := map[string]int{}
	links := map[bool]int{} // testing links checked, by API compatibility
	for _, s := range all {
		states[string(s.Sendability)]++
		if s.Sendability != "sendable" && len(s.Reasons) == 0 {
			t.Errorf("subsample %d is %s without a reason", s.SubsampleID, s.Sendability)
		}
		if s.Sendability == "sendable" && (s.Status != "Live" || len(s.EntryLinks) == 0) {
			t.Errorf("sendable subsample %+v: want Live with entry links", s)
		}
		links[compatible[s.SubsampleID]] += checkEntryLinks(t, fmt.Sprintf("subsample %d", s.SubsampleID), s.EntryLinks, compatible[s.SubsampleID], "")
	}
	if links[true] == 0 || links[false] == 0 {
		t.Errorf("testing links checked: %d of API-compatible subsamples, %d of others; want some of each", links[true], links[false])
	}
	for _, state := range []string{"sendable", "not_sendable"} {
		if states[state] == 0 {
			t.Errorf("no %s subsample among %v", state, states)
		}
	}
	var live []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?status=Live&sendability=sendable", &live)
	if len(live) != states["sendable"] {
		t.Errorf("filtered list has %d, want %d", len(live), states["sendable"])
	}
	countries := map[string]int{}
	for _, s := range all {
		countries[s.Country]++
	}
	for country, n := range countries {
		var only []formats.SubsampleJSON
		a.getJSON(t, "/api/v1/subsamples?country="+strings.ToLower(country), &only)
		if len(only) != n || slices.ContainsFunc(only, func(s formats.SubsampleJSON) bool { return s.Country != country }) {
			t.Errorf("country=%s: %d subsamples, want the %d of %s alone", strings.ToLower(country), len(only), n, country)
		}
	}
	if len(countries) < 2 {
		t.Errorf("subsamples of %d countries, want several to filter", len(countries))
	}
	var apiErr map[string]string
	resp := a.getJSON(t, "/api/v1/subsamples?sendability=maybe", &apiErr)
	if resp.StatusCode != 400 || !strings.Contains(apiErr["error"], "sendability") {
		t.Errorf("bad filter: %d %v, want 400 naming the parameter", resp.StatusCode, apiErr)
	}
}

func TestAPIEligibilityAndPanelistSurveys(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, sibling := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P1", "P2", "P/2")
	history := "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId\n" +
		fmt.Sprintf("P1,%d,3,%s,%d,0,0\n", sibling.SubsampleID, time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000"), sibling.EventID)
	resp, body := a.post(t, "/api/v1/history", "text/csv", history)
	if resp.StatusCode != 200 || !strings.Contains(body, `"inserted":1`) {
		t.Fatalf("history import: %d %s", resp.StatusCode, body)
	}

	var got formats.EligibilityJSON
	a.getJSON(t, fmt.Sprintf("/api/v1/eligibility?panelistId=P1&subsampleId=%d", target.SubsampleID), &got)
	unique := -1
	for i, r := range got.Reasons {
		if r.Kind == "uniqueEvent" {
			unique = i
		}
	}
	if got.Eligible || got.MayEnter || unique < 0 || got.Reasons[unique].Record == nil || got.Reasons[unique].Record.SubsampleID != sibling.SubsampleID {
		t.Errorf("P1 on %d = %+v; want excluded by the unique-respondents rule, naming the record on %d", target.SubsampleID, got, sibling.SubsampleID)
	}
	a.getJSON(t, fmt.Sprintf("/api/v1/eligibility?panelistId=P2&subsampleId=%d", target.SubsampleID), &got)
	if !got.Eligible || !got.MayEnter || got.Sendability != "sendable" || len(got.EntryLinks) != 1 {
		t.Errorf("P2 (no history) on %d = %+v; want eligible, with the entry links of their country's locale", target.SubsampleID, got)
	}
	if checkEntryLinks(t, "P2's eligibility", got.EntryLinks, true, "P2") == 0 {
		t.Errorf("P2's eligibility on %d gives no testing link: %+v", target.SubsampleID, got.EntryLinks)
	}

	var surveys formats.PanelistSurveysJSON
	a.getJSON(t, "/api/v1/panelists/P1/surveys?all=true", &surveys)
	for _, s := range surveys.MayEnter {
		if s.SubsampleID == target.SubsampleID {
			t.Errorf("P1 may enter %d; the unique-respondents rule excludes it", target.SubsampleID)
		}
		for _, l := range s.EntryLinks {
			if !strings.HasSuffix(l.Live, "&SAPI=1&id=P1") {
				t.Errorf("entry link %s is not filled for P1 with SAPI=1 and id last", l.Live)
			}
		}
	}
	if len(surveys.MayEnter) == 0 || len(surveys.Others) == 0 {
		t.Errorf("P1 may enter %d and not %d subsamples; want some of each", len(surveys.MayEnter), len(surveys.Others))
	}
	agreesWithLookupCSV(t, a, "P1", surveys)
	for i := 1; i < len(surveys.MayEnter); i++ {
		if !rankedByEPC(surveys.MayEnter[i-1], surveys.MayEnter[i]) {
			t.Errorf("may-enter entries %d and %d are not ranked by epc, highest first within a currency", i-1, i)
		}
	}
	// Without all=true the answer is the may-enter entries alone.
	var entered formats.PanelistSurveysJSON
	a.getJSON(t, "/api/v1/panelists/P1/surveys", &entered)
	if got, want := subsampleIDs(entered.MayEnter), subsampleIDs(surveys.MayEnter); len(entered.Others) != 0 || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("P1's surveys: may enter %v with %d others; with all=true, may enter %v", got, len(entered.Others), want)
	}
	a.getJSON(t, "/api/v1/panelists/P%2F2/surveys?all=true", &surveys)
	agreesWithLookupCSV(t, a, "P/2", surveys)
	if resp := a.getJSON(t, "/api/v1/panelists/P1/surveys?all=yes", &entered); resp.StatusCode != 400 {
		t.Errorf("all=yes: %d, want 400", resp.StatusCode)
	}

	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/api/v1/eligibility?panelistId=P1&subsampleId=abc", 400, "subsampleId"},
		{"/api/v1/eligibility?panelistId=&subsampleId=1", 400, "panelistId"},
		{"/api/v1/eligibility?panelistId=P1&subsampleId=999999999", 404, "not in the current snapshot"},
	}
	for _, tt := range tests {
		var e map[string]string
		resp := a.getJSON(t, tt.path, &e)
		if resp.StatusCode != tt.status || !strings.Contains(e["error"], tt.want) {
			t.Errorf("GET %s = %d %v, want %d with %q", tt.path, resp.StatusCode, e, tt.status, tt.want)
		}
	}
}

// TestPanelistSurveysAreEligibilityAnswers: each entry of a panelist's
// surveys, written from templates, is what json.Marshal makes of
// formats.Eligibility for the same check (live links only, no quota
// sentences), for ids that JSON and URLs escape, with and without history,
// profile or exclusions.
func TestPanelistSurveysAreEligibilityAnswers(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	if _, err := a.store.ImportProfiles(ctx, a.sim.Profiles(3, 50), nil); err != nil {
		t.Fatal(err)
	}
	target, sibling := sendableSiblings(t, a)
	at := time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000")
	history := "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId\n" +
		fmt.Sprintf("P0000001,%d,3,%s,%d,0,0\n", sibling.SubsampleID, at, sibling.EventID) +
		fmt.Sprintf("\"P 1/x&<ü>\",%d,82,%s,%d,0,0\n", target.SubsampleID, at, target.EventID)
	if resp, body := a.post(t, "/api/v1/history", "text/csv", history); resp.StatusCode != 200 {
		t.Fatalf("history import: %d %s", resp.StatusCode, body)
	}
	service := &checks.Service{Store: a.store, Now: time.Now}
	for _, id := range []string{"P0000001", "P0000002", "P 1/x&<ü>", "nobody"} {
		var got struct {
			PanelistID string
			MayEnter   []json.RawMessage
			Others     []json.RawMessage
		}
		a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(id)+"/surveys?all=true", &got)
		pcs, err := service.PanelistSurveys(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var mayEnter, others []string
		for _, pc := range pcs {
			e := formats.Eligibility(pc, id)
			e.QuotaReasons = nil
			for i := range e.EntryLinks {
				e.EntryLinks[i].Testing = ""
			}
			b, _ := json.Marshal(e)
			if e.MayEnter {
				mayEnter = append(mayEnter, string(b))
			} else {
				others = append(others, string(b))
			}
		}
		if got.PanelistID != id || len(got.MayEnter) != len(mayEnter) || len(got.Others) != len(others) {
			t.Fatalf("%q: %q with %d and %d entries, want %d and %d", id, got.PanelistID, len(got.MayEnter), len(got.Others), len(mayEnter), len(others))
		}
		for i, raw := range append(got.MayEnter, got.Others...) {
			if want := append(mayEnter, others...)[i]; string(raw) != want {
				t.Errorf("%q, entry %d:\n got %s\nwant %s", id, i, raw, want)
			}
		}
	}
}

// TestNoResendsWithinAnEvent: spec rule 5 groups subsamples by event so
// that respondents are unique across it, the subsample itself included. A
// panelist with a Complete on S is excluded from S, in the single check,
// the bulk check and one panelist's surveys alike, with the record named.
func TestNoResendsWithinAnEvent(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	history := "panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId\n" +
		fmt.Sprintf("P7,%d,3,%s,%d,0,0\n", target.SubsampleID, time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05.000"), target.EventID)
	if resp, body := a.post(t, "/api/v1/history", "text/csv", history); resp.StatusCode != 200 {
		t.Fatalf("history import: %d %s", resp.StatusCode, body)
	}
	var got formats.EligibilityJSON
	a.getJSON(t, fmt.Sprintf("/api/v1/eligibility?panelistId=P7&subsampleId=%d", target.SubsampleID), &got)
	if got.Eligible || got.MayEnter || got.Send || len(got.Reasons) == 0 || got.Reasons[len(got.Reasons)-1].Kind != "uniqueEvent" ||
		got.Reasons[len(got.Reasons)-1].Record.SubsampleID != target.SubsampleID {
		t.Errorf("P7 on %d = %+v; want excluded by its own Complete there", target.SubsampleID, got)
	}
	_, body := a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID), "text/csv", "panelistId\nP7\n")
	if rows := parseCSV(t, body); len(rows) != 2 || rows[1][1] != "false" || rows[1][3] != "false" || !strings.Contains(rows[1][4], "itself") {
		t.Errorf("bulk check of P7 = %q, want not eligible, not sent, the record named", rows)
	}
	var surveys formats.PanelistSurveysJSON
	a.getJSON(t, "/api/v1/panelists/P7/surveys", &surveys)
	for _, s := range surveys.MayEnter {
		if s.SubsampleID == target.SubsampleID {
			t.Errorf("P7 may enter %d again", target.SubsampleID)
		}
	}
}

func TestAPIBulkEligibility(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, sibling := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P1", "P2", "=cmd")
	records := fmt.Sprintf(`[{"panelistId":"P1","subsampleId":%d,"statusId":82,"registeredAt":"2026-01-02 10:00:00","eventId":%d,"categoryId":0,"researchTypeId":0}]`,
		sibling.SubsampleID, sibling.EventID)
	if resp, body := a.post(t, "/api/v1/history", "application/json", records); resp.StatusCode != 200 {
		t.Fatalf("JSON history import: %d %s", resp.StatusCode, body)
	}
	resp, body := a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID), "text/csv", "panelistId\nP1\nP2\n=cmd\n")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("bulk check: %d %s", resp.StatusCode, body)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"panelistId", "eligible", "quota", "send", "reasons"}, {"P1", "false", "unknown", "false"}, {"P2", "true", "unknown", "false"}, {"=cmd", "true", "unknown", "false"}}
	if len(rows) != len(want) {
		t.Fatalf("bulk answer has %d lines, want %d:\n%s", len(rows), len(want), body)
	}
	for i, w := range want {
		if !slices.Equal(rows[i][:len(w)], w) {
			t.Errorf("line %d = %q, want %q", i+1, rows[i], w)
		}
	}
	if !strings.Contains(rows[1][4], "Screen out") || !strings.Contains(rows[2][4], "No profile") {
		t.Errorf("reasons %q, %q: want P1's to name the status of the record, and both to say there is no profile", rows[1][4], rows[2][4])
	}

	bad := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"empty file", fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID), "", 400, "empty"},
		{"wrong header", fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID), "id\nP1\n", 400, "panelistId"},
		{"unknown subsample", "/api/v1/subsamples/999999999/eligibility", "panelistId\nP1\n", 404, "not in the current snapshot"},
		{"malformed id", "/api/v1/subsamples/x1/eligibility", "panelistId\nP1\n", 400, "not a positive whole number"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := a.post(t, tt.path, "text/csv", tt.body)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("%d %s, want %d with %q", resp.StatusCode, body, tt.status, tt.want)
			}
		})
	}
}

func TestAPIHistoryRejectsBadFilesWhole(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	header := store.HistoryHeader + "\n"
	good := "P1,100,3,2026-11-01T10:00:00.000,10,0,0\n"
	if resp, body := a.post(t, "/api/v1/history", "text/csv", header+good); resp.StatusCode != 200 {
		t.Fatalf("good file: %d %s", resp.StatusCode, body)
	}
	before := historyCount(t, a)
	resp, body := a.post(t, "/api/v1/history", "text/csv", header+"P2,100,3,2026-11-01T10:00:00.000,10,0,0\nP3,100,5,2026-11-01T10:00:00.000,10,0,0\n")
	var rejected handlers.ImportErrorJSON
	if err := json.Unmarshal([]byte(body), &rejected); err != nil || resp.StatusCode != 400 || len(rejected.Lines) != 1 || rejected.Lines[0].Line != 3 {
		t.Fatalf("file with a bad status on line 3: %d %s", resp.StatusCode, body)
	}
	if after := historyCount(t, a); after != before || before != 1 {
		t.Errorf("a rejected file changed the history from %d to %d records", before, after)
	}
}

// TestHistoryDatesAreInTheProvidersZone: a zone-less registeredAt is read
// in --provider-tz (web.Server.ProviderLocation), by the API and by the
// dashboard's upload alike.
func TestHistoryDatesAreInTheProvidersZone(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	a := newAppOn(t, sim.Options{Seed: 3, Subsamples: 20}, func(s *web.Server) { s.ProviderLocation = paris })
	if resp, body := a.post(t, "/api/v1/history", "text/csv", store.HistoryHeader+"\nP1,100,3,2026-01-15T10:00:00.000,10,0,0\n"); resp.StatusCode != 200 {
		t.Fatalf("API import: %d %s", resp.StatusCode, body)
	}
	body, contentType := multipartFile(t, nil, "history.csv", store.HistoryHeader+"\nP2,100,3,2026-07-15 10:00:00,10,0,0\n")
	if resp, page := a.postRaw(t, "/panelists/history", contentType, body, map[string]string{"HX-Request": "true"}); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %s", resp.StatusCode, page)
	}
	for id, want := range map[string]time.Time{
		"P1": time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC), // CET
		"P2": time.Date(2026, 7, 15, 8, 0, 0, 0, time.UTC), // CEST
	} {
		records, err := a.store.HistoryOf(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || !records[0].RegisteredAt.Equal(want) {
			t.Errorf("%s's record: %+v, want it registered at %s (10:00 in Paris)", id, records, want)
		}
	}
}

func TestPanelistsPage(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, sibling := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P1")

	body, contentType := multipartFile(t, nil, "history.csv", store.HistoryHeader+"\n"+
		fmt.Sprintf("P1,%d,3,2026-11-01T10:00:00.000,%d,0,0\n", sibling.SubsampleID, sibling.EventID))
	resp, page := a.postRaw(t, "/panelists/history", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="import-ok"`) || !strings.Contains(page, "1 new") {
		t.Fatalf("history upload: %d %s", resp.StatusCode, page)
	}
	body, contentType = multipartFile(t, nil, "bad.csv", "nope\n")
	resp, page = a.postRaw(t, "/panelists/history", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 422 || !strings.Contains(page, "rejected") {
		t.Errorf("bad upload: %d %s", resp.StatusCode, page)
	}

	resp, page = a.do(t, "GET", "/panelists?panelist=P1", nil)
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="may-enter"`) {
		t.Errorf("lookup of P1: %d, want the may-enter table", resp.StatusCode)
	}
	if row := lookupRow(page, "may-enter", target.SubsampleID); row != "" {
		t.Errorf("lookup of P1: may enter %d, which their record on %d of the same event excludes:\n%s", target.SubsampleID, sibling.SubsampleID, row)
	}
	why := fmt.Sprintf("Complete on subsample %d of the same event %d on 2026-11-01", sibling.SubsampleID, sibling.EventID)
	if row := lookupRow(page, "not-now", target.SubsampleID); !strings.Contains(row, why) || !strings.Contains(row, `<strong class="warn">no</strong>`) {
		t.Errorf("lookup of P1: subsample %d's row under Not now must say not eligible and why, %q:\n%s", target.SubsampleID, why, row)
	}
	shown := lookupLinks(page)
	if len(shown) == 0 {
		t.Errorf("lookup of P1 shows no entry link")
	}
	for _, l := range shown {
		if !strings.HasPrefix(l, "https://") || !strings.HasSuffix(l, "&SAPI=1&id=P1") {
			t.Errorf("lookup of P1 shows the entry link %q, want it filled for P1 with SAPI=1 before the id", l)
		}
	}
	resp, page = a.do(t, "GET", "/panelists.csv?panelist=P1", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(page, "panelistId,subsampleId,") || !strings.Contains(resp.Header.Get("Content-Disposition"), "panelist-surveys_") {
		t.Errorf("lookup CSV: %d %q", resp.StatusCode, firstLine(page))
	}
	if lines := strings.Count(page, "\nP1,"); lines != len(a.sim.LiveSubsampleIDs()) {
		t.Errorf("lookup CSV has %d rows, want one per live subsample (%d)", lines, len(a.sim.LiveSubsampleIDs()))
	}
	// A blank field is no lookup, as a blank filter is no filter (the
	// query rule of handlers/params.go).
	resp, page = a.do(t, "GET", "/panelists?panelist="+url.QueryEscape("   "), nil)
	if resp.StatusCode != 200 || strings.Contains(page, "Panelist id is empty") {
		t.Errorf("lookup of a blank id: %d, want 200 and the page without a lookup", resp.StatusCode)
	}

	body, contentType = multipartFile(t, map[string]string{"subsample": fmt.Sprint(target.SubsampleID)}, "ids.csv", "panelistId\nP1\nP9\n=cmd\n")
	resp, page = a.postRaw(t, "/panelists/bulk", contentType, body, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(page, "panelistId,eligible,quota,send,reasons\nP1,false,unknown,false,") || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("bulk form: %d %s", resp.StatusCode, page)
	}
	// The dashboard's download is opened in a spreadsheet: the ids the
	// file gave are neutralised like any other cell (the API echoes them).
	if rows := parseCSV(t, page); len(rows) != 4 || rows[3][0] != "'=cmd" {
		t.Errorf("bulk form: the id =cmd comes back as %q, want '=cmd", rows[len(rows)-1][0])
	}
	body, contentType = multipartFile(t, map[string]string{"subsample": fmt.Sprint(target.SubsampleID)}, "ids.csv", "panelistId\n\n")
	resp, page = a.postRaw(t, "/panelists/bulk", contentType, body, nil)
	if resp.StatusCode != 422 || !strings.Contains(page, `data-testid="bulk-error"`) {
		t.Errorf("bulk form with no ids: %d, want 422 with the reason on the page", resp.StatusCode)
	}
}

// multipartFile builds a form with fields and one file named "file".
func multipartFile(t *testing.T, fields map[string]string, name, content string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(content))
	w.Close()
	return &buf, w.FormDataContentType()
}

func (a *app) postRaw(t *testing.T, path, contentType string, body io.Reader, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", a.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestCrossSitePostsAreRefused(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tests := []struct {
		name   string
		header map[string]string
		ctype  string
		status int
	}{
		{"form from another site", map[string]string{"Origin": "http://evil.example"}, "text/csv", 403},
		{"fetch metadata says cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, "text/csv", 403},
		{"text/plain is not a history file", nil, "text/plain", 415},
		{"a script with no Origin", nil, "text/csv", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			for k, v := range tt.header {
				header[k] = v
			}
			resp, body := a.postRaw(t, "/api/v1/history", tt.ctype, strings.NewReader(store.HistoryHeader+"\nP1,100,3,2026-11-01T10:00:00.000,10,0,0\n"), header)
			if resp.StatusCode != tt.status {
				t.Errorf("%d %s, want %d", resp.StatusCode, body, tt.status)
			}
		})
	}
	if n := historyCount(t, a); n != 1 {
		t.Errorf("%d history records stored, want only the script's one", n)
	}
}

func TestPanelistIDIsUnescapedFromThePath(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P 1/x")
	var surveys formats.PanelistSurveysJSON
	a.getJSON(t, "/api/v1/panelists/P%201%2Fx/surveys", &surveys)
	if surveys.PanelistID != "P 1/x" || len(surveys.MayEnter) == 0 {
		t.Fatalf("panelist id %q with %d surveys, want \"P 1/x\"", surveys.PanelistID, len(surveys.MayEnter))
	}
	if len(surveys.MayEnter[0].EntryLinks) == 0 {
		t.Fatalf("\"P 1/x\" may enter %d with no entry link", surveys.MayEnter[0].SubsampleID)
	}
	for _, l := range surveys.MayEnter[0].EntryLinks {
		if !strings.HasSuffix(l.Live, "&id=P+1%2Fx") {
			t.Errorf("entry link %s, want it to end with &id=P+1%%2Fx", l.Live)
		}
	}
}

// subsampleIDs are the subsamples of entries, in their order.
func subsampleIDs(entries []formats.EligibilityJSON) []int64 {
	ids := make([]int64, len(entries))
	for i, e := range entries {
		ids[i] = e.SubsampleID
	}
	return ids
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// checkEntryLinks checks one subsample's entry links as the README's
// entry-link rules shape them: each live and testing link (the testing one
// may be empty) ends with SAPI=1 and then id=panelistID when the subsample
// is API compatible, names no SAPI otherwise, and has id last. It returns
// how many testing links it checked.
func checkEntryLinks(t *testing.T, where string, links []formats.EntryLinkJSON, apiCompatible bool, panelistID string) int {
	t.Helper()
	id := "id=" + url.QueryEscape(panelistID)
	testing := 0
	for _, l := range links {
		if l.Problem != "" {
			continue
		}
		for kind, link := range map[string]string{"live": l.Live, "testing": l.Testing} {
			if link == "" && kind == "testing" {
				continue
			}
			ok, want := strings.HasSuffix(link, "&SAPI=1&"+id) && strings.Count(link, "SAPI") == 1, "SAPI=1 then "+id+" last (API compatible)"
			if !apiCompatible {
				ok, want = strings.HasSuffix(link, "&"+id) && !strings.Contains(link, "SAPI"), "no SAPI and "+id+" last (not API compatible)"
			}
			if !ok {
				t.Errorf("%s, %s: %s link %q, want %s", where, l.Locale, kind, link, want)
			}
			if kind == "testing" {
				testing++
			}
		}
	}
	return testing
}

// parseCSV reads a whole CSV answer, failing the test when it is not CSV
// or has no header.
func parseCSV(t *testing.T, body string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("not a CSV with a header (%v):\n%.500s", err, body)
	}
	return rows
}

// parseFloat reads a number a CSV cell must hold.
func parseFloat(t *testing.T, cell string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(cell, 64)
	if err != nil {
		t.Fatalf("cell %q is not a number: %v", cell, err)
	}
	return f
}

// historyCount is how many history records the store holds.
func historyCount(t *testing.T, a *app) int64 {
	t.Helper()
	n, err := a.store.CountHistory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lookupLinks are the entry links the lookup page shows, unescaped.
func lookupLinks(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<code class="url">([^<]*)</code>`).FindAllStringSubmatch(page, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// lookupRow is the row of the lookup page's table (may-enter or not-now)
// that shows subsample id, or "" when it shows none. The not-now table
// holds its groups' rows in tables of their own: the table ends at the
// next heading or the end of the section.
func lookupRow(page, table string, id int64) string {
	_, rest, ok := strings.Cut(page, `data-testid="`+table+`"`)
	if !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, "</section>")
	rest, _, _ = strings.Cut(rest, "<h3")
	for _, row := range strings.Split(rest, "<tr")[1:] {
		row, _, _ = strings.Cut(row, "</tr>")
		if strings.Contains(row, fmt.Sprintf(`<span class="id">%d</span>`, id)) {
			return row
		}
	}
	return ""
}

func TestChecksFollowEachNewSnapshot(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	var before []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &before) // fills the cache
	a.sim.FailPath("/supplier/v1/subsamples/"+strconv.FormatInt(target.SubsampleID, 10)+"/quotas", sim.FailServerError)
	a.refresher.Refresh(context.Background(), refresh.Request{SubsampleID: target.SubsampleID})
	var unknown []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=unknown", &unknown)
	found := false
	for _, s := range unknown {
		found = found || s.SubsampleID == target.SubsampleID
	}
	if !found {
		t.Errorf("after its quotas failed to read, subsample %d is not unknown: the answer came from a stale snapshot", target.SubsampleID)
	}
}

func TestLiveListFiltersSortPagesAndCSV(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	count := func(body string) int { return strings.Count(body, `data-testid="live-row"`) }
	_, all := a.do(t, "GET", "/live", nil)
	live := len(a.sim.LiveSubsampleIDs())
	if want := min(live, 50); count(all) != want {
		t.Errorf("/live shows %d rows, want %d (50 a page)", count(all), want)
	}
	tests := []struct {
		query string
		rows  func(formats.SubsampleJSON) bool
	}{
		{"sendability=sendable", func(s formats.SubsampleJSON) bool { return s.Sendability == "sendable" }},
		{"status=Live+for+testing", func(s formats.SubsampleJSON) bool { return s.Status == "Live for testing" }},
		{"country=US", func(s formats.SubsampleJSON) bool { return s.Country == "US" }},
		{"cpimin=1&cpimax=9&currency=USD", func(s formats.SubsampleJSON) bool {
			return s.Currency == "USD" && s.CPI != nil && *s.CPI > 0 && *s.CPI >= 1 && *s.CPI <= 9
		}},
	}
	var subsamples []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &subsamples)
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			want := 0
			for _, s := range subsamples {
				if s.CPI != nil && tt.rows(s) { // listed by live-details
					want++
				}
			}
			if want == 0 {
				t.Fatalf("no live subsample passes %s: pick a filter that keeps some", tt.query)
			}
			resp, body := a.do(t, "GET", "/live.csv?"+tt.query, nil)
			if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), `filename="live-subsamples_`) {
				t.Fatalf("CSV: %d %v", resp.StatusCode, resp.Header)
			}
			rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
			if err != nil || rows[0][0] != "subsampleId" || len(rows)-1 != want {
				t.Errorf("CSV has %d rows (%v), the API says %d match", len(rows)-1, err, want)
			}
			_, page := a.do(t, "GET", "/live?"+tt.query, map[string]string{"HX-Request": "true"})
			if strings.Contains(page, "<html") || count(page) != min(want, 50) {
				t.Errorf("htmx table has %d rows, want %d", count(page), min(want, 50))
			}
		})
	}
	_, sorted := a.do(t, "GET", "/live.csv?sort=-cpi", nil)
	rows := parseCSV(t, sorted)
	cpi := slices.Index(rows[0], "cpi")
	if cpi < 0 || len(rows) < 3 {
		t.Fatalf("sort=-cpi: %d rows with header %v, want a cpi column and rows to compare", len(rows)-1, rows[0])
	}
	// An unknown price is an empty cell, after every known one.
	known := len(rows)
	for known > 1 && rows[known-1][cpi] == "" {
		known--
	}
	for i := 2; i < known; i++ {
		prev, cur := parseFloat(t, rows[i-1][cpi]), parseFloat(t, rows[i][cpi])
		if cur > prev {
			t.Fatalf("sort=-cpi: row %d has CPI %v after %v", i, cur, prev)
		}
	}
	// The simulator prices its subsamples in several currencies: a CPI
	// bound without one is refused, as the page and the CSV say.
	for _, path := range []string{"/live.csv?cpimin=5", "/live?cpimax=9"} {
		resp, body := a.do(t, "GET", path, map[string]string{"HX-Request": "true"})
		if resp.StatusCode != 400 || !strings.Contains(body, "a CPI range needs a currency") {
			t.Errorf("%s: %d %q, want 400 saying a CPI range needs a currency", path, resp.StatusCode, body)
		}
	}
	for _, bad := range []string{"cpimin=abc", "sort=bogus", "page=0", "sendability=maybe", "device=fridge"} {
		resp, body := a.do(t, "GET", "/live?"+bad, map[string]string{"HX-Request": "true"})
		if resp.StatusCode != 400 || resp.Header.Get("HX-Retarget") != "#flash" || !strings.Contains(body, "could not be read") {
			t.Errorf("/live?%s: %d %q, want 400 retargeted to #flash", bad, resp.StatusCode, body)
		}
	}
}

func TestSubsampleVerdictAndLinksCSV(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	id := strconv.FormatInt(target.SubsampleID, 10)
	resp, body := a.do(t, "GET", "/subsamples/"+id+"/verdict.csv", nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if resp.StatusCode != 200 || err != nil || len(rows) != 6 || rows[1][2] != rules.RuleStatus || rows[1][3] != "pass" {
		t.Errorf("verdict CSV: %d %v %q", resp.StatusCode, err, rows)
	}
	resp, body = a.do(t, "GET", "/subsamples/"+id+"/links.csv", nil)
	rows, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if resp.StatusCode != 200 || err != nil || len(rows) != len(target.EntryLinks)+1 ||
		!slices.Equal(rows[0], []string{"subsampleId", "locale", "liveEntryLink", "testingEntryLink", "problem"}) {
		t.Fatalf("links CSV: %d %v %q", resp.StatusCode, err, rows)
	}
	// Each line holds the locale's links as the API gives them, each in its
	// own column.
	for i, l := range target.EntryLinks {
		if want := []string{id, l.Locale, l.Live, l.Testing, l.Problem}; !slices.Equal(rows[i+1], want) {
			t.Errorf("links CSV line %d = %q, want %q", i+2, rows[i+1], want)
		}
	}
	if resp, _ := a.do(t, "GET", "/subsamples/999999999/links.csv", nil); resp.StatusCode != 404 {
		t.Errorf("links CSV of an unknown subsample: %d, want 404", resp.StatusCode)
	}
}

func TestOddSubsampleAndLocalePaths(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	if resp, _ := a.do(t, "GET", "/subsamples/999999999/refresh/progress", map[string]string{"HX-Request": "true"}); resp.StatusCode != 404 {
		t.Errorf("refresh progress of an unknown subsample: %d, want 404", resp.StatusCode)
	}
	resp, body := a.do(t, "GET", "/library/en-gb%2F..%2F/questions/1/answers", nil)
	if resp.StatusCode != 404 || strings.Contains(body, "%2F") {
		t.Errorf("library path with an encoded slash: %d, want 404 naming the locale decoded", resp.StatusCode)
	}
}

// agreesWithLookupCSV checks the JSON answer of one panelist's surveys,
// written from prepared fragments, against the lookup's CSV, built from
// the same checks the plain way.
func agreesWithLookupCSV(t *testing.T, a *app, panelistID string, surveys formats.PanelistSurveysJSON) {
	t.Helper()
	_, body := a.do(t, "GET", "/panelists.csv?panelist="+url.QueryEscape(panelistID), nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("lookup CSV of %s: %v\n%s", panelistID, err, body)
	}
	if n := len(surveys.MayEnter) + len(surveys.Others); n != len(rows)-1 {
		t.Errorf("%s: JSON lists %d subsamples, CSV %d", panelistID, n, len(rows)-1)
	}
	want := map[string][]string{}
	for _, r := range rows[1:] {
		want[r[1]] = r
	}
	for _, s := range append(append([]formats.EligibilityJSON{}, surveys.MayEnter...), surveys.Others...) {
		r := want[strconv.FormatInt(s.SubsampleID, 10)]
		var why, links []string
		why = append(why, s.SendabilityReasons...)
		for _, reason := range s.Reasons {
			why = append(why, reason.Reason)
		}
		for _, l := range s.EntryLinks {
			links = append(links, l.Locale+" "+l.Live)
			if l.Testing != "" {
				t.Errorf("%s on %d: the surveys answer carries a testing link", panelistID, s.SubsampleID)
			}
		}
		got := []string{s.PanelistID, strconv.FormatInt(s.SubsampleID, 10), s.Name, string(s.Sendability),
			strconv.FormatBool(s.Eligible), string(s.Quota), strconv.FormatBool(s.Send), strconv.FormatBool(s.MayEnter), strings.Join(why, " "), strings.Join(links, "; ")}
		if r == nil {
			t.Errorf("%s: subsample %d is not in the CSV", panelistID, s.SubsampleID)
			continue
		}
		csvSide := []string{r[0], r[1], r[2], r[8], r[9], r[10], r[11], r[12], r[13], r[15]}
		if !slices.Equal(got, csvSide) {
			t.Errorf("%s on %d:\n JSON %q\n CSV  %q", panelistID, s.SubsampleID, got, csvSide)
		}
	}
}

func TestEPCInTheAPIAndTheLiveList(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?status=Live", &all)
	sources := map[string]int{}
	for _, s := range all {
		sources[s.EPCSource]++
		switch s.EPCSource {
		case "field", "estimate":
			if s.EPC == nil || s.CPI == nil || *s.EPC <= 0 || *s.EPC > *s.CPI {
				t.Errorf("subsample %d: epc %v from %s with CPI %v; want a figure in (0, CPI]", s.SubsampleID, s.EPC, s.EPCSource, s.CPI)
			}
			if s.EPCSource == "estimate" && s.Incidence != nil && math.Abs(*s.EPC-*s.CPI**s.Incidence/100) > 0.006 {
				t.Errorf("subsample %d: estimated epc %v, want CPI %v x incidence %v%%", s.SubsampleID, *s.EPC, *s.CPI, *s.Incidence)
			}
		case "":
			if s.EPC != nil {
				t.Errorf("subsample %d: epc %v without a source", s.SubsampleID, *s.EPC)
			}
		default:
			t.Errorf("subsample %d: epcSource %q", s.SubsampleID, s.EPCSource)
		}
	}
	if sources["field"] == 0 || sources["estimate"] == 0 {
		t.Errorf("epc sources over the live subsamples: %v; want both field and estimate", sources)
	}
	rows := a.getCSV(t, "/live.csv?sort=-epc", "live-subsamples")
	col := slices.Index(rows[0], "epc")
	src := slices.Index(rows[0], "epcSource")
	if col < 0 || src < 0 {
		t.Fatalf("the live CSV has no epc or epcSource column: %v", rows[0])
	}
	cur := slices.Index(rows[0], "currency")
	compared := 0
	for i := 2; i < len(rows); i++ {
		if rows[i][cur] != rows[i-1][cur] || rows[i][col] == "" {
			continue
		}
		if rows[i-1][col] == "" {
			t.Errorf("sort=-epc: line %d has no figure, and is before line %d's %s within %s", i-1, i, rows[i][col], rows[i][cur])
			continue
		}
		prev, this := parseFloat(t, rows[i-1][col]), parseFloat(t, rows[i][col])
		if this > prev {
			t.Errorf("sort=-epc: line %d (%v) after %v within %s", i, this, prev, rows[i][cur])
		}
		compared++
	}
	if compared < 10 {
		t.Errorf("sort=-epc: %d neighbouring figures compared within a currency, want many", compared)
	}
	if _, body := a.do(t, "GET", "/live?sort=-epc", nil); !strings.Contains(body, `title="`) || !strings.Contains(body, "per entry") {
		t.Errorf("the live list does not explain its EPC figures in a tooltip")
	}
}
