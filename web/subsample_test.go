package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/handlers"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"

	"golang.org/x/crypto/bcrypt"
)

// subsampleOf finds a subsample of the snapshot that passes keep.
func subsampleOf(t *testing.T, a *app, what string, keep func(formats.SubsampleJSON) bool) formats.SubsampleJSON {
	t.Helper()
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	for _, s := range all {
		if keep(s) {
			return s
		}
	}
	t.Fatalf("the simulator has no %s subsample", what)
	return formats.SubsampleJSON{}
}

var entryLinkValue = regexp.MustCompile(`<textarea[^>]*data-testid="entry-link"[^>]*>([^<]*)</textarea>`)

func TestSubsamplePageOfASendableSubsample(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	s := subsampleOf(t, a, "sendable", func(s formats.SubsampleJSON) bool { return s.Sendability == "sendable" })
	resp, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", s.SubsampleID), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /subsamples/%d = %d", s.SubsampleID, resp.StatusCode)
	}
	quotas, err := a.store.QuotasOf(context.Background(), s.SubsampleID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`data-state="sendable"`, `data-testid="checks"`, "✓ pass", "API compatibility", "Other quotas",
		"Refresh this subsample", `hx-indicator="#subsample-refresh-busy"`,
		fmt.Sprintf(`href="/subsamples/%d/quotas.csv"`, s.SubsampleID),
		"Excludes panelists with any history on another subsample of event",
		"Live details", "Field coordinator", "Event list entry", "Billing entity",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of sendable subsample %d lacks %q", s.SubsampleID, want)
		}
	}
	if got := strings.Count(body, `data-testid="quota-row"`); got != len(quotas) {
		t.Errorf("%d quota rows, want %d", got, len(quotas))
	}
	if strings.Count(body, `class="check `) != 5 {
		t.Errorf("the verdict must list the five rules")
	}
	links := entryLinkValue.FindAllStringSubmatch(body, -1)
	if len(links) == 0 {
		t.Fatal("no entry links on the page")
	}
	for _, m := range links {
		link := html.UnescapeString(m[1])
		if !strings.Contains(link, "SAPI=1") || !strings.HasSuffix(link, "id=") {
			t.Errorf("entry link %q: want SAPI=1 and an empty id last", link)
		}
	}
	if !strings.Contains(body, `data-copy="#entry-0-live"`) || strings.Contains(body, "onclick") {
		t.Error("each link needs a copy button that works without inline script")
	}
}

// TestSubsamplePagesOfOneVersionAreTheirOwn: the pages of one snapshot
// version, each asked twice (the second from what the version keeps),
// each show their own subsample, its quotas and its siblings, never
// another's.
func TestSubsamplePagesOfOneVersionAreTheirOwn(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	if len(all) > 8 {
		all = all[:8]
	}
	for range 2 {
		for _, s := range all {
			resp, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", s.SubsampleID), nil)
			if resp.StatusCode != 200 {
				t.Fatalf("GET /subsamples/%d = %d", s.SubsampleID, resp.StatusCode)
			}
			if want := fmt.Sprintf(`<h1><span class="id">%d</span>`, s.SubsampleID); !strings.Contains(body, want) {
				t.Errorf("the page of subsample %d does not name it", s.SubsampleID)
			}
			quotas, err := a.store.QuotasOf(context.Background(), s.SubsampleID)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(body, `data-testid="quota-row"`); got != len(quotas) {
				t.Errorf("the page of subsample %d: %d quota rows, want its %d", s.SubsampleID, got, len(quotas))
			}
			if strings.Contains(body, fmt.Sprintf(`href="/subsamples/%d"`, s.SubsampleID)) {
				t.Errorf("the page of subsample %d lists it among its event's others", s.SubsampleID)
			}
		}
	}
}

func TestSubsamplePageOfOneThatMayNotBeSent(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	s := subsampleOf(t, a, "live paused or not sendable", func(s formats.SubsampleJSON) bool {
		return s.Status == domain.StatusLive && (s.Sendability == "paused" || s.Sendability == "not_sendable")
	})
	_, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", s.SubsampleID), nil)
	if !strings.Contains(body, fmt.Sprintf(`data-state="%s"`, s.Sendability)) || !strings.Contains(body, "✕ fail") {
		t.Errorf("the page of %s subsample %d must show its state and the failing rule", s.Sendability, s.SubsampleID)
	}
	for _, reason := range s.Reasons {
		if !strings.Contains(body, html.EscapeString(reason)) {
			t.Errorf("the page lacks the reason %q", reason)
		}
	}
}

