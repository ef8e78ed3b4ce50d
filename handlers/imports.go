package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views/formats"
)

// ImportErrorJSON is the answer to a rejected import: every bad line (up to
// 100) with its reason.
type ImportErrorJSON struct {
	Error    string            `json:"error"`
	BadLines int               `json:"badLines"`
	Lines    []store.LineError `json:"lines"`
}

// importReport is what the store's imports report: the bad lines listed
// and how many there were.
type importReport interface {
	BadLinesOf() ([]store.LineError, int)
}

// importRoute is what apiImport says of one API import: noun names the
// data in a 415's message ("Send the panel as ..."), command the CLI
// command a too-large file should use ("panelists import"), and csvOnly
// marks data that has no JSON form.
type importRoute struct {
	noun, command string
	csvOnly       bool
}

// apiImport is the one path of the API's imports (history, profiles,
// panel, mapping): the body is CSV or JSON by its Content-Type (CSV only
// where the route says so), refused with a 415 before a byte is read
// otherwise, spooled to a temporary file first so a slow upload never
// holds the database's single writer, then written all or nothing. A
// rejected file is a 400 listing its bad lines; a written one is a 200
// with the report.
func apiImport[R importReport](c echo.Context, route importRoute, run func(ctx context.Context, body io.Reader, asJSON bool) (R, error)) error {
	contentType := c.Request().Header.Get(echo.HeaderContentType)
	asJSON := strings.Contains(contentType, "json")
	switch {
	case route.csvOnly && !strings.Contains(contentType, "csv"):
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the "+route.noun+" as text/csv.")
	case !asJSON && !strings.Contains(contentType, "csv"):
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the "+route.noun+" as text/csv or application/json.")
	}
	spool, err := spoolUpload(c, route.command)
	if err != nil {
		return err
	}
	defer spool.Close()
	report, err := run(c.Request().Context(), spool, asJSON && !route.csvOnly)
	if errors.Is(err, store.ErrInvalidImport) {
		lines, bad := report.BadLinesOf()
		return c.JSON(http.StatusBadRequest, ImportErrorJSON{Error: err.Error(), BadLines: bad, Lines: formats.NonNil(lines)})
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, report)
}

// spoolUpload copies a request's body to a temporary file, removed when it
// is closed, so a slow upload never holds the database's single writer; a
// body too large says to import the file with the CLI's command.
func spoolUpload(c echo.Context, command string) (*os.File, error) {
	spool, err := os.CreateTemp("", "fieldboard-upload-*")
	if err != nil {
		return nil, err
	}
	os.Remove(spool.Name()) // gone once closed; the open file stays readable
	if _, err := io.Copy(spool, http.MaxBytesReader(c.Response(), c.Request().Body, maxImportBytes)); err != nil {
		spool.Close()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than %d bytes; import it with fieldboard %s.", maxImportBytes, command))
		}
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The upload was interrupted: "+err.Error())
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		spool.Close()
		return nil, err
	}
	return spool, nil
}

// APIImportHistory answers POST /api/v1/history: the respondent history as
// CSV or a JSON array of records, its dates in the provider's time zone.
func (h *Handler) APIImportHistory(c echo.Context) error {
	return apiImport(c, importRoute{noun: "history", command: "history import"}, func(ctx context.Context, body io.Reader, asJSON bool) (report store.ImportReport, err error) {
		if asJSON {
			report, err = h.Store.ImportHistoryJSON(ctx, body, h.ProviderLocation)
		} else {
			report, err = h.Store.ImportHistoryCSV(ctx, body, h.ProviderLocation)
		}
		report.Errors = formats.NonNil(report.Errors)
		return report, err
	})
}

// APIImportProfiles answers POST /api/v1/profiles: panelist profiles as CSV
// (`panelistId,questionId,value`) or a JSON array of the same fields.
func (h *Handler) APIImportProfiles(c echo.Context) error {
	return apiImport(c, importRoute{noun: "profiles", command: "profiles import"}, func(ctx context.Context, body io.Reader, asJSON bool) (store.ProfileImportReport, error) {
		report, err := h.importProfiles(ctx, body, asJSON)
		report.Errors, report.UnknownQuestionIDs = formats.NonNil(report.Errors), formats.NonNil(report.UnknownQuestionIDs)
		return report, err
	})
}

// APIImportPanel answers POST /api/v1/panelists: the panel, each
// panelist's country and locale, as CSV (`panelistId,country,locale`) or a
// JSON array of the same fields.
func (h *Handler) APIImportPanel(c echo.Context) error {
	return apiImport(c, importRoute{noun: "panel", command: "panelists import"}, func(ctx context.Context, body io.Reader, asJSON bool) (report store.PanelImportReport, err error) {
		if asJSON {
			report, err = h.Store.ImportPanelJSON(ctx, body)
		} else {
			report, err = h.Store.ImportPanelCSV(ctx, body)
		}
		report.Errors = formats.NonNil(report.Errors)
		return report, err
	})
}
