package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// reply is one scripted response.
type reply struct {
	status     int
	retryAfter string
	body       string
}

// scripted serves replies in order, repeating the last, and counts requests.
type scripted struct {
	replies  []reply
	requests atomic.Int32
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.requests.Add(1))
	rep := s.replies[min(n, len(s.replies))-1]
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

// testClient is a client for url with test-sized delays; edit adjusts cfg.
func testClient(t *testing.T, url string, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: url, Timeout: 2 * time.Second, MaxAttempts: 3, Backoff: time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// asError asserts that err is an *Error and returns it.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name        string
		replies     []reply
		maxAttempts int
		wantErr     string // empty for success
		wantStatus  int
		wantReqs    int
		minElapsed  time.Duration
	}{
		{
			name:     "503, 503, 200 succeeds on the third request",
			replies:  []reply{{status: 503}, {status: 503}, {status: 200, body: `[]`}},
			wantReqs: 3,
		},
		{
			name:       "400 is not retried",
			replies:    []reply{{status: 400, body: `{"error":"bad"}`}},
			wantErr:    `GET /supplier/v1/countries: 400 Bad Request: "{\"error\":\"bad\"}"`,
			wantStatus: 400, wantReqs: 1,
		},
		{
			name:       "404 is not retried",
			replies:    []reply{{status: 404}, {status: 200, body: `[]`}},
			wantErr:    "GET /supplier/v1/countries: 404 Not Found",
			wantStatus: 404, wantReqs: 1,
		},
		{
			name:       "5xx until MaxAttempts gives up",
			replies:    []reply{{status: 500}},
			wantErr:    "GET /supplier/v1/countries: 500 Internal Server Error after 3 attempts",
			wantStatus: 500, wantReqs: 3,
		},
		{
			name:        "MaxAttempts 1 does not retry",
			replies:     []reply{{status: 502}, {status: 200, body: `[]`}},
			maxAttempts: 1,
			wantErr:     "GET /supplier/v1/countries: 502 Bad Gateway",
			wantStatus:  502, wantReqs: 1,
		},
		{
			name:     "429 with Retry-After 0 is retried at once",
			replies:  []reply{{status: 429, retryAfter: "0"}, {status: 200, body: `[]`}},
			wantReqs: 2,
		},
		{
			name:       "429 with Retry-After 1 waits a second",
			replies:    []reply{{status: 429, retryAfter: "1"}, {status: 200, body: `[]`}},
			wantReqs:   2,
			minElapsed: 900 * time.Millisecond,
		},
		{
			name:       "429 until MaxAttempts gives up",
			replies:    []reply{{status: 429, retryAfter: "0"}},
			wantErr:    "GET /supplier/v1/countries: 429 Too Many Requests after 3 attempts",
			wantStatus: 429, wantReqs: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := &scripted{replies: tt.replies}
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := testClient(t, srv.URL, func(cfg *Config) {
				if tt.maxAttempts != 0 {
					cfg.MaxAttempts = tt.maxAttempts
				}
			})
			start := time.Now()
			got, _, err := c.Countries(context.Background())
			elapsed := time.Since(start)
			if n := int(h.requests.Load()); n != tt.wantReqs {
				t.Errorf("%d requests, want %d", n, tt.wantReqs)
			}
			if elapsed < tt.minElapsed {
				t.Errorf("took %s, want at least %s", elapsed, tt.minElapsed)
			}
			if tt.wantErr == "" {
				if err != nil || got == nil {
					t.Fatalf("got %v, %v; want success", got, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got %v, want error %q", got, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error\n got %q\nwant %q", err, tt.wantErr)
			}
			e := asError(t, err)
			if e.StatusCode != tt.wantStatus || e.Attempts != tt.wantReqs || e.Endpoint != "GET /supplier/v1/countries" {
				t.Errorf("*Error = %+v", e)
			}
		})
	}
}

