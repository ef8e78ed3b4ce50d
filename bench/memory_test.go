//go:build bench

package bench

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/store"
)

// decidedMemory is the heap a decided snapshot holds, as serve's checks
// service keeps it (checks.Service.Current on the scenario db), in bytes,
// and the live subsamples it holds. With BENCH_HEAPPROFILE set, the heap
// profile taken with the decisions held is written there.
func decidedMemory(t *testing.T, db string) (bytes uint64, live int) {
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
	d, err := svc.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
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
	return after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc), live
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
	bytes, live := decidedMemory(t, db)
	t.Logf("a decided snapshot of %d subsamples (%d live) holds %.1f MiB: %.1f KiB per live subsample",
		s.subsamples, live, float64(bytes)/(1<<20), float64(bytes)/float64(max(live, 1))/1024)
}
