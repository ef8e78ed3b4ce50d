package handlers

import (
	"sync"

	"fieldboard/rules/checks"
)

// maxFragments bounds the fragments kept per version: their keys come from
// what clients ask, so beyond it a fragment is rendered every time.
const maxFragments = 256

// fragments are parts of pages rendered from one version's decisions, by
// page part and query, kept with the version (checks.Memo).
type fragments struct {
	mu   sync.Mutex
	html map[string][]byte
}

// fragment returns the page part key of d's version, rendered by render
// the first time: what render writes must depend on nothing but d and key.
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
	f.mu.Lock()
	if len(f.html) < maxFragments {
		f.html[key] = html
	}
	f.mu.Unlock()
	return html, nil
}
