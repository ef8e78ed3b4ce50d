package web_test

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/bcrypt"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

// chromium finds a Chromium or Chrome binary. Without one the browser tests
// are skipped with a loud message, except under CI=true, where a missing
// browser fails the run: `make test` installs Debian's chromium when it
// runs as root.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	msg := "NO CHROMIUM FOUND: the browser tests did not run. Install Debian's chromium package (make test does it as root)."
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// liveServer runs the real dashboard server (web.Server.Serve) over
// loopback on a fresh database, reading a simulator with some latency so
// that progress can be watched. options change the simulator's.
func liveServer(t *testing.T, options ...func(*sim.Options)) (string, *sim.Simulator, *store.Store) {
	t.Helper()
	return liveServerWith(t, nil, options...)
}

// liveServerWith is liveServer with the server changed by configure (nil
// for none) before it serves.
func liveServerWith(t *testing.T, configure func(*web.Server), options ...func(*sim.Options)) (string, *sim.Simulator, *store.Store) {
	t.Helper()
	opts := sim.Options{Seed: 11, Subsamples: 120, QuestionsPerLocale: 12, Latency: 15 * time.Millisecond}
	for _, o := range options {
		o(&opts)
	}
	simulator := sim.New(opts)
	upstream := newLoopback(t, simulator)
	c, err := client.New(client.Config{BaseURL: upstream})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	hash, err := bcrypt.GenerateFromPassword([]byte(testerPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUser(context.Background(), "tester", store.RoleAdmin, string(hash), time.Now()); err != nil {
		t.Fatal(err)
	}
	r := refresh.New(c, st, refresh.Options{Logger: logger})
	s := &web.Server{
		Store: st, Checks: &checks.Service{Store: st, Now: time.Now}, Refresher: r,
		Auth:   auth.New(st, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
		Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC,
	}
	if configure != nil {
		configure(s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		st.Close()
	})
	return "http://" + ln.Addr().String(), simulator, st
}

func newLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// newBrowser starts headless Chromium with the flags this machine's closed
// network needs, and a fresh profile.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	// Not t.TempDir: Chromium may still be writing its profile while the
	// test's cleanup runs, and a failed removal would fail the test.
	profile, err := os.MkdirTemp("", "fieldboard-chromium-*")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1400, 1000),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	// A safety net against a hang, not a speed: under load a whole
	// browser test takes minutes.
	ctx, cancelTimeout := context.WithTimeout(ctx, 10*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for range 20 { // the browser's last writes may trail its exit
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// outputDir is where the browser tests leave screenshots and downloads for
// a person to look at.
func outputDir(t *testing.T) string {
	dir := filepath.Join("..", "testoutput", "browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(outputDir(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// updateScreenshotEnv names the variable that lets a browser test rewrite
// the README's committed screenshot (FIELDBOARD_UPDATE_SCREENSHOT=1); an
// ordinary run leaves the repository's files alone.
const updateScreenshotEnv = "FIELDBOARD_UPDATE_SCREENSHOT"

// updateDocsScreenshot writes what the browser's window shows now (the
// viewport, not the whole page, so the picture stays readable in the
// README) to docs/name, when updateScreenshotEnv is 1.
func updateDocsScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv(updateScreenshotEnv) != "1" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatalf("screenshot %s for the docs: %v", name, err)
	}
	path := filepath.Join("..", "docs", name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("screenshot %s for the docs: %v", name, err)
	}
	t.Logf("screenshot for the docs: %s", path)
}

func TestBrowserRefreshFilterAndDownload(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	base, _, _ := liveServer(t)
	ctx := newBrowser(t)

	// The overview before any data, then Refresh now: the progress shows
	// and the figures swap in when it is done.
	var progress string
	err := chromedp.Run(ctx,
		signInAs(base, "/", "tester", testerPassword),
		chromedp.WaitVisible(`//p[contains(., "No subsamples yet")]`),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="refresh-progress"]`),
		chromedp.Text(`[data-testid="refresh-progress"]`, &progress),
		chromedp.WaitVisible(`[data-testid="sendability-counts"]`),
		chromedp.WaitVisible(`[data-testid="refresh-state"]`),
	)
	if err != nil {
		t.Fatalf("refresh from the overview: %v", err)
	}
	if !strings.Contains(progress, "/") {
		t.Errorf("progress read %q, want done/total", progress)
	}
	screenshot(t, ctx, "overview.png")

	// Sort the live list, then filter it: the URL keeps both and nothing
	// else, and every row obeys the filter.
	var url string
	var badges, cpis []string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/live"),
		chromedp.WaitVisible(`[data-testid="live-row"]`),
		chromedp.Click(`//th/a[contains(., "CPI")]`),
		chromedp.Poll(`location.search === "?sort=cpi"`, nil, chromedp.WithPollingTimeout(2*time.Minute)),
		chromedp.SetValue(`select[name="sendability"]`, "sendable"),
		chromedp.Evaluate(`document.querySelector('select[name="sendability"]').dispatchEvent(new Event('change', {bubbles: true}))`, nil),
		chromedp.Poll(`location.search.includes("sendability=sendable")`, nil, chromedp.WithPollingTimeout(2*time.Minute)),
		chromedp.WaitNotPresent(`[data-testid="live-row"] [data-state="paused"]`),
		chromedp.Location(&url),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="live-row"] .badge')].map(b => b.dataset.state)`, &badges),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="live-row"] td:nth-of-type(4)')].map(td => td.textContent)`, &cpis),
	)
	if err != nil {
		t.Fatalf("sort and filter the live list: %v", err)
	}
	if !strings.HasSuffix(url, "/live?sendability=sendable&sort=cpi") || len(badges) == 0 {
		t.Fatalf("after sorting and filtering: URL %s (want only sendability and sort), %d rows", url, len(badges))
	}
	for _, b := range badges {
		if b != "sendable" {
			t.Errorf("a %s row is shown under the sendable filter", b)
		}
	}
	// The CPI column reads "5.20 USD"; sorted, each is at least the one
	// above it.
	if len(cpis) != len(badges) || len(cpis) < 2 {
		t.Fatalf("%d CPIs read from %d rows: want one a row, and rows to compare", len(cpis), len(badges))
	}
	prev := -1.0
	for i, c := range cpis {
		amount, _, _ := strings.Cut(strings.TrimSpace(c), " ")
		cpi, err := strconv.ParseFloat(amount, 64)
		if err != nil {
			t.Fatalf("row %d's CPI reads %q, not an amount", i+1, c)
		}
		if cpi < prev {
			t.Errorf("rows are not sorted by CPI after the filter changed: %q", cpis)
			break
		}
		prev = cpi
	}

	// A bad filter shows its error in the page and the list still works.
	err = chromedp.Run(ctx,
		chromedp.SetValue(`input[name="cpimin"]`, "5"),
		chromedp.SetValue(`input[name="cpimax"]`, "1"),
		chromedp.Evaluate(`document.querySelector('#live-filters').requestSubmit()`, nil),
		chromedp.WaitVisible(`#flash .error`),
		chromedp.SetValue(`input[name="cpimin"]`, ""),
		chromedp.SetValue(`input[name="cpimax"]`, ""),
		chromedp.Evaluate(`document.querySelector('#live-filters').requestSubmit()`, nil),
		chromedp.WaitNotPresent(`#flash .error`),
		chromedp.WaitVisible(`#live-table [data-testid="live-row"]`),
	)
	if err != nil {
		t.Fatalf("recover from a bad filter: %v", err)
	}

	// Download the filtered list as CSV: as many lines as rows matched.
	download, err := os.MkdirTemp("", "fieldboard-download-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(download)
	var count string
	err = chromedp.Run(ctx,
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(download).WithEventsEnabled(true),
		// Read and click in one step each: htmx may still be swapping the
		// list in after the filter, and a node found then replaced fails.
		chromedp.Evaluate(`document.querySelector('[data-testid="live-count"]').textContent`, &count),
		chromedp.Evaluate(`document.querySelector('[data-testid="live-csv"]').click()`, nil),
	)
	if err != nil {
		t.Fatalf("download the CSV: %v", err)
	}
	csvText := waitForDownload(t, download)
	matched, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(strings.TrimSpace(count), " ", 2)[0]))
	if err != nil || matched == 0 {
		t.Fatalf("the page's count reads %q: want how many rows match, some", count)
	}
	if lines := strings.Count(strings.TrimSpace(csvText), "\n"); lines != matched {
		t.Errorf("the CSV has %d rows, the page says %d match", lines, matched)
	}
	os.WriteFile(filepath.Join(outputDir(t), "live-sendable.csv"), []byte(csvText), 0o644)
}

