//go:build bench

package bench

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/store"
)

// decidedMemory is the heap a decided snapshot holds, as serve's checks
// service keeps it (checks.Service.Current on the scenario db), in bytes,
// of which scannable the bytes the collector scans on every cycle
// (runtime/metrics /gc/scan/heap), and the live subsamples it holds. With
// BENCH_HEAPPROFILE set, the heap profile taken with the decisions held is
// written there.
func decidedMemory(t *testing.T, db string) (bytes, scannable uint64, live int) {
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if live, err = st.CountLive(ctx); err != nil {
		t.Fatal(err)
	}
	svc := &checks.Service{Store: st, Now: time.Now}
	if os.Getenv("BENCH_HEAPPROFILE") != "" {
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 1 // every allocation, for a profile of it
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	scanBefore := gcMetric(scanHeap)
	d, err := svc.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	scannable = gcMetric(scanHeap) - min(scanBefore, gcMetric(scanHeap))
	if path := os.Getenv("BENCH_HEAPPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	runtime.KeepAlive(d)
	runtime.KeepAlive(svc)
	return after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc), scannable, live
}

// The runtime/metrics gcMetric reads.
const (
	scanHeap = "/gc/scan/heap:bytes"               // what the last cycle found to scan
	gcCPU    = "/cpu/classes/gc/total:cpu-seconds" // the collector's CPU, assists included
	gcCycles = "/gc/cycles/total:gc-cycles"
)

// gcMetric is one runtime metric, as a number.
func gcMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindFloat64 {
		return uint64(s[0].Value.Float64() * 1e9) // seconds, as nanoseconds
	}
	return s[0].Value.Uint64()
}

// routerGarbage is the heap allocated per next-survey answer (limit 5)
// in this process, by checks.Service.NextSurveys on the scenario db, over
// panelists of the panel drawn as figure 12 draws them, once the snapshot
// is decided: the garbage an answer leaves, its reads included.
func routerGarbage(t *testing.T, s sizes, db string) float64 {
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	panelists := onPanel(t, st, s, 500)
	svc := &checks.Service{Store: st, Now: time.Now}
	if _, err := svc.Current(ctx); err != nil {
		t.Fatal(err)
	}
	answer := func(id string) {
		if _, err := svc.NextSurveys(ctx, id, 5); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range panelists[:50] {
		answer(id) // warm: prepared reads, pools
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, id := range panelists {
		answer(id)
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(panelists))
}

// TestDecidedSnapshotMemory reports the heap a decided snapshot of the
// scenario (the BENCH_ sizes) holds, in all and per live subsample.
func TestDecidedSnapshotMemory(t *testing.T) {
	s := scenarioSizes(t)
	db := cachedScenario(t, s)
	bytes, scannable, live := decidedMemory(t, db)
	t.Logf("a decided snapshot of %d subsamples (%d live) holds %.1f MiB: %.1f KiB per live subsample; the collector scans %.1f MiB of it",
		s.subsamples, live, float64(bytes)/(1<<20), float64(bytes)/float64(max(live, 1))/1024, float64(scannable)/(1<<20))
}

// TestRouterUnderLimit measures next-survey answers (limit 5, looked at,
// not sent: checks.Service.PreviewNextSurveys) under serve's default soft
// memory limit (112 MiB), 8 at a time for one panelist who has some, on
// the scale scenario at 6,000 and at 24,000 subsamples: answers a second,
// the collector's cycles and its CPU per answer. The router's own work is
// alike at both sizes; what grows is the collector's, with the heap the
// decided snapshot holds (a cycle whenever the garbage of the answers
// fills the room left under the limit) and the part of it the collector
// scans (the work of a cycle).
func TestRouterUnderLimit(t *testing.T) {
	const answers = 160000
	for _, n := range []int{6000, 24000} {
		s := scaleSizes
		s.subsamples = n
		db := cachedScenario(t, s)
		ctx := context.Background()
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		svc := &checks.Service{Store: st, Now: time.Now}
		if _, err := svc.Current(ctx); err != nil {
			t.Fatal(err)
		}
		panelist := ""
		for _, id := range onPanel(t, st, s, 500) {
			if r, err := svc.PreviewNextSurveys(ctx, id, 5); err == nil && len(r) > 0 {
				panelist = id
				break
			}
		}
		if panelist == "" {
			t.Fatalf("%d subsamples: no panelist drawn has a survey", n)
		}
		limit := debug.SetMemoryLimit(112 << 20)
		runtime.GC()
		scannable, cycles, cpu := gcMetric(scanHeap), gcMetric(gcCycles), gcMetric(gcCPU)
		start := time.Now()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range answers / 8 {
					if _, err := svc.PreviewNextSurveys(ctx, panelist, 5); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		took := time.Since(start)
		cycles, cpu = gcMetric(gcCycles)-cycles, gcMetric(gcCPU)-cpu
		debug.SetMemoryLimit(limit)
		t.Logf("%d subsamples: %.0f answers a second; the collector scans %.1f MiB, ran %d cycles (one every %d answers), %.1f µs of CPU per answer",
			n, answers/took.Seconds(), float64(scannable)/(1<<20), cycles, answers/max(cycles, 1), float64(cpu)/1e3/answers)
		st.Close()
	}
}
