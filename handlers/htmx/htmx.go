// Package htmx names the htmx headers Fieldboard reads and writes, and
// makes the one decision they drive: does a request want a whole page or
// a part of one. Handlers, the server's error pages and sign-in all ask
// here, so they agree.
package htmx

import "net/http"

// Request headers, set by htmx.
const (
	// HeaderRequest is "true" on every request htmx sends.
	HeaderRequest = "HX-Request"
	// HeaderHistoryRestoreRequest is "true" when htmx restores a page
	// from its history after a cache miss: it needs the whole page.
	HeaderHistoryRestoreRequest = "HX-History-Restore-Request"
)

// Response headers, read by htmx.
const (
	// HeaderRedirect sends the browser to another page, as a whole.
	HeaderRedirect = "HX-Redirect"
	// HeaderRefresh reloads the whole page when "true".
	HeaderRefresh = "HX-Refresh"
	// HeaderTrigger raises an event in the page.
	HeaderTrigger = "HX-Trigger"
	// HeaderRetarget, HeaderReswap and HeaderReselect put the answer
	// elsewhere than the asking element wanted.
	HeaderRetarget = "HX-Retarget"
	HeaderReswap   = "HX-Reswap"
	HeaderReselect = "HX-Reselect"
)

// Vary names the request headers WantsFragment reads: the Vary header of
// every answer that depends on it, so that no cache hands a fragment to a
// page load or the other way round.
const Vary = HeaderRequest + ", " + HeaderHistoryRestoreRequest

// IsRequest reports whether r comes from htmx.
func IsRequest(r *http.Request) bool { return r.Header.Get(HeaderRequest) == "true" }

// WantsFragment reports whether r wants a part of a page (a table, a
// panel, an outcome) rather than the whole: an htmx request that is not
// restoring a page from history. A plain browser request, or a restore,
// gets the whole page.
func WantsFragment(r *http.Request) bool {
	return IsRequest(r) && r.Header.Get(HeaderHistoryRestoreRequest) != "true"
}
