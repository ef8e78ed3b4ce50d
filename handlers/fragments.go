package handlers

import (
	"bytes"
	"sync"

	"fieldboard/rules/checks"
)

// The fragments kept per version are bounded by their bytes, not their
// number: their keys come from what clients ask, and a fragment grows with
// the query it echoes (every sort, page and CSV link repeats the filters).
// A fragment bigger than maxFragmentBytes is rendered every time; beyond
// maxFragmentsBytes in all, fragments already kept make room for the new
// one, in no particular order, so a flood of queries nobody else asks
// costs renders, not memory, and the common ones come back at their next
// request. A page of the live list is about 50 KiB.
const (
	maxFragmentsBytes = 16 << 20
	maxFragmentBytes  = 1 << 20
)

// fragments are parts of pages rendered from one version's decisions, by
// page part and query, kept with the version (checks.Memo).
type fragments struct {
	mu    sync.Mutex
	html  map[string][]byte
	bytes int // of the keys and html kept
}

// fragment returns the page part key of d's version, rendered by render
// the first time: what render writes must depend on nothing but d and key,
// and key should be the query normalised (LiveQuery.Values), so that
// spellings of one query share a fragment.
func fragment(d *checks.Decisions, key string, render func() ([]byte, error)) ([]byte, error) {
	f, _ := checks.Memo(d, "handlers.fragments", func() (*fragments, error) { return &fragments{html: map[string][]byte{}}, nil })
	f.mu.Lock()
	html, ok := f.html[key]
	f.mu.Unlock()
	if ok {
		return html, nil
	}
	html, err := render()
	if err != nil {
		return nil, err
	}
	return f.keep(key, html), nil
}

// keep keeps html under key when it is small enough, making room for it,
// and returns it. What is kept is a copy the size of html: a rendering's
// buffer may have grown to twice what it holds.
func (f *fragments) keep(key string, html []byte) []byte {
	size := len(key) + len(html)
	if size > maxFragmentBytes {
		return html
	}
	html = bytes.Clone(html)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.html[key]; ok {
		return html // rendered twice at once: the first one stays
	}
	for k, v := range f.html {
		if f.bytes+size <= maxFragmentsBytes {
			break
		}
		delete(f.html, k)
		f.bytes -= len(k) + len(v)
	}
	f.html[key] = html
	f.bytes += size
	return html
}
