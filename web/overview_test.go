package web_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

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
