package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/web/refresh"
)

// TestBrowserOnAPhone: what a new user stumbled on in a phone's window
// (390 x 844), and the same pages at a desk's (1280 x 900). A panelist's
// check shows its answer in the window, not far below the import forms;
// the pinned time column of /changes and /routing leaves the other
// columns most of the window; the pacing chart's labels are at least
// 11 px as drawn. Screenshots go to testoutput/browser/phone-*.png.
func TestBrowserOnAPhone(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	// Thirteen refreshes ten minutes apart, ending now: changes, and
	// trends with a projection.
	clock := &testClock{now: time.Now().Add(-130 * time.Minute).Truncate(time.Minute)}
	base, simulator, st := liveServer(t, func(o *sim.Options) { o.Now, o.Latency = clock.Now, 0 })
	c, err := client.New(client.Config{BaseURL: newLoopback(t, simulator)})
	if err != nil {
		t.Fatal(err)
	}
	r := refresh.New(c, st, refresh.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.Now})
	t.Cleanup(r.Close)
	for i := range 14 {
		if i > 0 {
			clock.Advance(10 * time.Minute)
		}
		if err := r.Refresh(context.Background(), refresh.Request{Force: i == 0}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if _, err := st.ImportProfiles(ctx, simulator.Profiles(11, 300), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanel(ctx, simulator.Panel(11, 300)); err != nil {
		t.Fatal(err)
	}
	// A few clicks on the router's record, to subsamples with their names.
	live, err := st.LiveRows(ctx)
	if err != nil || len(live) < 2 {
		t.Fatalf("live subsamples: %d, %v", len(live), err)
	}
	var decisions []domain.RoutingDecision
	for i := range 6 {
		decisions = append(decisions, domain.RoutingDecision{At: time.Now().Add(-time.Duration(i) * time.Minute), PanelistID: fmt.Sprintf("P%07d", i+1),
			Intended: live[i%2].SubsampleID, Chosen: live[i%2].SubsampleID, Outcome: domain.RoutedIntended, Reason: "the invitation's subsample takes them", Hop: 1})
	}
	if err := st.RecordRoutings(ctx, decisions); err != nil {
		t.Fatal(err)
	}
	var subsample string
	b := newBrowser(t)
	if err := chromedp.Run(b,
		chromedp.EmulateViewport(1280, 900),
		signInAs(base, "/live", "tester", testerPassword),
		chromedp.Navigate(base+"/live?sendability=sendable&sort=-pace"),
		chromedp.WaitVisible(`[data-testid="live-row"] a`),
		chromedp.Evaluate(`document.querySelector('[data-testid="live-row"] a').getAttribute('href')`, &subsample),
	); err != nil {
		t.Fatalf("sign in and find a subsample: %v", err)
	}

	for _, w := range widths[:2] {
		t.Run(w.name, func(t *testing.T) {
			// The check's answer is in the window once it comes.
			var where struct{ Top, Bottom, Inner float64 }
			err := chromedp.Run(b,
				chromedp.EmulateViewport(w.width, w.height),
				chromedp.Navigate(base+"/panelists"),
				chromedp.WaitVisible(`input[name="panelist"]`),
				chromedp.SendKeys(`input[name="panelist"]`, "P0000002"),
				chromedp.Click(`form[action="/panelists"] button[type="submit"]`),
				chromedp.WaitVisible(`#lookup h2`),
				chromedp.Poll(`!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`, nil, chromedp.WithPollingTimeout(time.Minute)),
				chromedp.Evaluate(`(() => { const r = document.querySelector("#lookup h2").getBoundingClientRect(); return {Top: r.top, Bottom: r.bottom, Inner: window.innerHeight}; })()`, &where),
			)
			if err != nil {
				t.Fatalf("check a panelist: %v", err)
			}
			if where.Top < 0 || where.Bottom > where.Inner {
				t.Errorf("the check's answer is at %.0f to %.0f px of a %.0f px window: want it in view", where.Top, where.Bottom, where.Inner)
			}
			t.Logf("the check's answer: %.0f to %.0f px of %.0f", where.Top, where.Bottom, where.Inner)
			screenshot(t, b, "phone-panelists-check-"+w.name+".png")

			// The pinned first column leaves the window to the others.
			for _, page := range []struct{ path, table string }{{"/changes", "table.grid.changes"}, {"/routing", "table.grid.routing"}} {
				var share float64
				err := chromedp.Run(b,
					chromedp.Navigate(base+page.path),
					chromedp.WaitVisible(page.table+` tbody td`),
					chromedp.Evaluate(`(() => { const t = document.querySelector("`+page.table+`");
						return t.querySelector("tbody td:first-child").getBoundingClientRect().width / t.getBoundingClientRect().width; })()`, &share),
				)
				if err != nil {
					t.Fatalf("%s: %v", page.path, err)
				}
				if share >= 0.3 {
					t.Errorf("%s: the first column takes %.0f%% of the table's width, want under 30%%", page.path, share*100)
				}
				t.Logf("%s: the first column takes %.0f%%", page.path, share*100)
				screenshot(t, b, fmt.Sprintf("phone-%s-%s.png", page.table[len("table.grid."):], w.name))
			}

			// The chart's labels, as drawn: the font size scaled by the
			// drawing's width over its viewBox's.
			var sizes []float64
			var overlaps []string
			err = chromedp.Run(b,
				chromedp.Navigate(base+subsample),
				chromedp.WaitVisible(`[data-testid="trend"]`),
				chromedp.Evaluate(`[...document.querySelectorAll("svg.trend:not(.spark)")].flatMap(svg => {
					const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
					return [...svg.querySelectorAll("text")].map(l => parseFloat(getComputedStyle(l).fontSize) * scale); })`, &sizes),
				// Labels shown, two by two: none may cover another.
				chromedp.Evaluate(`[...document.querySelectorAll("svg.trend:not(.spark)")].flatMap(svg => {
					const shown = [...svg.querySelectorAll("text")].filter(l => getComputedStyle(l).display !== "none");
					const out = [];
					shown.forEach((a, i) => shown.slice(i + 1).forEach(b => {
						const r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
						if (r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom) out.push(a.textContent + " / " + b.textContent);
					}));
					return out; })`, &overlaps),
			)
			if err != nil {
				t.Fatalf("the subsample's chart: %v", err)
			}
			if len(overlaps) > 0 {
				t.Errorf("chart labels cover each other: %q", overlaps)
			}
			if len(sizes) < 3 {
				t.Fatalf("the chart has %d labels, want its axes'", len(sizes))
			}
			t.Logf("chart labels drawn at %.1f px", slices.Min(sizes))
			var chart []byte
			if err := chromedp.Run(b, chromedp.Screenshot(`[data-testid="trend"]`, &chart, chromedp.NodeVisible)); err != nil {
				t.Fatalf("screenshot the chart: %v", err)
			}
			if err := os.WriteFile(filepath.Join(outputDir(t), "phone-chart-"+w.name+".png"), chart, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, s := range sizes {
				if s < 11 {
					t.Errorf("a chart label is drawn %.1f px, want 11 or more", s)
					break
				}
			}
		})
	}
}
