package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/crypto/bcrypt"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/handlers"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/lease"
	"fieldboard/web/metrics"
	"fieldboard/web/refresh"
)

// newMeteredApp is newApp wired as fieldboard serve wires it: the
// refresher and its provider calls measured, under the refresh lease of
// the instance "instance-1".
func newMeteredApp(t *testing.T) *app {
	t.Helper()
	simulator := sim.New(defaultSim)
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
	checker := &checks.Service{Store: st, Now: time.Now, StaleAfter: time.Hour}
	m := metrics.New(metrics.Sources{Store: st, Checks: checker, Instance: "instance-1", Logger: logger})
	holder := &lease.Holder{Store: st, ID: "instance-1", Logger: logger}
	r := refresh.New(m.Provider(c), st, refresh.Options{Logger: logger, Lease: holder, Observe: m.ObserveRefresh})
	t.Cleanup(r.Close)
	s := &web.Server{
		Store: st, Checks: checker, Refresher: r, Auth: auth.New(st, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
		Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC,
		Instance: "instance-1", Metrics: m,
	}
	return serveApp(t, s, st, r, simulator)
}

func TestHealthzTellsTheLeaseAndTheSnapshotAge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newMeteredApp(t)
	health := func() handlers.HealthJSON {
		t.Helper()
		resp, err := a.anonymous.Get(a.url + "/healthz") // no sign-in
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h handlers.HealthJSON
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /healthz: %d, %v", resp.StatusCode, err)
		}
		return h
	}
	if h := health(); h.Status != "ok" || h.Instance != "instance-1" || h.Snapshot != nil || h.RefreshLease.Holder != "" {
		t.Errorf("/healthz before any refresh = %+v; want ok, this instance named, no snapshot, nobody refreshing", h)
	}

	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	h := health()
	states, err := a.store.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ev := states[store.DatasetEvents]
	if h.Snapshot == nil || h.Snapshot.RunID != *ev.CurrentRunID || !h.Snapshot.RefreshedAt.Equal(*ev.LastSuccessAt) || h.Snapshot.AgeSeconds < 0 {
		t.Errorf("/healthz after a refresh: snapshot %+v, want run %d of %v", h.Snapshot, *ev.CurrentRunID, ev.LastSuccessAt)
	}

	// While this instance holds the refresh lease, /healthz says so; when
	// another does, it names it.
	l, err := a.store.AcquireLease(ctx, store.LeaseRefresh, "instance-1", time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if h := health(); !h.RefreshLease.HeldHere || h.RefreshLease.Holder != "instance-1" {
		t.Errorf("/healthz while this instance holds the lease: %+v", h.RefreshLease)
	}
	if err := a.store.ReleaseLease(ctx, l, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.AcquireLease(ctx, store.LeaseRefresh, "instance-2", time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if h := health(); h.RefreshLease.HeldHere || h.RefreshLease.Holder != "instance-2" {
		t.Errorf("/healthz while another instance holds the lease: %+v", h.RefreshLease)
	}
}

func TestMetricsCountWhatHappened(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newMeteredApp(t)
	if resp, _ := a.anonymous.Get(a.url + "/metrics"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /metrics without a token: %d, want 401", resp.StatusCode)
	}

	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	live, err := a.store.CountLive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.ImportPanel(ctx, slices.Values([]domain.PanelMember{{PanelistID: "P-1", Country: "US", Locale: "en-us"}})); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if resp, _ := a.do(t, "GET", "/api/v1/panelists/P-1/next", nil); resp.StatusCode != 200 {
			t.Fatalf("next survey: %d", resp.StatusCode)
		}
	}
	if resp, _ := a.do(t, "GET", "/api/v1/panelists/nobody/next", nil); resp.StatusCode != 404 {
		t.Fatalf("next survey of nobody: %d", resp.StatusCode)
	}
	if resp, _ := a.do(t, "GET", "/r/not-a-token", nil); resp.StatusCode != 404 {
		t.Fatalf("a bad invitation link: %d", resp.StatusCode)
	}
	sub, err := a.store.AddWebhook(ctx, store.WebhookSubscription{URL: "https://hooks.example/x", Secret: "whsec_AAAA", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.QueueWebhookTest(ctx, sub, "msg_1", time.Now()); err != nil {
		t.Fatal(err)
	}

	resp, body := a.do(t, "GET", "/metrics", map[string]string{"Authorization": "Bearer " + a.token})
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	families := parseMetrics(t, body)
	value := func(name string, labels map[string]string) (float64, bool) {
		return metricValue(families, name, labels)
	}
	checkValue := func(name string, labels map[string]string, want float64) {
		t.Helper()
		if got, ok := value(name, labels); !ok || got != want {
			t.Errorf("%s%v = %v (found %v), want %v", name, labels, got, ok, want)
		}
	}
	checkValue("fieldboard_refresh_duration_seconds", map[string]string{"dataset": "events"}, 1)
	checkValue("fieldboard_refresh_duration_seconds", map[string]string{"dataset": "library"}, 1)
	checkValue("fieldboard_refresh_duration_seconds", map[string]string{"dataset": "reference"}, 1)
	checkValue("fieldboard_provider_request_duration_seconds", map[string]string{"endpoint": "POST /supplier/v1/event/all"}, 1)
	checkValue("fieldboard_provider_request_duration_seconds", map[string]string{"endpoint": "GET /supplier/v1/subsamples/{id}/quotas"}, float64(live))
	checkValue("fieldboard_router_requests_total", map[string]string{"route": "next", "code": "200"}, 3)
	checkValue("fieldboard_router_requests_total", map[string]string{"route": "next", "code": "404"}, 1)
	checkValue("fieldboard_router_requests_total", map[string]string{"route": "invitation", "code": "404"}, 1)
	checkValue("fieldboard_router_request_duration_seconds", map[string]string{"route": "next"}, 4)
	checkValue("fieldboard_webhook_queue_length", nil, 1)
	checkValue("fieldboard_webhook_attempts_total", map[string]string{"outcome": "failed"}, 0)
	checkValue("fieldboard_lease_held", map[string]string{"lease": "refresh"}, 0)              // released after the refresh
	checkValue("fieldboard_refresh_failures_total", map[string]string{"dataset": "events"}, 0) // none failed
	if age, ok := value("fieldboard_snapshot_age_seconds", map[string]string{"dataset": "events"}); !ok || age < 0 || age > 3600 {
		t.Errorf("snapshot age %v (found %v), want the seconds since the refresh", age, ok)
	}
	verdicts := 0.0
	for _, m := range families["fieldboard_live_subsamples"].GetMetric() {
		verdicts += m.Gauge.GetValue()
	}
	if verdicts != float64(live) || live == 0 {
		t.Errorf("live subsamples by state add up to %v, want the %d live", verdicts, live)
	}
	if strings.Contains(body, "P-1") || strings.Contains(body, "not-a-token") || strings.Contains(body, "hooks.example") {
		t.Error("the metrics name a panelist, a token or a webhook address")
	}
}

// parseMetrics reads a /metrics answer in the Prometheus text format.
func parseMetrics(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the metrics page is not the Prometheus text format: %v", err)
	}
	return families
}

// metricValue is the value of the series of name with labels (a
// histogram's: its count), and whether there is one.
func metricValue(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	for _, m := range families[name].GetMetric() {
		if hasLabels(m, labels) {
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

// TestFailureCountersStartAtZero reads a fresh server's /metrics, before
// any refresh or provider call: each failure counter has a series at 0 for
// every dataset a refresh reads and every provider endpoint, so that an
// alert on their increase sees a zero rather than no series at all until
// the first failure.
func TestFailureCountersStartAtZero(t *testing.T) {
	t.Parallel()
	a := newMeteredApp(t)
	resp, body := a.do(t, "GET", "/metrics", map[string]string{"Authorization": "Bearer " + a.token})
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %d", resp.StatusCode)
	}
	families := parseMetrics(t, body)
	want := map[string][]map[string]string{"fieldboard_refresh_failures_total": nil, "fieldboard_provider_request_failures_total": nil}
	for _, dataset := range []string{"events", "library", "reference"} {
		want["fieldboard_refresh_failures_total"] = append(want["fieldboard_refresh_failures_total"], map[string]string{"dataset": dataset})
	}
	for _, endpoint := range []string{
		"POST /supplier/v1/event/all", "POST /supplier/v1/event/live-details",
		"GET /supplier/v1/subsamples/{id}/quotas", "GET /supplier/v1/subsamples/{id}/eligibility-rules",
		"GET /supplier/v1/locales/{locale}/questions", "GET /supplier/v1/locales/{locale}/questions/{questionId}/answers",
		"GET /supplier/v1/countries", "GET /supplier/v1/locales", "GET /supplier/v1/survey-statuses",
	} {
		want["fieldboard_provider_request_failures_total"] = append(want["fieldboard_provider_request_failures_total"], map[string]string{"endpoint": endpoint})
	}
	for name, series := range want {
		for _, labels := range series {
			if got, ok := metricValue(families, name, labels); !ok || got != 0 {
				t.Errorf("%s%v = %v (present: %v), want present at 0 on a fresh server", name, labels, got, ok)
			}
		}
	}
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(want)
}

// TestHealthzSaysStaleWithoutTheError: /healthz, open to anyone, says the
// data is stale and how old it is, never why: the failed refresh's error
// (the provider's own words) is shown only behind sign-in.
func TestHealthzSaysStaleWithoutTheError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testClock{now: time.Now()}
	a := newAppWith(t, func(s *web.Server) {
		s.Checks = &checks.Service{Store: s.Store, Now: clock.Now, StaleAfter: time.Hour}
		s.Now = clock.Now
	})
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	a.sim.FailPath("/supplier/v1/event/all", sim.FailServerError)
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err == nil {
		t.Fatal("the refresh got through a failing event list")
	}
	clock.Advance(2 * time.Hour)
	resp, err := a.anonymous.Get(a.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var h handlers.HealthJSON
	if err := json.Unmarshal(body, &h); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %d, %v", resp.StatusCode, err)
	}
	if h.Status != "stale" || h.Snapshot == nil || h.Snapshot.AgeSeconds < 3600 {
		t.Errorf("/healthz with data two hours old = %+v; want stale with the snapshot's age, over an hour", h)
	}
	for _, secret := range []string{"503", "Service Unavailable", "/supplier/v1"} {
		if strings.Contains(string(body), secret) {
			t.Errorf("/healthz, open to anyone, repeats the error (%q):\n%s", secret, body)
		}
	}
	if page := a.page(t, "/"); !strings.Contains(page, "503 Service Unavailable") {
		t.Error("the overview, behind sign-in, does not show the failed refresh's error")
	}
}
