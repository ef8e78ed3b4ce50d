package handlers

import (
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/handlers/htmx"
	"fieldboard/views"
)

// StartRefresh answers POST /refresh: it starts a refresh of all data, or
// joins the one already running, and shows its progress. Without htmx it
// sends the browser back to the page it came from.
func (h *Handler) StartRefresh(c echo.Context) error {
	h.Refresher.Start(0, false)
	return fragmentOr(c, http.StatusOK, func() (templ.Component, error) {
		rv, err := h.refreshView(c.Request().Context())
		return views.RefreshPanel(h.page("Refresh", ""), rv), err
	}, func() error { return c.Redirect(http.StatusSeeOther, "/") })
}

// RefreshProgress answers GET /refresh/progress with the refresh panel.
// The htmx poll that sees a refresh finish gets the HX-Trigger "refreshed",
// on which the page reloads its figures: a panel polls only while a
// refresh runs, so a poll answered with none running saw it finish, even
// on an instance that has never refreshed itself (the refresh ran on
// another).
func (h *Handler) RefreshProgress(c echo.Context) error {
	ctx := c.Request().Context()
	rv, err := h.refreshView(ctx)
	if err != nil {
		return err
	}
	return renderPolled(c, http.StatusOK, rv.Progress.Running, htmx.HeaderTrigger, "refreshed", func(bool) templ.Component {
		return views.RefreshPanel(h.page("Refresh", ""), rv)
	})
}

// RefreshJSON is the state of the refresh in the API.
type RefreshJSON struct {
	Running    bool       `json:"running"`
	Scope      string     `json:"scope"`
	Phase      string     `json:"phase"`
	Done       int        `json:"done"`
	Total      int        `json:"total"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	Error      string     `json:"error,omitempty"`
}

func refreshJSON(p views.RefreshProgress) RefreshJSON {
	out := RefreshJSON{Running: p.Running, Scope: p.Scope, Phase: p.Phase, Done: p.Done, Total: p.Total, Error: p.Err}
	if !p.StartedAt.IsZero() {
		out.StartedAt = &p.StartedAt
	}
	if !p.FinishedAt.IsZero() {
		out.FinishedAt = &p.FinishedAt
	}
	return out
}

// APIRefresh answers POST /api/v1/refresh: it starts a refresh of every
// dataset (or, with ?subsample=ID, of one live subsample's quotas and
// rules), joining one already running, and answers 202 with its progress;
// GET /api/v1/refresh polls it.
func (h *Handler) APIRefresh(c echo.Context) error {
	var subsampleID int64
	raw, err := queryValue(c, "subsample")
	if err != nil {
		return err
	}
	if raw != "" {
		id, err := parseID("subsample", raw)
		if err != nil {
			return err
		}
		parts, err := h.SubsampleChecks.Subsample(c.Request().Context(), id)
		if err != nil {
			return subsampleNotFound(err, id)
		}
		if !parts.Live {
			return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("Subsample %d is not live, so it has no quotas or rules to read.", id))
		}
		subsampleID = id
	}
	return c.JSON(http.StatusAccepted, refreshJSON(h.Refresher.Start(subsampleID, subsampleID == 0)))
}

// APIRefreshProgress answers GET /api/v1/refresh: the refresh running
// (on this instance or, as far as the database tells, on another) or the
// last one.
func (h *Handler) APIRefreshProgress(c echo.Context) error {
	p, err := h.refreshProgress(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, refreshJSON(p))
}