// waitForDownload returns the content of the first complete file in dir.
func waitForDownload(t *testing.T, dir string) string {
	t.Helper()
	failsafe := time.Now().Add(2 * time.Minute) // a hang, not a speed
	for time.Now().Before(failsafe) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".crdownload") {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err == nil && len(b) > 0 {
					return string(b)
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("in two minutes no complete download arrived")
	return ""
}

func TestBrowserSubsampleAndLibrary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	base, simulator, st := liveServer(t)
	ctx := newBrowser(t)
	// Profiles of the simulator's panelists, so the page counts a send list.
	if _, err := st.ImportProfiles(context.Background(), simulator.Profiles(11, 3000), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanel(context.Background(), simulator.Panel(11, 3000)); err != nil {
		t.Fatal(err)
	}

	// Refresh, then open the first sendable subsample from the live list.
	var bars int
	var checks []string
	var path, libraryHint, targets string
	var quotaRows []struct {
		ID         string   `json:"id"`
		Conditions []string `json:"conditions"`
	}
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`#login-name`),
	)
	if err != nil {
		t.Fatalf("the sign-in page: %v", err)
	}
	screenshot(t, ctx, "login.png")
	err = chromedp.Run(ctx,
		signInAs(base, "/", "tester", testerPassword),
		chromedp.Click(`#refresh button`),
		chromedp.WaitVisible(`[data-testid="sendability-counts"]`),
		chromedp.Navigate(base+"/live?sendability=sendable"),
		chromedp.Click(`[data-testid="live-row"] a`),
		chromedp.WaitVisible(`[data-testid="checks"]`),
		chromedp.Evaluate(`location.pathname`, &path),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="quota-row"] meter').length`, &bars),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="quota-row"]')].map(r => ({
			id: r.querySelector('.id').textContent,
			conditions: [...r.querySelectorAll('[data-testid="condition"]')].map(c => c.textContent)}))`, &quotaRows),
		chromedp.Evaluate(`[...document.querySelectorAll('p.hint')].map(p => p.textContent).join(" ")`, &libraryHint),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="checks"] li')].map(li => li.dataset.outcome + " " + li.querySelector('strong').textContent)`, &checks),
		chromedp.WaitVisible(`[data-testid="target-count"]`),
		chromedp.Text(`[data-testid="target-count"]`, &targets),
	)
	if err != nil {
		t.Fatalf("open a subsample: %v", err)
	}
	if !regexp.MustCompile(`of \d+ profiled panelists in [A-Z]{2}( or [A-Z]{2})* fit an open cell and are eligible`).MatchString(targets) {
		t.Errorf("the send list count reads %q", targets)
	}
	if bars < 2 || len(quotaRows) != bars {
		t.Errorf("subsample page shows %d progress bars for %d quotas, want one a quota and at least 2", bars, len(quotaRows))
	}
	if n := translatedConditions(t, st, path, libraryHint, quotaRows); n == 0 {
		t.Errorf("no condition of %s could be checked against the library", path)
	}
	// The subsample was opened from the sendable filter: every rule passes,
	// in the spec's order.
	if want := []string{"pass Status", "pass API compatibility", "pass CPI", "pass Total quota", "pass Other quotas"}; !slices.Equal(checks, want) {
		t.Errorf("the verdict of a sendable subsample reads %q, want %q", checks, want)
	}
	screenshot(t, ctx, "subsample.png")

	// Load a question's answers in the library.
	var answers int
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/library"),
		chromedp.WaitVisible(`[data-testid="question-row"]`),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="question-row"] a.answers-link')[1].click()`, nil),
		chromedp.WaitVisible(`[data-testid="answers"]`),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="answers"] tbody tr').length`, &answers),
	)
	if err != nil {
		t.Fatalf("load a question's answers: %v", err)
	}
	if answers == 0 {
		t.Error("the answers table is empty")
	}
	screenshot(t, ctx, "library.png")

	// One panelist's surveys, with the quota verdict of each beside
	// eligibility.
	var verdicts, rows int
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/panelists?panelist=P0000002"),
		chromedp.WaitVisible(`[data-testid="not-now"]`),
		chromedp.Evaluate(`document.querySelectorAll('#lookup .quota-verdict').length`, &verdicts),
		chromedp.Evaluate(`document.querySelectorAll('#lookup tr[data-subsample]').length`, &rows),
	)
	if err != nil {
		t.Fatalf("look a panelist up: %v", err)
	}
	if rows == 0 || verdicts != rows {
		t.Errorf("the lookup shows %d quota verdicts for %d subsamples, want one each", verdicts, rows)
	}
	screenshot(t, ctx, "panelists.png")

	// A group of Not now opens to its subsamples; an id in the wrong case
	// is not on the panel, and the one meant is offered.
	var open int
	err = chromedp.Run(ctx,
		chromedp.Click(`[data-testid="not-now-group"] summary`),
		chromedp.WaitVisible(`[data-testid="not-now-group"] details[open] tr[data-subsample]`),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="not-now-group"] details[open]').length`, &open),
	)
	if err != nil || open != 1 {
		t.Fatalf("open a group of Not now: %v (%d open)", err, open)
	}
	screenshot(t, ctx, "panelists-group.png")
	var suggestion string
	err = chromedp.Run(ctx,
		chromedp.Navigate(base+"/panelists?panelist=p0000002"),
		chromedp.Text(`[data-testid="lookup-suggestion"]`, &suggestion),
	)
	if err != nil || suggestion != "Did you mean P0000002?" {
		t.Fatalf("look up p0000002: %v, suggestion %q", err, suggestion)
	}
	screenshot(t, ctx, "panelists-unknown.png")
}

