package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// APISubsamples answers GET /api/v1/subsamples.
func (h *Handler) APISubsamples(c echo.Context) error {
	var raw [3]string
	for i, name := range []string{"status", "sendability", "country"} {
		var err error
		if raw[i], err = queryValue(c, name); err != nil {
			return err
		}
	}
	filter, err := checks.ParseSubsampleFilter(raw[0], raw[1], raw[2])
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	reports, err := h.SnapshotChecks.Subsamples(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.Subsamples(reports))
}

// APIEligibility answers GET /api/v1/eligibility?panelistId=P&subsampleId=S.
func (h *Handler) APIEligibility(c echo.Context) error {
	rawPanelist, err := queryValue(c, "panelistId")
	if err != nil {
		return err
	}
	panelistID, err := domain.ParsePanelistID(rawPanelist)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "panelistId: "+err.Error())
	}
	rawSubsample, err := queryValue(c, "subsampleId")
	if err != nil {
		return err
	}
	subsampleID, err := parseID("subsampleId", rawSubsample)
	if err != nil {
		return err
	}
	check, err := h.PanelistChecks.Eligibility(c.Request().Context(), panelistID, subsampleID)
	if err != nil {
		return subsampleNotFound(err, subsampleID)
	}
	return c.JSON(http.StatusOK, formats.Eligibility(check, panelistID))
}

// APIPanelistSurveys answers GET /api/v1/panelists/{id}/surveys: a page
// of the subsamples the panelist may enter, in the router's order
// (?limit=N, ?after=S, the next page's URL in the answer); with ?all=true
// every live subsample in one answer, with why not for the others.
func (h *Handler) APIPanelistSurveys(c echo.Context) error {
	panelistID, err := panelistParam(c)
	if err != nil {
		return err
	}
	all, err := boolParam(c, "all")
	if err != nil {
		return err
	}
	page, err := surveysPage(c, all)
	if err != nil {
		return err
	}
	// The panelist's rows and the version of the decisions they are
	// decided on, in one read.
	p, err := h.PanelistChecks.ReadPanelist(c.Request().Context(), panelistID)
	if err != nil {
		return err
	}
	d := p.Decisions()
	surveys, err := checks.Memo(d, "formats.SurveysWriter", func() (*formats.SurveysWriter, error) { return formats.NewSurveysWriter(d) })
	if err != nil {
		return err
	}
	var answer *formats.SurveysAnswer
	if all {
		answer, err = surveys.Write(p, panelistID)
	} else {
		answer, err = surveys.WritePage(p, panelistID, page)
	}
	if errors.Is(err, checks.ErrNotCandidate) {
		return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf(
			"after %d: subsample %d is not among the surveys panelist %q may be sent to now, so the list cannot go on after it; the data may have changed since the previous page. Ask for the first page again (leave out after).",
			page.After, page.After, panelistID))
	}
	if err != nil {
		return err
	}
	defer surveys.Release(answer)
	// As c.Blob writes it, in its two pieces: the megabyte of others with
	// all=true is never copied after the entries before it.
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	c.Response().WriteHeader(http.StatusOK)
	_, err = answer.WriteTo(c.Response())
	return err
}

// The page sizes of a panelist's surveys.
const (
	defaultSurveysLimit = 20
	maxSurveysLimit     = 100
)

