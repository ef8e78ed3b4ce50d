package web_test

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// liveHeap is the heap still in use after a collection: the server runs
// in the test's process.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestLiveFragmentsAreKeptByTheQueryAsRead asks for one view of the live
// list spelled 300 ways (a parameter the list does not read, as a cache
// buster or a tracking tag adds), as a page and as htmx's fragment: the
// server keeps one rendering of each, not one per spelling.
//
// Not parallel: it measures the heap, which another test would grow.
func TestLiveFragmentsAreKeptByTheQueryAsRead(t *testing.T) {
	a := refreshed(t)
	for _, header := range []map[string]string{nil, {"HX-Request": "true"}} {
		if resp, body := a.do(t, "GET", "/live?sort=-cpi", header); resp.StatusCode != 200 {
			t.Fatalf("/live?sort=-cpi: %d %s", resp.StatusCode, body)
		}
	}
	before := liveHeap()
	for i := range 300 {
		for _, header := range []map[string]string{nil, {"HX-Request": "true"}} {
			resp, body := a.do(t, "GET", fmt.Sprintf("/live?utm_source=%d&sort=-cpi+", i), header)
			if resp.StatusCode != 200 || !strings.Contains(body, `data-testid="live-row"`) {
				t.Fatalf("/live?utm_source=%d: %d, want its rows:\n%s", i, resp.StatusCode, body)
			}
		}
	}
	// A rendering of the list is about 35 KiB: one per spelling would
	// keep 256 of each, 17 MiB.
	if grown := liveHeap() - before; grown > 2<<20 {
		t.Errorf("600 spellings of one view of the live list kept %d KiB; want about one rendering of the page and one of the table", grown>>10)
	}
}

// peakLiveHeap samples the heap in use after each collection while run
// runs, with collections made frequent, and returns the most it saw
// beyond what was in use before.
func peakLiveHeap(t *testing.T, run func()) int64 {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	before := liveHeap()
	var peak atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			metrics.Read(s)
			if v := int64(s[0].Value.Uint64()); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	run()
	close(done)
	<-sampled
	if after := liveHeap(); after > peak.Load() {
		peak.Store(after)
	}
	return peak.Load() - before
}

// idsBody is a list of n panelist ids of 128 bytes (the most an id may be) as a bulk check reads
// it, made as it is read so the test holds none of it.
type idsBody struct {
	n, next int
	pending []byte
}

func (b *idsBody) Read(p []byte) (int, error) {
	if len(b.pending) == 0 {
		switch {
		case b.next > b.n:
			return 0, io.EOF
		case b.next == 0:
			b.pending = []byte("panelistId\n")
		default:
			b.pending = fmt.Appendf(b.pending[:0], "P%0127d\n", b.next)
		}
		b.next++
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// TestBulkCheckMemoryIsFlat sends a bulk check of 160,000 ids (21 MB):
// the server's heap grows no more than for a short list, and the answer
// has a line for every id, in order.
//
// Not parallel: it measures the heap, which another test would grow.
func TestBulkCheckMemoryIsFlat(t *testing.T) {
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	path := fmt.Sprintf("%s/api/v1/subsamples/%d/eligibility", a.url, target.SubsampleID)
	check := func(n int) {
		resp, err := a.client.Post(path, "text/csv", &idsBody{n: n})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		lines := 0
		for sc.Scan() {
			if lines > 0 && !strings.HasPrefix(sc.Text(), fmt.Sprintf("P%0127d,", lines)) {
				t.Fatalf("line %d of the answer is %.150q, want panelist %d's", lines+1, sc.Text(), lines)
			}
			lines++
		}
		if err := sc.Err(); err != nil || resp.StatusCode != 200 || lines != n+1 {
			t.Fatalf("bulk check of %d ids: %d, %d lines, %v", n, resp.StatusCode, lines, err)
		}
	}
	start := time.Now()
	small := peakLiveHeap(t, func() { check(1000) })
	big := peakLiveHeap(t, func() { check(160_000) })
	t.Logf("heap grown: %d KiB for 1,000 ids, %d KiB for 160,000; took %v", small>>10, big>>10, time.Since(start))
	// Kept in memory, the ids alone would be 24 MiB.
	if big-small > 8<<20 {
		t.Errorf("the server's heap grew %d MiB for a bulk check of 160,000 ids, %d KiB for 1,000: want it flat in the list's size", big>>20, small>>10)
	}
}
