package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/static"
	"fieldboard/store"
)

// bounce redirects every request to the same request target under the
// base to (set once the base is known): the simulator's entry and return
// addresses are fixed before the servers they lead to listen.
func bounce(to *atomic.Value) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to.Load().(string)+r.URL.RequestURI(), http.StatusFound)
	})
}

// TestBrowserReturnsAndRoutesOn: a panelist's browser follows an
// invitation to the subsample whose survey screens everyone out (the
// simulator's broken link); the survey returns them as a screen-out, and
// Fieldboard records the return and sends them, within that one request,
// to the survey of another event; the signed-in coordinator sees the
// return on /routing and on /outcomes at once. axe-core passes on both.
func TestBrowserReturnsAndRoutesOn(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	axe, err := os.ReadFile(filepath.Join("..", "static", static.Axe))
	if err != nil {
		t.Fatalf("read the vendored axe-core: %v", err)
	}
	var toSim, toDashboard atomic.Value
	entry, back := newLoopback(t, bounce(&toSim)), newLoopback(t, bounce(&toDashboard))
	base, simulator, st := liveServer(t, func(o *sim.Options) {
		// The survey waits on its page (a pause far longer than the test)
		// so the browser stops at each survey and returns on a click.
		// Seed 1's broken link is a subsample Fieldboard sends to.
		o.Seed = 1
		o.EntryURL, o.ReturnURL, o.SurveyPause, o.BrokenLink, o.Latency = entry+"/start", back+"/return/{status}?id={id}", time.Hour, true, 0
	})
	simURL := newLoopback(t, simulator)
	toSim.Store(simURL)
	toDashboard.Store(base)
	ctx, cancel := context.WithTimeout(newBrowser(t), 2*time.Minute) // a hang, not a speed
	defer cancel()
	if err := chromedp.Run(ctx,
		signInAs(base, "/", "tester", testerPassword),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="sendability-counts"]`),
	); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	bg := context.Background()
	if _, err := st.ImportProfiles(bg, simulator.Profiles(7, 1000), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanel(bg, simulator.Panel(7, 1000)); err != nil {
		t.Fatal(err)
	}
	broken, ok := simulator.BrokenLinkSubsample()
	if !ok {
		t.Fatal("the simulator has no broken link")
	}
	service := &checks.Service{Store: st, Now: time.Now}
	// A panelist the broken link's subsample takes who has a survey of
	// another event to go on to.
	var listed []string
	if err := service.SendList(bg, broken, 100, func(id, _ string) error { listed = append(listed, id); return nil }); err != nil {
		t.Fatalf("the send list of the broken link's subsample %d: %v", broken, err)
	}
	var panelist string
	for _, id := range listed {
		routes, err := service.NextSurveys(bg, id, 10)
		if err != nil {
			t.Fatal(err)
		}
		event := int64(0)
		for _, r := range routes {
			if r.SubsampleID == broken {
				event = r.EventID
			}
		}
		for _, r := range routes {
			if event != 0 && r.EventID != event && panelist == "" {
				panelist = id
			}
		}
	}
	if panelist == "" {
		t.Fatalf("none of the %d panelists the broken link's subsample %d takes has a survey of another event", len(listed), broken)
	}
	signer, err := newSigner(bg, st, time.Now(), base, time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	var first, next, landed string
	err = chromedp.Run(ctx,
		chromedp.Navigate(signer.Link(panelist, broken)),
		chromedp.WaitVisible(`//p[contains(., "Simulated survey")]`),
		chromedp.Text(`body`, &first),
		chromedp.Click(`//a[contains(., "Return now")]`),
		chromedp.WaitVisible(fmt.Sprintf(`//p[contains(., "Simulated survey") and not(contains(., "subsample %d."))]`, broken)),
		chromedp.Text(`body`, &next),
		chromedp.Location(&landed),
	)
	if err != nil {
		t.Fatalf("follow the invitation and return: %v", err)
	}
	screenshot(t, ctx, "return-next-survey.png")
	if !strings.Contains(first, fmt.Sprintf("subsample %d. You will be returned as screenout", broken)) {
		t.Errorf("the first survey reads %q; want the broken link's subsample %d returning a screen-out", first, broken)
	}
	if !strings.HasPrefix(landed, simURL+"/start?") || !strings.HasSuffix(landed, "&id="+panelist) {
		t.Errorf("after the return the browser is on %s; want another survey's entry link, bounced to %s, for %s", landed, simURL, panelist)
	}
	hops, _, err := st.Routings(bg, store.RoutingFilter{PanelistID: panelist}, 5, 0)
	if err != nil || len(hops) < 2 {
		t.Fatalf("the routing record of %s = %+v, %v; want the click and the hop", panelist, hops, err)
	}
	hop, click := hops[0], hops[1]
	if click.Chosen != broken || click.ReturnStatus == 0 || hop.After != click.DecisionID || hop.Chosen == broken ||
		!strings.Contains(next, fmt.Sprintf("subsample %d.", hop.Chosen)) {
		t.Errorf("click %+v, hop %+v, next survey %q; want the hop after the returned click to the survey the browser is on", click, hop, next)
	}

	var routing, outcomes string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/routing?panelist="+panelist),
		chromedp.WaitVisible(`[data-testid="routing-decision"]`),
		chromedp.Text(`main`, &routing),
	)
	if err != nil {
		t.Fatalf("the routing page: %v", err)
	}
	for _, f := range runAxe(t, ctx, string(axe), "/routing") {
		t.Errorf("axe on /routing: %s (%s) at %v", f.ID, f.Help, f.Targets)
	}
	if !strings.Contains(routing, fmt.Sprintf("Returned as Screen out from subsample %d", broken)) {
		t.Errorf("the routing page reads %q; want the return from %d", routing, broken)
	}
	// The chain, on /routing and on the panelist's page, at a phone's
	// width and a desk's: axe-clean, and looked at.
	for _, width := range []int64{390, 1280} {
		for _, page := range []struct{ name, path, ready string }{
			{"routing", "/routing?panelist=" + panelist, `[data-testid="routing-decision"]`},
			{"panelist", "/panelists?panelist=" + panelist, `[data-testid="session"]`},
		} {
			name, path := page.name, page.path
			var main string
			err := chromedp.Run(ctx,
				chromedp.EmulateViewport(width, 900),
				chromedp.Navigate(base+path),
				chromedp.WaitVisible(page.ready),
				chromedp.Text(`main`, &main),
			)
			if err != nil {
				t.Fatalf("%s at %d px: %v", path, width, err)
			}
			screenshot(t, ctx, fmt.Sprintf("return-%s-%d.png", name, width))
			for _, f := range runAxe(t, ctx, string(axe), path) {
				t.Errorf("axe on %s at %d px: %s (%s) at %v", path, width, f.ID, f.Help, f.Targets)
			}
			if !strings.Contains(main, fmt.Sprintf("Returned as Screen out from subsample %d", broken)) {
				t.Errorf("%s at %d px reads %q; want the hop after the return from %d", path, width, main, broken)
			}
		}
	}
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/outcomes?group=subsample"),
		chromedp.WaitVisible(`[data-testid="outcome-row"]`),
		chromedp.Text(`[data-testid="outcome-row"]`, &outcomes),
	)
	if err != nil {
		t.Fatalf("the outcomes page: %v", err)
	}
	screenshot(t, ctx, "return-outcomes.png")
	for _, f := range runAxe(t, ctx, string(axe), "/outcomes") {
		t.Errorf("axe on /outcomes: %s (%s) at %v", f.ID, f.Help, f.Targets)
	}
	if !strings.Contains(outcomes, fmt.Sprint(broken)) {
		t.Errorf("the outcomes' first row reads %q; want the broken link's subsample %d with its screen-out", outcomes, broken)
	}
}
