package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/views/formats"
)

// TestReturnsOnRoutingAndPanelistPages: after a click, a screen-out that
// is sent on, and a forged return, /routing for the panelist shows the hop
// (2, after the send it followed) and the send's return, counts the
// refused return by reason for this instance, and routing.csv carries the
// same in its new columns; the panelist's page shows the session in order
// with the return marked unconfirmed until an import confirms it.
func TestReturnsOnRoutingAndPanelistPages(t *testing.T) {
	t.Parallel()
	a, panelist, _, link := returnsApp(t, nil)
	if resp, _ := a.click(t, link(panelist)); resp.StatusCode != http.StatusFound {
		t.Fatalf("click: %d", resp.StatusCode)
	}
	if resp, _ := a.returned(t, "screenout", panelist); resp.StatusCode != http.StatusFound {
		t.Fatalf("screen-out: %d, want a redirect to the next survey", resp.StatusCode)
	}
	a.returned(t, "complete", "P-nobody") // refused: not on the panel
	got := a.decisions(t, store.RoutingFilter{PanelistID: panelist}, 3)
	click := got[1]
	sendID := strconv.FormatInt(click.DecisionID, 10)

	_, page := a.do(t, "GET", "/routing?outcome=return&panelist="+url.QueryEscape(panelist), nil)
	if n := strings.Count(page, `data-testid="routing-decision"`); n != 1 || !strings.Contains(page, "sent on after a return") ||
		!strings.Contains(page, "after #"+sendID) || !strings.Contains(page, "Returned as Screen out from subsample") {
		t.Errorf("/routing?outcome=return lists %d decisions, want the hop after #%s with its reason:\n%s", n, sendID, page)
	}
	_, page = a.do(t, "GET", "/routing?panelist="+url.QueryEscape(panelist), nil)
	if !strings.Contains(page, `id="decision-`+sendID+`"`) || !strings.Contains(page, "Screen out, ") || !strings.Contains(page, "by redirect") {
		t.Errorf("/routing for %s does not show the send %s returned as a screen-out by redirect:\n%s", panelist, sendID, page)
	}
	if want := "1 return refused since this instance started: 1 with not on the panel."; !strings.Contains(page, `data-testid="refused-returns"`) || !strings.Contains(page, want) {
		t.Errorf("/routing does not say %q:\n%s", want, page)
	}

	_, body := a.do(t, "GET", "/routing.csv?panelist="+url.QueryEscape(panelist), nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("/routing.csv = %q, %v; want a header and 3 decisions", rows, err)
	}
	wantHeader := "at,panelistId,intendedSubsample,chosenSubsample,outcome,reason,intendedName,chosenName,hop,afterDecision,returnStatus,returnedAt,returnVia,returnFlag"
	if strings.Join(rows[0], ",") != wantHeader {
		t.Errorf("routing.csv header = %q, want %q", rows[0], wantHeader)
	}
	if h, c := rows[1], rows[2]; h[4] != "return" || h[8] != "2" || h[9] != sendID || h[10] != "" ||
		c[8] != "1" || c[9] != "" || c[10] != "screenout" || c[11] == "" || c[12] != "redirect" || c[13] != "" {
		t.Errorf("routing.csv hop %q, send %q; want hop 2 after %s, and the send returned as screenout by redirect", h, c, sendID)
	}

	_, page = a.do(t, "GET", "/panelists?panelist="+url.QueryEscape(panelist), nil)
	sessions := page[strings.Index(page, "Sends and returns"):]
	first, second := strings.Index(sessions, "Returned as Screen out"), strings.Index(sessions, `data-testid="return-unconfirmed"`)
	if !strings.Contains(page, "Sends and returns") || first < 0 || second < 0 || second > first ||
		strings.Count(sessions, `data-testid="session-send"`) < 2 || strings.Contains(sessions, `data-testid="return-imported"`) {
		t.Errorf("the panelist page does not show the send, its unconfirmed return and then the hop:\n%s", sessions)
	}

	// An import with the provider's record of the screen-out confirms it.
	history := store.HistoryHeader + "\n" + panelist + "," + strconv.FormatInt(click.Chosen, 10) + ",82," +
		time.Now().UTC().Add(time.Minute).Format("2006-01-02T15:04:05.000") + ",1,0,0\n"
	if _, err := a.store.ImportHistoryCSV(context.Background(), strings.NewReader(history), time.UTC); err != nil {
		t.Fatal(err)
	}
	_, page = a.do(t, "GET", "/panelists?panelist="+url.QueryEscape(panelist), nil)
	if sessions := page[strings.Index(page, "Sends and returns"):]; !strings.Contains(sessions, `data-testid="return-imported"`) || strings.Contains(sessions, `data-testid="return-unconfirmed"`) {
		t.Errorf("after the import the return is not shown confirmed:\n%s", sessions)
	}
}

// TestPanelistPageNamesTheRoutersPick: the panelist page says which survey
// the router would send the panelist to now, and it is the one the
// next-survey answer names first; a panelist no survey takes is sent
// nowhere, and saying so records no send.
func TestPanelistPageNamesTheRoutersPick(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 300)
	named := 0
	for _, id := range ids[:40] {
		var next formats.NextSurveysJSON
		a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(id)+"/next?limit=1", &next)
		body := a.page(t, "/panelists?panelist="+url.QueryEscape(id))
		_, pick, _ := strings.Cut(body, `data-testid="router-pick"`)
		pick, _, _ = strings.Cut(pick, "</p>")
		switch {
		case len(next.Surveys) == 0 && !strings.Contains(pick, "nowhere now"):
			t.Errorf("%s: the next-survey answer names nothing; the page says %q", id, pick)
		case len(next.Surveys) > 0 && !strings.Contains(pick, fmt.Sprintf(`href="/subsamples/%d"`, next.Surveys[0].SubsampleID)):
			t.Errorf("%s: the next-survey answer names %d first; the page says %q", id, next.Surveys[0].SubsampleID, pick)
		case len(next.Surveys) > 0:
			named++
		}
	}
	if named == 0 {
		t.Fatal("no panelist of the 40 would be sent anywhere: the test compares nothing")
	}
	// Only the next-survey answers asked above are sends (written behind
	// the answers): the pages record none.
	a.decisions(t, store.RoutingFilter{}, named)
}
