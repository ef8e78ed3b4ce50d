// Package metrics keeps one instance's Prometheus metrics, in a registry
// of its own, served as GET /metrics in the Prometheus text format.
//
// Counters and histograms count what this instance did (its refreshes,
// its provider calls, its router answers, its webhook attempts): add
// them up across instances. Gauges read at each scrape from the database
// (snapshot age, verdict counts, webhook queue) are the same on every
// instance on one database; fieldboard_lease_held says whether this one
// holds each lease. No label carries a panelist, subsample or token: the
// endpoints are named by their templates.
package metrics

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// Checker is what the metrics ask of the checks service: the verdicts.
type Checker interface {
	Subsamples(ctx context.Context, filter checks.SubsampleFilter) ([]checks.SubsampleReport, error)
}

// Metrics are one instance's metrics. Create them with New.
type Metrics struct {
	registry *prometheus.Registry

	refreshDuration  *prometheus.HistogramVec
	refreshFailures  *prometheus.CounterVec
	providerDuration *prometheus.HistogramVec
	providerFailures *prometheus.CounterVec
	routerRequests   *prometheus.CounterVec
	routerDuration   *prometheus.HistogramVec
	refusedClicks    *prometheus.CounterVec
	webhookAttempts  *prometheus.CounterVec
}

// Sources are what the gauges read at each scrape.
type Sources struct {
	Store  *store.Store
	Checks Checker
	// Returns counts the returns this instance refused, by reason
	// (checks.Service.RefusedReturns); nil counts none.
	Returns interface{ RefusedReturns() map[string]int64 }
	// Instance is this instance's lease holder id (lease.Holder.ID).
	Instance string
	// Now is the clock [time.Now].
	Now    func() time.Time
	Logger *slog.Logger
}

// New registers every metric in a new registry: this instance's counters
// and histograms, the gauges read from src at each scrape, and the Go
// runtime's and the process's own.
func New(src Sources) *Metrics {
	if src.Now == nil {
		src.Now = time.Now
	}
	if src.Logger == nil {
		src.Logger = slog.Default()
	}
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		refreshDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fieldboard_refresh_duration_seconds", Help: "How long this instance's refreshes of each dataset took, as the refresh log records them: from the first provider call until all was read (the snapshot's write not included), or until the failure.",
			Buckets: []float64{0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300}}, []string{"dataset"}),
		refreshFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldboard_refresh_failures_total", Help: "This instance's refreshes of each dataset that failed as a whole (nothing written, the previous snapshot kept)."}, []string{"dataset"}),
		providerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fieldboard_provider_request_duration_seconds", Help: "How long this instance's calls to each provider endpoint took, retries included.",
			Buckets: prometheus.DefBuckets}, []string{"endpoint"}),
		providerFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldboard_provider_request_failures_total", Help: "This instance's calls to each provider endpoint that failed after their retries."}, []string{"endpoint"}),
		routerRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldboard_router_requests_total", Help: "Router requests this instance answered: clicks on invitation links (route invitation) and next-survey questions (route next), by status code."}, []string{"route", "code"}),
		routerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "fieldboard_router_request_duration_seconds", Help: "How long this instance took to answer router requests.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}}, []string{"route"}),
		refusedClicks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldboard_invitation_clicks_refused_total", Help: "Clicks on invitation links this instance refused (429, neither decided nor recorded), by the limit they met: address (one client address), link (one invitation link) or overall (all links together)."}, []string{"limit"}),
		webhookAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fieldboard_webhook_attempts_total", Help: "Webhook delivery attempts this instance made, by outcome: delivered, retry (failed, tried again later) or failed (for good)."}, []string{"outcome"}),
	}
	// The failure counters are present at 0 from the start, for every
	// label value known now, so that an alert on them (rate, increase)
	// sees a zero rather than nothing before the first failure.
	for _, outcome := range []string{"delivered", "retry", "failed"} {
		m.webhookAttempts.WithLabelValues(outcome)
	}
	for _, dataset := range refreshedDatasets {
		m.refreshFailures.WithLabelValues(dataset)
	}
	for _, limit := range []string{"address", "link", "overall"} {
		m.refusedClicks.WithLabelValues(limit)
	}
	for _, endpoint := range providerEndpoints {
		m.providerFailures.WithLabelValues(endpoint)
	}
	m.registry.MustRegister(m.refreshDuration, m.refreshFailures, m.providerDuration, m.providerFailures,
		m.routerRequests, m.routerDuration, m.refusedClicks, m.webhookAttempts, &gauges{src: src},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// refreshedDatasets are the datasets a refresh reads, the label values of
// the refresh metrics.
var refreshedDatasets = []string{store.DatasetEvents, store.DatasetLibrary, store.DatasetReference}

// Handler serves the metrics in the Prometheus text format. A gauge that
// could not be read is left out and the scrape still answers.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Timeout: 10 * time.Second})
}

// ObserveRefresh counts a dataset's refresh (refresh.Options.Observe).
func (m *Metrics) ObserveRefresh(dataset string, took time.Duration, failed bool) {
	m.refreshDuration.WithLabelValues(dataset).Observe(took.Seconds())
	if failed {
		m.refreshFailures.WithLabelValues(dataset).Inc()
	}
}

// ObserveRefusedClick counts a click on an invitation link refused by
// limit: address, link or overall.
func (m *Metrics) ObserveRefusedClick(limit string) { m.refusedClicks.WithLabelValues(limit).Inc() }

