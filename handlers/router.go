package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/views/formats"
)

// The next-survey answer's limit: how many surveys, by default and at most.
const (
	defaultNextLimit = 5
	maxNextLimit     = 50
)

// APINextSurveys answers GET /api/v1/panelists/{id}/next?limit=N: the
// surveys the panelist would be sent to now, best first
// (checks.Service.NextSurveys). A panelist not on the panel is a 404.
func (h *Handler) APINextSurveys(c echo.Context) error {
	panelistID, err := panelistParam(c)
	if err != nil {
		return err
	}
	limit := defaultNextLimit
	if raw := c.QueryParam("limit"); raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit < 1 || limit > maxNextLimit {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a whole number from 1 to %d", raw, maxNextLimit))
		}
	}
	routes, err := h.Checks.NextSurveys(c.Request().Context(), panelistID, limit)
	if errors.Is(err, checks.ErrNotOnPanel) {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Panelist %q is not on the panel: with no country or language on file, no survey can be chosen for them.", panelistID))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.NextSurveys(panelistID, routes))
}