// translatedConditions checks the conditions a subsample page shows
// (quotaRows, read at path) against the store's quotas and the question
// library the page names in its hint: a question and answers the library
// holds read "NAME (question text): answer or answer". It returns how many
// conditions it checked.
func translatedConditions(t *testing.T, st *store.Store, path, hint string, quotaRows []struct {
	ID         string   `json:"id"`
	Conditions []string `json:"conditions"`
}) int {
	t.Helper()
	ctx := context.Background()
	id, err := strconv.ParseInt(strings.TrimPrefix(path, "/subsamples/"), 10, 64)
	if err != nil {
		t.Fatalf("the subsample page is at %q", path)
	}
	_, rest, ok := strings.Cut(hint, "question library of ")
	locale, _, _ := strings.Cut(rest, ";")
	if !ok || locale == "" {
		t.Fatalf("the subsample page does not say whose library reads its conditions: %q", hint)
	}
	questions, err := st.Questions(ctx, locale)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]domain.Question{}
	for _, q := range questions {
		byID[q.ID] = q
	}
	quotas, err := st.QuotasOf(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string][]string{}
	for _, r := range quotaRows {
		shown[r.ID] = r.Conditions
	}
	checked := 0
	for _, q := range quotas {
		conditions, ok := shown[strconv.FormatInt(q.QuotaID, 10)]
		if !ok {
			t.Errorf("%s does not show quota %d", path, q.QuotaID)
			continue
		}
		if q.IsTotal() {
			continue
		}
		if len(conditions) != len(q.Questions) {
			t.Errorf("%s, quota %d: %d conditions shown, the quota has %d", path, q.QuotaID, len(conditions), len(q.Questions))
			continue
		}
		for i, c := range q.Questions {
			question, ok := byID[c.ID]
			text := cmp.Or(question.Translation, question.Text)
			if !ok || question.Name == "" || text == "" || strings.EqualFold(question.Name, text) {
				continue // named another way (handlers.ConditionText)
			}
			answers, err := st.Answers(ctx, locale, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			texts := map[int64]string{}
			for _, a := range answers {
				texts[a.ID] = cmp.Or(a.Translation, a.Text, a.Name)
			}
			var want []string
			for _, a := range c.Answers {
				if a.ID == nil || texts[*a.ID] == "" || !strings.EqualFold(strings.TrimSpace(c.Operator), "OR") {
					want = nil
					break
				}
				want = append(want, texts[*a.ID])
			}
			if want == nil {
				continue
			}
			if w := question.Name + " (" + text + "): " + strings.Join(want, " or "); conditions[i] != w {
				t.Errorf("%s, quota %d, condition %d reads %q, want %q", path, q.QuotaID, i+1, conditions[i], w)
			}
			checked++
		}
	}
	return checked
}

