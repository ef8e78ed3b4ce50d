package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web/refresh"
)

// testIDs counts the elements marked data-testid=id in a page.
func testIDs(body, id string) int { return strings.Count(body, `data-testid="`+id+`"`) }

// shownSubsamples lists the subsample ids of the events page's rows.
func shownSubsamples(body string) []int64 {
	var ids []int64
	for _, m := range regexp.MustCompile(`data-subsample-id="(\d+)"`).FindAllStringSubmatch(body, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		ids = append(ids, id)
	}
	return ids
}

// eventPages fetches /events?query and every page after it, following
// the pager's next links, and returns the pages' bodies in order.
func (a *app) eventPages(t *testing.T, query string, header map[string]string) []string {
	t.Helper()
	next := regexp.MustCompile(`href="([^"]*)"[^>]*rel="next"`)
	path := "/events"
	if query != "" {
		path += "?" + query
	}
	var bodies []string
	for path != "" {
		resp, body := a.do(t, "GET", path, header)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d:\n%s", path, resp.StatusCode, body)
		}
		bodies = append(bodies, body)
		if len(bodies) > 100 {
			t.Fatalf("/events?%s: more than 100 pages", query)
		}
		path = ""
		if m := next.FindStringSubmatch(body); m != nil {
			path = html.UnescapeString(m[1])
		}
	}
	return bodies
}

// getCSV downloads a CSV and checks it is one: 200, text/csv and an
// attachment whose file name starts with dataset.
func (a *app) getCSV(t *testing.T, path, dataset string) [][]string {
	t.Helper()
	resp, body := a.do(t, "GET", path, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s = %d:\n%s", path, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("GET %s: Content-Type %q, want text/csv", path, ct)
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="`+dataset+"_") || !strings.HasSuffix(cd, `.csv"`) {
		t.Errorf("GET %s: Content-Disposition %q, want an attachment named %s_<snapshot>.csv", path, cd, dataset)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("GET %s: not CSV: %v", path, err)
	}
	if len(rows) == 0 {
		t.Fatalf("GET %s: no header row", path)
	}
	return rows
}

func TestPagesBeforeARefresh(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tests := []struct{ path, want string }{
		{"/events", "No subsamples yet: refresh on the"},
		{"/library", "No question library yet: it is read with the next refresh"},
		{"/reference", "No countries yet: reference data is read with the next refresh"},
	}
	for _, tt := range tests {
		resp, body := a.do(t, "GET", tt.path, nil)
		if resp.StatusCode != 200 || !strings.Contains(body, tt.want) || !strings.Contains(body, "<html") {
			t.Errorf("GET %s before a refresh = %d, want a page saying %q:\n%s", tt.path, resp.StatusCode, tt.want, body)
		}
	}
	if rows := a.getCSV(t, "/events.csv", "events"); len(rows) != 1 {
		t.Errorf("events CSV before a refresh has %d rows, want the header alone", len(rows))
	}
	if rows := a.getCSV(t, "/reference/countries.csv", "reference-countries"); len(rows) != 1 {
		t.Errorf("countries CSV before a refresh has %d rows, want the header alone", len(rows))
	}
}

func TestEventsPage(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	rows, err := a.store.SubsampleRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	events := map[int64]bool{}
	for _, r := range rows {
		events[r.EventID] = true
	}
	pages := a.eventPages(t, "", nil)
	body := strings.Join(pages, "\n")
	if testIDs(body, "event-subsample") != len(rows) || testIDs(body, "event-row") != len(events) {
		t.Fatalf("/events shows %d events and %d subsamples on its pages, want %d and %d",
			testIDs(body, "event-row"), testIDs(body, "event-subsample"), len(events), len(rows))
	}
	if len(events) == len(rows) {
		t.Error("the simulator should have multi-country events, grouped into one row")
	}
	// Paged as /live is: twenty events a page, each page says which it
	// is, and its pager swaps the table with htmx.
	if len(pages) < 2 {
		t.Errorf("/events is one page of %d events, want twenty a page", len(events))
	}
	for i, page := range pages {
		if n := testIDs(page, "event-row"); n > 20 || n == 0 {
			t.Errorf("/events page %d lists %d events, want 1 to 20", i+1, n)
		}
		if n := strings.Count(page, fmt.Sprintf("Page %d of %d", i+1, len(pages))); n != 1 {
			t.Errorf("/events page %d says it is page %d of %d %d times, want once (its pager, as /live)", i+1, i+1, len(pages), n)
		}
	}
	if !strings.Contains(pages[0], `hx-target="#events-results"`) || !strings.Contains(pages[0], `rel="next"`) {
		t.Error("/events: the pager must swap the table with htmx")
	}
	resp, last := a.do(t, "GET", "/events?page=1000", nil)
	if resp.StatusCode != 200 || testIDs(last, "event-row") != testIDs(pages[len(pages)-1], "event-row") {
		t.Errorf("/events?page=1000 = %d, want the last page", resp.StatusCode)
	}
	body = pages[0]
	for _, want := range []string{`href="/subsamples/`, `class="badge badge-`, `href="/events.csv"`, "Download CSV", `hx-push-url="true"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/events lacks %s", want)
		}
	}
	_, fragment := a.do(t, "GET", "/events?status=Live", map[string]string{"HX-Request": "true"})
	if strings.Contains(fragment, "<html") || testIDs(fragment, "event-row") == 0 {
		t.Errorf("an htmx request for /events must get the table alone")
	}
	lines := a.getCSV(t, "/events.csv", "events")
	if len(lines) != len(rows)+1 || !slices.Equal(lines[0],
		[]string{"eventId", "eventName", "subsampleId", "subsampleName", "status", "country", "fieldStart", "fieldEnd", "sendability"}) {
		t.Errorf("events CSV: header %v and %d lines, want a header and %d", lines[0], len(lines), len(rows))
	}
}

