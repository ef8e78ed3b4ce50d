package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/static"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

type app struct {
	url       string
	store     *store.Store
	refresher *refresh.Refresher
	sim       *sim.Simulator
	// client is signed in as the user tester: it sends the session cookie
	// and, on changes, the CSRF token as htmx would; /api/ requests carry
	// the bearer token instead, as a script's would. A request that sets
	// its own Authorization or Cookie header is sent as it is.
	client *http.Client
	// anonymous follows no redirects and signs in as nobody.
	anonymous *http.Client
	token     string
	routes    []*echo.Route // every route the server has
}

// newApp serves the dashboard over loopback on a temporary database that
// reads a simulator, also over loopback.
func newApp(t *testing.T) *app {
	t.Helper()
	return newAppOn(t, defaultSim)
}

// defaultSim is the simulator newApp reads.
var defaultSim = sim.Options{Seed: 3, Subsamples: 120, QuestionsPerLocale: 10}

// newAppWith is newApp with the server's options changed by configure.
func newAppWith(t *testing.T, configure func(*web.Server)) *app {
	t.Helper()
	return newAppOn(t, defaultSim, configure)
}

// newAppOn is newApp reading a simulator with opts, its server changed by
// each of with before it serves.
func newAppOn(t *testing.T, opts sim.Options, with ...func(*web.Server)) *app {
	t.Helper()
	simulator := sim.New(opts)
	upstream := httptest.NewServer(simulator)
	t.Cleanup(upstream.Close)
	c, err := client.New(client.Config{BaseURL: upstream.URL, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := refresh.New(c, st, refresh.Options{Logger: logger})
	t.Cleanup(r.Close)
	s := &web.Server{
		Store: st, Checks: &checks.Service{Store: st, Now: time.Now}, Refresher: r,
		Auth:   auth.New(st, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
		Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC,
	}
	for _, change := range with {
		change(s)
	}
	return serveApp(t, s, st, r, simulator)
}

// serveApp serves s over loopback and signs in to it.
func serveApp(t *testing.T, s *web.Server, st *store.Store, r *refresh.Refresher, simulator *sim.Simulator) *app {
	t.Helper()
	e := s.Routes()
	srv := httptest.NewServer(e)
	t.Cleanup(s.Close)
	t.Cleanup(srv.Close)
	a := &app{url: srv.URL, store: st, refresher: r, sim: simulator, anonymous: noRedirects(nil), routes: e.Routes()}
	a.signIn(t)
	return a
}

func (a *app) do(t *testing.T, method, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, a.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestLivePageBeforeAndAfterRefresh(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	resp, body := a.do(t, "GET", "/live", nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "No live subsamples yet") || !strings.Contains(body, "Refresh now") {
		t.Fatalf("empty /live: %d, want the empty state and the refresh button:\n%s", resp.StatusCode, body)
	}
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	resp, body = a.do(t, "GET", "/live", nil)
	if want := len(a.sim.LiveSubsampleIDs()); strings.Count(body, `data-testid="live-row"`) != want {
		t.Errorf("/live shows %d rows, want %d", strings.Count(body, `data-testid="live-row"`), want)
	}
	if !strings.Contains(body, "Data read from the provider") || !strings.Contains(body, "/static/"+static.HTMX) {
		t.Errorf("/live lacks the refresh state or htmx")
	}
	_, fragment := a.do(t, "GET", "/live", map[string]string{"HX-Request": "true"})
	if strings.Contains(fragment, "<html") || !strings.Contains(fragment, `id="live-table"`) {
		t.Errorf("an htmx request for /live must get the table alone")
	}
}

func TestRefreshButtonShowsProgressAndFinishes(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.sim.SetLatency(10 * time.Millisecond)
	resp, body := a.do(t, "POST", "/refresh", map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || !strings.Contains(body, `hx-trigger="every 1s"`) || !strings.Contains(body, "Refreshing") {
		t.Fatalf("POST /refresh: %d, want a polling progress panel:\n%s", resp.StatusCode, body)
	}
	failsafe := time.Now().Add(5 * time.Minute) // a hang, not a speed
	for {
		resp, body = a.do(t, "GET", "/refresh/progress", map[string]string{"HX-Request": "true"})
		if !strings.Contains(body, "every 1s") {
			break
		}
		if time.Now().After(failsafe) {
			t.Fatalf("in five minutes the progress panel never stopped polling: the refresh did not finish\n%s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if resp.Header.Get("HX-Trigger") != "refreshed" {
		t.Errorf("the poll that sees the refresh finish must trigger 'refreshed', got %q", resp.Header.Get("HX-Trigger"))
	}
	if !strings.Contains(body, "Data read from the provider just now") {
		t.Errorf("finished panel = %s", body)
	}
	resp, _ = a.do(t, "POST", "/refresh", nil)
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST /refresh without htmx: %d, want 303 back to the page", resp.StatusCode)
	}
}

// TestRefreshOnAnotherInstanceIsShownRunning: behind a load balancer the
// polls of a refresh started through one instance may reach another.
// While another instance holds the refresh lease, this one's panel, the
// subsample's and GET /api/v1/refresh say a refresh runs there and keep
// polling; once it is released, the next poll says it finished, though
// this instance never refreshed itself.
func TestRefreshOnAnotherInstanceIsShownRunning(t *testing.T) {
	t.Parallel()
	a := newAppWith(t, func(s *web.Server) { s.Instance = "here:1:aa" })
	ctx := context.Background()
	// The data comes from the other instance: this one never refreshes.
	upstream := httptest.NewServer(a.sim)
	t.Cleanup(upstream.Close)
	c, err := client.New(client.Config{BaseURL: upstream.URL})
	if err != nil {
		t.Fatal(err)
	}
	other := refresh.New(c, a.store, refresh.Options{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(other.Close)
	if err := other.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	id := a.sim.LiveSubsampleIDs()[0]
	held, err := a.store.AcquireLease(ctx, store.LeaseRefresh, "there:2:bb", time.Now(), time.Minute) // refreshing again
	if err != nil {
		t.Fatal(err)
	}
	fragment := map[string]string{"HX-Request": "true"}
	for _, path := range []string{"/refresh/progress", fmt.Sprintf("/subsamples/%d/refresh/progress", id)} {
		resp, body := a.do(t, "GET", path, fragment)
		if !strings.Contains(body, "every 1s") || !strings.Contains(body, "running on another instance (there:2:bb)") || resp.Header.Get("HX-Trigger") != "" {
			t.Errorf("GET %s while another instance refreshes: %d, HX-Trigger %q, want a polling panel that says so:\n%s", path, resp.StatusCode, resp.Header.Get("HX-Trigger"), body)
		}
	}
	if _, body := a.do(t, "GET", "/api/v1/refresh", nil); !strings.Contains(body, `"running":true`) || !strings.Contains(body, "there:2:bb") {
		t.Errorf("GET /api/v1/refresh while another instance refreshes: %s", body)
	}
	if err := a.store.ReleaseLease(ctx, held, time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, body := a.do(t, "GET", "/refresh/progress", fragment)
	if strings.Contains(body, "every 1s") || resp.Header.Get("HX-Trigger") != "refreshed" {
		t.Errorf("the poll after the other instance's refresh: HX-Trigger %q, want it finished and 'refreshed':\n%s", resp.Header.Get("HX-Trigger"), body)
	}
	if resp, _ := a.do(t, "GET", fmt.Sprintf("/subsamples/%d/refresh/progress", id), fragment); resp.Header.Get("HX-Refresh") != "true" {
		t.Errorf("the subsample's poll after the other instance's refresh: HX-Refresh %q, want the page reloaded", resp.Header.Get("HX-Refresh"))
	}
	if _, body := a.do(t, "GET", "/api/v1/refresh", nil); !strings.Contains(body, `"running":false`) {
		t.Errorf("GET /api/v1/refresh after: %s", body)
	}
}

func TestFailedRefreshIsShown(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.sim.FailPath("/supplier/v1/event/all", sim.FailServerError)
	a.refresher.Refresh(context.Background(), refresh.Request{})
	_, body := a.do(t, "GET", "/live", nil)
	if !strings.Contains(body, "Last refresh failed") || !strings.Contains(body, "/supplier/v1/event/all") {
		t.Errorf("/live after a failed refresh does not show the error:\n%s", body)
	}
}

func TestErrorsAndStatic(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tests := []struct {
		path, want string
		status     int
	}{
		{"/healthz", `"ok"`, 200},
		{"/no-such-page", "Not Found", 404},
		{"/static/" + static.HTMX, "htmx", 200},
		{"/static/app.css", "--accent", 200},
		{"/static/" + static.Favicon, "<svg", 200},
		{"/favicon.ico", "<svg", 200}, // browsers ask whatever the page links
		{"/", "Overview", 200},
		{"/", `<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">`, 200},
	}
	for _, tt := range tests {
		resp, body := a.do(t, "GET", tt.path, nil)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d, want %d with %q", tt.path, resp.StatusCode, tt.status, tt.want)
		}
	}
}

func TestServeShutsDownGracefully(t *testing.T) {
	t.Parallel()
	simulator := sim.New(sim.Options{Seed: 3, Subsamples: 30, Latency: time.Second})
	upstream := httptest.NewServer(simulator)
	defer upstream.Close()
	c, _ := client.New(client.Config{BaseURL: upstream.URL})
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := refresh.New(c, st, refresh.Options{Logger: logger})
	s := &web.Server{
		Store: st, Refresher: r, Logger: logger, Now: time.Now, Location: time.UTC,
		ScheduleTick: time.Minute, // the first scheduled refresh starts at once and hangs on the slow upstream
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz while a refresh hangs upstream: %v %v", resp, err)
	}
	resp.Body.Close()
	for failsafe := time.Now().Add(5 * time.Minute); !r.Progress().Running; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatal("in five minutes the scheduled refresh was never seen running")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel: %v", err)
		}
	case <-time.After(5 * time.Minute): // a hang, not a speed: the provider never answers
		t.Fatal("Serve did not return after cancel: it waited for the refresh hanging on the provider")
	}
	if r.Progress().Running {
		t.Error("the refresh in flight was not cancelled")
	}
}

func TestSecureHeaders(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for _, path := range []string{"/", "/live", "/api/v1/subsamples", "/static/app.css", "/no-such-page"} {
		resp, _ := a.do(t, "GET", path, nil)
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") == "" {
			t.Errorf("%s: headers %v", path, resp.Header)
		}
	}
}

// TestPanelistDataIsNeverCached: every answer but the static files (and
// the favicon, the same at /favicon.ico) says
// Cache-Control: no-store, so panelists' ids, eligibility and entry links
// stay off a shared computer's disk and out of proxies: each route the
// server has, and by name the pages, CSVs and API answers that hold
// panelist data, answering 200.
func TestPanelistDataIsNeverCached(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P1")
	for _, r := range a.routes {
		if r.Method != "GET" {
			continue
		}
		resp, _ := a.do(t, "GET", concrete(r.Path), nil)
		static := strings.HasPrefix(r.Path, "/static/") || r.Path == "/favicon.ico"
		if got := resp.Header.Get("Cache-Control"); (got == "no-store") == static {
			t.Errorf("GET %s (%d): Cache-Control %q; want no-store on everything but the static files and the favicon", r.Path, resp.StatusCode, got)
		}
	}
	id := fmt.Sprint(target.SubsampleID)
	for _, path := range []string{
		"/panelists?panelist=P1", "/panelists.csv?panelist=P1", "/api/v1/panelists/P1/surveys",
		"/api/v1/eligibility?panelistId=P1&subsampleId=" + id,
		"/subsamples/" + id, "/subsamples/" + id + "/targets.csv", "/api/v1/subsamples/" + id + "/targets",
		"/live", "/live.csv", "/",
	} {
		if resp, body := a.do(t, "GET", path, nil); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d, Cache-Control %q; want 200 and no-store:\n%.300s", path, resp.StatusCode, resp.Header.Get("Cache-Control"), body)
		}
	}
	resp, body := a.post(t, "/api/v1/subsamples/"+id+"/eligibility", "text/csv", "panelistId\nP1\n")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the API's bulk check: %d, Cache-Control %q; want 200 and no-store:\n%.300s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	form, contentType := multipartFile(t, map[string]string{"subsample": id}, "ids.csv", "panelistId\nP1\n")
	resp, body = a.postRaw(t, "/panelists/bulk", contentType, form, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the bulk check form: %d, Cache-Control %q; want 200 and no-store:\n%.300s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	if resp, _ := a.do(t, "GET", "/static/app.css", nil); resp.StatusCode != 200 {
		t.Errorf("GET /static/app.css: %d", resp.StatusCode)
	}
}
