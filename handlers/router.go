package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// The next-survey answer's limit: how many surveys, by default and at most.
const (
	defaultNextLimit = 5
	maxNextLimit     = 50
)

// APINextSurveys answers GET /api/v1/panelists/{id}/next?limit=N: the
// surveys the panelist would be sent to now, best first
// (checks.Service.NextSurveys). A panelist not on the panel is a 404. The
// first survey named is recorded in the routing log (RoutedAnswer), with
// the cells the panelist was judged to fall in: the supplier's router
// sends them there, and what the field returns is compared with it.
func (h *Handler) APINextSurveys(c echo.Context) error {
	panelistID, err := panelistParam(c)
	if err != nil {
		return err
	}
	limit := defaultNextLimit
	raw, err := queryValue(c, "limit")
	if err != nil {
		return err
	}
	if raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit < 1 || limit > maxNextLimit {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a whole number from 1 to %d", raw, maxNextLimit))
		}
	}
	routes, err := h.PanelistChecks.NextSurveys(c.Request().Context(), panelistID, limit)
	if errors.Is(err, checks.ErrNotOnPanel) {
		msg := fmt.Sprintf("Panelist %q is not on the panel: with no country or language on file, no survey can be chosen for them.", panelistID)
		meant, err := h.onPanelInOtherCase(c.Request().Context(), panelistID)
		if err != nil {
			return err
		}
		if meant != "" {
			msg += fmt.Sprintf(" Did you mean %q?", meant)
		}
		return echo.NewHTTPError(http.StatusNotFound, msg)
	}
	if err != nil {
		return err
	}
	if len(routes) > 0 {
		h.Routings.Record(domain.RoutingDecision{At: h.Now(), PanelistID: panelistID, Chosen: routes[0].SubsampleID, Outcome: domain.RoutedAnswer,
			Reason: namedFirst(len(routes)), Cells: routes[0].Cells})
	}
	// The answer c.JSON would write, written by hand (pretty printing
	// aside, which c.JSON does on ?pretty or in echo's debug mode).
	if _, pretty := c.QueryParams()["pretty"]; !pretty && !c.Echo().Debug {
		buf := nextBuffers.Get().(*[]byte)
		defer nextBuffers.Put(buf)
		if b, ok := formats.AppendNextSurveys((*buf)[:0], panelistID, routes); ok {
			*buf = b
			return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
		}
	}
	return c.JSON(http.StatusOK, formats.NextSurveys(panelistID, routes))
}

// nextBuffers keep the next-survey answers' buffers between answers.
var nextBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// namedFirstReasons are the routing log's reasons of next-survey answers
// with up to maxNextLimit surveys, made once.
var namedFirstReasons = func() []string {
	out := make([]string, maxNextLimit+1)
	for n := range out {
		out[n] = namedFirstReason(n)
	}
	return out
}()

func namedFirstReason(n int) string {
	return fmt.Sprintf("Named first of %d surveys by the next-survey answer.", n)
}

// namedFirst is the routing log's reason of a next-survey answer naming
// n surveys.
func namedFirst(n int) string {
	if n < len(namedFirstReasons) {
		return namedFirstReasons[n]
	}
	return namedFirstReason(n)
}

// onPanelInOtherCase is the id differing from panelistID only in letter
// case that is on the panel (store.SameIDsOnFile), "" when none is.
func (h *Handler) onPanelInOtherCase(ctx context.Context, panelistID string) (string, error) {
	same, err := h.Store.SameIDsOnFile(ctx, panelistID)
	if err != nil {
		return "", err
	}
	for _, id := range same {
		switch _, err := h.Store.PanelOf(ctx, id); {
		case err == nil && id != panelistID:
			return id, nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return "", err
		}
	}
	return "", nil
}

// Redirect answers GET /r/{token}, which needs no sign-in: an invitation
// link decides where it goes when it is clicked (checks.Service.RouteToken).
// A bad, altered or expired token is a plain 404 that says nothing about
// why; a good one is recorded (queued: Routings) and redirected (302) to
// the chosen entry
// link, else to NoSurveyURL, else to a plain "no survey" page. It sets no
// cookie and is never cached.
func (h *Handler) Redirect(c echo.Context) error {
	ctx := c.Request().Context()
	c.Response().Header().Set("Referrer-Policy", "no-referrer") // the token stays here
	// The token is opened with the key it names, read with the
	// panelist's rows (checks.Service.RouteToken).
	routed, err := h.PanelistChecks.RouteToken(ctx, c.Param("token"), h.Now())
	if errors.Is(err, invite.ErrInvalid) {
		return Render(c, http.StatusNotFound, views.PanelistMessage("Not found", "This link is not valid."))
	}
	if err != nil {
		return err
	}
	h.Routings.Record(routed.RoutingDecision)
	switch {
	case routed.Link != "":
		return c.Redirect(http.StatusFound, routed.Link)
	case h.NoSurveyURL != "":
		return c.Redirect(http.StatusFound, h.NoSurveyURL)
	}
	return Render(c, http.StatusOK, views.PanelistMessage("No survey right now", "There is no survey for you right now. Thank you for your time; please try again later."))
}

// signer signs the invitations of a list with the store's signing key
// (made when there is none), valid for InviteTTL, linking to PublicURL.
func (h *Handler) signer(ctx context.Context) (invite.Signer, error) {
	now := h.Now()
	key, err := h.Store.SigningKey(ctx, now)
	if err != nil {
		return invite.Signer{}, err
	}
	return invite.NewSigner(key.SigningKey, now, h.InviteTTL, h.PublicURL)
}
