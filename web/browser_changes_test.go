package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
)

// TestBrowserShowsTheChangeFeed: after two refreshes of a simulator whose
// state moved six hours between them, /changes lists what moved, and a
// filter by kind keeps only that kind.
func TestBrowserShowsTheChangeFeed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	clock := &testClock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	base, _, _ := liveServer(t, func(o *sim.Options) { o.Now = clock.Now; o.Latency = 0 })
	ctx := newBrowser(t)
	refreshOnce := chromedp.Tasks{
		chromedp.Navigate(base + "/"),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="refresh-state"]`),
		chromedp.Poll(`!document.querySelector('[data-testid="refresh-progress"]')`, nil, chromedp.WithPollingTimeout(30*time.Second)),
	}
	if err := chromedp.Run(ctx, signInAs(base, "/", "tester", testerPassword), refreshOnce); err != nil {
		t.Fatalf("first refresh: %v", err)
	}
	clock.Advance(6 * time.Hour)
	if err := chromedp.Run(ctx, refreshOnce); err != nil {
		t.Fatalf("second refresh: %v", err)
	}
	var kinds []string
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/changes"),
		chromedp.WaitVisible(`[data-testid="change"]`),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="change"]')].map(r => r.dataset.kind)`, &kinds),
	)
	if err != nil {
		t.Fatalf("/changes: %v", err)
	}
	screenshot(t, ctx, "changes.png")
	moved := ""
	for _, k := range kinds {
		if k != "subsample.new" {
			moved = k
			break
		}
	}
	if moved == "" {
		t.Fatalf("/changes lists only new subsamples (%d rows) after a second refresh six hours on", len(kinds))
	}
	var filtered []string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/changes?kind="+moved),
		chromedp.WaitVisible(`[data-testid="change"]`),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="change"]')].map(r => r.dataset.kind)`, &filtered),
	)
	if err != nil {
		t.Fatalf("/changes?kind=%s: %v", moved, err)
	}
	for _, k := range filtered {
		if k != moved {
			t.Errorf("/changes?kind=%s lists a %s", moved, k)
		}
	}
	onFirstPage := 0
	for _, k := range kinds {
		if k == moved {
			onFirstPage++
		}
	}
	if len(filtered) < onFirstPage {
		t.Errorf("/changes?kind=%s lists %d rows, fewer than the %d on the whole feed's first page", moved, len(filtered), onFirstPage)
	}
}