func TestErrorMessageOfPost(t *testing.T) {
	srv := httptest.NewServer(&scripted{replies: []reply{{status: 503}}})
	defer srv.Close()
	_, _, err := testClient(t, srv.URL, nil).AllSubsamples(context.Background())
	const want = "POST /supplier/v1/event/all: 503 Service Unavailable after 3 attempts"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestNetworkErrorsAreRetried(t *testing.T) {
	t.Run("connection closed without a response, then 200", func(t *testing.T) {
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if requests.Add(1) == 1 {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				_ = conn.Close()
				return
			}
			_, _ = io.WriteString(w, `[{"id": 1, "statusName": "Live"}]`)
		}))
		defer srv.Close()
		got, _, err := testClient(t, srv.URL, nil).SurveyStatuses(context.Background())
		if err != nil || len(got) != 1 {
			t.Fatalf("got %v, %v; want one status", got, err)
		}
		if n := requests.Load(); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("connection refused until MaxAttempts", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		_, _, err := testClient(t, url, nil).Locales(context.Background())
		e := asError(t, err)
		if e.StatusCode != 0 || e.Attempts != 3 || e.Endpoint != "GET /supplier/v1/locales" {
			t.Errorf("*Error = %+v", e)
		}
		if !strings.HasPrefix(err.Error(), "GET /supplier/v1/locales: ") || !strings.HasSuffix(err.Error(), " after 3 attempts") {
			t.Errorf("error = %q", err)
		}
		if strings.Count(err.Error(), url) > 0 {
			t.Errorf("error %q repeats the URL", err)
		}
	})
}

// blocking never answers before the client gives up (or 5s pass), counting
// requests; with partial it sends the headers and half a body first.
type blocking struct {
	partial  bool
	requests atomic.Int32
}

