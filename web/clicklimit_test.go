package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/store"
	"fieldboard/web"
)

// lockedBuffer is a log's output, written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestClickLimitsPerLinkAndOverall: one invitation link clicked from ten
// addresses (as threads rotating their source addresses click it) is
// taken as often as its burst allows, and many links together as often as
// the overall burst allows; every other click is answered 429, counted by
// the limit it met on /metrics and /routing, and neither recorded nor
// logged as an error.
func TestClickLimitsPerLinkAndOverall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var server *web.Server
	var logged lockedBuffer
	a := newAppOn(t, defaultSim, func(s *web.Server) {
		s.Checks = &checks.Service{Store: s.Store, Now: func() time.Time { return checkstest.ReadAt.Add(time.Minute) },
			StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
		s.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
		s.TrustedProxies = []*net.IPNet{{IP: net.IPv4(127, 0, 0, 1), Mask: net.CIDRMask(32, 32)}}
		s.ClickBurst = 1000
		s.LinkClickBurst, s.LinkClicksPerSecond = 3, 0.001
		s.AllClickBurst, s.AllClicksPerSecond = 8, 0.001
		server = s
	})
	checkstest.Build(t, a.store)
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	click := func(link, address string) int {
		t.Helper()
		req, err := http.NewRequest("GET", link, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", address)
		resp, err := a.anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Errorf("a refused click has no Retry-After")
		}
		return resp.StatusCode
	}
	addresses := []string{"192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5", "192.0.2.6", "192.0.2.7", "192.0.2.8", "192.0.2.9", "192.0.2.10"}

	one := signer.Link("P-open", checkstest.Target)
	taken := 0
	for _, address := range addresses {
		if code := click(one, address); code != http.StatusTooManyRequests {
			taken++
		}
	}
	if taken != 3 {
		t.Errorf("one link clicked from 10 addresses was taken %d times, want its burst of 3", taken)
	}
	// Other links, each once: the overall burst of 8 has 5 left.
	taken = 0
	for i, panelist := range []string{"P-full", "P-ca", "P-fr", "P-zh", "P-again", "P-sibling", "P-other-event", "P-held", "P-two-reversed", "P-held-once-older"} {
		if code := click(signer.Link(panelist, checkstest.Target), addresses[i]); code != http.StatusTooManyRequests {
			taken++
		}
	}
	if taken != 5 {
		t.Errorf("10 other links were taken %d times, want what the overall burst of 8 had left, 5", taken)
	}

	_, body := a.do(t, "GET", "/metrics", map[string]string{"Authorization": "Bearer " + a.token})
	families := parseMetrics(t, body)
	for limit, want := range map[string]float64{"address": 0, "link": 7, "overall": 5} {
		if got, ok := metricValue(families, "fieldboard_invitation_clicks_refused_total", map[string]string{"limit": limit}); !ok || got != want {
			t.Errorf("/metrics: %v clicks refused by the %s limit (found %v), want %v", got, limit, ok, want)
		}
	}
	page := a.page(t, "/routing")
	if got := between(page, `data-testid="refused-clicks"`, "</p>"); !strings.Contains(got, "refused 12 clicks") ||
		!strings.Contains(got, "7 on one link too often") || !strings.Contains(got, "5 over the limit of all links") {
		t.Errorf("/routing does not count the refused clicks: %q", got)
	}
	server.Close() // writes the decisions still queued
	if _, total, err := a.store.Routings(ctx, store.RoutingFilter{}, 0, 0); err != nil || total != 8 {
		t.Errorf("the routing record holds %d decisions (%v), want the 8 clicks taken", total, err)
	}
	if log := logged.String(); strings.Contains(log, "level=ERROR") {
		t.Errorf("refused clicks were logged as errors:\n%s", log)
	}
}
