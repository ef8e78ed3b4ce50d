package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// HoldChecks is what the held panelists' page, the panelist page and the
// hold and release forms ask of the checks service.
type HoldChecks interface {
	HeldPanelists(ctx context.Context) ([]checks.HeldPanelist, error)
	HoldsOf(ctx context.Context, panelistID string) (checks.PanelistHolds, error)
	HoldPanelist(ctx context.Context, panelistID string, until *time.Time, by, why string) error
	ReleasePanelist(ctx context.Context, panelistID, by, why string) error
	HoldPolicy() rules.QualityHoldPolicy
}

// HeldPanelists answers GET /panelists/held and /panelists/held.csv: the
// panelists held now, by hand or for quality, and the form to hold one.
func (h *Handler) HeldPanelists(c echo.Context) error {
	if wantsCSV(c) {
		held, err := h.PanelistChecks.HeldPanelists(c.Request().Context())
		if err != nil {
			return err
		}
		return h.sendCSV(c, formats.FileName("held-panelists", h.Now()), func(w *formats.Writer) error {
			return formats.WriteHeldCSV(w, held, h.csvTime)
		})
	}
	return h.renderHeld(c, http.StatusOK, views.HeldView{})
}

// APIHeldPanelists answers GET /api/v1/panelists/held.
func (h *Handler) APIHeldPanelists(c echo.Context) error {
	held, err := h.PanelistChecks.HeldPanelists(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.HeldList(held))
}

// renderHeld renders the held page with v's message, error and form.
func (h *Handler) renderHeld(c echo.Context, status int, v views.HeldView) error {
	held, err := h.PanelistChecks.HeldPanelists(c.Request().Context())
	if err != nil {
		return err
	}
	v.Page = h.page("Held panelists", "panelists")
	v.Held = held
	v.ByHand, v.ForQuality = formats.HeldCounts(held)
	v.Policy = holdPolicyWords(h.PanelistChecks.HoldPolicy())
	return Render(c, status, views.HeldPage(v))
}

// holdPolicyWords says when the quality hold holds.
func holdPolicyWords(p rules.QualityHoldPolicy) string {
	if p.Off() {
		return "the quality hold is off"
	}
	return fmt.Sprintf("%d reversed completes in %d days", p.Reversals, p.Days)
}

// HoldPanelist answers POST /panelists/held: the panelist of the form is
// held by hand, until its time (in the dashboard's time zone, or RFC
// 3339) or until released, by the viewer for its why. A hold refused
// (checks.ErrBadRule) is a 422 with why, the form keeping what was typed.
func (h *Handler) HoldPanelist(c echo.Context) error {
	ctx := c.Request().Context()
	form := views.HoldForm{PanelistID: strings.TrimSpace(c.FormValue("panelist")), Until: strings.TrimSpace(c.FormValue("until")), Why: c.FormValue("why")}
	until, err := h.parseUntil(form.Until)
	if err == nil {
		err = h.PanelistChecks.HoldPanelist(ctx, form.PanelistID, until, views.ViewerOf(ctx).Name, form.Why)
	}
	if errors.Is(err, checks.ErrBadRule) {
		return h.renderHeld(c, http.StatusUnprocessableEntity, views.HeldView{Err: "Not held: " + strings.TrimPrefix(err.Error(), checks.ErrBadRule.Error()+": ") + ".", Form: form})
	}
	if err != nil {
		return err
	}
	return h.afterHold(c, form.PanelistID, "Panelist "+form.PanelistID+" is held by hand.")
}

// ReleasePanelist answers POST /panelists/held/{id}/release: the
// panelist is released by hand (from a hold by hand, and from the
// quality hold the reversals until now made), by the viewer for the
// form's why, once the form's confirm box is ticked.
func (h *Handler) ReleasePanelist(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := pathParam(c, "id")
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The panelist id is not a valid path.")
	}
	if c.FormValue("confirm") != "yes" {
		err = fmt.Errorf("%w: tick the box to confirm the release", checks.ErrBadRule)
	} else {
		err = h.PanelistChecks.ReleasePanelist(ctx, id, views.ViewerOf(ctx).Name, c.FormValue("why"))
	}
	if errors.Is(err, checks.ErrBadRule) {
		return h.renderHeld(c, http.StatusUnprocessableEntity, views.HeldView{Err: "Not released: " + strings.TrimPrefix(err.Error(), checks.ErrBadRule.Error()+": ") + "."})
	}
	if err != nil {
		return err
	}
	return h.afterHold(c, id, "Panelist "+id+" is released by hand: they may be sent again.")
}

// afterHold answers a hold or release done: back to the panelist's page
// when the form came from it, else the held page with message.
func (h *Handler) afterHold(c echo.Context, panelistID, message string) error {
	if c.FormValue("from") == "panelist" {
		return c.Redirect(http.StatusSeeOther, "/panelists?panelist="+url.QueryEscape(panelistID))
	}
	return h.renderHeld(c, http.StatusOK, views.HeldView{Message: message})
}

// parseUntil reads a hold's end: empty for none, a datetime-local value
// (2026-12-08T09:00) in the dashboard's time zone, or RFC 3339.
func (h *Handler) parseUntil(raw string) (*time.Time, error) {
	if raw == "" {
		return nil, nil
	}
	loc := h.Location
	if loc == nil {
		loc = time.UTC
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, raw, loc); err == nil {
			return &t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339, raw); err == nil {
		return &t, nil
	}
	return nil, fmt.Errorf("%w: until %q is not a date and time (2026-12-08T09:00)", checks.ErrBadRule, raw)
}