// RouterObserver counts the requests of one router route ("invitation"
// or "next"): each answered with code, in took. It finds the route's
// histogram once, and the counter of a code the first time the code is
// met, rather than by their labels on every answer.
func (m *Metrics) RouterObserver(route string) func(code int, took time.Duration) {
	duration := m.routerDuration.WithLabelValues(route)
	var counters [len(statusLabels)]atomic.Pointer[prometheus.Counter]
	return func(code int, took time.Duration) {
		duration.Observe(took.Seconds())
		if code < 0 || code >= len(counters) {
			m.routerRequests.WithLabelValues(route, statusLabel(code)).Inc()
			return
		}
		c := counters[code].Load()
		if c == nil {
			counter := m.routerRequests.WithLabelValues(route, statusLabels[code])
			c = &counter
			counters[code].Store(c)
		}
		(*c).Inc()
	}
}

// statusLabels are the labels of the HTTP status codes, made once: the
// router's every answer is counted by its code.
var statusLabels = func() (out [600]string) {
	for code := range out {
		out[code] = strconv.Itoa(code)
	}
	return out
}()

// statusLabel is code as a label: strconv.Itoa's.
func statusLabel(code int) string {
	if code >= 0 && code < len(statusLabels) {
		return statusLabels[code]
	}
	return strconv.Itoa(code)
}

// ObserveWebhook counts a webhook attempt's outcome
// (webhooks.Worker.Observe).
func (m *Metrics) ObserveWebhook(outcome string) { m.webhookAttempts.WithLabelValues(outcome).Inc() }

// observeProvider counts a call to a provider endpoint.
func (m *Metrics) observeProvider(endpoint string, start time.Time, err error) {
	m.providerDuration.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
	if err != nil {
		m.providerFailures.WithLabelValues(endpoint).Inc()
	}
}

// gauges are read from the database at each scrape.
type gauges struct{ src Sources }

var (
	snapshotAgeDesc = prometheus.NewDesc("fieldboard_snapshot_age_seconds",
		"Age of the current snapshot of each dataset: the time since its last successful refresh (by any instance).", []string{"dataset"}, nil)
	verdictsDesc = prometheus.NewDesc("fieldboard_live_subsamples",
		"Live subsamples of the current snapshot by sendability state.", []string{"state"}, nil)
	webhookQueueDesc = prometheus.NewDesc("fieldboard_webhook_queue_length",
		"Webhook deliveries still to be made (due, or waiting for a retry).", nil, nil)
	refusedReturnsDesc = prometheus.NewDesc("fieldboard_returns_refused_total",
		"Returns of respondents this instance refused (not recorded), by reason: no open send, already returned, not on the panel, bad signature.", []string{"reason"}, nil)
	leaseHeldDesc = prometheus.NewDesc("fieldboard_lease_held",
		"1 when this instance holds the lease (refresh: while it refreshes; webhooks: while it sends the queue), else 0.", []string{"lease"}, nil)
)

func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{snapshotAgeDesc, verdictsDesc, webhookQueueDesc, leaseHeldDesc, refusedReturnsDesc} {
		ch <- d
	}
}

func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := g.src.Now()
	fail := func(desc *prometheus.Desc, err error) {
		g.src.Logger.Warn("reading a metric", "metric", desc.String(), "err", err)
		ch <- prometheus.NewInvalidMetric(desc, err)
	}

	if states, err := g.src.Store.Datasets(ctx); err != nil {
		fail(snapshotAgeDesc, err)
	} else {
		for _, name := range refreshedDatasets {
			if at := states[name].LastSuccessAt; at != nil {
				ch <- prometheus.MustNewConstMetric(snapshotAgeDesc, prometheus.GaugeValue, now.Sub(*at).Seconds(), name)
			}
		}
	}

	if g.src.Checks == nil {
		// no checks service: no verdicts to count
	} else if reports, err := g.src.Checks.Subsamples(ctx, checks.SubsampleFilter{}); err != nil {
		fail(verdictsDesc, err)
	} else {
		byState := map[rules.State]int{}
		for _, r := range reports {
			if r.Live {
				byState[r.Verdict.State]++
			}
		}
		for _, s := range rules.States {
			ch <- prometheus.MustNewConstMetric(verdictsDesc, prometheus.GaugeValue, float64(byState[s]), string(s))
		}
	}

	if g.src.Returns != nil {
		for reason, n := range g.src.Returns.RefusedReturns() {
			ch <- prometheus.MustNewConstMetric(refusedReturnsDesc, prometheus.CounterValue, float64(n), reason)
		}
	}

	if n, err := g.src.Store.PendingDeliveries(ctx); err != nil {
		fail(webhookQueueDesc, err)
	} else {
		ch <- prometheus.MustNewConstMetric(webhookQueueDesc, prometheus.GaugeValue, float64(n))
	}

	for _, name := range []string{store.LeaseRefresh, store.LeaseWebhooks} {
		l, err := g.src.Store.LeaseOf(ctx, name)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			fail(leaseHeldDesc, err)
			continue
		}
		held := 0.0
		if l.HeldBy(g.src.Instance, now) {
			held = 1
		}
		ch <- prometheus.MustNewConstMetric(leaseHeldDesc, prometheus.GaugeValue, held, name)
	}
}
