package web_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
	"fieldboard/web/demo"
)

// TestBrowserProfiling: after a refresh, with the demo's panel profiled
// in the supplier's own codes and its mapping imported (web/demo, as make
// run does), /profiling ranks questions, the one the supplier never asks
// first, covers the sendable subsamples' hard tables and lists the codes
// no mapping row covers (screenshot profiling.png); its country filter keeps that country's rows alone and
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
	// The demo's data, as make run writes it: the panel profiled in the
	// supplier's own codes, then its mapping, which leaves one country's
	// regions unmapped and never asks household income.
	seeder := demo.Seeder{Store: st, Sim: simulator, Seed: 5, Logger: slog.New(slog.DiscardHandler), Size: 1000}
	if err := seeder.Panel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := seeder.MapCodes(context.Background(), func(context.Context) error { return errors.New("no refresh expected: the library is stored") }); err != nil {
		t.Fatal(err)
	}

	var countries, subsamples, first, unmapped []string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/profiling"),
		chromedp.WaitVisible(`[data-testid="profiling-ranking"] tr[data-question]`),
		chromedp.WaitVisible(`[data-testid="profiling-coverage"] tr[data-subsample]`),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="profiling-ranking"] tr[data-question]')].map(r => r.dataset.country)`, &countries),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="profiling-coverage"] tr[data-subsample]')].map(r => r.dataset.subsample)`, &subsamples),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="profiling-ranking"] tr[data-question]')].slice(0, 3).map(r => r.dataset.question + ' ' + r.cells[2].textContent.trim())`, &first),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="unmapped-table"] tr[data-code]')].map(r => r.dataset.code + ' ' + r.dataset.country)`, &unmapped),
	)
	if err != nil {
		t.Fatalf("/profiling: %v", err)
	}
	screenshot(t, ctx, "profiling.png")
	// The question the supplier never asks heads the ranking, with no
	// code of its own; the unmapped region codes are listed.
	if len(first) == 0 || first[0] != "14785 not mapped" {
		t.Errorf("the ranking begins %q; want household income (14785), not mapped, first", first)
	}
	if !slices.ContainsFunc(unmapped, func(u string) bool { return strings.HasPrefix(u, "region ") && u != "region " }) {
		t.Errorf("unmapped codes %q; want a country's region codes", unmapped)
	}
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