// TestEventsFilters checks each filter against the snapshot: the page
// shows exactly the subsamples expected, and the CSV of the same view has
// exactly those lines under its header.
func TestEventsFilters(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	rows, err := a.store.SubsampleRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type period struct{ start, end time.Time }
	periods := map[int64]period{}
	eventNames := map[int64]string{} // from live details
	for _, r := range rows {
		if r.EventName != "" {
			eventNames[r.EventID] = r.EventName
		}
		p, ok := periods[r.EventID]
		if !ok || r.FieldStart.Before(p.start) {
			p.start = *r.FieldStart
		}
		if !ok || r.FieldEnd.After(p.end) {
			p.end = *r.FieldEnd
		}
		periods[r.EventID] = p
	}
	// A window around the middle event's start, a month long.
	var starts []time.Time
	for _, p := range periods {
		starts = append(starts, p.start)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	from := starts[len(starts)/2].UTC().Truncate(24 * time.Hour)
	to := from.AddDate(0, 1, 0)
	country, sub := rows[len(rows)/2].CountryCode, rows[len(rows)/3]

	tests := []struct {
		name, query string
		keep        func(store.SubsampleRow) bool
	}{
		{"status", "status=Complete", func(r store.SubsampleRow) bool { return r.Status == domain.StatusComplete }},
		{"status live for testing", "status=" + url.QueryEscape("Live for testing"), func(r store.SubsampleRow) bool { return r.Status == domain.StatusLiveForTesting }},
		{"country", "country=" + country, func(r store.SubsampleRow) bool { return r.CountryCode == country }},
		{"dates", "from=" + from.Format(time.DateOnly) + "&to=" + to.Format(time.DateOnly), func(r store.SubsampleRow) bool {
			p := periods[r.EventID]
			return p.start.Before(to.AddDate(0, 0, 1)) && !p.end.Before(from)
		}},
		{"q subsample id", "q=" + strconv.FormatInt(sub.SubsampleID, 10), func(r store.SubsampleRow) bool {
			return r.SubsampleID == sub.SubsampleID || r.EventID == sub.SubsampleID
		}},
		{"q name in another case", "q=" + url.QueryEscape(strings.ToUpper(sub.Name)), func(r store.SubsampleRow) bool {
			name := strings.ToLower(sub.Name)
			return strings.Contains(strings.ToLower(r.Name), name) || eventNames[r.EventID] != "" && strings.Contains(strings.ToLower(eventNames[r.EventID]), name)
		}},
		{"status and country", "status=Live&country=" + country, func(r store.SubsampleRow) bool {
			return r.Status == domain.StatusLive && r.CountryCode == country
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []int64
			for _, r := range rows {
				if tt.keep(r) {
					want = append(want, r.SubsampleID)
				}
			}
			if len(want) == 0 || len(want) == len(rows) {
				t.Fatalf("the filter %s keeps %d of %d subsamples; pick one that narrows", tt.query, len(want), len(rows))
			}
			slices.Sort(want)
			pages := a.eventPages(t, tt.query, nil)
			body := pages[0]
			got := shownSubsamples(strings.Join(pages, "\n"))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("/events?%s shows %v on its pages, want %v", tt.query, got, want)
			}
			for i, page := range pages[1:] {
				if !strings.Contains(page, fmt.Sprintf("%d of %d subsamples match", len(want), len(rows))) {
					t.Errorf("/events?%s page %d does not count the matches of every page", tt.query, i+2)
				}
			}
			if !strings.Contains(body, fmt.Sprintf("%d of %d subsamples match", len(want), len(rows))) {
				t.Errorf("/events?%s does not say how many subsamples match", tt.query)
			}
			if !strings.Contains(body, `href="/events.csv?`) {
				t.Errorf("/events?%s: the Download CSV link must carry the filters", tt.query)
			}
			fragments := a.eventPages(t, tt.query, map[string]string{"HX-Request": "true"})
			if got := shownSubsamples(strings.Join(fragments, "\n")); len(got) != len(want) || strings.Contains(fragments[0], "<html") {
				t.Errorf("htmx /events?%s shows %d subsamples (want %d), or a whole page", tt.query, len(got), len(want))
			}
			lines := a.getCSV(t, "/events.csv?"+tt.query, "events")
			var csvIDs []int64
			for _, l := range lines[1:] {
				id, _ := strconv.ParseInt(l[2], 10, 64)
				csvIDs = append(csvIDs, id)
			}
			slices.Sort(csvIDs)
			if lines[0][0] != "eventId" || !slices.Equal(csvIDs, want) {
				t.Errorf("/events.csv?%s has subsamples %v, want exactly %v", tt.query, csvIDs, want)
			}
		})
	}

	resp, body := a.do(t, "GET", "/events?q=no-such-thing-anywhere", nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "No subsample matches these filters") {
		t.Errorf("a filter that keeps nothing = %d, want the empty state", resp.StatusCode)
	}
}

