package bench

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load harness: the served figures request a path many times over,
// and an answer counts only when it is whole. Every answer must be a 200
// whose body arrives in full (a body cut short is an error of the read,
// or shorter than its Content-Length), is not empty, and is as long as the
// first answer to the same path (the server answers from one snapshot all
// along, so one path always gets the same answer). One answer in
// sampleEvery, the first included, is kept and goes through the figure's
// content check once the clock has stopped (a check takes CPU the server
// would otherwise have while it is timed). A figure whose answers fail any of these fails the run, and its
// sizes and throughput count the bytes actually received.

// sampleEvery is how often an answer's content is checked.
const sampleEvery = 10

// getter requests paths of one server, or of several instances of it in
// turn (as a load balancer spreads requests), as a script holding token,
// and checks each answer as the harness says.
type getter struct {
	// bases are the servers' base URLs; request i goes to bases[i mod
	// len(bases)].
	bases []string
	turn  atomic.Uint64
	token string
	// check looks at the content of a sample of answers; nil checks
	// none.
	check  func(path string, body []byte) error
	client *http.Client
	// redirects: the answer wanted is a 302 (not followed), and its
	// Location stands for its body, for the size and content checks.
	redirects bool

	mu      sync.Mutex
	sizes   map[string]int // the first answer's size, by path
	answers int
	checked int
}

func newGetter(base, token string, check func(path string, body []byte) error) *getter {
	return newGetterOver([]string{base}, token, check)
}

// newGetterOver is newGetter for several instances of one server, each
// answering every path alike: requests alternate between them.
func newGetterOver(bases []string, token string, check func(path string, body []byte) error) *getter {
	return &getter{bases: bases, token: token, check: check, sizes: map[string]int{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadWorkers}}}
}

// newRedirectGetter is newGetterOver for answers that redirect: a 302
// whose Location check sees as the body.
func newRedirectGetter(check func(path string, location []byte) error, bases ...string) *getter {
	g := newGetterOver(bases, "", check)
	g.redirects = true
	g.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return g
}

// get requests path, reads its whole answer into buf and checks it, its
// content too when it is one of the sample; it returns the body's size
// and the time from the request to the answer's last byte.
func (g *getter) get(path string, buf *bytes.Buffer) (int, time.Duration, error) {
	n, took, sample, err := g.fetch(path, buf)
	if err == nil && sample && g.check != nil {
		if err = g.check(path, buf.Bytes()); err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}
	return n, took, err
}

// fetch is get without the content check: it says whether this answer is
// one of the sample to check.
func (g *getter) fetch(path string, buf *bytes.Buffer) (n int, took time.Duration, sample bool, err error) {
	base := g.bases[(g.turn.Add(1)-1)%uint64(len(g.bases))]
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		return 0, 0, false, err
	}
	if g.token != "" {
		req.Header.Set("Authorization", "Bearer "+g.token)
	}
	req.Header.Set("Accept-Encoding", "identity") // the bytes counted are the bytes sent
	start := time.Now()
	resp, err := g.client.Do(req)
	if err != nil {
		return 0, 0, false, fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	buf.Reset()
	read, err := buf.ReadFrom(resp.Body)
	took, n = time.Since(start), int(read)
	wantStatus := http.StatusOK
	if g.redirects {
		wantStatus = http.StatusFound
		buf.Reset()
		buf.WriteString(resp.Header.Get("Location"))
		n, read = buf.Len(), resp.ContentLength
	}
	switch {
	case err != nil:
		return n, took, false, fmt.Errorf("%s: the answer broke off after %d bytes: %w", path, n, err)
	case resp.StatusCode != wantStatus:
		return n, took, false, fmt.Errorf("%s: status %d: %.200s", path, resp.StatusCode, buf.Bytes())
	case n == 0:
		return n, took, false, fmt.Errorf("%s: an empty answer", path)
	case resp.ContentLength >= 0 && read != resp.ContentLength:
		return n, took, false, fmt.Errorf("%s: %d bytes of an answer of %d", path, n, resp.ContentLength)
	}
	g.mu.Lock()
	first, seen := g.sizes[path]
	if !seen {
		g.sizes[path] = n
	}
	sample = g.answers%sampleEvery == 0
	g.answers++
	if sample {
		g.checked++
	}
	g.mu.Unlock()
	if seen && n != first {
		return n, took, false, fmt.Errorf("%s: an answer of %d bytes where the first was %d", path, n, first)
	}
	return n, took, sample, nil
}

// sampled is an answer kept for its content check.
type sampled struct {
	path string
	body []byte
}

// checkAll checks the content of the answers kept.
func (g *getter) checkAll(samples []sampled) error {
	for _, a := range samples {
		if err := g.check(a.path, a.body); err != nil {
			return fmt.Errorf("%s: %w", a.path, err)
		}
	}
	return nil
}

// loadWorkers is how many requests the load keeps in flight.
const loadWorkers = 8

// loadWarm and loadMeasured are the requests of each of loadOnce's
// workers, to warm up and then timed; loadRequests in all.
const (
	loadWarm, loadMeasured = 10, 60
	loadRequests           = loadWorkers * (loadWarm + loadMeasured)
)

