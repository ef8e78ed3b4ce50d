package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/views"
)

// Live answers GET /live: the live subsamples of the current snapshot. An
// htmx request gets the table alone.
func (h *Handler) Live(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := h.liveRows(ctx)
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

// liveRows reads the live subsamples with their sendability verdicts.
func (h *Handler) liveRows(ctx context.Context) ([]views.LiveRow, error) {
	rows, err := h.Store.LiveRows(ctx)
	if err != nil {
		return nil, err
	}
	quotas, err := h.Store.AllQuotas(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]views.LiveRow, len(rows))
	for i, r := range rows {
		out[i] = views.LiveRow{LiveRow: r, Verdict: rules.Sendability(rules.SubsampleFacts{
			Status: r.Status, APICompatible: r.APICompatible, CPI: r.CPI, Currency: r.Currency,
			Quotas: quotas[r.SubsampleID], QuotasLoaded: r.QuotasOK != nil && *r.QuotasOK, QuotasError: r.QuotasError,
		})}
	}
	return out, nil
}
