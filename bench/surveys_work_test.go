//go:build bench

package bench

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestPanelistSurveysWork answers figure 5's requests in the harness's
// process on the scenario with a fixed clock (pageServer: the handler, its
// reads and its writer, no network; the bodies counted, not kept, as a
// server sends them on): one panelist's surveys, the default
// page and ?all=true, for panelists drawn as figure 5 draws them. It logs
// the time, allocations and bytes an answer, and the p50 and p99 of the
// answers one at a time. BENCH_SURVEYS=default or all measures one shape
// only; BENCH_CPUPROFILE=FILE and BENCH_MEMPROFILE=FILE write what the
// answers of the last shape measured spent and allocated.
func TestPanelistSurveysWork(t *testing.T) {
	s := scenarioSizes(t)
	db := cachedScenario(t, s)
	p := newPageServer(t, db, 0)
	for _, suffix := range []string{"", "?all=true"} {
		switch os.Getenv("BENCH_SURVEYS") {
		case "default":
			if suffix != "" {
				continue
			}
		case "all":
			if suffix == "" {
				continue
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		paths := make([]string, 500)
		for i := range paths {
			paths[i] = fmt.Sprintf("/api/v1/panelists/P%07d/surveys%s", rng.IntN(s.panelists), suffix)
		}
		for _, path := range paths[:50] { // warm: prepared reads, memos
			if code, body := p.get(path); code != http.StatusOK {
				t.Fatalf("%s: %d\n%s", path, code, body)
			}
		}
		if path := os.Getenv("BENCH_CPUPROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				t.Fatal(err)
			}
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		latencies := make([]time.Duration, 0, len(paths))
		size := 0
		cpuBefore := cpuTime(t)
		start := time.Now()
		for _, path := range paths {
			at := time.Now()
			size += p.discard(path)
			latencies = append(latencies, time.Since(at))
		}
		took := time.Since(start)
		cpu := cpuTime(t) - cpuBefore
		runtime.ReadMemStats(&after)
		if path := os.Getenv("BENCH_MEMPROFILE"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		slices.Sort(latencies)
		n := uint64(len(paths))
		t.Logf("surveys%s: %v an answer (%v of CPU, collections included; %d KiB on average), %d allocations and %.0f KiB an answer; p50 %v, p99 %v",
			suffix, took/time.Duration(n), cpu/time.Duration(n), size/len(paths)>>10, (after.Mallocs-before.Mallocs)/n,
			float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/1024, latencies[len(latencies)/2], latencies[len(latencies)*99/100])
	}
}

// cpuTime is the CPU time the process has spent, user and system: the
// machine is shared, and an answer's wall time waits for the others.
func cpuTime(t *testing.T) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// discard answers path in this process, as get does, and returns the
// size of its body, which it does not keep.
func (p *pageServer) discard(path string) int {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	w := &discardedResponse{header: http.Header{}}
	p.e.ServeHTTP(w, req)
	return w.n
}

// discardedResponse is a ResponseWriter that counts the body's bytes and keeps none.
type discardedResponse struct {
	header http.Header
	n      int
}

func (w *discardedResponse) Header() http.Header { return w.header }
func (w *discardedResponse) WriteHeader(int)     {}
func (w *discardedResponse) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}
