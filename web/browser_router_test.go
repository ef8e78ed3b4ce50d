package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// TestBrowserFollowsAnInvitationLink: a panelist's browser opens an
// invitation link and lands on the simulator's entry link of the best
// survey for them, their id filled and SAPI=1 on; the coordinator then
// sees the click on /routing.
func TestBrowserFollowsAnInvitationLink(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	// The survey's side: the entry links point here and it greets whoever
	// arrives with the query it was given.
	entry := newLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><title>Survey</title><h1>Welcome to the survey</h1><p id="query">%s</p>`, html.EscapeString(r.URL.RawQuery))
	}))
	base, simulator, st := liveServer(t, func(o *sim.Options) { o.EntryURL = entry + "/start" })
	ctx := newBrowser(t)
	err := chromedp.Run(ctx,
		signInAs(base, "/", "tester", testerPassword),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="sendability-counts"]`),
	)
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	bg := context.Background()
	if _, err := st.ImportProfiles(bg, simulator.Profiles(7, 300), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanel(bg, simulator.Panel(7, 300)); err != nil {
		t.Fatal(err)
	}
	service := &checks.Service{Store: st, Now: time.Now}
	var panelist string
	var best checks.Route
	for i := range 300 {
		id := fmt.Sprintf("P%07d", i)
		routes, err := service.NextSurveys(bg, id, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(routes) > 0 {
			panelist, best = id, routes[0]
			break
		}
	}
	if panelist == "" {
		t.Fatal("no panelist of the simulator would be sent anywhere")
	}
	signer, err := newSigner(bg, st, time.Now(), base, time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	var landed, query string
	err = chromedp.Run(ctx,
		chromedp.Navigate(signer.Link(panelist, 0)),
		chromedp.WaitVisible(`//h1[contains(., "Welcome to the survey")]`),
		chromedp.Location(&landed),
		chromedp.Text(`#query`, &query),
	)
	if err != nil {
		t.Fatalf("follow the invitation: %v", err)
	}
	screenshot(t, ctx, "invitation-landing.png")
	if landed != best.EntryLink || !strings.HasPrefix(landed, entry+"/start?") || !strings.Contains(query, "SAPI=1") || !strings.HasSuffix(query, "&id="+panelist) {
		t.Errorf("landed on %s (query %q), want the best survey's entry link %s with SAPI=1 and id=%s last", landed, query, best.EntryLink, panelist)
	}

	// The click's decision is written behind the redirect.
	for failsafe := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) { // a hang, not a speed
		if _, n, err := st.Routings(bg, store.RoutingFilter{PanelistID: panelist}, 0, 0); err != nil || n > 0 || time.Now().After(failsafe) {
			break
		}
	}
	var row string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/routing?panelist="+panelist),
		chromedp.WaitVisible(`[data-testid="routing-decision"]`),
		chromedp.Text(`[data-testid="routing-decision"]`, &row),
	)
	if err != nil {
		t.Fatalf("the routing page: %v", err)
	}
	screenshot(t, ctx, "routing.png")
	if !strings.Contains(row, panelist) || !strings.Contains(row, fmt.Sprint(best.SubsampleID)) || !strings.Contains(row, "sent to the best survey") {
		t.Errorf("the routing page's row reads %q; want %s sent to %d", row, panelist, best.SubsampleID)
	}
}
