package web_test

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

func TestOverview(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, body := a.do(t, "GET", "/", nil)
	if !strings.Contains(body, "No subsamples yet") || !strings.Contains(body, "caches its answers for 3 minutes") {
		t.Errorf("empty overview lacks the empty state or the caching note")
	}
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	_, body = a.do(t, "GET", "/", nil)
	for _, want := range []string{`data-testid="sendability-counts"`, `data-testid="status-counts"`, `data-testid="changes"`,
		"became sendable", "Question library", "/live?sendability=sendable", "/events?status=Live"} {
		if !strings.Contains(body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	n, err := a.store.CountSubsamples(context.Background())
	if err != nil || n == 0 {
		t.Fatalf("%d subsamples stored (%v), want some", n, err)
	}
	if !strings.Contains(body, "All "+strconv.Itoa(n)+" subsamples by status") {
		t.Errorf("overview does not count all %d subsamples", n)
	}
	resp, csvBody := a.do(t, "GET", "/overview.csv", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(csvBody, "figure,name,count,") || !strings.Contains(csvBody, "status,Live,") || !strings.Contains(csvBody, "dataset,Question library") {
		t.Errorf("overview CSV: %d\n%s", resp.StatusCode, csvBody)
	}
	_, fragment := a.do(t, "GET", "/", map[string]string{"HX-Request": "true"})
	if strings.Contains(fragment, "<html") || !strings.Contains(fragment, `id="overview"`) {
		t.Errorf("htmx request for / must get the figures alone")
	}
}

// TestOverviewCountsAddUp: every count of the overview adds up, and where
// the subsamples Live or Live for testing are more than the provider's
// live list (live-details does not list a subsample whose allocation was
// withdrawn), one line says so and links each of them. The live list's
// own count and the API's statuses are the yardsticks.
func TestOverviewCountsAddUp(t *testing.T) {
	t.Parallel()
	a := newAppOn(t, sim.Options{Seed: 3, Subsamples: 240, QuestionsPerLocale: 2})
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	open := 0
	for _, s := range all {
		if s.Status == domain.StatusLive || s.Status == domain.StatusLiveForTesting {
			open++
		}
	}
	_, live := a.do(t, "GET", "/live", nil)
	m := regexp.MustCompile(`(\d+) of (\d+) live subsamples match`).FindStringSubmatch(live)
	if m == nil {
		t.Fatal("/live does not count its subsamples")
	}
	listed, _ := strconv.Atoi(m[2])
	if open == listed {
		t.Fatalf("%d Live or Live for testing, %d listed: the test needs a snapshot where they differ", open, listed)
	}

	_, body := a.do(t, "GET", "/", nil)
	number := func(section, re string) []int {
		t.Helper()
		start := strings.Index(body, `data-testid="`+section+`"`)
		if start < 0 {
			t.Fatalf("the overview has no %s", section)
		}
		end := strings.Index(body[start:], "</section>")
		var out []int
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(body[start:start+end], -1) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
		return out
	}
	sum := func(ns []int) (s int) {
		for _, n := range ns {
			s += n
		}
		return s
	}
	if got := sum(number("status-counts", `</a>\s*<strong>(\d+)</strong>`)); got != len(all) || !strings.Contains(body, "All "+strconv.Itoa(len(all))+" subsamples by status") {
		t.Errorf("the statuses add up to %d, the API lists %d", got, len(all))
	}
	if got := sum(number("sendability-counts", `</span></a>\s*<strong>(\d+)</strong>`)); got != listed || !strings.Contains(body, "Sendability of the "+strconv.Itoa(listed)+" live subsamples") {
		t.Errorf("the sendability counts add up to %d, /live counts %d", got, listed)
	}
	if got := number("status-counts", `Live or Live for testing: <strong>(\d+)</strong>`); len(got) != 1 || got[0] != open {
		t.Errorf("the overview counts %v Live or Live for testing, the API %d", got, open)
	}
	gaps := regexp.MustCompile(`(?s)<p class="warn" data-testid="count-gaps">(.*?)</p>`).FindStringSubmatch(body)
	if gaps == nil {
		t.Fatalf("%d Live or Live for testing and %d on the live list, and no line says why", open, listed)
	}
	line := strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(gaps[1], ""))), " ")
	want := fmt.Sprintf("%d Live or Live for testing, %d on the provider's live list:", open, listed)
	if !strings.HasPrefix(line, want) || !strings.Contains(line, "not in the provider's live list") || !strings.Contains(line, "not sendable") {
		t.Errorf("the line reads %q, want it to start %q and say which are not listed and not sendable", line, want)
	}
	if links := strings.Count(gaps[1], `data-testid="count-gap"`); links != min(open-listed, 10) {
		t.Errorf("the line links %d subsamples, want the %d not listed", links, open-listed)
	}
	for _, m := range regexp.MustCompile(`href="(/subsamples/\d+)"`).FindAllStringSubmatch(gaps[1], -1) {
		if resp, _ := a.do(t, "GET", m[1], nil); resp.StatusCode != 200 {
			t.Errorf("GET %s = %d", m[1], resp.StatusCode)
		}
	}
}
