package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// The dashboard over HTTP when the provider misbehaves: the last good
// snapshot is served, the error is shown with its time, a subsample whose
// quotas could not be read is unknown, never sendable, and a slow provider
// holds up no page.

// page GETs path, as the signed-in user newApp made, and returns its body.
// Being asked to sign in fails the test: newApp signed in, so the session
// or the bearer token stopped working.
func (a *app) page(t *testing.T, path string) string {
	t.Helper()
	resp, body := a.do(t, "GET", path, nil)
	if resp.StatusCode == http.StatusUnauthorized || (resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), "/login")) {
		t.Fatalf("GET %s asks to sign in (%d) although newApp signed in", path, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d:\n%.500s", path, resp.StatusCode, body)
	}
	return body
}

func (a *app) subsamplesJSON(t *testing.T) map[int64]formats.SubsampleJSON {
	t.Helper()
	a.page(t, "/api/v1/subsamples")
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	out := make(map[int64]formats.SubsampleJSON, len(all))
	for _, s := range all {
		out[s.SubsampleID] = s
	}
	return out
}

func TestHostileDashboardShowsTheLastGoodSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := refreshed(t)
	before := a.subsamplesJSON(t)
	var target, other int64
	for id, s := range before {
		if s.Sendability == rules.Sendable {
			if target == 0 {
				target = id
			} else if other == 0 {
				other = id
			}
		}
	}
	if other == 0 {
		t.Fatal("want two sendable subsamples")
	}
	liveRows := strings.Count(a.page(t, "/live"), `data-testid="live-row"`)

	// One subsample's quotas fail while the rest succeed.
	quotasPath := fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", target)
	a.sim.FailPath(quotasPath, sim.FailWrongTypes)
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		t.Fatalf("one subsample's failure failed the refresh: %v", err)
	}
	after := a.subsamplesJSON(t)
	if s := after[target]; s.Sendability != rules.Unknown || !strings.Contains(strings.Join(s.Reasons, " "), "Quotas could not be read") {
		t.Errorf("API: subsample %d, whose quotas failed, is %s (%v), want unknown saying why", target, s.Sendability, s.Reasons)
	}
	if s := after[other]; s.Sendability == rules.Unknown {
		t.Errorf("API: subsample %d, read fine, is unknown: %v", other, s.Reasons)
	}
	body := a.page(t, fmt.Sprintf("/subsamples/%d", target))
	own, _, _ := strings.Cut(body, `data-testid="siblings"`) // the event's other subsamples have badges of their own
	if !strings.Contains(own, `data-state="unknown"`) || strings.Contains(own, `data-state="sendable"`) ||
		!strings.Contains(own, `data-testid="quotas-failed"`) || !strings.Contains(own, "is a string, not a") {
		t.Errorf("the page of subsample %d does not show it unknown with the error:\n%s", target, own)
	}
	if live := a.page(t, "/live?sendability=unknown"); !strings.Contains(live, fmt.Sprintf("/subsamples/%d", target)) || !strings.Contains(live, ">stale<") {
		t.Errorf("/live does not list subsample %d as unknown with stale quotas", target)
	}

	// Then the event list fails: the whole refresh keeps the last snapshot.
	a.sim.ClearFailures()
	a.sim.FailPath("/supplier/v1/event/all", sim.FailServerError)
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err == nil {
		t.Fatal("the refresh got through a failing event list")
	}
	overview := a.page(t, "/")
	if !strings.Contains(overview, "just now: POST /supplier/v1/event/all: 503 Service Unavailable") {
		t.Errorf("the overview does not show the error with its time:\n%s", between(overview, `data-testid="datasets"`, "</table>"))
	}
	live := a.page(t, "/live")
	if n := strings.Count(live, `data-testid="live-row"`); n != liveRows {
		t.Errorf("/live shows %d rows after the failure, the last good snapshot has %d", n, liveRows)
	}
	if !strings.Contains(live, "Last refresh failed just now") || !strings.Contains(live, "503 Service Unavailable") {
		t.Errorf("/live does not show the failure")
	}

	// The next refresh recovers by itself.
	a.sim.ClearFailures()
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		t.Fatal(err)
	}
	if overview := a.page(t, "/"); !strings.Contains(overview, "recovered; last error") {
		t.Errorf("the overview does not show the recovery")
	}
	if s := a.subsamplesJSON(t)[target]; strings.Contains(strings.Join(s.Reasons, " "), "could not be read") {
		t.Errorf("subsample %d still unknown after the upstream healed: %v", target, s.Reasons)
	}
}