// loaded is what a load measured: latencies over the measured answers and
// the bytes they brought.
type loaded struct {
	p50, p99 time.Duration
	answers  int
	bytes    int64
}

// meanSize is the average size of an answer.
func (l loaded) meanSize() int { return int(l.bytes / int64(l.answers)) }

// load is loadOnce for a figure: a failed answer fails the run.
func load(t *testing.T, g *getter, path func(i int) string) loaded {
	l, err := loadOnce(g, path)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Logf("%s: p50 %v, p99 %v over %d answers of %d bytes on average (content checked in %d of the %d answers, warm-up included)",
		path(0), l.p50, l.p99, l.answers, l.meanSize(), g.checked, g.answers)
	return l
}

// loadOnce requests path(i) with loadWorkers workers, 10 requests each to
// warm up and then 60 each, through g, and returns the latencies and sizes
// of the measured answers, or the first answer that failed g's checks.
// The sample of answers is checked once the load is over, so that the
// checks take no CPU from the server while it is timed.
func loadOnce(g *getter, path func(i int) string) (loaded, error) {
	const warm, measured = loadWarm, loadMeasured
	var mu sync.Mutex
	var latencies []time.Duration
	var total int64
	var wg sync.WaitGroup
	var failure error
	var samples []sampled
	for w := range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for i := range warm + measured {
				p := path(w*1000 + i)
				n, d, sample, err := g.fetch(p, &buf)
				mu.Lock()
				if err != nil && failure == nil {
					failure = err
				}
				if i >= warm {
					latencies = append(latencies, d)
					total += int64(n)
				}
				if sample && g.check != nil {
					samples = append(samples, sampled{p, bytes.Clone(buf.Bytes())})
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if failure != nil {
		return loaded{}, failure
	}
	if err := g.checkAll(samples); err != nil {
		return loaded{}, err
	}
	slices.Sort(latencies)
	return loaded{p50: latencies[len(latencies)/2], p99: latencies[len(latencies)*99/100], answers: len(latencies), bytes: total}, nil
}

// throughput is throughputOnce for a figure: a failed answer fails the
// run.
func throughput(t *testing.T, g *getter, path string) (bytesPerSecond float64, size int) {
	bytesPerSecond, size, err := throughputOnce(g, path)
	if err != nil {
		t.Fatalf("throughput: %v", err)
	}
	t.Logf("%s: %.0f answers/s of %d bytes on average", path, bytesPerSecond/float64(size), size)
	return bytesPerSecond, size
}

// throughputOnce requests path 400 times with loadWorkers workers through
// g, after a warm-up, and returns the bytes of body received per second
// and the average answer's size, or the first answer that failed g's
// checks. The sample of answers is checked after the clock stops.
func throughputOnce(g *getter, path string) (bytesPerSecond float64, size int, err error) {
	return throughputOver(g, func(int) string { return path })
}

// throughputRequests is how many requests throughputOver makes: a warm-up
// of one a worker, then throughputEach a worker, timed.
const (
	throughputEach     = 50
	throughputRequests = loadWorkers * (1 + throughputEach)
)

// throughputOver is throughputOnce on the paths path(0), path(1), ... in
// turn, one a request (throughputRequests in all, the warm-up first):
// for answers that each need a path of their own, as a return needs a
// send of its own.
func throughputOver(g *getter, path func(i int) string) (bytesPerSecond float64, size int, err error) {
	const each = throughputEach
	var buf bytes.Buffer
	for i := range loadWorkers {
		if _, _, err := g.get(path(i), &buf); err != nil {
			return 0, 0, err
		}
	}
	var next atomic.Int64
	next.Store(loadWorkers - 1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var total int64
	var failure error
	var samples []sampled
	start := time.Now()
	for range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			for range each {
				p := path(int(next.Add(1)))
				n, _, sample, err := g.fetch(p, &buf)
				mu.Lock()
				total += int64(n)
				if err != nil && failure == nil {
					failure = err
				}
				if sample && g.check != nil {
					samples = append(samples, sampled{p, bytes.Clone(buf.Bytes())})
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if failure != nil {
		return 0, 0, failure
	}
	if err := g.checkAll(samples); err != nil {
		return 0, 0, err
	}
	return float64(total) / took.Seconds(), int(total / (loadWorkers * each)), nil
}

// staticAnswer is the latency of a plain net/http server answering a fixed
// JSON body of size bytes, loaded like the pages, each answer checked to
// be that body.
func staticAnswer(t *testing.T, size int) loaded {
	return load(t, staticServer(t, size), func(int) string { return "/static-answer" })
}

// staticServer serves a fixed JSON body of size bytes with a plain
// net/http server until the test ends, and returns a getter of it that
// checks each answer is that body: the floor of the API's answers.
func staticServer(t *testing.T, size int) *getter {
	body := bytes.Repeat([]byte("x"), size)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return newGetter("http://"+ln.Addr().String(), "", sameBytes(body))
}

// sameBytes checks that an answer is want, byte for byte.
func sameBytes(want []byte) func(string, []byte) error {
	return func(_ string, body []byte) error {
		if !bytes.Equal(body, want) {
			return fmt.Errorf("an answer of %d bytes that is not the %d expected", len(body), len(want))
		}
		return nil
	}
}
