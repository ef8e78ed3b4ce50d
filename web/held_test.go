package web_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// threeReversed are three completes of panelistID, each reversed (98),
// the reversals registered at at, a minute apart.
func threeReversed(panelistID string, at time.Time) []domain.HistoryRecord {
	var out []domain.HistoryRecord
	for i := range int64(3) {
		at := at.Add(time.Duration(i) * time.Minute)
		out = append(out,
			domain.HistoryRecord{PanelistID: panelistID, SubsampleID: 900 + i, EventID: 900 + i, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(-time.Hour)},
			domain.HistoryRecord{PanelistID: panelistID, SubsampleID: 900 + i, EventID: 900 + i, StatusID: domain.ReturnErroneousComplete, RegisteredAt: at})
	}
	return out
}

// TestHeldPanelistsPage: the page lists a panelist held for quality and
// one held by hand on its form (by the signed-in user), refuses a bad
// hold or an unconfirmed release with a 422 saying why, releases on the
// confirmed form (and the panelist is held again by reversals after the
// release); the CSV, the API and the overview say the same; the panelist
// page shows the hold's sentence and its forms, and comes back to itself.
func TestHeldPanelistsPage(t *testing.T) {
	t.Parallel()
	// The checks' clock: moved on by hand, past reversals registered
	// after a release.
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	a := newAppWith(t, func(s *web.Server) { s.Checks.QualityHold, s.Checks.Now = rules.DefaultQualityHold, now })
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	a.livesIn(t, "FR", "Q1", "H1")
	if _, err := a.store.ImportHistory(ctx, threeReversed("Q1", time.Now().Add(-48*time.Hour))); err != nil {
		t.Fatal(err)
	}
	form := func(path string, values url.Values) (*http.Response, string) {
		t.Helper()
		return a.postRaw(t, path, "application/x-www-form-urlencoded", strings.NewReader(values.Encode()), nil)
	}
	rows := func(page string) map[string]string {
		out := map[string]string{}
		for _, m := range regexp.MustCompile(`data-testid="held" data-id="([^"]*)" data-kind="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	quality := "Held for quality: 3 reversed completes in the last 90 days."

	resp, page := a.do(t, "GET", "/panelists/held", nil)
	if resp.StatusCode != 200 || rows(page)["Q1"] != "quality" || !strings.Contains(page, quality) || !strings.Contains(page, "1 panelist held: 0 by hand, 1 for quality") {
		t.Fatalf("GET /panelists/held: %d, rows %v\n%s", resp.StatusCode, rows(page), page)
	}

	resp, page = form("/panelists/held", url.Values{"panelist": {"H1"}, "why": {"asked to pause"}})
	if resp.StatusCode != 200 || rows(page)["H1"] != "hand" || !strings.Contains(page, "Held by hand (set by tester on ") || !strings.Contains(page, "tester: asked to pause") {
		t.Fatalf("hold H1: %d, rows %v\n%s", resp.StatusCode, rows(page), page)
	}
	for _, bad := range []struct {
		values url.Values
		says   string
	}{
		{url.Values{"panelist": {"H2"}, "until": {"2020-01-01T09:00"}, "why": {"x"}}, "Not held: a hold must last until a time still to come."},
		{url.Values{"panelist": {"H2"}, "until": {"next week"}, "why": {"x"}}, `Not held: until &#34;next week&#34; is not a date and time`},
		{url.Values{"panelist": {""}, "why": {"x"}}, "Not held: &#34;&#34; is not a panelist id."},
	} {
		resp, page := form("/panelists/held", bad.values)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, bad.says) || rows(page)["H2"] != "" {
			t.Errorf("hold %v: %d, want 422 saying %q\n%s", bad.values, resp.StatusCode, bad.says, regexp.MustCompile(`role="alert"[^<]*<`).FindString(page))
		}
	}
	if resp, page := form("/panelists/held/Q1/release", url.Values{"why": {"checked"}}); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(page, "Not released: tick the box to confirm the release.") || rows(page)["Q1"] != "quality" {
		t.Errorf("release unconfirmed: %d, want 422 and Q1 still held", resp.StatusCode)
	}
	resp, page = form("/panelists/held/Q1/release", url.Values{"why": {"the client withdrew them"}, "confirm": {"yes"}})
	if resp.StatusCode != 200 || rows(page)["Q1"] != "" || !strings.Contains(page, "Panelist Q1 is released by hand") {
		t.Fatalf("release Q1: %d, rows %v", resp.StatusCode, rows(page))
	}

	// The CSV and the API list H1 alone, as the page does.
	resp, body := a.do(t, "GET", "/panelists/held.csv", nil)
	records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if resp.StatusCode != 200 || err != nil || len(records) != 2 || strings.Join(records[0], ",") != "panelistId,country,kind,reason,reversals,since,until,by,why,changes" ||
		records[1][0] != "H1" || records[1][1] != "FR" || records[1][2] != "hand" || records[1][6] != "" || records[1][7] != "tester" || records[1][8] != "asked to pause" {
		t.Errorf("GET /panelists/held.csv: %d %v\n%q", resp.StatusCode, err, records)
	}
	var list formats.HeldListJSON
	a.getJSON(t, "/api/v1/panelists/held", &list)
	if list.ByHand != 1 || list.ForQuality != 0 || len(list.Held) != 1 || list.Held[0].PanelistID != "H1" || list.Held[0].Until != nil || list.Held[0].Reason != strings.Join(strings.Fields(list.Held[0].Reason), " ") {
		t.Errorf("GET /api/v1/panelists/held = %+v", list)
	}
	if _, page := a.do(t, "GET", "/", nil); !strings.Contains(page, "1 panelist held: 1 by hand, 0 for quality") || !strings.Contains(page, `href="/panelists/held"`) {
		t.Errorf("the overview does not count the held")
	}

	// Reversals after the release hold Q1 again.
	if _, err := a.store.ImportHistory(ctx, threeReversed("Q1", now().Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	clock.Add(int64(10 * time.Minute))
	if _, page := a.do(t, "GET", "/panelists/held", nil); rows(page)["Q1"] != "quality" {
		t.Errorf("Q1 reversed three times after the release is not held again: %v", rows(page))
	}

	// The panelist page: the hold's one sentence, its release form, and
	// back to the page after the release.
	_, page = a.do(t, "GET", "/panelists?panelist=H1", nil)
	if !strings.Contains(page, `data-testid="panelist-held" data-kind="hand"`) || !strings.Contains(page, `data-testid="quality-hold">Held by hand (set by tester on `) ||
		!strings.Contains(page, `action="/panelists/held/H1/release"`) {
		t.Errorf("the panelist page of H1 does not show the hold by hand and its release form")
	}
	resp, page = form("/panelists/held/H1/release", url.Values{"why": {"done"}, "confirm": {"yes"}, "from": {"panelist"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/panelists?panelist=H1" {
		t.Errorf("release from the panelist page: %d to %q, want 303 back to it", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, page = a.do(t, "GET", "/panelists?panelist=H1", nil); !strings.Contains(page, `data-testid="panelist-not-held"`) ||
		!strings.Contains(page, "released by tester") || strings.Contains(page, `data-testid="quality-hold"`) || !strings.Contains(page, `data-testid="hold-form"`) {
		t.Errorf("the panelist page of H1 released does not say so, or offers no hold")
	}
}
