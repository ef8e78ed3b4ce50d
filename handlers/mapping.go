package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// The supplier's own profile codes and its mapping to the provider's ids:
// the API's imports and read, and the section of /profiling with its two
// upload forms.

// APIImportMapping answers POST /api/v1/profiles/mapping: the supplier's
// whole mapping as CSV (`code,value,questionId,answerId,country`),
// replacing the stored one; any other content type is a 415, refused
// before the body is read; 409 while no question library is stored.
func (h *Handler) APIImportMapping(c echo.Context) error {
	return apiImport(c, importRoute{noun: "mapping", command: "profiles mapping import", csvOnly: true}, func(ctx context.Context, body io.Reader, _ bool) (store.MappingImportReport, error) {
		report, err := h.Store.ImportMappingCSV(ctx, body)
		if errors.Is(err, store.ErrNoLibrary) {
			return report, echo.NewHTTPError(http.StatusConflict, noLibrary)
		}
		report.Errors = formats.NonNil(report.Errors)
		return report, err
	})
}

// noLibrary is what a mapping import says before the first refresh.
const noLibrary = "No question library is stored yet: a mapping is checked against it. Import the mapping after the first refresh."

// APIImportOwnProfiles answers POST /api/v1/profiles/own: profiles in
// the supplier's own codes as CSV (`panelistId,code,value`) or a JSON
// array of the same fields, translated by the stored mapping.
func (h *Handler) APIImportOwnProfiles(c echo.Context) error {
	return apiImport(c, importRoute{noun: "profiles", command: "profiles import --own"}, func(ctx context.Context, body io.Reader, asJSON bool) (report store.OwnProfileImportReport, err error) {
		if asJSON {
			report, err = h.Store.ImportOwnProfilesJSON(ctx, body)
		} else {
			report, err = h.Store.ImportOwnProfilesCSV(ctx, body)
		}
		report.Errors = formats.NonNil(report.Errors)
		return report, err
	})
}

// APIProfileMapping answers GET /api/v1/profiles/mapping: the stored
// mapping and the own codes no row covers.
func (h *Handler) APIProfileMapping(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := h.Store.ProfileMapping(ctx)
	if err != nil {
		return err
	}
	unmapped, err := h.Store.UnmappedCodes(ctx)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.NewMappingJSON(rows, unmapped))
}

// UploadMapping answers POST /profiling/mapping: the mapping import
// form. htmx gets the outcome alone; a plain form post gets /profiling
// with the outcome in its mapping section.
func (h *Handler) UploadMapping(c echo.Context) error {
	var result views.MappingImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file of the mapping to import.", func(r io.Reader) (err error) {
		result.Report, err = h.Store.ImportMappingCSV(c.Request().Context(), r)
		return err
	})
	if errors.Is(err, store.ErrNoLibrary) {
		status, rejected, err = http.StatusConflict, noLibrary, nil
	}
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	return pageOrFragment(c, status, views.MappingImportOutcome(result), func() (templ.Component, error) {
		return h.profilingUploadPage(c.Request().Context(), views.MappingView{MappingImport: &result})
	})
}

// UploadOwnProfiles answers POST /profiling/own: the import form of
// profiles in the supplier's own codes, rendered as UploadMapping.
func (h *Handler) UploadOwnProfiles(c echo.Context) error {
	var result views.OwnImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file of profiles in your codes to import.", func(r io.Reader) (err error) {
		result.Report, err = h.Store.ImportOwnProfilesCSV(c.Request().Context(), r)
		return err
	})
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	return pageOrFragment(c, status, views.OwnImportOutcome(result), func() (templ.Component, error) {
		return h.profilingUploadPage(c.Request().Context(), views.MappingView{OwnImport: &result})
	})
}
