package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
)

// TestBrowserProfiling: after a refresh, with the simulator's panel
// (some of it without a profile) and profiles imported, /profiling ranks
// questions and covers the sendable subsamples' hard tables (screenshot
// profiling.png); its country filter keeps that country's rows alone and
// keeps the filter in the URL; a sendable subsample's page then loads how
// much of the panel its hard tables decide.
func TestBrowserProfiling(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	base, simulator, st := liveServer(t, func(o *sim.Options) { o.Latency = 0 })
	ctx := newBrowser(t)
	err := chromedp.Run(ctx, signInAs(base, "/", "tester", testerPassword),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="refresh-state"]`),
		chromedp.Poll(`!document.querySelector('[data-testid="refresh-progress"]')`, nil, chromedp.WithPollingTimeout(2*time.Minute)))
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	const panelists = 400
	if r, err := st.ImportPanel(context.Background(), simulator.Panel(5, panelists+40)); err != nil || r.BadLines > 0 {
		t.Fatalf("panel: %v %+v", err, r)
	}
	if r, err := st.ImportProfiles(context.Background(), simulator.Profiles(5, panelists), nil); err != nil || r.BadLines > 0 {
		t.Fatalf("profiles: %v %+v", err, r)
	}

	var countries, subsamples []string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/profiling"),
		chromedp.WaitVisible(`[data-testid="profiling-ranking"] tr[data-question]`),
		chromedp.WaitVisible(`[data-testid="profiling-coverage"] tr[data-subsample]`),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="profiling-ranking"] tr[data-question]')].map(r => r.dataset.country)`, &countries),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="profiling-coverage"] tr[data-subsample]')].map(r => r.dataset.subsample)`, &subsamples),
	)
	if err != nil {
		t.Fatalf("/profiling: %v", err)
	}
	screenshot(t, ctx, "profiling.png")
	country := countries[len(countries)-1]
	var filtered []string
	var location string
	err = chromedp.Run(ctx,
		chromedp.SetValue(`[data-testid="profiling-filters"] select[name="country"]`, country),
		chromedp.Evaluate(`document.querySelector('[data-testid="profiling-filters"] select[name="country"]').dispatchEvent(new Event('change', {bubbles: true}))`, nil),
		chromedp.Poll(`[...document.querySelectorAll('[data-testid="profiling-ranking"] tr[data-question]')].every(r => r.dataset.country === `+jsString(country)+`)`, nil, chromedp.WithPollingTimeout(time.Minute)),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="profiling-ranking"] tr[data-question]')].map(r => r.dataset.country)`, &filtered),
		chromedp.Location(&location),
	)
	if err != nil {
		t.Fatalf("the country filter: %v", err)
	}
	if len(filtered) == 0 || !strings.Contains(location, "country="+country) {
		t.Errorf("filtered by %s: rows %v at %s", country, filtered, location)
	}

	var coverage string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/subsamples/"+subsamples[0]),
		chromedp.WaitVisible(`[data-testid="subsample-coverage"]`),
		chromedp.Text(`[data-testid="subsample-coverage"]`, &coverage),
	)
	if err != nil {
		t.Fatalf("the subsample's coverage: %v", err)
	}
	if !strings.Contains(coverage, "decides") || !strings.Contains(coverage, "panelists of") {
		t.Errorf("subsample %s's coverage reads %q", subsamples[0], coverage)
	}
}

// jsString quotes s for a script.
func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
