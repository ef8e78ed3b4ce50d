package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// APIImportProfiles answers POST /api/v1/profiles: panelist profiles as CSV
// (`panelistId,questionId,value`, Content-Type text/csv) or a JSON array of
// the same fields, written all or nothing.
func (h *Handler) APIImportProfiles(c echo.Context) error {
	contentType := c.Request().Header.Get(echo.HeaderContentType)
	if !strings.Contains(contentType, "csv") && !strings.Contains(contentType, "json") {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the profiles as text/csv or application/json.")
	}
	spool, err := spoolUpload(c, "profiles")
	if err != nil {
		return err
	}
	defer spool.Close()
	report, err := h.importProfiles(c.Request().Context(), spool, strings.Contains(contentType, "json"))
	if errors.Is(err, store.ErrInvalidImport) {
		return c.JSON(http.StatusBadRequest, ImportErrorJSON{Error: err.Error(), BadLines: report.BadLines, Lines: formats.NonNil(report.Errors)})
	}
	if err != nil {
		return err
	}
	report.Errors, report.UnknownQuestionIDs = formats.NonNil(report.Errors), formats.NonNil(report.UnknownQuestionIDs)
	return c.JSON(http.StatusOK, report)
}

// importProfiles imports a profile file, counting the questions that the
// stored library does not know (all are known while no library is stored).
func (h *Handler) importProfiles(ctx context.Context, body io.Reader, asJSON bool) (store.ProfileImportReport, error) {
	known, err := h.Store.KnownQuestions(ctx)
	if err != nil {
		return store.ProfileImportReport{}, err
	}
	if asJSON {
		return h.Store.ImportProfilesJSON(ctx, body, known)
	}
	return h.Store.ImportProfilesCSV(ctx, body, known)
}

// UploadProfiles answers POST /panelists/profiles: the profile import
// form. htmx gets the outcome alone; a plain form post gets the page.
func (h *Handler) UploadProfiles(c echo.Context) error {
	var result views.ProfileImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file of profiles to import.", func(r io.Reader) (err error) {
		result.Report, err = h.importProfiles(c.Request().Context(), r, false)
		return err
	})
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	if wantsFragment(c) {
		return Render(c, status, views.ProfileImportOutcome(result))
	}
	return h.panelistsPage(c, status, views.PanelistsView{ProfileImport: &result})
}
