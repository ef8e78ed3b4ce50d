package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestBrowserShowsTheChangeFeed: after two refreshes of a simulator whose
// state moved six hours between them, /changes lists what moved, and a
// filter by kind keeps only that kind.
func TestBrowserShowsTheChangeFeed(t *testing.T) {
	t.Parallel()
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
		chromedp.Poll(`!document.querySelector('[data-testid="refresh-progress"]')`, nil, chromedp.WithPollingTimeout(2*time.Minute)),
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

	// The filter form applies a change at once, as every filter form
	// does, and leaves its empty fields out of the address; the submit
	// button does the same.
	want := base + "/changes?kind=" + moved
	rowsOfKind := `[...document.querySelectorAll('[data-testid="change"]')].every(r => r.dataset.kind === "` + moved + `")`
	for _, apply := range []chromedp.Action{
		chromedp.Evaluate(`document.querySelector('form.filters select[name="kind"]').dispatchEvent(new Event('change', {bubbles: true}))`, nil),
		chromedp.Click(`form.filters button[type="submit"]`),
	} {
		var address string
		err = chromedp.Run(ctx,
			chromedp.Navigate(base+"/changes"),
			chromedp.WaitVisible(`[data-testid="change"]`),
			chromedp.SetValue(`select[name="kind"]`, moved),
			apply,
			chromedp.Poll(`location.href === "`+want+`" && `+rowsOfKind, nil, chromedp.WithPollingTimeout(30*time.Second)),
			chromedp.Location(&address),
		)
		if err != nil || address != want {
			t.Errorf("/changes filtered by kind alone goes to %q, %v; want ?kind=%s, no empty parameter, and only those changes", address, err, moved)
		}
	}
}

// TestBrowserWebhooksPage: the webhooks page lists a subscription and its
// queued test event (screenshot webhooks.png); its Remove opens a second
// step (webhooks-remove.png).
func TestBrowserWebhooksPage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	base, _, st := liveServer(t)
	ctx := context.Background()
	id, err := st.AddWebhook(ctx, store.WebhookSubscription{URL: "https://hooks.example.com/fieldboard", Secret: "whsec_c2VjcmV0",
		Events: []domain.ChangeKind{domain.ChangePaused, domain.ChangeClosed}, Country: "FR", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.QueueWebhookTest(ctx, id, "test_0123456789abcdef", time.Now()); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	var text string
	err = chromedp.Run(b,
		signInAs(base, "/webhooks", "tester", testerPassword),
		chromedp.WaitVisible(`[data-testid="delivery"]`),
		chromedp.Text(`[data-testid="webhook"]`, &text),
	)
	if err != nil {
		t.Fatalf("/webhooks: %v", err)
	}
	screenshot(t, b, "webhooks.png")
	for _, want := range []string{"https://hooks.example.com/fieldboard", "subsample.paused, subsample.closed", "FR only", "webhook.test", "test_0123456789abcdef", "pending"} {
		if !strings.Contains(text, want) {
			t.Errorf("the subscription's card does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "whsec_") {
		t.Error("the page shows the secret")
	}
	// Remove asks a second time, in a fold.
	err = chromedp.Run(b,
		chromedp.Click(`[data-testid="webhook-remove"] summary`),
		chromedp.WaitVisible(`[data-testid="webhook-remove"] button[type="submit"]`),
	)
	if err != nil {
		t.Fatalf("open Remove…: %v", err)
	}
	screenshot(t, b, "webhooks-remove.png")
}
