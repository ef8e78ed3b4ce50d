package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// SubsampleTargets answers GET /api/v1/subsamples/{id}/targets and the
// page's download /subsamples/{id}/targets.csv: the send list, streamed as
// CSV `panelistId,entryLink`, or as a JSON array when the client accepts
// JSON and not CSV. ?limit=N keeps the first N panelists (by id).
func (h *Handler) SubsampleTargets(c echo.Context) error {
	id, err := parseID("subsample id", c.Param("id"))
	if err != nil {
		return err
	}
	limit := 0
	if raw := c.QueryParam("limit"); raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit <= 0 {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a positive whole number", raw))
		}
	}
	ctx := c.Request().Context()
	// Answer 404 or 409 before the first byte is written.
	if err := h.Checks.LiveTarget(ctx, id); err != nil {
		return subsampleNotFound(err, id)
	}
	accept := c.Request().Header.Get(echo.HeaderAccept)
	asJSON := strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/csv") && !strings.HasSuffix(c.Request().URL.Path, ".csv")
	res := c.Response()
	started := false
	start := func() error {
		started = true
		if asJSON {
			res.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
			res.WriteHeader(http.StatusOK)
			_, err := res.Write([]byte("["))
			return err
		}
		res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
		res.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="targets-%d-%s.csv"`, id, h.Now().UTC().Format("20060102-1504")))
		res.WriteHeader(http.StatusOK)
		return nil
	}
	csvOut := formats.NewWriter(res)
	// A client that stops reading must not hold the send list's turn and
	// its read transaction: each write has 30 seconds.
	rc := http.NewResponseController(res)
	n := 0
	err = h.Checks.SendList(ctx, id, limit, func(panelistID, link string) error {
		if n%1000 == 0 {
			rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
		}
		if !started {
			if err := start(); err != nil {
				return err
			}
			if !asJSON {
				if err := formats.WriteTargetsHeader(csvOut); err != nil {
					return err
				}
			}
		}
		n++
		if asJSON {
			b, _ := json.Marshal(formats.TargetJSON{PanelistID: panelistID, EntryLink: link})
			if n > 1 {
				res.Write([]byte(","))
			}
			_, err := res.Write(b)
			return err
		}
		return formats.WriteTarget(csvOut, panelistID, link)
	})
	switch {
	case errors.Is(err, checks.ErrNotSendable) && !started:
		return echo.NewHTTPError(http.StatusConflict, "Nobody is on the send list. "+err.Error())
	case err != nil && !started:
		return subsampleNotFound(err, id)
	case err != nil:
		return err // logged; the client sees the answer cut short
	case !started:
		if err := start(); err != nil {
			return err
		}
		if !asJSON {
			formats.WriteTargetsHeader(csvOut)
		}
	}
	if asJSON {
		_, err := res.Write([]byte("]"))
		return err
	}
	return csvOut.Flush()
}

// SubsampleTargetCount answers GET /subsamples/{id}/targets/count, which
// the subsample page loads after itself: how many panelists fit an open
// cell and are eligible, with the send list's download.
func (h *Handler) SubsampleTargetCount(c echo.Context) error {
	id, err := parseID("Subsample id", c.Param("id"))
	if err != nil {
		return err
	}
	v := views.TargetCountView{SubsampleID: id}
	v.Count, err = h.Checks.SendListSize(c.Request().Context(), id)
	switch {
	case errors.Is(err, checks.ErrNotSendable):
		v.NotSendable = err.Error()
	case err != nil:
		return subsampleNotFound(err, id)
	}
	if v.Profiles, err = h.Store.CountProfiles(c.Request().Context()); err != nil {
		return err
	}
	return Render(c, http.StatusOK, views.TargetCount(v))
}
