package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
)

// A hostile or broken upstream, played by the simulator's failure switches
// over loopback: every failure is an *Error naming the endpoint, retried
// only when another attempt can help, bounded in time and size, and the
// next call after the upstream heals succeeds.

const (
	pathAll       = "/supplier/v1/event/all"
	pathLive      = "/supplier/v1/event/live-details"
	pathCountries = "/supplier/v1/countries"
)

// hostileUpstream is a simulator over loopback and a client for it with
// test-sized delays; edit adjusts the client's config.
func hostileUpstream(t *testing.T, edit func(*client.Config)) (*sim.Simulator, *client.Client) {
	t.Helper()
	s := sim.New(sim.Options{Seed: 5, Subsamples: 30, Locales: 2, QuestionsPerLocale: 8})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	// 2 s a request: the simulator adds no latency, so a loaded machine
	// answers well within it (300 ms, before, could time out the good
	// calls too); a request that hangs costs a test seconds.
	cfg := client.Config{BaseURL: srv.URL, Timeout: 2 * time.Second, MaxAttempts: 3, Backoff: time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

// clientError asserts that err is an *Error about endpoint.
func clientError(t *testing.T, err error, endpoint string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *client.Error", err, err)
	}
	if e.Endpoint != endpoint || !strings.HasPrefix(err.Error(), endpoint+": ") {
		t.Errorf("error %q: want it to start with the endpoint %q", err, endpoint)
	}
	return e
}

func quotasPath(id int64) string { return fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", id) }

func TestHostileTimeoutIsRetriedThenGivesUp(t *testing.T) {
	s, c := hostileUpstream(t, func(cfg *client.Config) { cfg.MaxAttempts = 2 })
	s.FailPath(pathCountries, sim.FailTimeout)
	start := time.Now()
	_, _, err := c.Countries(context.Background())
	if took := time.Since(start); took > time.Minute { // a hang, not a speed: the path never answers
		t.Errorf("two attempts of 2 s took %v against a path that never answers", took)
	}
	e := clientError(t, err, "GET "+pathCountries)
	if !errors.Is(err, client.ErrAttemptTimeout) || e.Attempts != 2 || s.Requests() != 2 {
		t.Errorf("error %q after %d attempts, %d requests; want the attempt timeout after 2", err, e.Attempts, s.Requests())
	}

	s.ClearFailures()
	if got, _, err := c.Countries(context.Background()); err != nil || len(got) == 0 {
		t.Errorf("the call after the upstream healed: %d countries, %v", len(got), err)
	}
}

func TestHostileConnectionReset(t *testing.T) {
	s, c := hostileUpstream(t, nil)
	ctx := context.Background()

	s.FailPath(pathAll, sim.FailReset)
	_, _, err := c.AllSubsamples(ctx)
	if e := clientError(t, err, "POST "+pathAll); e.Attempts != 3 || e.StatusCode != 0 {
		t.Errorf("persistent resets: %+v, want 3 attempts and no status", e)
	}

	// One reset: the retry gets through, within the same call.
	s.ClearFailures()
	s.FailPathTimes(pathAll, sim.FailReset, 1)
	before := s.Requests()
	if got, _, err := c.AllSubsamples(ctx); err != nil || len(got) == 0 {
		t.Fatalf("one reset then a good answer: %d subsamples, %v", len(got), err)
	}
	if n := s.Requests() - before; n != 2 {
		t.Errorf("%d requests for one reset, want 2", n)
	}
}

func TestHostileServerErrors(t *testing.T) {
	s, c := hostileUpstream(t, nil)
	ctx := context.Background()
	s.FailPath(pathLive, sim.FailServerError)
	_, _, err := c.LiveSubsamples(ctx)
	e := clientError(t, err, "POST "+pathLive)
	if e.StatusCode != http.StatusServiceUnavailable || e.Attempts != 3 || !strings.Contains(err.Error(), "503 Service Unavailable") {
		t.Errorf("persistent 503: %q (%+v)", err, e)
	}

	s.FailPathTimes(pathLive, sim.FailServerError, 2)
	if got, _, err := c.LiveSubsamples(ctx); err != nil || len(got) == 0 {
		t.Errorf("two 503s then a good answer, within three attempts: %d, %v", len(got), err)
	}
}

// TestHostileRetryAfterIsHonoured: a 429's Retry-After, in seconds or as
// an HTTP date, is waited out before the retry (the backoff alone would be
// a millisecond here), and the simulator measures the wait.
func TestHostileRetryAfterIsHonoured(t *testing.T) {
	for _, tt := range []struct {
		name       string
		retryAfter func() string
		min, max   time.Duration
	}{
		{"seconds", func() string { return "1" }, time.Second, 2500 * time.Millisecond},
		// An HTTP date has whole seconds: now+3s, truncated, is more than
		// 2s away.
		{"HTTP date", func() string { return time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat) }, 1900 * time.Millisecond, 4 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, c := hostileUpstream(t, nil)
			s.SetRetryAfter(tt.retryAfter())
			s.FailPathTimes(pathCountries, sim.FailRateLimited, 1)
			if got, _, err := c.Countries(context.Background()); err != nil || len(got) == 0 {
				t.Fatalf("429 then a good answer: %d countries, %v", len(got), err)
			}
			waits := s.RetryWaits()
			if len(waits) != 1 || waits[0] < tt.min || waits[0] > tt.max {
				t.Errorf("the client waited %v after the 429, want one wait within [%v, %v]", waits, tt.min, tt.max)
			}
		})
	}
}

