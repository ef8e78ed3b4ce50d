//go:build bench

package bench

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/client"
	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

// pageClock is the fixed time of the in-process pages below: their bytes
// then depend on nothing but the scenario.
var pageClock = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// pageServer serves the dashboard's routes in this process on a copy of
// the scenario db, with a fixed clock and a bearer token, deciding on the
// snapshot however old it is unless staleAfter is set.
type pageServer struct {
	e     *echo.Echo
	st    *store.Store
	token string
}

func newPageServer(t *testing.T, db string, staleAfter time.Duration) *pageServer {
	ctx := context.Background()
	copied := filepath.Join(t.TempDir(), "page.db")
	copyFile(t, db, copied)
	st, err := store.Open(ctx, copied)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	token, hash := auth.NewToken()
	if err := st.CreateToken(ctx, store.Token{Name: "bench", Role: store.RoleAdmin, CreatedAt: pageClock}, hash); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return pageClock }
	r := refresh.New(c, st, refresh.Options{Logger: discardLogger(), Now: now})
	t.Cleanup(r.Close)
	s := &web.Server{Store: st, Checks: &checks.Service{Store: st, Now: now, StaleAfter: staleAfter}, Refresher: r,
		Auth:   auth.New(st, auth.Options{Logger: discardLogger(), Now: now}),
		Logger: discardLogger(), Now: now, Location: time.UTC, ProviderLocation: time.UTC}
	t.Cleanup(s.Close)
	return &pageServer{e: s.Routes(), st: st, token: token}
}

// get answers path in this process: its status and body.
func (p *pageServer) get(path string) (int, []byte) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+p.token)
	rec := httptest.NewRecorder()
	p.e.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// TestSubsamplePageWork is figure 4's page in this process: the page of
// the busiest sendable subsample (as figure 4 chooses it) viewed again and
// again on one core, its time and allocations per view. With
// BENCH_CPUPROFILE=FILE it writes the CPU profile of the views.
func TestSubsamplePageWork(t *testing.T) {
	s := scenarioSizes(t)
	db := cachedScenario(t, s)
	p := newPageServer(t, db, 0)
	target, _ := busiestSubsample(t, p.st)
	path := "/subsamples/" + strconv.FormatInt(target.SubsampleID, 10)
	code, body := p.get(path)
	if code != http.StatusOK {
		t.Fatalf("%s: %d\n%s", path, code, body)
	}
	if err := subsamplePage(target.SubsampleID)(path, body); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		p.get(path) // warm: prepared reads, memos
	}
	const views = 2000
	if path := os.Getenv("BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range views {
		if code, _ := p.get(path); code != http.StatusOK {
			t.Fatalf("%s: %d", path, code)
		}
	}
	took := time.Since(start)
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
	t.Logf("%s (%d bytes): %v a view, %d allocations and %.0f KiB a view, %d collections in %d views",
		path, len(body), took/views, (after.Mallocs-before.Mallocs)/views, float64(after.TotalAlloc-before.TotalAlloc)/views/1024,
		after.NumGC-before.NumGC, views)

	// Then as figure 4 loads it: loadWorkers at once, each view timed.
	var mu sync.Mutex
	var latencies []time.Duration
	var wg sync.WaitGroup
	for range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range views / loadWorkers {
				start := time.Now()
				p.get(path)
				d := time.Since(start)
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(latencies)
	t.Logf("%d workers at once: p50 %v, p99 %v", loadWorkers, latencies[len(latencies)/2], latencies[len(latencies)*99/100])
}

// TestPageDigests writes to BENCH_PAGEDIGEST (a file) a digest of the
// answers that show what a decided snapshot holds, on the scenario with a
// fixed clock: every subsample's page and verdict CSV (each asked twice,
// which must answer the same bytes), the lists and their CSV and JSON,
// fresh and, with every subsample unknown, stale. Two versions of the
// code must write the same file.
func TestPageDigests(t *testing.T) {
	out := os.Getenv("BENCH_PAGEDIGEST")
	if out == "" {
		t.Skip("BENCH_PAGEDIGEST not set")
	}
	s := scenarioSizes(t)
	db := cachedScenario(t, s)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	defer w.Flush()
	for _, stale := range []time.Duration{0, time.Hour} {
		p := newPageServer(t, db, stale)
		rows, err := p.st.SubsampleRows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		paths := []string{"/", "/live", "/live?page=2", "/live?sort=epc", "/live.csv", "/events", "/events.csv",
			"/api/v1/subsamples", "/overview.csv",
			"/api/v1/panelists/P0000012/surveys?all=true", "/api/v1/panelists/P0000345/surveys?all=true", "/api/v1/panelists/P0006789/surveys",
			"/api/v1/panelists/P0000012/next?limit=5"}
		for i, r := range rows {
			id := strconv.FormatInt(r.SubsampleID, 10)
			paths = append(paths, "/subsamples/"+id, "/subsamples/"+id+"/verdict.csv")
			if i%10 == 0 {
				paths = append(paths, "/subsamples/"+id+"/quotas.csv", "/subsamples/"+id+"/links.csv")
			}
		}
		for _, path := range paths {
			code, body := p.get(path)
			sum := sha256.Sum256(body)
			again, body2 := p.get(path)
			if again != code || sha256.Sum256(body2) != sum {
				t.Errorf("%s answered other bytes the second time", path)
			}
			fmt.Fprintf(w, "stale=%v %s %d %x\n", stale > 0, path, code, sum[:8])
		}
	}
}