func TestEventsBadFilters(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	tests := []struct{ query, want string }{
		{"from=2026-02-30", "From &#34;2026-02-30&#34; is not a date: use yyyy-MM-dd"},
		{"to=tomorrow", "To &#34;tomorrow&#34; is not a date"},
		{"from=2026-05-02&to=2026-05-01", "From (2026-05-02) is after to (2026-05-01)."},
		{"status=Open", "Status &#34;Open&#34; is not one of Live"},
	}
	for _, tt := range tests {
		resp, body := a.do(t, "GET", "/events?"+tt.query, nil)
		if resp.StatusCode != 400 || !strings.Contains(body, tt.want) || !strings.Contains(body, "<html") {
			t.Errorf("/events?%s = %d, want a 400 page saying %q:\n%s", tt.query, resp.StatusCode, tt.want, body)
		}
		resp, body = a.do(t, "GET", "/events?"+tt.query, map[string]string{"HX-Request": "true"})
		if resp.StatusCode != 400 || !strings.Contains(body, tt.want) || strings.Contains(body, "<html") {
			t.Errorf("htmx /events?%s = %d, want a 400 fragment:\n%s", tt.query, resp.StatusCode, body)
		}
		if resp, _ := a.do(t, "GET", "/events.csv?"+tt.query, nil); resp.StatusCode != 400 {
			t.Errorf("/events.csv?%s = %d, want 400", tt.query, resp.StatusCode)
		}
	}
}

