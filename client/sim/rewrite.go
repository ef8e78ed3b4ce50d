package sim

import "net/http"

// Rewrite makes every answer to a request whose URL path equals path
// what fn makes of the answer the simulator would have given, until
// ClearRewrites: how a test serves data a provider might send that the
// generated world never holds (an unusual quota, an eligibility entry
// with a key given twice, a link on another host). fn gets a copy of the
// real body and returns the body to send, with status 200 and a JSON
// content type. A failure switch for the same path (FailPath) wins.
func (s *Simulator) Rewrite(path string, fn func(body []byte) []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rewrites[path] = fn
}

// ClearRewrites removes every Rewrite.
func (s *Simulator) ClearRewrites() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.rewrites)
}

// EntryURL is the base of the simulator's entry links (Options.EntryURL):
// the provider's entry address a supplier checks its links against.
func (s *Simulator) EntryURL() string { return s.entryURL }

// rewritten answers r with its path's Rewrite and reports whether it had
// one.
func (s *Simulator) rewritten(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	fn := s.rewrites[r.URL.Path]
	s.mu.Unlock()
	if fn == nil {
		return false
	}
	writeJSON(w, http.StatusOK, fn(s.realBody(r)))
	return true
}