// TestHostileMalformedElementShownEverywhere: one unreadable element of
// live-details: the API, the subsample's page and /live say that subsample
// is unknown and why; the overview and its CSV count the dropped element.
func TestHostileMalformedElementShownEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := refreshed(t)
	before := a.subsamplesJSON(t)
	a.sim.FailPath("/supplier/v1/event/live-details", sim.FailOneElement)
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		t.Fatalf("one malformed element failed the refresh: %v", err)
	}
	var broken int64
	for id, s := range a.subsamplesJSON(t) {
		if strings.Contains(strings.Join(s.Reasons, " "), "live-details answer for this subsample could not be read") {
			if broken != 0 || s.Sendability != rules.Unknown {
				t.Fatalf("subsample %d: %s %v; want exactly one subsample unknown for its element", id, s.Sendability, s.Reasons)
			}
			broken = id
		} else if s.Sendability != before[id].Sendability {
			t.Errorf("subsample %d went from %s to %s", id, before[id].Sendability, s.Sendability)
		}
	}
	if broken == 0 {
		t.Fatal("API: no subsample says its live-details element could not be read")
	}
	page := a.page(t, fmt.Sprintf("/subsamples/%d", broken))
	if own, _, _ := strings.Cut(page, `data-testid="siblings"`); !strings.Contains(own, `data-state="unknown"`) || !strings.Contains(own, "is a string, not a") {
		t.Errorf("the page of subsample %d does not show it unknown with why:\n%s", broken, own)
	}
	overview := a.page(t, "/")
	if got := between(overview, `data-testid="malformed"`, "</div>"); !strings.Contains(got, "1 unreadable element dropped") || !strings.Contains(got, fmt.Sprintf("(subsample %d)", broken)) {
		t.Errorf("the overview does not count the dropped element: %q", got)
	}
	if csv := a.page(t, "/overview.csv"); !strings.Contains(csv, `unreadable elements dropped,"Events, quotas and rules",1,`) {
		t.Errorf("the overview CSV does not count the dropped element:\n%s", csv)
	}
	a.sim.ClearFailures()
	if err := a.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.page(t, "/"), `data-testid="malformed"`) {
		t.Error("the overview still shows a dropped element after a clean refresh")
	}
}

func TestHostileSlowUpstreamHoldsUpNoPage(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	var id int64
	for sid := range a.subsamplesJSON(t) {
		id = sid
		break
	}
	// The provider takes an hour: a page that answers while the refresh
	// still waits on it did not wait for the refresh, however long the
	// page took on a loaded machine.
	a.sim.SetLatency(time.Hour)
	a.refresher.Start(refresh.Request{Force: true})
	if !a.refresher.Progress().Running {
		t.Fatal("the refresh should be waiting on the provider")
	}
	for _, path := range []string{"/", "/live", "/events", "/api/v1/subsamples", fmt.Sprintf("/subsamples/%d", id), "/refresh/progress"} {
		start := time.Now()
		a.page(t, path)
		if !a.refresher.Progress().Running {
			t.Fatalf("GET %s answered after %v, once the refresh had stopped: it may have waited for it", path, time.Since(start))
		}
	}
}

// between returns the part of s from the first from to the next to.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}
