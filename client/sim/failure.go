package sim

import (
	"bytes"
	"math"
	"net/http"
)

// FailPath makes every request whose URL path equals path fail with mode
// until ClearFailures. Path rules take precedence over the fail rate.
func (s *Simulator) FailPath(path string, mode FailMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing[path] = mode
}

// ClearFailures removes all FailPath rules. The fail rate is left as is.
func (s *Simulator) ClearFailures() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.failing)
}

// failure decides whether the request for path fails, and how; 0 means it
// does not.
func (s *Simulator) failure(path string) FailMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mode, ok := s.failing[path]; ok {
		return mode
	}
	rate := s.failRateValue()
	if rate <= 0 || s.rng.Float64() >= rate {
		return 0
	}
	return FailMode(1 + s.rng.IntN(3))
}

// fail answers r the way mode says.
func (s *Simulator) fail(w http.ResponseWriter, r *http.Request, mode FailMode) {
	switch mode {
	case FailTimeout:
		<-r.Context().Done()
	case FailMalformed:
		rec := &recorder{header: make(http.Header)}
		s.mux.ServeHTTP(rec, r)
		body := rec.body.Bytes()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		// A proper prefix of an array or object is never valid JSON.
		w.Write(body[:len(body)/2])
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("service temporarily unavailable\n"))
	}
}

// recorder captures a response to be mangled.
type recorder struct {
	header http.Header
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(int)             {}

func (s *Simulator) failRateValue() float64 { return math.Float64frombits(s.failRate.Load()) }
