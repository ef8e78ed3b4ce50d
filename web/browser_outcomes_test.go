package web_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/web"
)

// The demo's outcomes, as `fieldboard serve --demo` imports them
// (cmd/fieldboard/serve.go): the panel's history of the last 30 days,
// with three panelists from heldFrom on past the quality hold, and the
// prices it was earned at.
const (
	outcomesDemoSeed       = 1
	outcomesDemoPanel      = 600
	outcomesDemoDays       = 30
	outcomesDemoHeldFrom   = 7
	outcomesPhoneWidth     = 390
	outcomesDesktopWidth   = 1280
	outcomesViewportHeight = 900
)

// TestBrowserOutcomesAndInvoice: on the demo's history and prices,
// /outcomes shows completes and its chart, the invoice of the month
// shows lines, and the panelist page of a held panelist says why they
// are held; each page at a phone's width scrolls sideways only inside
// its tables (screenshots outcomes-*.png, invoice-*.png,
// panelist-held-*.png).
func TestBrowserOutcomesAndInvoice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	base, simulator, st := liveServerWith(t, func(s *web.Server) {
		s.Checks = &checks.Service{Store: s.Store, Now: time.Now, QualityHold: rules.DefaultQualityHold}
	}, func(o *sim.Options) { o.Latency = 0 })
	ctx := context.Background()
	panel := slices.Collect(simulator.Panel(outcomesDemoSeed, outcomesDemoPanel))
	if _, err := st.ImportPanel(ctx, slices.Values(panel)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportHistory(ctx, simulator.RecentHistory(outcomesDemoSeed, panel, outcomesDemoDays, outcomesDemoHeldFrom)); err != nil {
		t.Fatal(err)
	}
	if err := st.AddPriceHistory(ctx, simulator.PriceHistory(outcomesDemoSeed, outcomesDemoDays)); err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t)
	err := chromedp.Run(b, signInAs(base, "/", "tester", testerPassword),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="refresh-state"]`),
		chromedp.Poll(`!document.querySelector('[data-testid="refresh-progress"]')`, nil, chromedp.WithPollingTimeout(2*time.Minute)),
	)
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}

	// The month two days ago: the current one, but on the first days of a
	// month the one before, which holds most of the 30 days.
	month := time.Now().UTC().AddDate(0, 0, -2).Format("2006-01")
	monthStart, _ := time.Parse("2006-01", month)
	held := simulator.PanelistID(outcomesDemoHeldFrom)
	pages := []struct {
		name, path, ready string
		check             func(t *testing.T, text string)
	}{
		{"outcomes", "/outcomes", `[data-testid="outcome-total"]`, func(t *testing.T, text string) {
			var completes string
			if err := chromedp.Run(b, chromedp.Text(`[data-testid="total-completes"]`, &completes)); err != nil {
				t.Fatal(err)
			}
			if completes == "" || completes == "0" {
				t.Errorf("/outcomes totals %q completes over the demo's 30 days", completes)
			}
			for _, want := range []string{"Earned", "Completes and reversals per day", "Quota fulls on cells judged open", "Download CSV"} {
				if !strings.Contains(text, want) {
					t.Errorf("/outcomes does not say %q", want)
				}
			}
			var chart int
			if err := chromedp.Run(b, chromedp.Evaluate(`document.querySelectorAll('[data-testid="outcomes-chart"] polyline').length`, &chart)); err != nil || chart != 2 {
				t.Errorf("the chart draws %d lines (%v), want completes and reversals", chart, err)
			}
		}},
		{"outcomes-month", "/outcomes?from=" + monthStart.Format(time.DateOnly) + "&to=" + monthStart.AddDate(0, 1, -1).Format(time.DateOnly), `[data-testid="reconciliation"]`, func(t *testing.T, text string) {
			for _, want := range []string{"Earned on the outcomes", "Invoice gross", "Invoice net", "The invoice of " + monthStart.Format("January 2006")} {
				if !strings.Contains(text, want) {
					t.Errorf("/outcomes of %s does not say %q", month, want)
				}
			}
		}},
		{"invoice", "/outcomes/invoice?month=" + month, `[data-testid="invoice-line"]`, func(t *testing.T, text string) {
			var amount string
			if err := chromedp.Run(b, chromedp.Text(`[data-testid="invoice-amount"]`, &amount)); err != nil {
				t.Fatal(err)
			}
			if amount == "" {
				t.Error("the invoice's first line shows no amount")
			}
			if !strings.Contains(text, "Per billing entity") || !strings.Contains(text, "Invoice "+month) || !strings.Contains(text, "Earned on the outcomes") {
				t.Errorf("the invoice does not show its totals per billing entity and its month:\n%.600s", text)
			}
		}},
		{"panelist-held", "/panelists?panelist=" + held, `[data-testid="quality-hold"]`, func(t *testing.T, text string) {
			var why string
			if err := chromedp.Run(b, chromedp.Text(`[data-testid="quality-hold"]`, &why)); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(why, "Held for quality:") || !strings.Contains(why, "reversed completes in the last 90 days") {
				t.Errorf("panelist %s's page says %q, want the hold's reason", held, why)
			}
			if !strings.Contains(text, "99 Potentially unengaged") && !strings.Contains(text, "98 Erroneous complete") {
				t.Errorf("panelist %s's page lists no reversed complete", held)
			}
		}},
	}
	var subsample string // the first row's subsample page
	if err := chromedp.Run(b, chromedp.Navigate(base+"/outcomes"), chromedp.WaitVisible(`[data-testid="outcome-row"]`),
		chromedp.Evaluate(`document.querySelector('[data-testid="outcome-row"] a').getAttribute('href')`, &subsample)); err != nil {
		t.Fatal(err)
	}
	pages = append(pages, struct {
		name, path, ready string
		check             func(t *testing.T, text string)
	}{"subsample-outcomes", subsample, `[data-testid="subsample-outcomes"]`, func(t *testing.T, text string) {
		var section string
		if err := chromedp.Run(b, chromedp.Text(`[data-testid="subsample-outcomes"]`, &section)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(section, "Completes") || !strings.Contains(section, "See the outcomes") {
			t.Errorf("%s's outcomes say:\n%s", subsample, section)
		}
	}}, struct {
		name, path, ready string
		check             func(t *testing.T, text string)
	}{"overview-outcomes", "/", `[data-testid="wrong-sends"]`, func(t *testing.T, text string) {
		if !strings.Contains(text, "Wrong sends, last 24 hours") {
			t.Error("the overview does not count the wrong sends of the last 24 hours")
		}
	}})
	for _, p := range pages {
		for _, width := range []int64{outcomesDesktopWidth, outcomesPhoneWidth} {
			var text string
			var overflow int
			err := chromedp.Run(b,
				chromedp.EmulateViewport(width, outcomesViewportHeight),
				chromedp.Navigate(base+p.path),
				chromedp.WaitVisible(p.ready),
				chromedp.Text(`main`, &text),
				chromedp.Evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`, &overflow),
			)
			if err != nil {
				t.Fatalf("%s at %d px: %v", p.path, width, err)
			}
			screenshot(t, b, fmt.Sprintf("%s-%d.png", p.name, width))
			if overflow > 0 {
				t.Errorf("%s at %d px scrolls sideways by %d px", p.path, width, overflow)
			}
			if width == outcomesDesktopWidth {
				p.check(t, text)
			}
		}
	}
}
