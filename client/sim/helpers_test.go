package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// testStart is the clock of every test world: fixed, so bodies are
// reproducible.
var testStart = time.Date(2025, 6, 3, 10, 0, 0, 0, time.UTC)

// clock is a settable clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newSim returns a simulator for opts on a clock starting at testStart.
func newSim(opts Options) (*Simulator, *clock) {
	c := &clock{t: testStart}
	opts.Now = c.Now
	return New(opts), c
}

// do serves one request with the real handler.
func do(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// fetch serves a request that must succeed and decodes its body into T.
func fetch[T any](t testing.TB, h http.Handler, method, path string) T {
	t.Helper()
	rec := do(h, method, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: status %d, body %s", method, path, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	var v T
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%s %s: decoding into %T: %v", method, path, v, err)
	}
	return v
}

func quotasPath(id int64) string { return fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", id) }
func rulesPath(id int64) string {
	return fmt.Sprintf("/supplier/v1/subsamples/%d/eligibility-rules", id)
}
func answersPath(loc string, q int64) string {
	return fmt.Sprintf("/supplier/v1/locales/%s/questions/%d/answers", loc, q)
}

const (
	pathAll      = "/supplier/v1/event/all"
	pathLive     = "/supplier/v1/event/live-details"
	pathCountry  = "/supplier/v1/countries"
	pathLocales  = "/supplier/v1/locales"
	pathStatuses = "/supplier/v1/survey-statuses"
)

func liveDetails(t testing.TB, h http.Handler) []domain.LiveSubsample {
	return fetch[[]domain.LiveSubsample](t, h, http.MethodPost, pathLive)
}

func summaries(t testing.TB, h http.Handler) []domain.SubsampleSummary {
	return fetch[[]domain.SubsampleSummary](t, h, http.MethodPost, pathAll)
}

func quotas(t testing.TB, h http.Handler, id int64) []domain.Quota {
	return fetch[[]domain.Quota](t, h, http.MethodGet, quotasPath(id))
}