// surveysPage reads the paging of a panelist's surveys, ?limit=N (1 to
// maxSurveysLimit) and ?after=S (a subsample id): a 400 when malformed,
// or given with all=true, whose answer is never paged. The next page's URL
// is this request's path with the same limit and after the page's last
// subsample.
func surveysPage(c echo.Context, all bool) (formats.SurveysPage, error) {
	page := formats.SurveysPage{Limit: defaultSurveysLimit}
	rawLimit, err := queryValue(c, "limit")
	if err != nil {
		return page, err
	}
	rawAfter, err := queryValue(c, "after")
	if err != nil {
		return page, err
	}
	if all && (rawLimit != "" || rawAfter != "") {
		return page, echo.NewHTTPError(http.StatusBadRequest,
			"limit and after page the subsamples the panelist may enter; all=true lists every live subsample in one answer, so leave them out with it")
	}
	if rawLimit != "" {
		if page.Limit, err = strconv.Atoi(rawLimit); err != nil || page.Limit < 1 || page.Limit > maxSurveysLimit {
			return page, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a whole number from 1 to %d", rawLimit, maxSurveysLimit))
		}
	}
	if rawAfter != "" {
		if page.After, err = parseID("after", rawAfter); err != nil {
			return page, err
		}
	}
	path := c.Request().URL.EscapedPath()
	page.Next = func(after int64) string {
		return path + "?" + url.Values{"limit": {strconv.Itoa(page.Limit)}, "after": {strconv.FormatInt(after, 10)}}.Encode()
	}
	return page, nil
}

// maxImportBytes bounds an uploaded history file.
const maxImportBytes = 1 << 30

// APIBulkEligibility answers POST /api/v1/subsamples/{id}/eligibility: a
// CSV of panelist ids in, `panelistId,eligible,quota,send,reasons` out.
// The whole list is checked for bad lines before any id is checked
// against the subsample (a bad line is a 400 listing them, nothing
// written), kept meanwhile in a temporary file (formats.PanelistList);
// the answer is then written as each chunk of ids is decided.
func (h *Handler) APIBulkEligibility(c echo.Context) error {
	subsampleID, err := parseID("subsample id", c.Param("id"))
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// An unknown or closed subsample is a 404 before the list is read.
	if err := h.SubsampleChecks.MustBeLive(ctx, subsampleID); err != nil {
		return subsampleNotFound(err, subsampleID)
	}
	ids, lineErrs, err := formats.ParsePanelistList(http.MaxBytesReader(c.Response(), c.Request().Body, maxImportBytes))
	if errors.Is(err, formats.ErrInvalidList) {
		return c.JSON(http.StatusBadRequest, ImportErrorJSON{Error: err.Error(), BadLines: len(lineErrs), Lines: formats.NonNil(lineErrs)})
	}
	if err != nil {
		return err
	}
	defer ids.Close()
	snapshot, err := h.subsampleSnapshotTime(ctx, subsampleID)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	c.Response().Header().Set(echo.HeaderContentDisposition, formats.Attachment(formats.FileName("eligibility", snapshot, "subsample", formats.Int(subsampleID))))
	return subsampleNotFound(formats.WriteBulkCSV(ctx, h.SendChecks, subsampleID, ids, toClient(c), true), subsampleID)
}

// panelistParam is the panelist id of the path's {id}.
func panelistParam(c echo.Context) (string, error) {
	raw, err := pathParam(c, "id")
	if err != nil {
		return "", echo.NewHTTPError(http.StatusBadRequest, "panelist id: not a valid URL path segment")
	}
	id, err := domain.ParsePanelistID(raw)
	if err != nil {
		return "", echo.NewHTTPError(http.StatusBadRequest, "panelist id: "+err.Error())
	}
	return id, nil
}

// boolParam reads an optional true/false query parameter; absent is false.
func boolParam(c echo.Context, name string) (bool, error) {
	raw, err := queryValue(c, name)
	if err != nil {
		return false, err
	}
	switch raw {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	default:
		return false, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("%s %q is neither true nor false", name, raw))
	}
}

// parseID parses a positive integer id from a request.
func parseID(name, raw string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || id <= 0 {
		return 0, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("%s %q is not a positive whole number", name, raw))
	}
	return id, nil
}

// subsampleNotFound turns the errors of an unknown or closed subsample
// into a 404 that says which; other errors pass through.
func subsampleNotFound(err error, subsampleID int64) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Subsample %d is not in the current snapshot.", subsampleID))
	case errors.Is(err, checks.ErrNotLive):
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Subsample %d is not live in the current snapshot, so it has no eligibility rules to check.", subsampleID))
	}
	return err
}
