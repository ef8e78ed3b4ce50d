package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"time"
)

// Defaults of the failure switches.
const (
	// DefaultRetryAfter is the Retry-After of FailRateLimited: one second.
	DefaultRetryAfter = "1"
	// DefaultHugeBodySize is the padding of FailHugeBody: 64 MiB.
	DefaultHugeBodySize = 64 << 20
)

// failRule is a FailPath rule: its mode, and how many more requests it
// fails; a negative count means until ClearFailures.
type failRule struct {
	mode FailMode
	left int
}

// FailPath makes every request whose URL path equals path fail with mode
// until ClearFailures. Path rules take precedence over the fail rate.
func (s *Simulator) FailPath(path string, mode FailMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing[path] = failRule{mode: mode, left: -1}
}

// FailPathTimes makes the next n requests whose URL path equals path fail
// with mode; the ones after are served normally. It is how a test sees a
// client's retry get through.
func (s *Simulator) FailPathTimes(path string, mode FailMode, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 {
		delete(s.failing, path)
		return
	}
	s.failing[path] = failRule{mode: mode, left: n}
}

// ClearFailures removes all FailPath rules. The fail rate, the Retry-After
// and huge body settings and the recorded waits are left as they are.
func (s *Simulator) ClearFailures() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.failing)
}

// SetRetryAfter sets the Retry-After header FailRateLimited answers with:
// seconds ("1") or an HTTP date, or anything else a hostile server might
// send. The default is DefaultRetryAfter.
func (s *Simulator) SetRetryAfter(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retryAfter = v
}

// SetHugeBodySize sets how many bytes of whitespace FailHugeBody pads the
// real answer with; the default is DefaultHugeBodySize.
func (s *Simulator) SetHugeBodySize(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hugeBody = max(n, 0)
}

// RetryWaits returns how long clients waited after a 429: for every
// request to a path that was last answered with FailRateLimited, the wall
// time from that answer to the request's arrival, in arrival order.
func (s *Simulator) RetryWaits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// failure decides whether the request for path, which arrived at arrived,
// fails, and how; 0 means it does not.
func (s *Simulator) failure(path string, arrived time.Time) FailMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if at, ok := s.limitedAt[path]; ok {
		s.waits = append(s.waits, arrived.Sub(at))
		delete(s.limitedAt, path)
	}
	if rule, ok := s.failing[path]; ok {
		switch {
		case rule.left == 1:
			delete(s.failing, path)
		case rule.left > 1:
			rule.left--
			s.failing[path] = rule
		}
		return rule.mode
	}
	rate := s.failRateValue()
	if rate <= 0 || s.rng.Float64() >= rate {
		return 0
	}
	return FailMode(1 + s.rng.IntN(randomModes))
}

// fail answers r the way mode says.
func (s *Simulator) fail(w http.ResponseWriter, r *http.Request, mode FailMode) {
	switch mode {
	case FailTimeout:
		<-r.Context().Done()
	case FailMalformed:
		body := s.realBody(r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		// A proper prefix of an array or object is never valid JSON.
		w.Write(body[:len(body)/2])
	case FailReset:
		reset(w)
	case FailRateLimited:
		s.mu.Lock()
		retryAfter := s.retryAfter
		// Stamped before the answer leaves, so that a retry can never
		// arrive before it.
		s.limitedAt[r.URL.Path] = time.Now()
		s.mu.Unlock()
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte("rate limit exceeded\n"))
	case FailWrongTypes:
		writeJSON(w, http.StatusOK, numbersAsStrings(s.realBody(r)))
	case FailHugeBody:
		s.hugeAnswer(w, r)
	case FailEmptyList:
		writeJSON(w, http.StatusOK, []byte("[]"))
	case FailOneElement, FailOneElementUnnamed:
		writeJSON(w, http.StatusOK, oneElementMistyped(s.realBody(r), mode == FailOneElementUnnamed))
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("service temporarily unavailable\n"))
	}
}

// realBody is the answer the endpoint would have given r, to be mangled.
func (s *Simulator) realBody(r *http.Request) []byte {
	rec := &recorder{header: make(http.Header)}
	s.mux.ServeHTTP(rec, r)
	return rec.body.Bytes()
}

// reset closes the connection under w without answering, with a TCP reset
// where it can. A connection that cannot be taken over (HTTP/2, a
// recorder) gets the panic net/http turns into an aborted response.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) // close sends RST, not FIN
	}
	conn.Close()
}

// MistypedElement is the element FailOneElement breaks: the second of
// the list (index 1), or the only one.
const MistypedElement = 1

// oneElementMistyped turns the numbers of one element of a JSON list
// (MistypedElement, or the first of a list of one) into strings, but its
// subsampleId unless unnamed, so that the element is malformed and its
// subsample still named, or not. A body that is not a list is left as it
// is.
func oneElementMistyped(body []byte, unnamed bool) []byte {
	var list []json.RawMessage
	if err := json.Unmarshal(body, &list); err != nil || len(list) == 0 {
		return body
	}
	i := min(MistypedElement, len(list)-1)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(list[i], &obj); err != nil {
		return body
	}
	for k, v := range obj {
		if k == "subsampleId" && !unnamed {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		var value any
		if dec.Decode(&value) != nil {
			continue
		}
		changed := false
		value = stringifyNumbers(value, &changed)
		if mistyped, err := json.Marshal(value); err == nil && changed {
			obj[k] = mistyped
		}
	}
	element, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	list[i] = element
	out, err := json.Marshal(list)
	if err != nil {
		return body
	}
	return out
}

// numbersAsStrings turns every number of a JSON body into a string, such
// as "subsampleId": "1234": valid JSON of the wrong types. A body without
// numbers becomes a JSON string, which no endpoint answers either.
func numbersAsStrings(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []byte(`"not what was asked for"`)
	}
	changed := false
	v = stringifyNumbers(v, &changed)
	out, err := json.Marshal(v)
	if err != nil || !changed {
		return []byte(`"not what was asked for"`)
	}
	return out
}

func stringifyNumbers(v any, changed *bool) any {
	switch x := v.(type) {
	case json.Number:
		*changed = true
		return string(x)
	case []any:
		for i := range x {
			x[i] = stringifyNumbers(x[i], changed)
		}
	case map[string]any:
		for k := range x {
			x[k] = stringifyNumbers(x[k], changed)
		}
	}
	return v
}

// hugeAnswer streams the real answer with at least SetHugeBodySize bytes of
// whitespace after its first byte: valid JSON, which only a cap on the body
// stops a client from reading whole. It stops when the client goes away.
func (s *Simulator) hugeAnswer(w http.ResponseWriter, r *http.Request) {
	body := s.realBody(r)
	if len(body) == 0 {
		body = []byte("[]")
	}
	s.mu.Lock()
	size := s.hugeBody
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body[:1]); err != nil {
		return
	}
	pad := bytes.Repeat([]byte(" "), 32<<10)
	for n := int64(0); n < size; n += int64(len(pad)) {
		if r.Context().Err() != nil {
			return
		}
		if _, err := w.Write(pad); err != nil {
			return
		}
	}
	w.Write(body[1:])
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
