package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// The pacing chart as a browser draws it: the served dashboard reads a
// store that a refresher on a moving clock filled over two hours of a
// simulator on the same clock. The screenshots are for a person to look
// at; with FIELDBOARD_UPDATE_SCREENSHOT=1 the live list's also becomes the
// README's (docs/screenshot-live.png).
func TestBrowserPacingChart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	// Thirteen steps of 10 minutes end now: the last refresh is fresh.
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

	ctx := newBrowser(t)
	if err := chromedp.Run(ctx, signInAs(base, "/live", "tester", testerPassword),
		chromedp.Navigate(base+"/live?sort=-pace"), chromedp.WaitVisible(`[data-testid="live-pace"]`)); err != nil {
		t.Fatalf("/live sorted by pace: %v", err)
	}
	screenshot(t, ctx, "live-pace.png")
	updateDocsScreenshot(t, ctx, "screenshot-live.png") // the README's picture of the live list
	var body string
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/api/v1/subsamples?sendability=sendable"), chromedp.Text(`body`, &body)); err != nil {
		t.Fatal(err)
	}
	id := int64(0)
	for _, s := range decodeSubsamples(t, body) {
		if s.Pacing != nil && s.Pacing.ProjectedFillAt != nil {
			id = s.SubsampleID
			break
		}
	}
	if id == 0 {
		t.Fatal("no sendable subsample projects a fill")
	}
	var projection, pace string
	err = chromedp.Run(ctx,
		chromedp.Navigate(fmt.Sprintf("%s/subsamples/%d", base, id)),
		chromedp.WaitVisible(`[data-testid="trend-projection"]`),
		chromedp.AttributeValue(`[data-testid="trend-projection"]`, "points", &projection, nil),
		chromedp.Text(`[data-testid="total-pace"]`, &pace),
		chromedp.ScrollIntoView(`[data-testid="trend"]`),
	)
	if err != nil {
		t.Fatalf("subsample %d's pacing chart: %v", id, err)
	}
	if len(strings.Fields(projection)) != 3 || !strings.Contains(pace, "/h") || !strings.Contains(pace, "90%") {
		t.Errorf("projection points %q, pace %q; want three points and a rate with its interval", projection, pace)
	}
	screenshot(t, ctx, "subsample-pacing.png")

	// Per cell: a sparkline beside each moving hard cell's pace, drawn
	// with a size (not collapsed by the table).
	var cellPoints string
	var box []float64
	err = chromedp.Run(ctx,
		chromedp.ScrollIntoView(`[data-testid="cell-trend"]`),
		chromedp.AttributeValue(`[data-testid="cell-trend"] polyline`, "points", &cellPoints, nil),
		chromedp.Evaluate(`(() => { const r = document.querySelector('[data-testid="cell-trend"]').getBoundingClientRect(); return [r.width, r.height]; })()`, &box),
	)
	if err != nil {
		t.Fatalf("subsample %d's cell sparklines: %v", id, err)
	}
	if len(strings.Fields(cellPoints)) < 2 || len(box) != 2 || box[0] < 60 || box[1] < 16 {
		t.Errorf("a cell's sparkline has points %q and size %v; want a line of two readings or more, drawn at least 60x16", cellPoints, box)
	}
	screenshot(t, ctx, "subsample-cell-pacing.png")
}

func decodeSubsamples(t *testing.T, body string) []formats.SubsampleJSON {
	t.Helper()
	var out []formats.SubsampleJSON
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("subsamples: %v\n%.300s", err, body)
	}
	return out
}
