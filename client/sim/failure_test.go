package sim

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("timeout took %v", d)
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
	if d := time.Since(start); d > time.Second {
		t.Errorf("canceled request waited %v", d)
	}

	s.SetLatency(0)
	start = time.Now()
	do(s, "GET", pathCountry)
	if d := time.Since(start); d > 20*time.Millisecond {
		t.Errorf("request took %v without latency", d)
	}
}

func TestConcurrentUse(t *testing.T) {
	s, clk := newSim(Options{Seed: 1, Subsamples: 100})
	srv := httptest.NewServer(s)
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
	if s.Requests() != 8*20*2 {
		t.Errorf("Requests() = %d, want %d", s.Requests(), 8*20*2)
	}
}