func TestSubsamplePageOfOneNotLive(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	rows, err := a.store.SubsampleRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var row store.SubsampleRow
	for _, r := range rows {
		if !r.Live {
			row = r
			break
		}
	}
	if row.SubsampleID == 0 {
		t.Fatal("the simulator has no subsample that is not live")
	}
	resp, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", row.SubsampleID), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /subsamples/%d = %d", row.SubsampleID, resp.StatusCode)
	}
	for _, want := range []string{`data-testid="not-live"`, "This subsample is not live", html.EscapeString(row.Status),
		"Event list entry", fmt.Sprintf("Other subsamples of event %d", row.EventID), `data-state="not_sendable"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of not-live subsample %d lacks %q", row.SubsampleID, want)
		}
	}
	if strings.Contains(body, `data-testid="quota-row"`) || strings.Contains(body, "Refresh this subsample") {
		t.Error("a subsample that is not live has no quotas to show or refresh")
	}
	resp, _ = a.do(t, "GET", fmt.Sprintf("/subsamples/%d/quotas.csv", row.SubsampleID), nil)
	if resp.StatusCode != 404 {
		t.Errorf("quotas CSV of a subsample that is not live: %d, want 404", resp.StatusCode)
	}
}

func TestSubsampleConditionsAreTranslated(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	libraries, err := a.store.LibraryLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live, err := a.store.LiveRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var named, aged bool
	for _, r := range live {
		if named && aged {
			break
		}
		detail, err := a.store.LiveSubsample(ctx, r.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		locale := ""
		for _, l := range detail.Locales {
			if _, ok := libraries[strings.ToLower(l.Name)]; ok {
				locale = strings.ToLower(l.Name)
				break
			}
		}
		quotas, err := a.store.QuotasOf(ctx, r.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, q := range quotas {
			for _, c := range q.Questions {
				ids = append(ids, c.ID)
			}
		}
		if locale == "" || len(ids) == 0 {
			continue
		}
		questions, _, err := a.store.Library(ctx, locale, ids)
		if err != nil {
			t.Fatal(err)
		}
		_, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", r.SubsampleID), nil)
		conditions := strings.Join(regexp.MustCompile(`data-testid="condition">([^<]*)<`).FindAllString(body, -1), "\n")
		for _, q := range quotas {
			for _, c := range q.Questions {
				switch question, ok := questions[c.ID]; {
				case c.ID == domain.AgeRangeQuestionID && len(c.Answers) > 0 && c.Answers[0].RangeStart != nil:
					// "Age 18–34", or "Age 65 or more" for a range open at its top.
					if want := "Age " + strings.TrimSuffix(*c.Answers[0].RangeStart, "+"); !strings.Contains(conditions, want) {
						t.Errorf("subsample %d: no condition reads %q:\n%s", r.SubsampleID, want, conditions)
					}
					aged = true
				case ok && question.Name != "":
					if !strings.Contains(conditions, html.EscapeString(question.Name)) {
						t.Errorf("subsample %d: question %d is not named %q in the conditions:\n%s", r.SubsampleID, c.ID, question.Name, conditions)
					}
					named = true
				}
			}
		}
	}
	if !named || !aged {
		t.Fatalf("no live subsample with a library question (%v) and an age range (%v) among the quotas", named, aged)
	}
}

func TestConditionText(t *testing.T) {
	t.Parallel()
	id := func(v int64) *int64 { return &v }
	str := func(s string) *string { return &s }
	lib := handlers.QuotaLibrary{
		Locale: "en-gb",
		Questions: map[int64]domain.Question{
			43:  {ID: 43, Name: "Gender", Text: "Are you...?", Translation: "What is your gender?"},
			96:  {ID: 96, Name: "REGION", Text: "REGION"},
			633: {ID: 633, Name: "", Text: "Education?"},
		},
		Answers: map[int64]map[int64]domain.Answer{
			43: {1: {ID: 1, Name: "MALE", Text: "Male", Translation: "Male"}, 2: {ID: 2, Name: "FEMALE", Text: "Female", Translation: "Female"}},
			96: {7: {ID: 7, Name: "North", Translation: ""}},
		},
	}
	tests := []struct {
		name string
		q    domain.QuotaQuestion
		want string
	}{
		{"question named with its text in the locale, answers joined by OR",
			domain.QuotaQuestion{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id(2)}, {ID: id(1)}}},
			"Gender (What is your gender?): Female or Male"},
		{"an age range reads Age 18–34",
			domain.QuotaQuestion{ID: -1, Operator: "OR", Answers: []domain.QuotaAnswer{{RangeStart: str("18"), RangeEnd: str("34")}}},
			"Age 18–34"},
		{"several age ranges",
			domain.QuotaQuestion{ID: -1, Answers: []domain.QuotaAnswer{{RangeStart: str("18"), RangeEnd: str("24")}, {RangeStart: str("55"), RangeEnd: str("99")}}},
			"Age 18–24 or 55–99"},
		{"an open-ended range",
			domain.QuotaQuestion{ID: -1, Answers: []domain.QuotaAnswer{{RangeStart: str("65")}}},
			"Age 65 or more"},
		{"question missing from the library falls back to ids",
			domain.QuotaQuestion{ID: 1234, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id(5)}, {ID: id(6)}}},
			"question 1234: answer 5 or 6"},
		{"answer missing from the library falls back to its id",
			domain.QuotaQuestion{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id(1)}, {ID: id(9)}}},
			"Gender (What is your gender?): Male or answer 9"},
		{"answers missing after a known one",
			domain.QuotaQuestion{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id(9)}, {ID: id(10)}, {ID: id(2)}, {ID: id(11)}}},
			"Gender (What is your gender?): answer 9 or 10 or Female or answer 11"},
		{"text equal to the name is not repeated; an untranslated answer keeps its name",
			domain.QuotaQuestion{ID: 96, Answers: []domain.QuotaAnswer{{ID: id(7)}}},
			"REGION: North"},
		{"a question without a name reads by its text",
			domain.QuotaQuestion{ID: 633, Answers: []domain.QuotaAnswer{{ID: id(3)}}},
			"Education?: answer 3"},
		{"a condition without answers says so",
			domain.QuotaQuestion{ID: 43, Operator: "OR"},
			"Gender (What is your gender?): no answers listed"},
		{"another operator is written out",
			domain.QuotaQuestion{ID: 43, Operator: "AND", Answers: []domain.QuotaAnswer{{ID: id(1)}, {ID: id(2)}}},
			"Gender (What is your gender?): Male and Female"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := handlers.ConditionText(tt.q, lib); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("an empty library names everything by id", func(t *testing.T) {
		q := domain.QuotaQuestion{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id(1)}}}
		if got, want := handlers.ConditionText(q, handlers.QuotaLibrary{}), "question 43: answer 1"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func TestSubsampleBadIDs(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/subsamples/abc", 400, "not a positive whole number"},
		{"/subsamples/-1", 400, "not a positive whole number"},
		{"/subsamples/999999999", 404, "Subsample 999999999 is not in the current snapshot."},
		{"/subsamples/999999999/quotas.csv", 404, "not in the current snapshot"},
	}
	for _, tt := range tests {
		resp, body := a.do(t, "GET", tt.path, nil)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d, want %d with %q", tt.path, resp.StatusCode, tt.status, tt.want)
		}
	}
}

func TestSubsampleQuotasCSV(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	s := subsampleOf(t, a, "sendable", func(s formats.SubsampleJSON) bool { return s.Sendability == "sendable" })
	quotas, err := a.store.QuotasOf(ctx, s.SubsampleID)
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/subsamples/%d/quotas.csv", s.SubsampleID)
	resp, body := a.do(t, "GET", path, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), fmt.Sprintf("subsample-quotas_subsample-%d_", s.SubsampleID)) {
		t.Fatalf("GET %s = %d %v", path, resp.StatusCode, resp.Header)
	}
	lines, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := "quotaId,tableId,tableName,quotaName,quotaType,achieved,remainingExclusive,remainingShared,remaining,open,conditions," +
		"completesPerHour,completesPerHourLow,completesPerHourHigh,projectedFillAt,atRisk,pacingNote"
	if strings.Join(lines[0], ",") != header || len(lines) != len(quotas)+1 {
		t.Fatalf("CSV has header %q and %d lines, want %q and %d quotas", lines[0], len(lines)-1, header, len(quotas))
	}
	if lines[1][2] != "Total Quota" || lines[1][10] != "" {
		t.Errorf("the total quota must come first, without conditions: %q", lines[1])
	}

	// Names from the provider that a spreadsheet would run as formulas.
	evil := []domain.Quota{{QuotaID: 1, TableID: 2, TableName: "@SUM(A1)", QuotaName: "=HYPERLINK(\"x\")", QuotaType: "hard",
		AchievedInterviews: 3, RemainingExclusive: -2, RemainingShared: 1}}
	if err := a.store.SaveSubsampleDetail(ctx, s.SubsampleID, store.SubsampleDetail{FetchedAt: time.Now(), Quotas: evil}); err != nil {
		t.Fatal(err)
	}
	_, body = a.do(t, "GET", path, nil)
	lines, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1", "2", "'@SUM(A1)", "'=HYPERLINK(\"x\")", "hard", "3", "-2", "1", "0", "false", "", "", "", "", "", "",
		"Too little history: watched for under 2 minutes, pacing needs 60 minutes."}
	if len(lines) != 2 || strings.Join(lines[1], "|") != strings.Join(want, "|") {
		t.Errorf("CSV lines = %q, want the header and %q", lines, want)
	}
}

func TestSubsampleRefreshButton(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	s := subsampleOf(t, a, "sendable", func(s formats.SubsampleJSON) bool { return s.Sendability == "sendable" })
	a.sim.SetLatency(20 * time.Millisecond)
	path := fmt.Sprintf("/subsamples/%d/refresh", s.SubsampleID)
	resp, body := a.do(t, "POST", path, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || strings.Contains(body, "<html") || !strings.Contains(body, `id="subsample-refresh"`) ||
		!strings.Contains(body, `hx-get="`+path+`/progress"`) || !strings.Contains(body, `hx-trigger="every 1s"`) {
		t.Fatalf("POST %s with htmx: %d, want the polling progress fragment:\n%s", path, resp.StatusCode, body)
	}
	failsafe := time.Now().Add(5 * time.Minute) // a hang, not a speed
	for {
		resp, body = a.do(t, "GET", path+"/progress", map[string]string{"HX-Request": "true"})
		if !strings.Contains(body, "every 1s") {
			break
		}
		if time.Now().After(failsafe) {
			t.Fatalf("in five minutes the progress fragment never stopped polling: the subsample refresh did not finish\n%s", body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if resp.Header.Get("HX-Refresh") != "true" {
		t.Errorf("the poll that sees the refresh finish must answer HX-Refresh: true, got %v", resp.Header)
	}
	if p := a.refresher.Progress(); p.Scope != fmt.Sprintf("subsample %d", s.SubsampleID) || p.Err != "" {
		t.Errorf("last refresh = %+v, want a clean refresh of subsample %d", p, s.SubsampleID)
	}

	resp, _ = a.do(t, "POST", path, nil)
	if resp.StatusCode != 303 || resp.Header.Get("Location") != fmt.Sprintf("/subsamples/%d", s.SubsampleID) {
		t.Errorf("POST %s without htmx: %d to %q, want 303 back to the page", path, resp.StatusCode, resp.Header.Get("Location"))
	}
	a.refresher.Refresh(context.Background(), refresh.Request{SubsampleID: s.SubsampleID}) // wait for it
}

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set puts the clock at now.
func (c *testClock) Set(now time.Time) {
	c.mu.Lock()
	c.now = now
	c.mu.Unlock()
}

// newClockedApp is newApp with the simulator, the refresher and the pages
// all on one clock the test moves.
func newClockedApp(t *testing.T) (*app, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	simulator := sim.New(sim.Options{Seed: 3, Subsamples: 60, QuestionsPerLocale: 10, Now: clock.Now})
	upstream := httptest.NewServer(simulator)
	t.Cleanup(upstream.Close)
	c, err := client.New(client.Config{BaseURL: upstream.URL, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := refresh.New(c, st, refresh.Options{Logger: logger, Now: clock.Now})
	t.Cleanup(r.Close)
	s := &web.Server{
		Store: st, Checks: &checks.Service{Store: st, Now: clock.Now, StaleAfter: 15 * time.Minute}, Refresher: r,
		Auth:   auth.New(st, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
		Logger: logger, Now: clock.Now, Location: time.UTC, ProviderLocation: time.UTC,
	}
	return serveApp(t, s, st, r, simulator), clock
}

func TestSubsampleTrendAfterTwoRefreshes(t *testing.T) {
	t.Parallel()
	a, clock := newClockedApp(t)
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	var before []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &before)
	if len(before) == 0 {
		t.Fatal("no sendable subsample")
	}
	_, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", before[0].SubsampleID), nil)
	if !strings.Contains(body, "Not enough history yet") || strings.Contains(body, `data-testid="trend"`) {
		t.Error("after one refresh the trend must say it needs more history")
	}

	clock.Advance(20 * time.Minute)
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range before {
		quotas, err := a.store.QuotasOf(ctx, s.SubsampleID)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range quotas {
			if !q.IsTotal() {
				continue
			}
			history, err := a.store.QuotaHistory(ctx, s.SubsampleID, q.QuotaID)
			if err != nil {
				t.Fatal(err)
			}
			if len(history) < 2 {
				continue
			}
			_, body := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", s.SubsampleID), nil)
			for _, want := range []string{`data-testid="trend"`, "<polyline", "<title", "20 Nov 2026 09:00 UTC", "20 Nov 2026 09:20 UTC",
				fmt.Sprintf(">%d<", history[0].Achieved), fmt.Sprintf(">%d<", history[len(history)-1].Achieved)} {
				if !strings.Contains(body, want) {
					t.Errorf("the trend of subsample %d lacks %q", s.SubsampleID, want)
				}
			}
			return
		}
	}
	t.Fatal("no sendable subsample's total quota moved in 20 minutes")
}

// TestNeverDecideOnStaleData: past --stale-after since the last successful
// read of the events, every subsample is unknown with the data's age and
// the last error, send lists are refused, and every page says so.
func TestNeverDecideOnStaleData(t *testing.T) {
	t.Parallel()
	a, clock := newClockedApp(t)
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	target := sendableWithCells(t, a)
	if resp, _ := a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets", target.SubsampleID), nil); resp.StatusCode != 200 {
		t.Fatalf("fresh data: send list %d", resp.StatusCode)
	}
	clock.Advance(47 * time.Minute)
	a.sim.FailPath("/supplier/v1/event/all", sim.FailServerError)
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err == nil {
		t.Fatal("the refresh should fail")
	}
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	for _, s := range all {
		if s.Sendability != "unknown" || len(s.Reasons) == 0 || !strings.HasPrefix(s.Reasons[0], "Data is 47 minutes old: the last refresh that read the events failed at 09:47 UTC") {
			t.Fatalf("subsample %d on stale data: %s %q", s.SubsampleID, s.Sendability, s.Reasons)
		}
	}
	resp, body := a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets", target.SubsampleID), nil)
	if resp.StatusCode != 409 || !strings.Contains(body, "47 minutes old") {
		t.Errorf("send list on stale data: %d %s, want 409 saying how old", resp.StatusCode, body)
	}
	for _, path := range []string{"/", "/live", fmt.Sprintf("/subsamples/%d", target.SubsampleID), "/panelists"} {
		if _, page := a.do(t, "GET", path, nil); !strings.Contains(page, `data-testid="stale"`) || !strings.Contains(page, "47 minutes old") {
			t.Errorf("%s on stale data shows no banner", path)
		}
	}
	a.sim.ClearFailures()
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		t.Fatal(err)
	}
	if _, page := a.do(t, "GET", "/live", nil); strings.Contains(page, `data-testid="stale"`) {
		t.Error("the banner stays after a refresh succeeded")
	}
}
