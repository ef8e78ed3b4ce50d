package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldboard/views"
)

// Live answers GET /live: the live subsamples of the current snapshot. An
// htmx request gets the table alone.
func (h *Handler) Live(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := h.Store.LiveRows(ctx)
	if err != nil {
		return err
	}
	p := h.page("Live subsamples", "live")
	if isHTMX(c) {
		return render(c, http.StatusOK, views.LiveTable(p, rows))
	}
	rv, err := h.refreshView(ctx)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.LivePage(views.LiveView{Page: p, Refresh: rv, Rows: rows}))
}