// TestHostileRetryAfterBeyondTheCap: a wait longer than the client's cap
// (30s), such as 1e9 seconds or a date next year, is not shortened to the
// cap and retried early against the provider's wish, nor waited: the call
// fails at once with the 429 and says why, and the next refresh tries
// again.
func TestHostileRetryAfterBeyondTheCap(t *testing.T) {
	for _, retryAfter := range []string{"1000000000", "99999999999999999999", "31", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat)} {
		t.Run(retryAfter, func(t *testing.T) {
			t.Parallel()
			s, c := hostileUpstream(t, nil)
			s.SetRetryAfter(retryAfter)
			s.FailPath(pathCountries, sim.FailRateLimited)
			start := time.Now()
			_, _, err := c.Countries(context.Background())
			// Below the 30 s cap, which a wait shortened to it would take;
			// far above any machine's time for one request.
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("the call took %v: a hostile Retry-After must not hold it", took)
			}
			e := clientError(t, err, "GET "+pathCountries)
			if e.StatusCode != http.StatusTooManyRequests || e.Attempts != 1 || s.Requests() != 1 ||
				!strings.Contains(err.Error(), "429 Too Many Requests") || !strings.Contains(err.Error(), "Retry-After") {
				t.Errorf("error %q (%+v) after %d requests; want the 429 at once, saying the wait asked is too long", err, e, s.Requests())
			}
		})
	}
	t.Run("unreadable Retry-After falls back to the backoff", func(t *testing.T) {
		t.Parallel()
		s, c := hostileUpstream(t, nil)
		s.SetRetryAfter("soon, maybe")
		s.FailPathTimes(pathCountries, sim.FailRateLimited, 1)
		if _, _, err := c.Countries(context.Background()); err != nil {
			t.Fatal(err)
		}
		if waits := s.RetryWaits(); len(waits) != 1 || waits[0] > time.Second {
			t.Errorf("waits %v, want one short backoff", waits)
		}
	})
}

func TestHostileMalformedJSON(t *testing.T) {
	s, c := hostileUpstream(t, nil)
	s.FailPath(pathLive, sim.FailMalformed)
	_, _, err := c.LiveSubsamples(context.Background())
	e := clientError(t, err, "POST "+pathLive)
	if e.Attempts != 1 || e.StatusCode != http.StatusOK || !strings.Contains(err.Error(), "decoding response") {
		t.Errorf("malformed body: %q (%+v); want a decode error, not retried", err, e)
	}
}

