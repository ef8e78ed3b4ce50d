package handlers

import (
	"io"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/views"
)

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
	return pageOrFragment(c, status, views.PanelImportOutcome(result), func() (templ.Component, error) {
		return h.panelistsPage(c.Request().Context(), views.PanelistsView{PanelImport: &result})
	})
}
