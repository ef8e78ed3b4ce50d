package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

func TestFailPath(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})

	s.FailPath(pathCountry, FailServerError)
	rec := do(s, "GET", pathCountry)
	if rec.Code != http.StatusServiceUnavailable || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") || rec.Body.Len() == 0 {
		t.Errorf("FailServerError: %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	if rec := do(s, "GET", pathLocales); rec.Code != http.StatusOK {
		t.Errorf("another path failed too: %d", rec.Code)
	}

	s.FailPath(pathLive, FailMalformed)
	rec = do(s, "POST", pathLive)
	var v any
	if rec.Code != http.StatusOK || rec.Body.Len() == 0 || json.Unmarshal(rec.Body.Bytes(), &v) == nil {
		t.Errorf("FailMalformed: %d, %d bytes, valid JSON: %v", rec.Code, rec.Body.Len(), json.Valid(rec.Body.Bytes()))
	}

	s.ClearFailures()
	for _, p := range [][2]string{{"GET", pathCountry}, {"POST", pathLive}} {
		if rec := do(s, p[0], p[1]); rec.Code != http.StatusOK || !json.Valid(rec.Body.Bytes()) {
			t.Errorf("after ClearFailures %s: %d", p[1], rec.Code)
		}
	}
}

func TestFailTimeout(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.FailPath(pathStatuses, FailTimeout)

	c := &http.Client{Timeout: 100 * time.Millisecond}
	start := time.Now()
	resp, err := c.Get(srv.URL + pathStatuses)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("request succeeded with status %d", resp.StatusCode)
	}
	if d := time.Since(start); d > time.Minute { // a hang, not a speed: the path never answers
		t.Errorf("the client's 100ms timeout took %v to end a request to a path that never answers", d)
	}

	resp, err = c.Get(srv.URL + pathCountry)
	if err != nil {
		t.Fatalf("other path: %v", err)
	}
	resp.Body.Close()
}

func TestFailRate(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20, FailRate: 1})
	codes := make(map[string]int)
	for range 60 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", pathCountry, nil).WithContext(ctx))
		cancel()
		switch {
		case rec.Code == http.StatusServiceUnavailable:
			codes["server error"]++
		case rec.Code == http.StatusOK && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()):
			codes["malformed"]++
		case rec.Body.Len() == 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
			codes["timeout"]++
		default:
			t.Fatalf("request did not fail: %d %q", rec.Code, rec.Body)
		}
	}
	if len(codes) != 3 {
		t.Errorf("fail modes seen: %v", codes)
	}

	s.SetFailRate(0)
	if rec := do(s, "GET", pathCountry); rec.Code != http.StatusOK {
		t.Errorf("fail rate 0: status %d", rec.Code)
	}

	s.SetFailRate(0.3)
	s.FailPath(pathLocales, FailServerError) // path rules take precedence
	failed := 0
	for range 200 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", pathCountry, nil).WithContext(ctx))
		cancel()
		if rec.Code != http.StatusOK || !json.Valid(rec.Body.Bytes()) {
			failed++
		}
		if rec := do(s, "GET", pathLocales); rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("FailPath did not take precedence: %d", rec.Code)
		}
	}
	if failed < 30 || failed > 90 {
		t.Errorf("%d of 200 requests failed at rate 0.3", failed)
	}
}

func TestLatency(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20, Latency: 30 * time.Millisecond})
	start := time.Now()
	if rec := do(s, "GET", pathCountry); rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("request took %v with 30ms latency", d)
	}

	// Cancellation cuts the wait short.
	s.SetLatency(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start = time.Now()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", pathCountry, nil).WithContext(ctx))
	if d := time.Since(start); d > time.Minute { // a hang, not a speed: the latency is an hour
		t.Errorf("canceled request waited %v", d)
	}

	// Latency 0 again: a request answers, where with the hour it would
	// not (a measure that holds on a loaded machine, where even a
	// request without latency can take more than 20ms).
	s.SetLatency(0)
	answered := make(chan int, 1)
	go func() { answered <- do(s, "GET", pathCountry).Code }()
	select {
	case code := <-answered:
		if code != http.StatusOK {
			t.Errorf("without latency: status %d", code)
		}
	case <-time.After(time.Minute):
		t.Error("without latency a request did not answer in a minute: the hour's latency was kept")
	}
}