// TestHostileWrongTypes: every endpoint refuses a string where the spec has
// a number, with an error naming the endpoint and the field.
func TestHostileWrongTypes(t *testing.T) {
	s, c := hostileUpstream(t, nil)
	ctx := context.Background()
	id := s.LiveSubsampleIDs()[0]
	live, _, err := c.LiveSubsamples(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locale := live[0].Locales[0].Name
	questions, _, err := c.Questions(ctx, locale)
	if err != nil || len(questions) == 0 {
		t.Fatalf("questions of %s: %v", locale, err)
	}
	q := questions[len(questions)-1].ID

	for _, tt := range []struct {
		method, path string
		call         func() error
	}{
		{"POST", pathAll, func() error { _, _, err := c.AllSubsamples(ctx); return err }},
		{"POST", pathLive, func() error { _, _, err := c.LiveSubsamples(ctx); return err }},
		{"GET", quotasPath(id), func() error { _, err := c.Quotas(ctx, id); return err }},
		{"GET", fmt.Sprintf("/supplier/v1/subsamples/%d/eligibility-rules", id), func() error { _, err := c.EligibilityRules(ctx, id); return err }},
		{"GET", "/supplier/v1/locales/" + locale + "/questions", func() error { _, _, err := c.Questions(ctx, locale); return err }},
		{"GET", fmt.Sprintf("/supplier/v1/locales/%s/questions/%d/answers", locale, q), func() error { _, _, err := c.Answers(ctx, locale, q); return err }},
		{"GET", pathCountries, func() error { _, _, err := c.Countries(ctx); return err }},
		{"GET", "/supplier/v1/locales", func() error { _, _, err := c.Locales(ctx); return err }},
		{"GET", "/supplier/v1/survey-statuses", func() error { _, _, err := c.SurveyStatuses(ctx); return err }},
	} {
		s.FailPath(tt.path, sim.FailWrongTypes)
		err := tt.call()
		s.ClearFailures()
		if err == nil {
			t.Errorf("%s %s accepted strings for numbers", tt.method, tt.path)
			continue
		}
		e := clientError(t, err, tt.method+" "+tt.path)
		// The lists read element by element say it in words.
		if e.Attempts != 1 || (!strings.Contains(err.Error(), "cannot unmarshal string into Go struct field") && !strings.Contains(err.Error(), " is a string, not a")) {
			t.Errorf("%s %s: %q; want a type error naming the field, not retried", tt.method, tt.path, err)
		}
	}
}

// TestHostileHugeBody: a 64 MiB answer, valid JSON but for its size, is
// cut at MaxBodyBytes with a clear error, read no further, and not retried;
// the default cap stops it too.
func TestHostileHugeBody(t *testing.T) {
	s, c := hostileUpstream(t, func(cfg *client.Config) { cfg.MaxBodyBytes = 1 << 20; cfg.Timeout = 5 * time.Second })
	s.FailPath(pathCountries, sim.FailHugeBody)
	start := time.Now()
	_, _, err := c.Countries(context.Background())
	e := clientError(t, err, "GET "+pathCountries)
	if want := "GET /supplier/v1/countries: response larger than 1048576 bytes"; err.Error() != want || e.Attempts != 1 || s.Requests() != 1 {
		t.Errorf("error %q (%+v, %d requests), want %q, not retried", err, e, s.Requests(), want)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("refusing the body took %v: it should stop reading at the cap", took)
	}

	srv := httptest.NewServer(s)
	defer srv.Close()
	// A timeout far past the default: reading 64 MiB on a loaded machine
	// may take longer than 15 s, and the cap, not the clock, is tested.
	dc, err := client.New(client.Config{BaseURL: srv.URL, MaxAttempts: 1, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// The event lists are bounded by the general cap alone; the reference
	// lists by a lower one of their own.
	s.FailPath(pathAll, sim.FailHugeBody)
	if _, _, err := dc.AllSubsamples(context.Background()); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("response larger than %d bytes", client.DefaultMaxBodyBytes)) {
		t.Errorf("event/all with the default cap: %v", err)
	}
	if _, _, err := dc.Countries(context.Background()); err == nil || !strings.Contains(err.Error(), "response larger than 4194304 bytes") {
		t.Errorf("countries with the default cap: %v", err)
	}

	s.ClearFailures()
	if _, _, err := c.Countries(context.Background()); err != nil {
		t.Errorf("after the upstream healed: %v", err)
	}
}

// TestHostileEmptyList: an empty array is a valid answer as far as the
// client can tell (the refresher judges it against what it had); where the
// spec has an object, it is a type error.
func TestHostileEmptyList(t *testing.T) {
	s, c := hostileUpstream(t, nil)
	ctx := context.Background()
	s.FailPath(pathLive, sim.FailEmptyList)
	live, _, err := c.LiveSubsamples(ctx)
	if err != nil || live == nil || len(live) != 0 {
		t.Errorf("empty live-details: %v, %v; want an empty, non-nil list", live, err)
	}
	id := s.LiveSubsampleIDs()[0]
	path := fmt.Sprintf("/supplier/v1/subsamples/%d/eligibility-rules", id)
	s.FailPath(path, sim.FailEmptyList)
	_, err = c.EligibilityRules(ctx, id)
	if e := clientError(t, err, "GET "+path); e.Attempts != 1 {
		t.Errorf("an array for the rules object: %+v", e)
	}
}

// TestHostileSecretsStayOutOfErrors: the provider auth header's value is in
// no error, whatever the upstream does, even when it echoes the header
// back in a body, a field, a content type or a broken status line.
func TestHostileSecretsStayOutOfErrors(t *testing.T) {
	const secret = "sk-live-9f8e7d6c5b4a"
	s := sim.New(sim.Options{Seed: 5, Subsamples: 30})
	echo := func(w http.ResponseWriter, r *http.Request) bool {
		key := r.Header.Get("X-Api-Key")
		switch r.URL.Query().Get("echo") {
		case "body":
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, "key %s is not valid", key)
		case "date":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `[{"subsampleId": 1, "eventId": 1, "subsampleStatus": "Live", "fieldStartDate": "%s"}]`, key)
		case "long date": // the message is clipped at 200 bytes, through the secret
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `[{"subsampleId": 1, "eventId": 1, "subsampleStatus": "Live", "fieldStartDate": "%s%s"}]`, strings.Repeat("x", 180), key)
		case "content-type":
			w.Header().Set("Content-Type", "text/"+key)
			fmt.Fprint(w, "<html>")
		case "status-line":
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return true
			}
			fmt.Fprintf(buf, "HTTP/1.1 %s\r\n\r\n", key)
			buf.Flush()
			conn.Close()
		default:
			return false
		}
		return true
	}
	var echoWhat atomic.Value
	echoWhat.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		q.Set("echo", echoWhat.Load().(string))
		r.URL.RawQuery = q.Encode()
		if !echo(w, r) {
			s.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	c, err := client.New(client.Config{BaseURL: srv.URL, Header: http.Header{"X-Api-Key": {secret}},
		Timeout: 300 * time.Millisecond, MaxAttempts: 2, Backoff: time.Millisecond, MaxBodyBytes: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	for _, mode := range []sim.FailMode{sim.FailServerError, sim.FailTimeout, sim.FailMalformed, sim.FailReset,
		sim.FailRateLimited, sim.FailWrongTypes, sim.FailHugeBody} {
		s.SetRetryAfter("0")
		s.SetHugeBodySize(1 << 20)
		s.FailPath(pathAll, mode)
		_, _, err := c.AllSubsamples(ctx)
		s.ClearFailures()
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("fail mode %d: error %v", mode, err)
		}
	}
	for _, what := range []string{"body", "date", "long date", "content-type", "status-line"} {
		echoWhat.Store(what)
		// A date is one element's: that element is dropped, saying why.
		_, malformed, err := c.AllSubsamples(ctx)
		said := fmt.Sprint(malformed)
		if err != nil {
			said = err.Error()
		}
		if err == nil && len(malformed) != 1 {
			t.Errorf("echo in the %s: no error, %d malformed elements", what, len(malformed))
			continue
		}
		if strings.Contains(said, secret[:12]) {
			t.Errorf("echo in the %s: the secret, or a piece of it, is in what was said: %q", what, said)
		}
	}
}
