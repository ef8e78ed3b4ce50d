package handlers

import (
	"context"
	"io"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
)

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
	return pageOrFragment(c, status, views.ProfileImportOutcome(result), func() (templ.Component, error) {
		return h.panelistsPage(c.Request().Context(), views.PanelistsView{ProfileImport: &result})
	})
}