func TestConcurrentUse(t *testing.T) {
	s, clk := newSim(Options{Seed: 1, Subsamples: 100})
	// The client gives up after 50 ms, on a loaded machine sometimes
	// before its request reached the simulator: count what arrived.
	var arrived atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		s.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ids := s.LiveSubsampleIDs()
	c := &http.Client{Timeout: 50 * time.Millisecond} // some requests hang with FailTimeout
	done := make(chan struct{})
	for w := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 20 {
				switch i % 4 {
				case 0:
					s.SetFailRate(0.1)
					s.SetLatency(time.Duration(w) * time.Microsecond)
				case 1:
					s.FailPath("/x", FailServerError)
					s.ClearFailures()
				case 2:
					clk.Advance(time.Minute)
				}
				resp, err := c.Post(srv.URL+pathLive, "application/json", nil)
				if err == nil {
					resp.Body.Close()
				}
				resp, err = c.Get(srv.URL + quotasPath(ids[i%len(ids)]))
				if err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	srv.Close() // waits for the requests in flight
	if got, want := s.Requests(), arrived.Load(); got != want || want < 8*20 {
		t.Errorf("Requests() = %d, want the %d that arrived (of %d sent)", got, want, 8*20*2)
	}
}

func TestFailReset(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	srv := httptest.NewServer(s)
	defer srv.Close()
	s.FailPathTimes(pathAll, FailReset, 1)

	// POST is not replayed by the transport, so each request is one try.
	resp, err := http.Post(srv.URL+pathAll, "application/json", strings.NewReader("{}"))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("request survived a reset connection: status %d", resp.StatusCode)
	}
	resp, err = http.Post(srv.URL+pathAll, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("the request after the one reset: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || s.Requests() != 2 {
		t.Errorf("after the reset: status %d, %d requests seen", resp.StatusCode, s.Requests())
	}
}

func TestFailRateLimited(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	if rec := do(s, "GET", pathCountry); rec.Code != http.StatusOK || len(s.RetryWaits()) != 0 {
		t.Fatalf("before any 429: %d, waits %v", rec.Code, s.RetryWaits())
	}

	s.SetRetryAfter("7")
	s.FailPathTimes(pathCountry, FailRateLimited, 2)
	for i := range 2 {
		rec := do(s, "GET", pathCountry)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "7" {
			t.Fatalf("request %d: %d with Retry-After %q, want 429 with 7", i, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	time.Sleep(30 * time.Millisecond)
	if rec := do(s, "GET", pathCountry); rec.Code != http.StatusOK {
		t.Fatalf("third request: %d, want the two failures used up", rec.Code)
	}
	waits := s.RetryWaits()
	if len(waits) != 2 || waits[0] < 0 || waits[1] < 30*time.Millisecond {
		t.Errorf("RetryWaits() = %v, want two, the second at least 30ms", waits)
	}
	do(s, "GET", pathCountry)
	if n := len(s.RetryWaits()); n != 2 {
		t.Errorf("a request after a 200 counted as a wait (%d waits)", n)
	}
}

func TestFailWrongTypes(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	id := s.LiveSubsampleIDs()[0]
	for _, p := range [][2]string{{"GET", pathCountry}, {"POST", pathLive}, {"GET", quotasPath(id)}, {"GET", rulesPath(id)}} {
		s.FailPath(p[1], FailWrongTypes)
		rec := do(s, p[0], p[1])
		if rec.Code != http.StatusOK || !json.Valid(rec.Body.Bytes()) {
			t.Errorf("%s: %d, valid JSON %v; want 200 with valid JSON", p[1], rec.Code, json.Valid(rec.Body.Bytes()))
		}
		var v any
		dec := json.NewDecoder(rec.Body)
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil || hasNumber(v) {
			t.Errorf("%s: a number is left in %.200s", p[1], rec.Body)
		}
	}
	var countries []domain.Country
	err := json.Unmarshal(do(s, "GET", pathCountry).Body.Bytes(), &countries)
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		t.Errorf("decoding the countries: %v, want a type error", err)
	}
}

func TestFailOneElement(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	clean := do(s, "POST", pathLive).Body.Bytes()
	s.FailPath(pathLive, FailOneElement)
	rec := do(s, "POST", pathLive)
	var before, after []map[string]any
	if err := json.Unmarshal(clean, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &after); err != nil || rec.Code != http.StatusOK || len(after) != len(before) || len(after) < 2 {
		t.Fatalf("%d, %d elements (%v); want 200 with the %d elements", rec.Code, len(after), err, len(before))
	}
	for i := range after {
		broken := i == MistypedElement
		if _, isNumber := after[i]["subsampleId"].(float64); !isNumber {
			t.Errorf("element %d: subsampleId %v is not a number", i, after[i]["subsampleId"])
		}
		if _, isString := after[i]["eventId"].(string); isString != broken {
			t.Errorf("element %d: eventId %#v; only element %d has its numbers as strings", i, after[i]["eventId"], MistypedElement)
		}
	}
}

func hasNumber(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return true
	case []any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasNumber(e) {
				return true
			}
		}
	}
	return false
}

func TestFailHugeBody(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	srv := httptest.NewServer(s)
	defer srv.Close()
	want := fetch[[]domain.Country](t, s, "GET", pathCountry)
	s.FailPath(pathCountry, FailHugeBody)

	resp, err := http.Get(srv.URL + pathCountry)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n < DefaultHugeBodySize || resp.ContentLength != -1 {
		t.Errorf("huge body: %d bytes (Content-Length %d), %v; want at least %d, streamed", n, resp.ContentLength, err, DefaultHugeBodySize)
	}

	// It is the real answer, only padded: valid JSON all the same.
	s.SetHugeBodySize(1 << 20)
	rec := do(s, "GET", pathCountry)
	var got []domain.Country
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got) != len(want) || rec.Body.Len() < 1<<20 {
		t.Errorf("padded body of %d bytes: %d countries, %v; want the %d countries", rec.Body.Len(), len(got), err, len(want))
	}

	// A client that stops reading stops the stream.
	s.SetHugeBodySize(1 << 40)
	resp, err = http.Get(srv.URL + pathCountry)
	if err != nil {
		t.Fatal(err)
	}
	io.CopyN(io.Discard, resp.Body, 1<<20)
	resp.Body.Close()
	srv.Close() // waits for the handler: it must have stopped
}

func TestFailEmptyList(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 20})
	s.FailPath(pathLive, FailEmptyList)
	if rec := do(s, "POST", pathLive); rec.Code != http.StatusOK || rec.Body.String() != "[]" {
		t.Errorf("FailEmptyList: %d %q", rec.Code, rec.Body)
	}
	s.ClearFailures()
	if live := liveDetails(t, s); len(live) == 0 {
		t.Error("live-details is empty after ClearFailures")
	}
}
