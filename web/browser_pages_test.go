package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/static"
	"fieldboard/web/refresh"
)

// widths are the windows every page must fit: a phone, a desk, and a
// tablet between them. axe-core runs at the phone's and the desk's (the
// tablet's layout is the desk's, its tables scrolling in their boxes as
// on the phone: what axe finds there it finds at one of the two).
var widths = []struct {
	name          string
	width, height int64
	axe           bool
}{
	{"phone", 390, 844, true},
	{"desk", 1280, 900, true},
	{"tablet", 900, 1000, false},
}

// pageVisit is one page of the dashboard in one state: its address, what
// shows it is there, and what to do once it is open (nil for nothing).
type pageVisit struct {
	name, path, ready string
	then              chromedp.Action
}

// TestBrowserEveryPageFitsAndPassesAxe opens every page of the dashboard
// (every GET route of web.Server.Routes that answers a page, its
// parameters filled with real values, signed out and signed in, with
// results) in a phone's window (390 x 844), a desk's (1280 x 900) and a
// tablet's (900 x 1000). At each, the page must not scroll sideways; at
// the desk no table may need a sideways scroll either; on the phone the
// filters fold away and a table that scrolls in its box keeps its first
// column in view. At the phone's and the desk's, axe-core, injected into
// the page, must find no violation of impact critical, serious or
// moderate, and the page is screenshot into
// testoutput/browser/pages-*.png.
//
// Routes left out answer no page: CSV, JSON, /healthz, /metrics, the
// invitation redirect /r/:token, the fragments htmx loads into a page
// (refresh progress, a subsample's outcomes, coverage and target count,
// which the subsample page shows) and the POST routes, whose answers are
// the result states below.
func TestBrowserEveryPageFitsAndPassesAxe(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	axe, err := os.ReadFile(filepath.Join("..", "static", static.Axe))
	if err != nil {
		t.Fatalf("read the vendored axe-core: %v", err)
	}
	// Two hours of refreshes every 20 minutes, on a clock that ends now:
	// the pages show paces, trends and changes, not only first values.
	clock := &testClock{now: time.Now().Add(-120 * time.Minute).Truncate(time.Minute)}
	base, simulator, st := liveServer(t, func(o *sim.Options) { o.Now, o.Latency = clock.Now, 0 })
	c, err := client.New(client.Config{BaseURL: newLoopback(t, simulator)})
	if err != nil {
		t.Fatal(err)
	}
	r := refresh.New(c, st, refresh.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clock.Now})
	t.Cleanup(r.Close)
	for i := range 7 {
		if i > 0 {
			clock.Advance(20 * time.Minute)
		}
		if err := r.Refresh(context.Background(), refresh.Request{Force: i == 0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ImportProfiles(context.Background(), simulator.Profiles(11, 300), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanel(context.Background(), simulator.Panel(11, 300)); err != nil {
		t.Fatal(err)
	}
	// Two panelists held by hand, one until a time, for the held list and
	// a held panelist's page.
	holds := &checks.Service{Store: st, Now: time.Now}
	if err := holds.HoldPanelist(context.Background(), "P0000003", nil, "tester", "the client complained of straight-lining in three surveys"); err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(72 * time.Hour)
	if err := holds.HoldPanelist(context.Background(), "P0000004", &until, "tester", "asked for a pause"); err != nil {
		t.Fatal(err)
	}
	// Our own rules, a removal among their changes, for /policy to list:
	// none of them refuses a subsample the other pages show.
	ours := &checks.Service{Store: st, Now: clock.Now}
	for _, words := range []string{"block country ZZ", "priority event 999999 +2", "cap subsample 999999 sends 50 per hour", "pause subsample 999999"} {
		if _, err := ours.SetRule(context.Background(), strings.Fields(words), "maria", "a reason a coordinator gives, long enough to wrap on a phone"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ours.RemoveRuleWords(context.Background(), []string{"pause", "subsample", "999999"}, "maria", "resumed"); err != nil {
		t.Fatal(err)
	}
	badCSV := filepath.Join(t.TempDir(), "history.csv")
	if err := os.WriteFile(badCSV, []byte("not,the,header\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t)

	// Signed out, the sign-in page is the only page.
	check := func(v pageVisit) {
		t.Helper()
		for _, w := range widths {
			a := string(axe)
			if !w.axe {
				a = ""
			}
			checkPage(t, ctx, base, v, w.name, w.width, w.height, a)
		}
	}
	check(pageVisit{name: "login", path: "/login", ready: `#login-name`})

	// Signed in, with a snapshot: read a live subsample and a question
	// of the library from the pages themselves.
	var subsample, answers string
	err = chromedp.Run(ctx,
		chromedp.EmulateViewport(1280, 900),
		signInAs(base, "/live", "tester", testerPassword),
		chromedp.WaitVisible(`[data-testid="live-row"] a`),
		chromedp.Evaluate(`document.querySelector('[data-testid="live-row"] a').getAttribute('href')`, &subsample),
		chromedp.Navigate(base+"/library"),
		chromedp.WaitVisible(`a.answers-link`),
		chromedp.Evaluate(`document.querySelectorAll('a.answers-link')[1].getAttribute('href')`, &answers),
	)
	if err != nil {
		t.Fatalf("sign in, refresh and find a subsample and a question: %v", err)
	}
	if !strings.HasPrefix(subsample, "/subsamples/") || !strings.HasPrefix(answers, "/library/") {
		t.Fatalf("found subsample %q and answers %q: want their pages' paths", subsample, answers)
	}
	for _, v := range []pageVisit{
		{name: "overview", path: "/", ready: `[data-testid="sendability-counts"]`},
		{name: "live", path: "/live?sort=-pace", ready: `[data-testid="live-row"]`},
		{name: "live-at-risk", path: "/live?risk=at", ready: `#live-table`},
		{name: "subsample", path: subsample, ready: `[data-testid="checks"]`},
		{name: "events", path: "/events", ready: `main table`},
		{name: "library", path: "/library", ready: `[data-testid="question-row"]`},
		{name: "library-answers-open", path: "/library", ready: `[data-testid="question-row"]`,
			then: chromedp.Tasks{
				chromedp.Evaluate(`document.querySelectorAll('[data-testid="question-row"] a.answers-link')[1].click()`, nil),
				chromedp.WaitVisible(`[data-testid="answers"]`),
			}},
		{name: "library-answers", path: answers, ready: `[data-testid="answers"]`},
		{name: "reference", path: "/reference", ready: `[data-testid="countries"]`},
		{name: "panelists", path: "/panelists", ready: `input[name="panelist"]`},
		{name: "panelists-check", path: "/panelists?panelist=P0000002", ready: `[data-testid="not-now"]`},
		{name: "panelists-import-error", path: "/panelists", ready: `input[name="panelist"]`,
			then: chromedp.Tasks{
				chromedp.SetUploadFiles(`form[action="/panelists/history"] input[type=file]`, []string{badCSV}),
				chromedp.Click(`form[action="/panelists/history"] button`),
				chromedp.WaitVisible(`[data-testid="import-error"]`),
			}},
		{name: "panelists-held", path: "/panelists/held", ready: `[data-testid="held"]`},
		{name: "panelists-held-release", path: "/panelists/held", ready: `[data-testid="held"]`,
			then: chromedp.Tasks{
				chromedp.Click(`[data-testid="held"] details.release summary`),
				chromedp.WaitVisible(`[data-testid="release-form"] input[name="why"]`),
			}},
		{name: "panelists-held-one", path: "/panelists?panelist=P0000003", ready: `[data-testid="panelist-held"]`},
		{name: "profiling", path: "/profiling", ready: `main h1`},
		{name: "outcomes", path: "/outcomes", ready: `main h1`},
		{name: "invoice", path: "/outcomes/invoice", ready: `main h1`},
		{name: "changes", path: "/changes", ready: `main h1`},
		{name: "routing", path: "/routing", ready: `main h1`},
		{name: "webhooks", path: "/webhooks", ready: `main h1`},
		{name: "users", path: "/users", ready: `[data-testid="user"]`},
		{name: "policy", path: "/policy", ready: `[data-testid="policy-rule"]`,
			then: chromedp.Click(`[data-testid="policy-rule"] details.confirm summary`)},
		{name: "policy-refused", path: "/policy", ready: `[data-testid="policy-form-rule"]`,
			then: chromedp.Tasks{
				chromedp.SendKeys(`[data-testid="policy-form-rule"] input[name="rule"]`, "max-loi twenty"),
				chromedp.Click(`[data-testid="policy-form-rule"] button`),
				chromedp.WaitVisible(`[data-testid="policy-error"]`),
			}},
		{name: "not-found", path: "/subsamples/999999999", ready: `main`},
	} {
		check(v)
	}
}

// checkPage opens v at width x height, waits for it and the fragments
// it loads, then fails the test when the page scrolls sideways, when (at
// a desk's width) a table needs a sideways scroll, or when axe (its
// source; "" for none, and then no screenshot) finds a violation that
// matters. It screenshots the page.
func checkPage(t *testing.T, ctx context.Context, base string, v pageVisit, width string, w, h int64, axe string) {
	t.Helper()
	where := fmt.Sprintf("%s (%s) at %s %dx%d", v.name, v.path, width, w, h)
	tasks := chromedp.Tasks{
		chromedp.EmulateViewport(w, h),
		chromedp.Navigate(base + v.path),
		chromedp.WaitVisible(v.ready),
	}
	if v.then != nil {
		tasks = append(tasks, v.then)
	}
	// The fragments a page loads (a subsample's outcomes, its coverage)
	// arrive before anything is measured.
	tasks = append(tasks, chromedp.Poll(`document.readyState === "complete" && !document.querySelector(".htmx-request")`, nil,
		chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	if err := chromedp.Run(ctx, tasks); err != nil {
		t.Errorf("open %s: %v", where, err)
		return
	}
	var fit struct {
		Scroll int64    `json:"scroll"`
		Inner  int64    `json:"inner"`
		Wide   []string `json:"wide"`
		// Filter forms a phone shows unfolded (app.js folds them).
		Unfolded int `json:"unfolded"`
		// Scrolling tables whose first column scrolls away.
		Loose []string `json:"loose"`
	}
	// What sticks out: the widest elements past the window's right edge,
	// to say what made the page wide.
	err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const inner = window.innerWidth;
		const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.classList.length ? "." + [...e.classList].join(".") : "");
		const wide = [];
		for (const e of document.querySelectorAll("body *")) {
			const r = e.getBoundingClientRect();
			if (r.right > inner + 1 && !e.parentElement.closest("[data-overflowing]")) {
				let box = e.parentElement, clipped = false;
				for (; box && box !== document.body; box = box.parentElement) {
					const s = getComputedStyle(box);
					if (s.overflowX !== "visible") { clipped = true; break; }
				}
				if (!clipped) { wide.push(name(e) + " right edge " + Math.round(r.right)); e.dataset.overflowing = ""; }
			}
		}
		if (inner >= 1000) {
			for (const box of document.querySelectorAll("main *")) {
				const s = getComputedStyle(box);
				if ((s.overflowX === "auto" || s.overflowX === "scroll") && box.scrollWidth > box.clientWidth + 1 && box.querySelector("table")) {
					wide.push(name(box) + " scrolls its table: " + box.scrollWidth + " px in " + box.clientWidth);
				}
			}
		}
		document.querySelectorAll("[data-overflowing]").forEach(e => delete e.dataset.overflowing);
		// A table that scrolls in its box keeps its first column in view.
		const loose = [];
		for (const box of document.querySelectorAll("main table.grid, main .table-scroll")) {
			const s = getComputedStyle(box);
			if (s.overflowX === "visible" || box.scrollWidth <= box.clientWidth + 1) continue;
			// The box's own table's first cell, not one of a table nested
			// in a row (the panelist check's groups hold their own tables).
			const table = box.matches("table") ? box : box.querySelector("table");
			const cell = table && table.querySelector(":scope > tbody > tr > td:first-child:not([colspan])");
			if (!cell) continue;
			const before = cell.getBoundingClientRect().left;
			box.scrollLeft = 120;
			const after = cell.getBoundingClientRect().left;
			box.scrollLeft = 0;
			if (Math.abs(after - before) > 1) loose.push(name(box) + " (its first column moved " + Math.round(before - after) + " px)");
		}
		const unfolded = inner <= 700 ? document.querySelectorAll('form.filters[method="get"]:not(details.filters-fold > form)').length : 0;
		return {scroll: document.documentElement.scrollWidth, inner: inner, wide: wide.slice(0, 8), unfolded: unfolded, loose: loose};
	})()`, &fit))
	if err != nil {
		t.Errorf("measure %s: %v", where, err)
		return
	}
	if fit.Scroll > fit.Inner {
		t.Errorf("%s scrolls sideways: the document is %d px wide in a %d px window; sticking out: %s", where, fit.Scroll, fit.Inner, strings.Join(fit.Wide, "; "))
	} else if len(fit.Wide) > 0 && w >= 1000 {
		t.Errorf("%s: a table does not fit: %s", where, strings.Join(fit.Wide, "; "))
	}
	if len(fit.Loose) > 0 {
		t.Errorf("%s: a scrolling table loses its first column: %s", where, strings.Join(fit.Loose, "; "))
	}
	if fit.Unfolded > 0 {
		t.Errorf("%s: %d filter forms are not folded away", where, fit.Unfolded)
	}
	if axe == "" {
		return
	}
	screenshot(t, ctx, fmt.Sprintf("pages-%s-%s.png", v.name, width))
	for _, f := range runAxe(t, ctx, axe, where) {
		t.Errorf("%s: axe %s (%s) at %s: %s", where, f.ID, f.Impact, strings.Join(f.Targets, ", "), f.Help)
	}
}

// axeFinding is one violation of an axe rule, with the elements it found.
type axeFinding struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// runAxe injects axe-core into the open page and runs its default rules:
// it returns the violations of impact critical, serious or moderate.
func runAxe(t *testing.T, ctx context.Context, axe, where string) []axeFinding {
	t.Helper()
	var found []axeFinding
	err := chromedp.Run(ctx,
		chromedp.Evaluate(axe, nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
			.filter(v => ["critical", "serious", "moderate"].includes(v.impact))
			.map(v => ({id: v.id, impact: v.impact, help: v.help,
				targets: v.nodes.slice(0, 6).map(n => n.target.join(" ")).concat(v.nodes.length > 6 ? ["… " + v.nodes.length + " in all"] : [])})))`,
			&found, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if err != nil {
		t.Errorf("run axe on %s: %v", where, err)
		return nil
	}
	return found
}