// signInAs opens path, which sends the browser to the sign-in page, signs
// in and checks that it lands back on path.
func signInAs(base, path, name, password string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(base + path),
		chromedp.WaitVisible(`#login-name`),
		chromedp.SendKeys(`#login-name`, name),
		chromedp.SendKeys(`#login-password`, password),
		chromedp.Submit(`#login-password`),
		chromedp.WaitVisible(`form.signout`),
		chromedp.Poll(`location.pathname === `+strconv.Quote(path), nil, chromedp.WithPollingTimeout(2*time.Minute)),
	}
}

// TestBrowserOverviewCountsDroppedElements: after a refresh whose
// live-details held one unreadable element, the overview says so in the
// dataset table, naming the element and its subsample.
func TestBrowserOverviewCountsDroppedElements(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	base, simulator, _ := liveServer(t)
	simulator.FailPath("/supplier/v1/event/live-details", sim.FailOneElement)
	ctx := newBrowser(t)
	var said string
	err := chromedp.Run(ctx,
		signInAs(base, "/", "tester", testerPassword),
		chromedp.Click(`#refresh button`),
		// The overview swaps itself in again when the refresh ends: read the
		// text in one step, whichever copy is current.
		chromedp.Poll(`document.querySelector('[data-testid="malformed"]')?.textContent`, &said),
	)
	if err != nil {
		t.Fatalf("refresh from the overview: %v", err)
	}
	if !strings.Contains(said, "1 unreadable element dropped") || !strings.Contains(said, "live-details element 2 (subsample ") {
		t.Errorf("the overview says %q; want the dropped element counted and named", said)
	}
	screenshot(t, ctx, "overview-dropped-element.png")
}
