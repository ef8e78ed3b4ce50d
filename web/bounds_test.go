package web_test

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
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
