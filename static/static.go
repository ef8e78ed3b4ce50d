// Package static holds the files the server sends as they are: the
// stylesheet, the favicon (an "F" on the menu bar's colour, also answered
// at /favicon.ico) and the vendored htmx (htmx.org 2.0.11 from the npm
// registry, dist/htmx.min.js, unmodified). Beside them lies axe-core (Axe),
// which no page loads and the server does not serve: the browser tests
// inject it.
package static

import "embed"

// Files are the static assets, served under /static/.
//
//go:embed *.css app.js htmx-*.js *.svg
var Files embed.FS

// HTMX is the path of the vendored htmx under /static/.
const HTMX = "htmx-2.0.11.min.js"

// Axe is the file name of the vendored axe-core (the axe-core npm
// package's axe.min.js, unmodified), the accessibility checker the
// browser tests run on every page. It is left out of Files: no page needs
// it, so the binary does not carry it.
const Axe = "axe-4.14.1.min.js"

// Favicon is the path of the favicon under /static/.
const Favicon = "favicon.svg"
