package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldboard/views"
	"fieldboard/web/refresh"
)

// StartRefresh answers POST /refresh: it starts a refresh of all data, or
// joins the one already running, and shows its progress. Without htmx it
// sends the browser back to the page it came from.
func (h *Handler) StartRefresh(c echo.Context) error {
	h.Refresher.Start(refresh.Request{})
	if !isHTMX(c) {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	return h.RefreshProgress(c)
}

// RefreshProgress answers GET /refresh/progress with the refresh panel.
// The htmx poll that sees a refresh finish gets the HX-Trigger "refreshed",
// on which the page reloads its figures.
func (h *Handler) RefreshProgress(c echo.Context) error {
	ctx := c.Request().Context()
	rv, err := h.refreshView(ctx)
	if err != nil {
		return err
	}
	polling := c.Request().Method == http.MethodGet && isHTMX(c)
	if polling && !rv.Progress.Running && !rv.Progress.FinishedAt.IsZero() {
		c.Response().Header().Set("HX-Trigger", "refreshed")
	}
	return render(c, http.StatusOK, views.RefreshPanel(h.page("Refresh", ""), rv))
}
