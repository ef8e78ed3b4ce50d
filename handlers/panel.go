package handlers

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// APIImportPanel answers POST /api/v1/panelists: the panel, each
// panelist's country and locale, as CSV (`panelistId,country,locale`,
// Content-Type text/csv) or a JSON array of the same fields, written all
// or nothing. The body is spooled first, as the other imports' are.
func (h *Handler) APIImportPanel(c echo.Context) error {
	contentType := c.Request().Header.Get(echo.HeaderContentType)
	if !strings.Contains(contentType, "csv") && !strings.Contains(contentType, "json") {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the panel as text/csv or application/json.")
	}
	spool, err := spoolUpload(c, "panelists")
	if err != nil {
		return err
	}
	defer spool.Close()
	ctx := c.Request().Context()
	var report store.PanelImportReport
	if strings.Contains(contentType, "json") {
		report, err = h.Store.ImportPanelJSON(ctx, spool)
	} else {
		report, err = h.Store.ImportPanelCSV(ctx, spool)
	}
	if errors.Is(err, store.ErrInvalidImport) {
		return c.JSON(http.StatusBadRequest, ImportErrorJSON{Error: err.Error(), BadLines: report.BadLines, Lines: formats.NonNil(report.Errors)})
	}
	if err != nil {
		return err
	}
	report.Errors = formats.NonNil(report.Errors)
	return c.JSON(http.StatusOK, report)
}

// UploadPanel answers POST /panelists/panel: the panel import form. htmx
// gets the outcome alone; a plain form post gets the page.
func (h *Handler) UploadPanel(c echo.Context) error {
	var result views.PanelImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file of the panel to import.", func(r io.Reader) (err error) {
		result.Report, err = h.Store.ImportPanelCSV(c.Request().Context(), r)
		return err
	})
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	if wantsFragment(c) {
		return Render(c, status, views.PanelImportOutcome(result))
	}
	return h.panelistsPage(c, status, views.PanelistsView{PanelImport: &result})
}
