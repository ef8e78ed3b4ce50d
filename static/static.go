// Package static holds the files the server sends as they are: the
// stylesheet, the favicon (an "F" on the menu bar's colour, also answered
// at /favicon.ico) and the vendored htmx (htmx.org 2.0.11 from the npm
// registry, dist/htmx.min.js, unmodified).
package static

import "embed"

// Files are the static assets, served under /static/.
//
//go:embed *.css *.js *.svg
var Files embed.FS

// HTMX is the path of the vendored htmx under /static/.
const HTMX = "htmx-2.0.11.min.js"

// Favicon is the path of the favicon under /static/.
const Favicon = "favicon.svg"