func TestLibraryPage(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	fetched, err := a.store.LibraryLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var locales []string
	for l := range fetched {
		locales = append(locales, l)
	}
	slices.Sort(locales)
	if len(locales) < 2 {
		t.Fatalf("the simulator gave libraries for %v; the test wants two locales", locales)
	}
	first, err := a.store.Questions(ctx, locales[0])
	if err != nil {
		t.Fatal(err)
	}
	resp, body := a.do(t, "GET", "/library", nil)
	if resp.StatusCode != 200 || testIDs(body, "question-row") != len(first) || len(first) == 0 {
		t.Fatalf("/library = %d with %d questions, want the %d of the first locale %s", resp.StatusCode, testIDs(body, "question-row"), len(first), locales[0])
	}
	if !strings.Contains(body, "caches each locale&#39;s library for 24 hours") && !strings.Contains(body, "caches each locale's library for 24 hours") {
		t.Error("/library must say the provider caches the library 24 hours")
	}

	// Switching locale shows that locale's questions and selects it.
	second := locales[1]
	questions, err := a.store.Questions(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	resp, body = a.do(t, "GET", "/library?locale="+second, nil)
	if resp.StatusCode != 200 || testIDs(body, "question-row") != len(questions) || !strings.Contains(body, `value="`+second+`" selected`) {
		t.Errorf("/library?locale=%s = %d with %d questions, want %d and the locale selected", second, resp.StatusCode, testIDs(body, "question-row"), len(questions))
	}
	translated := ""
	for _, q := range questions {
		if q.Translation != "" && q.Translation != q.Text {
			translated = q.Translation
			break
		}
	}
	if translated != "" && !strings.Contains(body, escapeHTML(translated)) {
		t.Errorf("/library?locale=%s lacks the translation %q", second, translated)
	}

	// Search by name, in another case, page and CSV alike.
	_, fragment := a.do(t, "GET", "/library?locale="+second+"&q=gender", map[string]string{"HX-Request": "true"})
	if strings.Contains(fragment, "<html") || testIDs(fragment, "question-row") != 1 || !strings.Contains(fragment, "GENDER") {
		t.Errorf("htmx /library?q=gender = %d question rows, want GENDER alone in a fragment", testIDs(fragment, "question-row"))
	}
	want := 0
	for _, q := range questions {
		if strings.Contains(strings.ToLower(q.Name+"\n"+q.Text+"\n"+q.Translation), "standard") {
			want++
		}
	}
	_, body = a.do(t, "GET", "/library?locale="+second+"&q=Standard", nil)
	if got := testIDs(body, "question-row"); got != want || want == 0 || want == len(questions) {
		t.Errorf("/library?q=Standard shows %d questions, want %d of %d", got, want, len(questions))
	}
	if !strings.Contains(body, `href="/library.csv?locale=`+second+`&amp;q=Standard"`) {
		t.Errorf("the library's Download CSV link must carry the locale and the search")
	}
	lines := a.getCSV(t, "/library.csv?locale="+second+"&q=Standard", "library_locale-"+second+"_q-Standard")
	if len(lines) != want+1 || !slices.Equal(lines[0], []string{"locale", "id", "type", "name", "text", "translation"}) {
		t.Errorf("/library.csv?q=Standard has %d lines, want a header and %d", len(lines), want)
	}
	if lines := a.getCSV(t, "/library.csv", "library_locale-"+locales[0]); len(lines) != len(first)+1 {
		t.Errorf("/library.csv has %d lines, want a header and the %d questions of %s", len(lines), len(first), locales[0])
	}

	// Unknown locale: 404, page, CSV and answers alike.
	for _, path := range []string{"/library?locale=xx-zz", "/library.csv?locale=xx-zz", "/library/xx-zz/questions/43/answers"} {
		if resp, body := a.do(t, "GET", path, nil); resp.StatusCode != 404 || !strings.Contains(body, "xx-zz") {
			t.Errorf("GET %s = %d, want 404 naming the locale", path, resp.StatusCode)
		}
	}
}

func TestLibraryAnswers(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	fetched, err := a.store.LibraryLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var locale string
	for l := range fetched {
		if locale == "" || l < locale {
			locale = l
		}
	}
	questions, err := a.store.Questions(ctx, locale)
	if err != nil {
		t.Fatal(err)
	}
	// A question with a NULL VALUE answer (the simulator's education
	// question has one in every locale) and one without.
	var withNull, plain int64
	var nullAnswers, plainAnswers []domain.Answer
	for _, q := range questions {
		answers, err := a.store.Answers(ctx, locale, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		hasNull := slices.ContainsFunc(answers, domain.Answer.IsNullValue)
		switch {
		case hasNull && withNull == 0:
			withNull, nullAnswers = q.ID, answers
		case !hasNull && len(answers) > 0 && plain == 0:
			plain, plainAnswers = q.ID, answers
		}
	}
	if plain == 0 {
		t.Fatalf("no question of %s has answers", locale)
	}
	path := fmt.Sprintf("/library/%s/questions/%d/answers", locale, plain)
	resp, body := a.do(t, "GET", path, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || strings.Contains(body, "<html") || testIDs(body, "answers") != 1 {
		t.Fatalf("htmx GET %s = %d, want the answers table alone:\n%s", path, resp.StatusCode, body)
	}
	for _, ans := range plainAnswers {
		if !strings.Contains(body, ">"+strconv.FormatInt(ans.ID, 10)+"<") || !strings.Contains(body, escapeHTML(ans.Name)) {
			t.Errorf("answers of %d lack answer %d %q", plain, ans.ID, ans.Name)
		}
	}
	if slices.ContainsFunc(plainAnswers, func(a domain.Answer) bool { return a.IsExclusive }) != strings.Contains(body, "exclusive</") {
		t.Errorf("answers of %d: an exclusive answer must say exclusive in words", plain)
	}
	resp, body = a.do(t, "GET", path, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "<html") || testIDs(body, "answers") != 1 {
		t.Errorf("GET %s without htmx = %d, want a page with the answers", path, resp.StatusCode)
	}
	lines := a.getCSV(t, path+".csv", fmt.Sprintf("library-answers_locale-%s_question-%d", locale, plain))
	if len(lines) != len(plainAnswers)+1 || lines[0][2] != "id" {
		t.Errorf("%s.csv has %d lines, want a header and %d", path, len(lines), len(plainAnswers))
	}

	if withNull == 0 {
		t.Fatalf("no question of %s has a NULL VALUE answer: its rendering cannot be checked", locale)
	}
	{
		path := fmt.Sprintf("/library/%s/questions/%d/answers", locale, withNull)
		_, body := a.do(t, "GET", path, map[string]string{"HX-Request": "true"})
		if strings.Count(body, `class="null-value"`) != 1 || !strings.Contains(body, `<span class="null-tag">NULL VALUE</span>`) {
			t.Errorf("GET %s: the NULL VALUE answer must be shown as such, in its own style:\n%s", path, body)
		}
		lines := a.getCSV(t, path+".csv", fmt.Sprintf("library-answers_locale-%s_question-%d", locale, withNull))
		nulls := 0
		for _, l := range lines[1:] {
			if l[len(l)-1] == "true" {
				nulls++
			}
		}
		if len(lines) != len(nullAnswers)+1 || nulls != 1 {
			t.Errorf("%s.csv: %d lines with %d NULL VALUE, want %d and 1", path, len(lines), nulls, len(nullAnswers)+1)
		}
	}

	tests := []struct {
		path   string
		status int
		want   string
	}{
		{fmt.Sprintf("/library/%s/questions/-1/answers", locale), 200, "takes a range"},
		{fmt.Sprintf("/library/%s/questions/abc/answers", locale), 400, "Question id &#34;abc&#34; is not a number"},
		{fmt.Sprintf("/library/%s/questions/4.5/answers.csv", locale), 400, "is not a number"},
		{fmt.Sprintf("/library/%s/questions/999999999/answers", locale), 404, "Question 999999999 is not in the library"},
	}
	for _, tt := range tests {
		resp, body := a.do(t, "GET", tt.path, map[string]string{"HX-Request": "true"})
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d, want %d with %q:\n%s", tt.path, resp.StatusCode, tt.status, tt.want, body)
		}
	}
}

func TestReferencePage(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	countries, err := a.store.Countries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locales, err := a.store.Locales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	statuses, err := a.store.SurveyStatuses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(countries) == 0 || len(locales) == 0 || len(statuses) == 0 {
		t.Fatal("the refresh stored no reference data")
	}
	resp, body := a.do(t, "GET", "/reference", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("/reference = %d", resp.StatusCode)
	}
	for _, want := range []string{escapeHTML(countries[0].Name), locales[0].Locale, statuses[0].StatusName,
		`href="/reference/countries.csv"`, `href="/reference/locales.csv"`, `href="/reference/statuses.csv"`, ">default<"} {
		if !strings.Contains(body, want) {
			t.Errorf("/reference lacks %s", want)
		}
	}
	tests := []struct {
		table  string
		header []string
		rows   int
	}{
		{"countries", []string{"id", "code", "name", "region"}, len(countries)},
		{"locales", []string{"id", "locale", "name", "translation", "countryCode", "countryName", "countryDefault"}, len(locales)},
		{"statuses", []string{"id", "name"}, len(statuses)},
	}
	for _, tt := range tests {
		lines := a.getCSV(t, "/reference/"+tt.table+".csv", "reference-"+tt.table)
		if !slices.Equal(lines[0], tt.header) || len(lines) != tt.rows+1 {
			t.Errorf("/reference/%s.csv: header %v and %d lines, want %v and %d", tt.table, lines[0], len(lines), tt.header, tt.rows+1)
		}
		if tt.table == "locales" {
			for _, l := range lines[1:] {
				if l[6] != "default" && l[6] != "" {
					t.Errorf("countryDefault %q, want default or empty", l[6])
				}
			}
		}
	}
	for _, path := range []string{"/reference/regions.csv", "/reference/countries", "/reference/countries.json"} {
		if resp, _ := a.do(t, "GET", path, nil); resp.StatusCode != 404 {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestCSVNeutralisesFormulas checks, through each page's CSV that carries
// event or subsample names, that a name a spreadsheet would run as a
// formula gets a leading quote and one holding ; is quoted, on a simulator
// that makes such names (sim.Options.FormulaNames).
func TestCSVNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	a := newAppOn(t, sim.Options{Seed: 3, Subsamples: 120, QuestionsPerLocale: 10, FormulaNames: true})
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := a.store.SubsampleRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]store.SubsampleRow{}
	eventNames := map[string]bool{} // an event is named after live details, or its first subsample
	for _, r := range rows {
		byID[strconv.FormatInt(r.SubsampleID, 10)] = r
		eventNames[r.EventName], eventNames[r.Name] = true, true
	}
	a.livesIn(t, "US", "P1")
	// The value each column must hold before neutralisation: the
	// subsample's name, or one of the names an event may take.
	name := func(r store.SubsampleRow, cell string) bool { return r.Name == cell }
	eventName := func(_ store.SubsampleRow, cell string) bool { return eventNames[cell] }
	for _, c := range []struct {
		path, dataset string
		columns       map[string]func(store.SubsampleRow, string) bool
	}{
		{"/events.csv", "events", map[string]func(store.SubsampleRow, string) bool{"subsampleName": name, "eventName": eventName}},
		{"/live.csv", "live-subsamples", map[string]func(store.SubsampleRow, string) bool{"name": name, "eventName": eventName}},
		{"/panelists.csv?panelist=P1", "panelist-surveys_panelist-P1", map[string]func(store.SubsampleRow, string) bool{"name": name}},
	} {
		_, raw := a.do(t, "GET", c.path, nil)
		lines := a.getCSV(t, c.path, c.dataset)
		id := slices.Index(lines[0], "subsampleId")
		if id < 0 {
			t.Fatalf("%s has no subsampleId column: %v", c.path, lines[0])
		}
		for column, holds := range c.columns {
			col := slices.Index(lines[0], column)
			if col < 0 {
				t.Fatalf("%s has no %s column: %v", c.path, column, lines[0])
			}
			neutralised, quoted := 0, 0
			for _, l := range lines[1:] {
				r, ok := byID[l[id]]
				if !ok {
					t.Fatalf("%s lists subsample %s, which the snapshot does not hold", c.path, l[id])
				}
				cell, value := l[col], l[col]
				if rest, ok := strings.CutPrefix(cell, "'"); ok && startsFormula(rest) {
					value = rest
					neutralised++
				}
				if startsFormula(cell) || !holds(r, value) {
					t.Errorf("%s, subsample %s: %s written %q; want the name, with a leading ' when it begins with a formula", c.path, l[id], column, cell)
				}
				if strings.Contains(cell, ";") {
					if !strings.Contains(raw, `,"`+strings.ReplaceAll(cell, `"`, `""`)+`"`) {
						t.Errorf("%s, subsample %s: %s %q holds a ; and is not quoted", c.path, l[id], column, cell)
					}
					quoted++
				}
			}
			if neutralised < 5 || quoted == 0 {
				t.Errorf("%s: %d names in %s neutralised, %d quoted for a ;, want several of each (sim.Options.FormulaNames)", c.path, neutralised, column, quoted)
			}
		}
	}
}

// startsFormula says whether a spreadsheet would read a cell beginning
// like s as a formula: = + - @, their full-width forms, tab or CR.
// negativeNumber is a cell a spreadsheet reads as a negative number.
var negativeNumber = regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`)

func startsFormula(s string) bool {
	if negativeNumber.MatchString(s) {
		return false // a credit: -1.50 is a number, not a formula
	}
	for _, p := range []string{"=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// escapeHTML escapes text the way templ writes it into a page.
func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
