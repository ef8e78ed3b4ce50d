package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// badRequest is a request with a malformed or unknown id, locale, table or
// query parameter, and the answer it must get.
type badRequest struct {
	method string
	target string // path and query as sent on the wire, escapes untouched
	status int    // 400 or 404; 200 where the parameter is ignored by design
	want   string // in the body: what is wrong, in the server's words
	body   string // request body, of type bodyCT
	bodyCT string
	plain  bool // refused by net/http itself: no page, no JSON
}

// TestBadInputNeverAnswers500 sends every route that takes a path or query
// parameter malformed, out-of-range and unknown values, as a browser page,
// an htmx fragment or an API call, and checks that each gets a 4xx with a
// sentence saying what is wrong (or is ignored where that is the rule),
// never a 500.
func TestBadInputNeverAnswers500(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	locale := libraryLocale(t, a)

	var cases []badRequest
	add := func(method, target string, status int, want string) {
		cases = append(cases, badRequest{method: method, target: target, status: status, want: want})
	}

	// Subsample ids, on every route that takes one.
	malformedIDs := []string{"abc", "-1", "0", "1.5", "1e3", "0x10", "99999999999999999999", "%00", "%20", "%2F", "%ff", "%3Cscript%3E"}
	subsampleRoutes := []struct{ method, suffix string }{
		{"GET", ""}, {"GET", "/quotas.csv"}, {"GET", "/verdict.csv"}, {"GET", "/links.csv"},
		{"GET", "/refresh/progress"}, {"POST", "/refresh"},
	}
	for _, r := range subsampleRoutes {
		for _, id := range malformedIDs {
			add(r.method, "/subsamples/"+id+r.suffix, 400, "is not a positive whole number")
		}
		add(r.method, "/subsamples/999999999"+r.suffix, 404, "Subsample 999999999 is not in the current snapshot.")
	}
	add("GET", "/subsamples/", 404, "Not Found")
	for _, id := range malformedIDs {
		cases = append(cases, badRequest{method: "POST", target: "/api/v1/subsamples/" + id + "/eligibility",
			status: 400, want: "is not a positive whole number", body: "panelistId\nP1\n", bodyCT: "text/csv"})
	}
	cases = append(cases, badRequest{method: "POST", target: "/api/v1/subsamples/999999999/eligibility",
		status: 404, want: "Subsample 999999999 is not in the current snapshot.", body: "panelistId\nP1\n", bodyCT: "text/csv"})

	// The live list and its CSV.
	for _, suffix := range []string{"", ".csv"} {
		for _, q := range []struct{ query, want string }{
			{"page=-1", `page &#34;-1&#34; is not a whole number from 1`},
			{"page=0", "is not a whole number from 1"},
			{"page=abc&sort=nonsense", "could not be read"},
			{"sort=nonsense", `sort &#34;nonsense&#34; is not a column of the list`},
			{"sort=-", "is not a column of the list"},
			{"device=fridge", `device &#34;fridge&#34; is not one of desktop, mobile, tablet`},
			{"sendability=maybe", "is not one of sendable, blocked_by_us, paused, not_sendable, testing, unknown"},
			{"status=%3Cb%3E", "status &#34;&lt;b&gt;&#34; is not one of Live, Live for testing, Pending, Complete, Canceled"},
			{"cpimin=NaN", `cpimin &#34;NaN&#34; is not a price`},
			{"cpimin=-1", "is not a price"},
			{"cpimax=1e999", "is not a price"},
			{"cpimin=5&cpimax=1", "the CPI range runs from 5 down to 1"},
			{"page=%ff", "is not a whole number from 1"},
		} {
			add("GET", "/live"+suffix+"?"+q.query, 400, q.want)
		}
	}
	add("GET", "/live?page=1000", 200, `data-testid="live-row"`) // past the end: the last page
	add("GET", "/live?page=99999999999999999999", 200, `data-testid="live-row"`)
	add("GET", "/live?q=%ff%00&country=zz", 200, "live-table") // free-text filters that match nothing

	// The events page and its CSV.
	for _, path := range []string{"/events", "/events.csv"} {
		add("GET", path+"?status=Whatever", 400, "Status &#34;Whatever&#34; is not one of")
		add("GET", path+"?from=2026-02-30", 400, "From &#34;2026-02-30&#34; is not a date: use yyyy-MM-dd")
		add("GET", path+"?to=yesterday", 400, "is not a date")
		add("GET", path+"?from=%ff", 400, "is not a date")
		add("GET", path+"?from=2026-03-02&to=2026-03-01", 400, "From (2026-03-02) is after to (2026-03-01).")
	}
	add("GET", "/events?page=-1", 400, `Page &#34;-1&#34; is not a whole number from 1.`) // paged as /live is
	add("GET", "/events?page=1000&sort=nonsense", 200, "120 subsamples")                  // past the end: the last page; no sort, ignored
	add("GET", "/events?page=99999999999999999999", 200, `data-testid="event-row"`)
	add("GET", "/events?q=%ff%00&country=%3Cb%3E", 200, "0 events, 0 of 120 subsamples match the filters.")

	// The outcomes, the invoice, their CSVs and the API's.
	for _, path := range []string{"/outcomes", "/outcomes.csv"} {
		add("GET", path+"?group=planet", 400, "Group: &#34;planet&#34; is not a grouping: use subsample, event, country or day.")
		add("GET", path+"?from=2026-02-30", 400, "From &#34;2026-02-30&#34; is not a date: use yyyy-MM-dd")
		add("GET", path+"?from=2026-03-02&to=2026-03-01", 400, "From (2026-03-02) is after to (2026-03-01).")
		add("GET", path+"?event=abc", 400, "Event id &#34;abc&#34; is not a positive whole number")
		add("GET", path+"?subsample=-1", 400, "is not a positive whole number")
		add("GET", path+"?country=USA", 400, "Country:")
		add("GET", path+"?page=0", 400, "is not a whole number from 1")
	}
	add("GET", "/outcomes?page=99999999999999999999", 200, `data-testid="outcome-totals"`)
	for _, path := range []string{"/outcomes/invoice", "/outcomes/invoice.csv"} {
		add("GET", path+"?month=2026-13", 400, "Month: &#34;2026-13&#34; is not a month like 2026-11.")
		add("GET", path+"?month=%ff", 400, "is not a month like 2026-11")
	}
	add("GET", "/api/v1/outcomes?group=planet", 400, `Group: \"planet\" is not a grouping`)
	add("GET", "/api/v1/outcomes?to=yesterday", 400, "is not a date")
	add("GET", "/api/v1/outcomes?format=xml", 400, `format \"xml\" is neither json nor csv`)
	add("GET", "/api/v1/invoice?month=2026-13", 400, `Month: \"2026-13\" is not a month like 2026-11.`)
	add("GET", "/api/v1/outcomes?to=9999-12-31", 400, `To \"9999-12-31\" is out of range: use one from 2000 to 2999.`)
	add("GET", "/api/v1/outcomes?from=0001-01-01", 400, `From \"0001-01-01\" is out of range: use one from 2000 to 2999.`)
	add("GET", "/api/v1/invoice?month=9999-12", 400, `Month: \"9999-12\" is out of range: use one from 2000 to 2999.`)
	add("GET", "/routing?to=9999-12-31", 400, "To &#34;9999-12-31&#34; is out of range")

	// The question library: unknown and malformed locales and question ids.
	for _, path := range []string{"/library", "/library.csv"} {
		add("GET", path+"?locale=xx-XX", 404, "No question library is stored for locale &#34;xx-XX&#34;")
		add("GET", path+"?locale=%ff", 404, `No question library is stored for locale &#34;\xff&#34;`)
		add("GET", path+"?locale=%00", 404, `locale &#34;\x00&#34;`)
		add("GET", path+"?locale=%3Cscript%3E", 404, "locale &#34;&lt;script&gt;&#34;")
	}
	add("GET", "/library?locale="+locale+"&q=%ff%00", 200, "0 of 10 questions of "+locale+" match")
	for _, suffix := range []string{"", ".csv"} {
		answers := "/questions/43/answers" + suffix
		add("GET", "/library/xx-XX"+answers, 404, "No question library is stored for locale &#34;xx-XX&#34;")
		add("GET", "/library/%ff"+answers, 404, `locale &#34;\xff&#34;`)
		add("GET", "/library/%00"+answers, 404, `locale &#34;\x00&#34;`)
		add("GET", "/library/%25zz"+answers, 404, "locale &#34;%zz&#34;")
		add("GET", "/library/%2525"+answers, 404, "locale &#34;%25&#34;") // decoded once, not twice
		add("GET", "/library/en-us%2F..%2Fxx"+answers, 404, "locale &#34;en-us/../xx&#34;")
		add("GET", "/library/.."+answers, 404, "locale &#34;..&#34;")
		add("GET", "/library/%20"+answers, 404, "Name a locale")
		for _, qid := range []string{"abc", "1.5", "0x10", "99999999999999999999", "%00", "%20"} {
			add("GET", "/library/"+locale+"/questions/"+qid+"/answers"+suffix, 400, "is not a number.")
		}
		add("GET", "/library/"+locale+"/questions/999999999/answers"+suffix, 404, "Question 999999999 is not in the library of "+locale+".")
		add("GET", "/library/"+locale+"/questions/-2/answers"+suffix, 404, "Question -2 is not in the library")
	}

	// Reference tables.
	for _, table := range []string{"nope.csv", "countries", "COUNTRIES.CSV", "%00", "..%2F..%2Fgo.mod", "%ff.csv"} {
		add("GET", "/reference/"+table, 404, "No such reference table: they are countries.csv, locales.csv and statuses.csv.")
	}

	// Panelist ids, in the page, its CSV and the API.
	long := strings.Repeat("p", 129)
	add("GET", "/panelists?panelist=%00", 400, "Panelist id holds control characters.")
	add("GET", "/panelists?panelist=%20", 200, `name="panelist"`) // a blank field is no lookup
	add("GET", "/panelists?panelist="+long, 400, "Panelist id is 129 bytes long; at most 128.")
	add("GET", "/panelists.csv", 400, "Name a panelist: /panelists.csv?panelist=P.")
	add("GET", "/panelists.csv?panelist=%20", 400, "Name a panelist: /panelists.csv?panelist=P.")
	add("GET", "/panelists.csv?panelist=%0A", 400, "Name a panelist: /panelists.csv?panelist=P.")
	add("GET", "/panelists.csv?panelist=a%00b", 400, "Panelist id holds control characters.")
	add("GET", "/api/v1/panelists/%20/surveys", 400, "panelist id: is empty")
	add("GET", "/api/v1/panelists/%00/surveys", 400, "panelist id: holds control characters")
	add("GET", "/api/v1/panelists/"+long+"/surveys", 400, "panelist id: is 129 bytes long; at most 128")
	add("GET", "/api/v1/panelists/%25zz/surveys", 200, `"panelistId":"%zz"`) // odd but valid ids, decoded once
	add("GET", "/api/v1/panelists/100%25/surveys", 200, `"panelistId":"100%"`)
	add("GET", "/api/v1/panelists/a%252Fb/surveys", 200, `"panelistId":"a%2Fb"`)
	add("GET", "/api/v1/eligibility", 400, "panelistId: is empty")
	add("GET", "/api/v1/eligibility?panelistId=P1", 400, `subsampleId \"\" is not a positive whole number`)
	add("GET", "/api/v1/eligibility?panelistId=%00&subsampleId=1", 400, "panelistId: holds control characters")
	for _, id := range []string{"abc", "-1", "0", "1.5", "99999999999999999999", "%00"} {
		add("GET", "/api/v1/eligibility?panelistId=P1&subsampleId="+id, 400, "is not a positive whole number")
	}
	add("GET", "/api/v1/eligibility?panelistId=P1&subsampleId=999999999", 404, "Subsample 999999999 is not in the current snapshot.")
	add("GET", "/api/v1/subsamples?sendability=maybe", 400, `sendability \"maybe\" is not one of`)
	add("GET", "/api/v1/subsamples?status=nonsense", 400, `status \"nonsense\" is not one of Live, Live for testing`)
	add("GET", "/api/v1/subsamples?country=%00", 200, "[]") // a free-text filter that matches nothing

	// The bulk check form's subsample.
	for _, s := range []struct {
		value  string
		status int
		want   string
	}{
		{"abc", 400, "Pick a live subsample."},
		{"-5", 400, "Pick a live subsample."},
		{"99999999999999999999", 400, "Pick a live subsample."}, // not read as the largest int64
		{"999999999", 404, "Subsample 999999999 is not live in the current snapshot."},
	} {
		body, ct := multipartFile(t, map[string]string{"subsample": s.value}, "ids.csv", "panelistId\nP1\n")
		cases = append(cases, badRequest{method: "POST", target: "/panelists/bulk", status: s.status, want: s.want, body: body.String(), bodyCT: ct})
	}
	add("POST", "/panelists/history", 400, "Choose a CSV file to import.")
	add("POST", "/panelists/profiles", 400, "Choose a CSV file of profiles to import.")
	add("POST", "/panelists/panel", 400, "Choose a CSV file of the panel to import.")
	add("POST", "/profiling/mapping", 400, "Choose a CSV file of the mapping to import.")
	add("POST", "/profiling/own", 400, "Choose a CSV file of profiles in your codes to import.")
	add("POST", "/api/v1/profiles/mapping", 415, "Send the mapping as text/csv.")
	cases = append(cases, badRequest{method: "POST", target: "/api/v1/profiles/mapping", status: 415, want: "Send the mapping as text/csv.", body: "[]", bodyCT: "application/json"})
	add("POST", "/api/v1/panelists", 415, "Send the panel as text/csv or application/json.")

	// The sign-in page's next: a signed-in viewer is sent there, but only
	// to a path of this site, whatever the browser would make of it.
	for _, next := range []string{"//evil.example", "https://evil.example", "javascript:alert(1)", "/%5Cevil.example",
		"/%09/evil.example", "/%0A/evil.example", "%2F%2Fevil.example", "/%00", "%ff", ""} {
		add("GET", "/login?next="+next, 303, "")
	}

	// Parameters where none are read are ignored, and static files do not
	// leave their folder.
	add("GET", "/?page=abc&locale=%ff", 200, `data-testid="sendability-counts"`)
	add("GET", "/overview.csv?x=%00", 200, "")
	add("GET", "/refresh/progress?page=-1", 200, "")
	add("GET", "/static/..%2F..%2Fgo.mod", 404, "Not Found")
	add("GET", "/static/%2e%2e/%2e%2e/go.mod", 404, "Not Found")

	// What net/http refuses before any route sees it, in plain text.
	for _, target := range []string{"/subsamples/%zz", "/api/v1/panelists/%zz/surveys"} {
		cases = append(cases, badRequest{method: "GET", target: target, status: 400, want: "400 Bad Request", plain: true})
	}

	// A query net/url cannot decode: refused whole rather than read without
	// the parameters it would drop.
	add("GET", "/library?locale=%", 400, `The query string could not be read: invalid URL escape &#34;%&#34;.`)
	add("GET", "/live?page=%zz", 400, "The query string could not be read")
	add("GET", "/events.csv?from=2026-01-01;to=2026-02-01", 400, "The query string could not be read: invalid semicolon separator in query.")
	add("GET", "/api/v1/eligibility?panelistId=P1&subsampleId=%G1", 400, "The query string could not be read")
	add("GET", "/subsamples/999999999?x=%", 400, "The query string could not be read")

	for _, c := range cases {
		if c.body == "" && c.bodyCT == "" && c.method == "POST" {
			c.bodyCT = "application/x-www-form-urlencoded"
		}
		headers := []map[string]string{nil}
		if !strings.HasPrefix(c.target, "/api/") && c.method == "GET" {
			headers = append(headers, map[string]string{"HX-Request": "true"})
		}
		for _, h := range headers {
			resp, body := a.raw(t, c.method, c.target, c.body, c.bodyCT, h)
			name := c.method + " " + c.target
			if h != nil {
				name += " (htmx)"
			}
			if resp.StatusCode >= 500 {
				t.Errorf("%s = %d, never a 5xx for bad input:\n%.300s", name, resp.StatusCode, body)
				continue
			}
			if resp.StatusCode != c.status {
				t.Errorf("%s = %d, want %d:\n%.300s", name, resp.StatusCode, c.status, body)
				continue
			}
			if !strings.Contains(body, c.want) {
				t.Errorf("%s = %d without %q:\n%.300s", name, resp.StatusCode, c.want, body)
			}
			if loc := resp.Header.Get("Location"); loc != "" && !onSite(loc) {
				t.Errorf("%s sends the browser off the site, to %q", name, loc)
			}
			if c.status >= 400 && strings.HasPrefix(c.target, "/api/") && !c.plain {
				var answer struct{ Error string }
				if err := json.Unmarshal([]byte(body), &answer); err != nil || answer.Error == "" {
					t.Errorf("%s = %d: the API must answer {\"error\": ...}, got %.300s", name, resp.StatusCode, body)
				}
			}
		}
	}
}

