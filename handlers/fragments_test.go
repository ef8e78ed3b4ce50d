package handlers

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"

	"fieldboard/rules/checks"
)

// liveHeap is the heap still in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestFragmentsAreBoundedByBytes renders 300 fragments of 512 KiB, as a
// page echoing a long query in every link would be: what is kept stays
// within the budget, however many keys clients invent.
func TestFragmentsAreBoundedByBytes(t *testing.T) {
	d := &checks.Decisions{}
	page := bytes.Repeat([]byte("x"), 512<<10)
	before := liveHeap()
	for i := range 300 {
		html, err := fragment(d, fmt.Sprintf("live page?q=%d", i), func() ([]byte, error) { return bytes.Clone(page), nil })
		if err != nil || len(html) != len(page) {
			t.Fatalf("fragment %d: %d bytes, %v", i, len(html), err)
		}
	}
	grown := int64(liveHeap()) - int64(before)
	runtime.KeepAlive(d)
	if grown > maxFragmentsBytes+4<<20 {
		t.Errorf("300 fragments of 512 KiB kept %d MiB; want at most the %d MiB budget", grown>>20, maxFragmentsBytes>>20)
	}
	// The latest is kept: asking again does not render.
	if _, err := fragment(d, "live page?q=299", func() ([]byte, error) { t.Error("the latest fragment was rendered again"); return page, nil }); err != nil {
		t.Fatal(err)
	}
	// One bigger than a fragment may be is never kept.
	big := bytes.Repeat([]byte("y"), maxFragmentBytes+1)
	renders := 0
	for range 2 {
		fragment(d, "live page?q=big", func() ([]byte, error) { renders++; return big, nil })
	}
	if renders != 2 {
		t.Errorf("a fragment over %d bytes was rendered %d times for two requests; want it never kept", maxFragmentBytes, renders)
	}
}
