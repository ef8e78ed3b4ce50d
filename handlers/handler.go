// Package handlers turns HTTP requests into pages, fragments and JSON: each
// route parses its request, asks the store (and later the rules), and
// renders a views component. Handlers return errors; the server's error
// handler turns them into pages.
package handlers

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

// Refresher is what the handlers need of the refresher.
type Refresher interface {
	Start(req refresh.Request) refresh.Progress
	Progress() refresh.Progress
	NextDue(states map[string]store.DatasetState) map[string]time.Time
}

// Handler holds the dependencies of every route.
type Handler struct {
	Store     *store.Store
	Checker   *Checker
	Refresher Refresher
	Auth      *auth.Auth
	Logger    *slog.Logger
	// Now is the clock; Location the time zone pages show times in;
	// ProviderLocation the provider's, in which zone-less history dates
	// are read.
	Now              func() time.Time
	Location         *time.Location
	ProviderLocation *time.Location
}

// page builds the base view model of a page.
func (h *Handler) page(title, active string) views.Page {
	return views.Page{Title: title, Active: active, Now: h.Now(), Location: h.Location}
}

// pathParam returns the path parameter name, decoded once. Echo routes on
// the request's RawPath when net/url keeps one (the path holds an escape
// such as %2F that decoding would change) and on the decoded Path
// otherwise, so the parameter is decoded here only in the first case:
// decoding it again would refuse "100%25" (the id 100%) as a bad escape and
// read "a%252Fb" as a/b.
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	return url.PathUnescape(v)
}

// isHTMX reports whether the request comes from htmx, which wants a
// fragment rather than a whole page.
func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// render writes a component with the given status. It renders into a
// buffer first so that a failing component becomes an error page rather
// than half a page.
func render(c echo.Context, status int, component templ.Component) error {
	var buf bytes.Buffer
	if err := component.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// refreshView gathers the refresh panel's state.
func (h *Handler) refreshView(ctx context.Context) (views.RefreshView, error) {
	states, err := h.Store.Datasets(ctx)
	if err != nil {
		return views.RefreshView{}, err
	}
	return views.RefreshView{
		Progress: h.Refresher.Progress(),
		Events:   states[store.DatasetEvents],
		NextDue:  h.Refresher.NextDue(states)[store.DatasetEvents],
	}, nil
}

// Health answers GET /healthz: 200 when the database answers.
func (h *Handler) Health(c echo.Context) error {
	if _, err := h.Store.CountLive(c.Request().Context()); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "database unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}