// onSite reports whether a browser following a redirect to location stays
// on this site: a path, once the browser has dropped tabs and line breaks
// and read a backslash as a slash.
func onSite(location string) bool {
	l := strings.Map(func(r rune) rune {
		switch r {
		case '\t', '\n', '\r':
			return -1
		case '\\':
			return '/'
		}
		return r
	}, strings.TrimLeft(location, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "))
	return strings.HasPrefix(l, "/") && !strings.HasPrefix(l, "//")
}

// libraryLocale returns a locale whose question library is stored, the
// first by code.
func libraryLocale(t *testing.T, a *app) string {
	t.Helper()
	have, err := a.store.LibraryLocales(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for code := range have {
		codes = append(codes, code)
	}
	if len(codes) == 0 {
		t.Fatal("no question library stored after a refresh")
	}
	slices.Sort(codes)
	return codes[0]
}

// raw sends a request whose path and query go on the wire exactly as
// written, so that malformed escapes reach the server as they are.
func (a *app) raw(t *testing.T, method, target, body, contentType string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, a.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque, req.URL.RawQuery, _ = strings.Cut(target, "?")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestQueryStringsAreCapped: a query parameter longer than 1 KiB, or a
// query string longer than 8 KiB, is refused with 400 and the reason, on
// the pages, their CSVs and the API alike, before any page reads it;
// everything up to the caps is served. A page whose own address is too
// long to come back to after signing in sends the browser to sign in and
// back to its path.
func TestQueryStringsAreCapped(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	x := func(n int) string { return strings.Repeat("x", n) }
	many := strings.Repeat("a="+x(1000)+"&", 9) // 9 parameters under the cap, 9 KiB in all
	tests := []struct {
		target string
		status int
		want   string
	}{
		{"/live?q=" + x(1024), 200, "0 of"},
		{"/live?q=" + x(1025), 400, "The query parameter &#34;q&#34; is 1025 bytes long; at most 1024."},
		{"/live.csv?q=" + x(1025), 400, "The query parameter &#34;q&#34; is 1025 bytes long; at most 1024."},
		{"/live?q=" + strings.Repeat("%C3%A9", 513), 400, "is 1026 bytes long"}, // decoded bytes count
		{"/live?" + x(1025) + "=1", 400, "A query parameter&#39;s name is 1025 bytes long; at most 1024."},
		{"/live?" + many, 400, "The query string is 9027 bytes long; at most 8192."},
		{"/events?q=" + x(2000), 400, "The query parameter &#34;q&#34; is 2000 bytes long"},
		{"/panelists?panelist=" + x(900_000), 400, "The query string is 900009 bytes long; at most 8192."},
		{"/api/v1/subsamples?country=" + x(1025), 400, `{"error":"The query parameter \"country\" is 1025 bytes long; at most 1024."}`},
		{"/api/v1/eligibility?panelistId=P1&subsampleId=1&q=" + x(8190), 400, `{"error":"The query string is 8220 bytes long; at most 8192."}`},
		{"/static/app.css?v=" + x(1025), 400, "is 1025 bytes long"},
	}
	for _, tt := range tests {
		resp, body := a.raw(t, "GET", tt.target, "", "", nil)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %.60s... (%d bytes) = %d, want %d with %q:\n%.300s", tt.target, len(tt.target), resp.StatusCode, tt.status, tt.want, body)
		}
	}

	// The longest filters a user sets on the live list fit.
	full := "/live?sendability=sendable&status=Live+for+testing&country=GB&rtype=Consumer&category=Automotive&device=desktop&cpimin=0.5&cpimax=99.5&currency=GBP&q=" +
		x(1000) + "&sort=-fieldend&page=2"
	if resp, body := a.raw(t, "GET", full, "", "", nil); resp.StatusCode != 200 {
		t.Errorf("the live list with every filter set: %d\n%.300s", resp.StatusCode, body)
	}

	// Signing in and back from a page whose address is too long to carry.
	req, _ := http.NewRequest("GET", a.url+"/live?sort=cpi&q="+x(1020), nil)
	req.Header.Set("Accept", "text/html")
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != 303 || loc != "/login?next=%2Flive" {
		t.Fatalf("a long page address sends the browser to %d %q, want 303 to /login?next=%%2Flive", resp.StatusCode, loc)
	}
	resp, err = a.anonymous.Get(a.url + resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the sign-in page it is sent to: %d, want 200", resp.StatusCode)
	}
}