func (b *blocking) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.requests.Add(1)
	// Until the body is read the server does not notice the client leaving.
	_, _ = io.Copy(io.Discard, r.Body)
	if b.partial {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"id": 1,`)
		_ = http.NewResponseController(w).Flush()
	}
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
}

// stoppedAtOnce is the bound of the tests that want a call stopped by a
// timeout, a cancel or a deadline rather than by the minute the blocking
// server holds a request or the minute's backoff: a hang, not a speed.
const stoppedAtOnce = 30 * time.Second

func TestAttemptTimeout(t *testing.T) {
	for _, partial := range []bool{false, true} {
		t.Run(fmt.Sprintf("partial body %v", partial), func(t *testing.T) {
			t.Parallel()
			h := &blocking{partial: partial}
			srv := httptest.NewServer(h)
			defer srv.Close()
			c := testClient(t, srv.URL, func(cfg *Config) { cfg.Timeout = 50 * time.Millisecond; cfg.MaxAttempts = 2 })
			start := time.Now()
			_, err := c.Quotas(context.Background(), 42)
			if elapsed := time.Since(start); elapsed > stoppedAtOnce {
				t.Errorf("took %s: the attempts waited for the server instead of their timeout", elapsed)
			}
			e := asError(t, err)
			if e.Attempts != 2 || e.Endpoint != "GET /supplier/v1/subsamples/42/quotas" || h.requests.Load() != 2 {
				t.Errorf("*Error = %+v after %d requests", e, h.requests.Load())
			}
			if !errors.Is(err, ErrAttemptTimeout) {
				t.Errorf("error %v does not wrap ErrAttemptTimeout", err)
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				t.Errorf("error %v looks like the caller's context ended", err)
			}
		})
	}
}

func TestParentContext(t *testing.T) {
	t.Run("cancelled while waiting to retry", func(t *testing.T) {
		t.Parallel()
		h := &scripted{replies: []reply{{status: 503}}}
		srv := httptest.NewServer(h)
		defer srv.Close()
		c := testClient(t, srv.URL, func(cfg *Config) { cfg.Backoff = time.Minute; cfg.MaxAttempts = 5 })
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, _, err := c.AllSubsamples(ctx)
		// The backoff, capped, waits 2.5 to 5 s: a call that stops
		// before 2 s did not wait it out, however slow the machine.
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("took %s to stop: it waited for the backoff", elapsed)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		if e := asError(t, err); e.Attempts != 1 || h.requests.Load() != 1 {
			t.Errorf("*Error = %+v after %d requests, want 1 attempt", e, h.requests.Load())
		}
	})
	t.Run("cancelled during a request", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(&blocking{})
		defer srv.Close()
		c := testClient(t, srv.URL, nil)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, _, err := c.LiveSubsamples(ctx)
		if elapsed := time.Since(start); elapsed > stoppedAtOnce {
			t.Errorf("took %s to stop", elapsed)
		}
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrAttemptTimeout) {
			t.Errorf("error %v, want context.Canceled only", err)
		}
		if e := asError(t, err); e.Attempts != 1 || e.StatusCode != 0 {
			t.Errorf("*Error = %+v", e)
		}
	})
	t.Run("deadline shorter than the per-request timeout", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(&blocking{})
		defer srv.Close()
		c := testClient(t, srv.URL, func(cfg *Config) { cfg.Timeout = 5 * time.Second })
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, _, err := c.Countries(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrAttemptTimeout) {
			t.Errorf("error %v, want context.DeadlineExceeded only", err)
		}
	})
	t.Run("deadline before the next retry returns the last error at once", func(t *testing.T) {
		t.Parallel()
		h := &scripted{replies: []reply{{status: 503}}}
		srv := httptest.NewServer(h)
		defer srv.Close()
		// The retry would wait 2.5 to 5 s (a minute, capped); the deadline
		// comes at 2 s. Returning within the first half of that is at once
		// on any machine; waiting for the deadline is not. (Before: 250 ms
		// of a 500 ms deadline, which a loaded machine could miss.)
		c := testClient(t, srv.URL, func(cfg *Config) { cfg.Backoff = time.Minute })
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, _, err := c.Countries(ctx)
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Errorf("took %s: it waited for the deadline", elapsed)
		}
		if e := asError(t, err); e.StatusCode != 503 || e.Attempts != 1 {
			t.Errorf("*Error = %+v, want the 503 of the only attempt", e)
		}
	})
	t.Run("already cancelled sends nothing", func(t *testing.T) {
		t.Parallel()
		h := &scripted{replies: []reply{{status: 200, body: `[]`}}}
		srv := httptest.NewServer(h)
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, err := testClient(t, srv.URL, nil).Countries(ctx)
		if !errors.Is(err, context.Canceled) || h.requests.Load() != 0 {
			t.Errorf("error %v after %d requests", err, h.requests.Load())
		}
	})
}

func TestUndecodableResponses(t *testing.T) {
	tests := []struct {
		name, contentType, body string
		wantIn                  string
	}{
		{"truncated JSON", "application/json", `[{"id": 1,`, "GET /supplier/v1/countries: decoding response: "},
		{"object for an array", "application/json", `{"id": 1}`, "GET /supplier/v1/countries: decoding response: "},
		{"wrong field type, alone", "application/json", `[{"id": "one"}]`, "GET /supplier/v1/countries: countries element 1 of 1 could not be read: id is a string"},
		{"empty body", "application/json", ``, "GET /supplier/v1/countries: decoding response: "},
		{"an HTML page", "text/html; charset=utf-8", `<html>login</html>`, "GET /supplier/v1/countries: decoding text/html response: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				w.Header().Set("Content-Type", tt.contentType)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			_, _, err := testClient(t, srv.URL, nil).Countries(context.Background())
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantIn) {
				t.Errorf("error %q, want it to start with %q", err, tt.wantIn)
			}
			if e := asError(t, err); e.Attempts != 1 || e.StatusCode != 200 || requests.Load() != 1 {
				t.Errorf("*Error = %+v after %d requests; decode errors are not retried", e, requests.Load())
			}
		})
	}
}

func TestBodyCap(t *testing.T) {
	const body = `[{"id": 1, "code": "NL", "name": "Netherlands"}]`
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()

	atCap := testClient(t, srv.URL, func(cfg *Config) { cfg.MaxBodyBytes = int64(len(body)) })
	if got, _, err := atCap.Countries(context.Background()); err != nil || len(got) != 1 {
		t.Errorf("body of exactly the cap: got %v, %v", got, err)
	}

	requests.Store(0)
	under := testClient(t, srv.URL, func(cfg *Config) { cfg.MaxBodyBytes = int64(len(body)) - 1 })
	_, _, err := under.Countries(context.Background())
	want := fmt.Sprintf("GET /supplier/v1/countries: response larger than %d bytes", len(body)-1)
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1: an oversized body is not retried", n)
	}
}

func TestRequestHeaders(t *testing.T) {
	type seen struct {
		method, path, body             string
		userAgent, accept, contentType string
		apiKey                         string
	}
	var (
		mu   sync.Mutex
		reqs []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if n := len(r.Header.Values("X-Api-Key")); n > 1 {
			t.Errorf("X-Api-Key sent %d times", n)
		}
		mu.Lock()
		reqs = append(reqs, seen{r.Method, r.URL.Path, string(b), r.UserAgent(), r.Header.Get("Accept"),
			r.Header.Get("Content-Type"), r.Header.Get("X-Api-Key")})
		mu.Unlock()
		_, _ = io.WriteString(w, `[]`)
	}))
	defer srv.Close()

	name, value, err := ParseHeader("x-api-key: k-123")
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{name: {value}} // not canonical: sent once all the same
	c := testClient(t, srv.URL+"/", func(cfg *Config) { cfg.Header = header })
	header[name][0] = "changed after New" // the client keeps its own copy
	ctx := context.Background()
	if _, _, err := c.AllSubsamples(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Countries(ctx); err != nil {
		t.Fatal(err)
	}
	custom := testClient(t, srv.URL, func(cfg *Config) { cfg.UserAgent = "fieldboard/1.2" })
	if _, _, err := custom.Locales(ctx); err != nil {
		t.Fatal(err)
	}

	want := []seen{
		{"POST", "/supplier/v1/event/all", "{}", "fieldboard/dev", "application/json", "application/json", "k-123"},
		{"GET", "/supplier/v1/countries", "", "fieldboard/dev", "application/json", "", "k-123"},
		{"GET", "/supplier/v1/locales", "", "fieldboard/1.2", "application/json", "", ""},
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != len(want) {
		t.Fatalf("server saw %+v, want %+v", reqs, want)
	}
	for i := range want {
		if reqs[i] != want[i] {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, reqs[i], want[i])
		}
	}
}

func TestBaseURLPathPrefix(t *testing.T) {
	var path atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.Path)
		_, _ = io.WriteString(w, `[]`)
	}))
	defer srv.Close()
	if _, _, err := testClient(t, srv.URL+"/provider/", nil).SurveyStatuses(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := path.Load(); got != "/provider/supplier/v1/survey-statuses" {
		t.Errorf("path %v", got)
	}
}

func TestSecretsStayOutOfErrors(t *testing.T) {
	const secret = "s3cr3t-t0ken-value"
	header := http.Header{"Authorization": {"Bearer " + secret}, "X-Api-Key": {secret + "-2"}}

	t.Run("echoed in an error body", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, "bad credentials: %s / %s", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
		}))
		defer srv.Close()
		_, _, err := testClient(t, srv.URL, func(cfg *Config) { cfg.Header = header }).Countries(context.Background())
		if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("error %q", err)
		}
	})
	t.Run("echoed escaped, encoded or in another case", func(t *testing.T) {
		const key = "Ab/Cd+Ef=Gh&Ij<Kl>Mn" // every escape changes it
		quoted, _ := json.Marshal(key)
		forms := map[string]string{
			"JSON-escaped":               string(quoted[1 : len(quoted)-1]),
			"JSON-escaped with \\/":      strings.ReplaceAll(string(quoted[1:len(quoted)-1]), "/", `\/`),
			"every character \\u":        `Ab\u002fCd\u002BEf\u003dGh\u0026Ij\u003cKl\u003eMn`,
			"query-encoded":              url.QueryEscape(key),
			"path-encoded":               url.PathEscape(key),
			"percent-encoded in lower":   strings.ToLower(url.QueryEscape(key)),
			"upper case":                 strings.ToUpper(key),
			"lower case":                 strings.ToLower(key),
			"a configured word, encoded": url.QueryEscape("Zz/" + secret),
		}
		for name, echoed := range forms {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprintf(w, `{"error": "key %s is not valid"}`, echoed)
			}))
			h := http.Header{"X-Api-Key": {key}, "Authorization": {"Bearer Zz/" + secret}}
			_, _, err := testClient(t, srv.URL, func(cfg *Config) { cfg.Header = h; cfg.MaxAttempts = 1 }).Countries(context.Background())
			srv.Close()
			if err == nil || strings.Contains(err.Error(), echoed) || !strings.Contains(err.Error(), "[redacted]") {
				t.Errorf("%s (%s): error %q", name, echoed, err)
			}
		}
	})
	t.Run("network error", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		_, _, err := testClient(t, srv.URL, func(cfg *Config) { cfg.Header = header; cfg.MaxAttempts = 1 }).Countries(context.Background())
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("error %q", err)
		}
	})
	t.Run("malformed flag", func(t *testing.T) {
		for _, s := range []string{"Authorization=" + secret, "Bad Name: " + secret, "X-Key: " + secret + "\r\nX-Other: 1", secret} {
			if _, _, err := ParseHeader(s); err == nil || strings.Contains(err.Error(), secret) {
				t.Errorf("ParseHeader(%q) error %v", s, err)
			}
		}
	})
	t.Run("invalid configured value", func(t *testing.T) {
		_, err := New(Config{BaseURL: "http://x", Header: http.Header{"X-Key": {secret + "\n"}}})
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Errorf("New error %v", err)
		}
	})
}

func TestErrorBodySnippet(t *testing.T) {
	body := "upstream\r\n\tfailure:   " + strings.Repeat("é", 150) + "\x00" + strings.Repeat("x", 500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	_, _, err := testClient(t, srv.URL, nil).Countries(context.Background())
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n\t\x00") {
		t.Errorf("error is not one line: %q", msg)
	}
	if !strings.HasPrefix(msg, `GET /supplier/v1/countries: 400 Bad Request: "upstream failure: éé`) || !strings.HasSuffix(msg, `…"`) {
		t.Errorf("error %q", msg)
	}
	if len(msg) > 300 {
		t.Errorf("error is %d bytes long", len(msg))
	}
}

func TestConnectionsAreReused(t *testing.T) {
	var conns atomic.Int32
	var n atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, strings.Repeat("unavailable ", 1000))
			return
		}
		_, _ = io.WriteString(w, `[`+strings.Repeat(`{"id": 1},`, 1000)+`{"id": 2}]`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := testClient(t, srv.URL, nil)
	for range 5 {
		if _, _, err := c.Countries(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := conns.Load(); got != 1 {
		t.Errorf("%d connections for 10 sequential requests, want 1", got)
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		in                  string
		wantName, wantValue string
		wantErr             string
	}{
		{in: "X-Api-Key: abc", wantName: "X-Api-Key", wantValue: "abc"},
		{in: "Authorization:Bearer a:b:c", wantName: "Authorization", wantValue: "Bearer a:b:c"},
		{in: "  x-key  :  spaced value\t", wantName: "x-key", wantValue: "spaced value"},
		{in: "X-Api-Key abc", wantErr: `header must have the form "Name: value" (no colon found)`},
		{in: "", wantErr: `header must have the form "Name: value" (no colon found)`},
		{in: ": abc", wantErr: `header must have the form "Name: value" (empty name)`},
		{in: "X Key: abc", wantErr: "header name may only hold letters, digits and !#$%&'*+-.^_`|~"},
		{in: "X-Key(1): abc", wantErr: "header name may only hold letters, digits and !#$%&'*+-.^_`|~"},
		{in: "X-Key:", wantErr: "header X-Key has an empty value"},
		{in: "X-Key:   ", wantErr: "header X-Key has an empty value"},
		{in: "X-Key: a\nInjected: b", wantErr: "header X-Key has a value with control characters"},
	}
	for _, tt := range tests {
		name, value, err := ParseHeader(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseHeader(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || name != tt.wantName || value != tt.wantValue {
			t.Errorf("ParseHeader(%q) = %q, %q, %v; want %q, %q", tt.in, name, value, err, tt.wantName, tt.wantValue)
		}
	}
}

func TestNew(t *testing.T) {
	bad := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{}, "base URL is empty"},
		{Config{BaseURL: "   "}, "base URL is empty"},
		{Config{BaseURL: "ftp://example.com"}, "scheme must be http or https"},
		{Config{BaseURL: "127.0.0.1:9090"}, "base URL"},
		{Config{BaseURL: "example.com/api"}, "scheme must be http or https"},
		{Config{BaseURL: "http://"}, "no host"},
		{Config{BaseURL: "http:///path"}, "no host"},
		{Config{BaseURL: "http://:9090"}, "no host"},
		{Config{BaseURL: "http://exa mple.com"}, "base URL"},
		{Config{BaseURL: "http://example.com/?token=x"}, "must not have a query or fragment"},
		{Config{BaseURL: "http://example.com/#x"}, "must not have a query or fragment"},
		{Config{BaseURL: "http://example.com", Timeout: -1}, "timeout -1ns is negative"},
		{Config{BaseURL: "http://example.com", MaxAttempts: -1}, "max attempts -1 is negative"},
		{Config{BaseURL: "http://example.com", Backoff: -1}, "backoff -1ns is negative"},
		{Config{BaseURL: "http://example.com", MaxBodyBytes: -1}, "max body bytes -1 is negative"},
		{Config{BaseURL: "http://example.com", Header: http.Header{"Bad Name": {"v"}}}, `header name "Bad Name" is not a valid HTTP token`},
	}
	for _, tt := range bad {
		if c, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("New(%+v) = %v, %v; want an error containing %q", tt.cfg, c, err, tt.wantErr)
		}
	}
	// The password of a base URL stays out of errors.
	if _, err := New(Config{BaseURL: "ftp://user:hunter2@example.com"}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %v", err)
	}

	for _, good := range []string{"http://127.0.0.1:9090", "https://api.example.com/", "http://localhost:8080/prefix", "http://[::1]:9090"} {
		c, err := New(Config{BaseURL: good})
		if err != nil {
			t.Errorf("New(%q): %v", good, err)
			continue
		}
		if c.timeout != DefaultTimeout || c.maxAttempts != DefaultMaxAttempts || c.backoff != DefaultBackoff ||
			c.maxBody != DefaultMaxBodyBytes || c.userAgent != DefaultUserAgent || c.Location() != time.UTC || c.hc == nil {
			t.Errorf("New(%q) defaults = %+v", good, c)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"1", time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"3600", time.Hour, true}, // call gives up on waits over 30s; see TestHostileRetryAfterBeyondTheCap
		{"99999999999999999999", math.MaxInt64, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second, true},
		{now.Add(time.Hour).Format(http.TimeFormat), time.Hour, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestBackoffDelay(t *testing.T) {
	c := &Client{backoff: 250 * time.Millisecond}
	for _, tt := range []struct {
		retry    int
		min, max time.Duration
	}{
		{1, 125 * time.Millisecond, 250 * time.Millisecond},
		{2, 250 * time.Millisecond, 500 * time.Millisecond},
		{3, 500 * time.Millisecond, time.Second},
		{6, 2500 * time.Millisecond, 5 * time.Second},
		{60, 2500 * time.Millisecond, 5 * time.Second},
	} {
		for range 50 {
			if d := c.delay(tt.retry); d < tt.min || d > tt.max {
				t.Fatalf("delay(%d) = %s, want within [%s, %s]", tt.retry, d, tt.min, tt.max)
			}
		}
	}
}
