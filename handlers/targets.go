package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/rules/invite"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// SendChecks is what the send lists and the bulk checks ask of the
// checks service.
type SendChecks interface {
	SendList(ctx context.Context, subsampleID int64, limit int, emit func(panelistID, entryLink string) error) error
	SendListSize(ctx context.Context, subsampleID int64) (int, error)
	SendListPool(ctx context.Context, subsampleID int64) (checks.SendListPool, error)
	formats.BulkChecker
}

// SubsampleTargets answers GET /api/v1/subsamples/{id}/targets and the
// page's download /subsamples/{id}/targets.csv: the send list, as CSV
// `panelistId,entryLink`, or as a JSON array when the client accepts
// JSON and not CSV. ?limit=N keeps the first N panelists (by id).
//
// The list is written to a temporary file in the checks service's turn,
// and sent from it once the turn is given back (answerFile): a client
// that reads slowly, or not at all, holds up no other send list, count or
// bulk check, and an error found while computing it is still a status.
func (h *Handler) SubsampleTargets(c echo.Context) error {
	id, err := parseID("subsample id", c.Param("id"))
	if err != nil {
		return err
	}
	limit := 0
	raw, err := queryValue(c, "limit")
	if err != nil {
		return err
	}
	if raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit <= 0 {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a positive whole number", raw))
		}
	}
	ctx := c.Request().Context()
	accept := c.Request().Header.Get(echo.HeaderAccept)
	asJSON := strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/csv") && !strings.HasSuffix(c.Request().URL.Path, ".csv")
	snapshot, err := h.subsampleSnapshotTime(ctx, id)
	if err != nil {
		return err
	}
	answer, err := newAnswerFile()
	if err != nil {
		return err
	}
	defer answer.Close()
	invites := h.PublicURL != ""
	var signer invite.Signer
	if invites {
		if signer, err = h.signer(ctx); err != nil {
			return err
		}
	}
	csvOut := formats.NewWriter(answer)
	if asJSON {
		answer.WriteString("[")
	} else if err := formats.WriteTargetsHeader(csvOut, invites); err != nil {
		return err
	}
	n := 0
	err = h.SendChecks.SendList(ctx, id, limit, func(panelistID, link string) error {
		target := formats.TargetJSON{PanelistID: panelistID, EntryLink: link}
		if invites {
			target.InviteLink = signer.Link(panelistID, id)
		}
		if n++; !asJSON {
			return formats.WriteTarget(csvOut, target, invites)
		}
		if n > 1 {
			answer.WriteString(",")
		}
		b, err := json.Marshal(target)
		if err != nil {
			return err
		}
		_, err = answer.Write(b)
		return err
	})
	if errors.Is(err, checks.ErrNotSendable) {
		return echo.NewHTTPError(http.StatusConflict, "Nobody is on the send list. "+err.Error())
	}
	if err != nil {
		return subsampleNotFound(err, id)
	}
	if asJSON {
		answer.WriteString("]")
		return answer.send(c, echo.MIMEApplicationJSON)
	}
	if err := csvOut.Flush(); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, formats.Attachment(formats.FileName("targets", snapshot, "subsample", formats.Int(id), "limit", optionalLimit(limit))))
	return answer.send(c, "text/csv; charset=utf-8")
}

// optionalLimit is a limit for a file name, "" for none (0).
func optionalLimit(limit int) string {
	if limit == 0 {
		return ""
	}
	return strconv.Itoa(limit)
}

// SubsampleTargetCount answers GET /subsamples/{id}/targets/count, which
// the subsample page loads after itself: how many panelists fit an open
// cell and are eligible, of the profiled panelists of its countries, with
// the send list's download.
func (h *Handler) SubsampleTargetCount(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := parseID("Subsample id", c.Param("id"))
	if err != nil {
		return err
	}
	v := views.TargetCountView{SubsampleID: id}
	v.Count, err = h.SendChecks.SendListSize(ctx, id)
	switch {
	case errors.Is(err, checks.ErrNotSendable):
		v.NotSendable = err.Error()
	case err != nil:
		return subsampleNotFound(err, id)
	}
	if v.Profiles, err = h.Store.CountProfiles(ctx); err != nil {
		return err
	}
	if v.NotSendable == "" && v.Profiles > 0 {
		if v.Pool, err = h.SendChecks.SendListPool(ctx, id); err != nil {
			return subsampleNotFound(err, id)
		}
	}
	return Render(c, http.StatusOK, views.TargetCount(v))
}
