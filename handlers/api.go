package handlers

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// SubsampleJSON is one subsample in the JSON API and `fieldboard subsamples`.
type SubsampleJSON struct {
	SubsampleID  int64        `json:"subsampleId"`
	EventID      int64        `json:"eventId"`
	Name         string       `json:"name"`
	EventName    string       `json:"eventName,omitempty"`
	Status       string       `json:"status"`
	Country      string       `json:"country"`
	CPI          *float64     `json:"cpi"`
	Currency     string       `json:"currency,omitempty"`
	LOI          *float64     `json:"loi"`
	Incidence    *float64     `json:"incidence"`
	EPC          *float64     `json:"epc"`       // expected earnings per entrant, in Currency; null when none
	EPCSource    string       `json:"epcSource"` // field, estimate, or "" (see rules.ExpectedEarnings)
	Sendability  rules.State  `json:"sendability"`
	Reasons      []string     `json:"reasons"`
	OpenQuotas   int          `json:"openQuotas"`
	ClosedQuotas int          `json:"closedQuotas"`
	EntryLinks   []EntryLinks `json:"entryLinks"`
}

// ToJSON shapes a report for the JSON API.
func (r SubsampleReport) ToJSON() SubsampleJSON {
	return SubsampleJSON{
		SubsampleID: r.SubsampleID, EventID: r.EventID, Name: r.Name, EventName: r.EventName,
		Status: r.Status, Country: r.CountryCode, CPI: r.CPI, Currency: r.Currency,
		LOI: r.ExpectedLOI, Incidence: r.ExpectedIR, EPC: epcValue(r.EPC), EPCSource: string(r.EPC.Source),
		Sendability: r.Verdict.State, Reasons: nonNil(r.Verdict.Reasons),
		OpenQuotas: len(r.Verdict.Open), ClosedQuotas: len(r.Verdict.Closed),
		EntryLinks: nonNil(r.Links),
	}
}

// epcValue is the figure of e rounded to cents, or nil when there is none.
func epcValue(e rules.EPC) *float64 {
	if !e.Known() {
		return nil
	}
	v := math.Round(e.Value*100) / 100
	return &v
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ParseSubsampleFilter reads the status, sendability and country filters,
// rejecting a sendability that is not one of the states.
func ParseSubsampleFilter(status, sendability, country string) (SubsampleFilter, error) {
	f := SubsampleFilter{Status: strings.TrimSpace(status), Sendability: rules.State(strings.TrimSpace(sendability)), Country: strings.TrimSpace(country)}
	states := []rules.State{rules.Sendable, rules.Paused, rules.NotSendable, rules.Testing, rules.Unknown}
	if f.Sendability != "" && !slices.Contains(states, f.Sendability) {
		return f, fmt.Errorf("sendability %q is not one of sendable, paused, not_sendable, testing, unknown", sendability)
	}
	return f, nil
}

// APISubsamples answers GET /api/v1/subsamples.
func (h *Handler) APISubsamples(c echo.Context) error {
	filter, err := ParseSubsampleFilter(c.QueryParam("status"), c.QueryParam("sendability"), c.QueryParam("country"))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	reports, err := h.Checker.Subsamples(c.Request().Context(), filter)
	if err != nil {
		return err
	}
	out := make([]SubsampleJSON, len(reports))
	for i, r := range reports {
		out[i] = r.ToJSON()
	}
	return c.JSON(http.StatusOK, out)
}

// ReasonJSON is one reason a panelist may not enter a subsample.
type ReasonJSON struct {
	Kind   string                `json:"kind"` // surveys, researchTypes, categories, events, uniqueEvent, or rulesUnread
	Rule   string                `json:"rule,omitempty"`
	Reason string                `json:"reason"`
	Record *domain.HistoryRecord `json:"record,omitempty"`
}

// EligibilityJSON answers whether a panelist may enter a subsample.
type EligibilityJSON struct {
	PanelistID         string      `json:"panelistId"`
	SubsampleID        int64       `json:"subsampleId"`
	EventID            int64       `json:"eventId"`
	Name               string      `json:"name"`
	Currency           string      `json:"currency,omitempty"`
	EPC                *float64    `json:"epc"`
	EPCSource          string      `json:"epcSource"`
	Eligible           bool        `json:"eligible"`
	Sendability        rules.State `json:"sendability"`
	SendabilityReasons []string    `json:"sendabilityReasons"`
	// Quota is the panelist's quota verdict (fits, quota_full, off_target,
	// unknown); QuotaReasons explain one other than fits, where given.
	Quota        rules.QuotaVerdict `json:"quota"`
	QuotaReasons []string           `json:"quotaReasons,omitempty"`
	// Send: sendable, eligible and surely in an open cell (the send list).
	Send       bool         `json:"send"`
	MayEnter   bool         `json:"mayEnter"`
	Reasons    []ReasonJSON `json:"reasons"`
	EntryLinks []EntryLinks `json:"entryLinks,omitempty"`
}

func (p PanelistCheck) toJSON(panelistID string) EligibilityJSON {
	out := EligibilityJSON{
		PanelistID: panelistID, SubsampleID: p.SubsampleID, EventID: p.EventID, Name: p.Name,
		Currency: p.Currency, EPC: epcValue(p.EPC), EPCSource: string(p.EPC.Source),
		Eligible: p.Eligible(), Sendability: p.Verdict.State, SendabilityReasons: nonNil(p.Verdict.Reasons),
		Quota: p.Quota, QuotaReasons: p.QuotaWhy, Send: p.Send(),
		MayEnter: p.MayEnter(), Reasons: p.reasons(),
	}
	if out.MayEnter {
		out.EntryLinks = p.PanelistLinks
	}
	return out
}

// reasons are why the panelist is not eligible, never nil.
func (p PanelistCheck) reasons() []ReasonJSON {
	out := []ReasonJSON{}
	if p.RulesUnread != "" {
		out = append(out, ReasonJSON{Kind: "rulesUnread", Reason: p.RulesUnread})
	}
	for _, e := range p.Eligibility.Exclusions {
		out = append(out, exclusionJSON(e))
	}
	return out
}

// exclusionJSON is one exclusion as the API gives it.
func exclusionJSON(e rules.Exclusion) ReasonJSON {
	return ReasonJSON{Kind: e.Kind, Rule: e.Rule, Reason: e.Reason, Record: &e.Record}
}

// APIEligibility answers GET /api/v1/eligibility?panelistId=P&subsampleId=S.
func (h *Handler) APIEligibility(c echo.Context) error {
	panelistID, err := domain.ParsePanelistID(c.QueryParam("panelistId"))
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "panelistId: "+err.Error())
	}
	subsampleID, err := parseID("subsampleId", c.QueryParam("subsampleId"))
	if err != nil {
		return err
	}
	check, err := h.Checker.Eligibility(c.Request().Context(), panelistID, subsampleID)
	if err != nil {
		return subsampleNotFound(err, subsampleID)
	}
	return c.JSON(http.StatusOK, check.toJSON(panelistID))
}

// PanelistSurveysJSON lists the subsamples a panelist may enter now, with
// their live entry links filled for the panelist, and the others with why
// not. Handlers.Checker.PanelistSurveysJSON writes it.
type PanelistSurveysJSON struct {
	PanelistID string            `json:"panelistId"`
	MayEnter   []EligibilityJSON `json:"mayEnter"`
	Others     []EligibilityJSON `json:"others"`
}

// APIPanelistSurveys answers GET /api/v1/panelists/{id}/surveys.
func (h *Handler) APIPanelistSurveys(c echo.Context) error {
	raw, err := pathParam(c, "id")
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "panelist id: not a valid URL path segment")
	}
	panelistID, err := domain.ParsePanelistID(raw)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "panelist id: "+err.Error())
	}
	body, err := h.Checker.PanelistSurveysJSON(c.Request().Context(), panelistID)
	if err != nil {
		return err
	}
	defer ReleaseJSON(body)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body.Bytes())
}

// maxImportBytes bounds an uploaded history file.
const maxImportBytes = 1 << 30

// ImportErrorJSON is the answer to a rejected import: every bad line (up to
// 100) with its reason.
type ImportErrorJSON struct {
	Error    string            `json:"error"`
	BadLines int               `json:"badLines"`
	Lines    []store.LineError `json:"lines"`
}

// APIImportHistory answers POST /api/v1/history: a CSV file
// (Content-Type text/csv) or a JSON array of records (application/json),
// written atomically. The body is first spooled to a temporary file, so a
// slow upload never holds the database's single writer.
func (h *Handler) APIImportHistory(c echo.Context) error {
	contentType := c.Request().Header.Get(echo.HeaderContentType)
	if !strings.Contains(contentType, "csv") && !strings.Contains(contentType, "json") {
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the history as text/csv or application/json.")
	}
	spool, err := spoolUpload(c, "history")
	if err != nil {
		return err
	}
	defer spool.Close()
	report, err := h.importHistory(c, spool, contentType)
	if errors.Is(err, store.ErrInvalidImport) {
		return c.JSON(http.StatusBadRequest, ImportErrorJSON{Error: err.Error(), BadLines: report.BadLines, Lines: nonNil(report.Errors)})
	}
	if err != nil {
		return err
	}
	report.Errors = nonNil(report.Errors)
	return c.JSON(http.StatusOK, report)
}

// spoolUpload copies a request's body to a temporary file, removed when it
// is closed, so a slow upload never holds the database's single writer.
func spoolUpload(c echo.Context, what string) (*os.File, error) {
	spool, err := os.CreateTemp("", "fieldboard-"+what+"-*")
	if err != nil {
		return nil, err
	}
	os.Remove(spool.Name()) // gone once closed; the open file stays readable
	if _, err := io.Copy(spool, http.MaxBytesReader(c.Response(), c.Request().Body, maxImportBytes)); err != nil {
		spool.Close()
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than %d bytes; import it with fieldboard %s import.", maxImportBytes, what))
		}
		return nil, echo.NewHTTPError(http.StatusBadRequest, "The upload was interrupted: "+err.Error())
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		spool.Close()
		return nil, err
	}
	return spool, nil
}

func (h *Handler) importHistory(c echo.Context, body io.Reader, contentType string) (store.ImportReport, error) {
	ctx := c.Request().Context()
	if strings.Contains(contentType, "json") {
		return h.Store.ImportHistoryJSON(ctx, body, h.ProviderLocation)
	}
	return h.Store.ImportHistoryCSV(ctx, body, h.ProviderLocation)
}

// APIBulkEligibility answers POST /api/v1/subsamples/{id}/eligibility: a
// CSV of panelist ids in, `panelistId,eligible,quota,send,reasons` out.
func (h *Handler) APIBulkEligibility(c echo.Context) error {
	subsampleID, err := parseID("subsample id", c.Param("id"))
	if err != nil {
		return err
	}
	ids, lineErrs, err := ParsePanelistList(http.MaxBytesReader(c.Response(), c.Request().Body, maxImportBytes))
	if err != nil {
		return c.JSON(http.StatusBadRequest, ImportErrorJSON{Error: err.Error(), BadLines: len(lineErrs), Lines: nonNil(lineErrs)})
	}
	// Check the subsample before the first byte of CSV is written, so an
	// unknown or closed one still gets a 404.
	if _, _, err := h.Checker.liveTarget(c.Request().Context(), subsampleID); err != nil {
		return subsampleNotFound(err, subsampleID)
	}
	c.Response().Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="eligibility-%d.csv"`, subsampleID))
	return WriteBulkCSV(c.Request().Context(), h.Checker, subsampleID, ids, c.Response(), true)
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
	case errors.Is(err, ErrNotLive):
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Subsample %d is not live in the current snapshot, so it has no eligibility rules to check.", subsampleID))
	}
	return err
}

// subsamplesHeader is the header of the subsamples CSV.
var subsamplesHeader = []string{"subsampleId", "eventId", "name", "eventName", "status", "country", "cpi", "currency",
	"loi", "incidence", "epc", "epcSource", "sendability", "reasons", "openQuotas", "closedQuotas", "liveEntryLinks"}

// WriteSubsamplesCSV writes reports as CSV, the same fields as the JSON;
// entry links are "locale link" pairs joined with "; ".
func WriteSubsamplesCSV(w io.Writer, reports []SubsampleReport) error {
	out := newCSVWriter(w)
	if err := out.Write(slices.Clone(subsamplesHeader)...); err != nil {
		return err
	}
	for _, r := range reports {
		j := r.ToJSON()
		var links []string
		for _, l := range j.EntryLinks {
			if l.Live != "" {
				links = append(links, l.Locale+" "+l.Live)
			}
		}
		err := out.Write(itoa(j.SubsampleID), itoa(j.EventID), j.Name, j.EventName, j.Status, j.Country,
			optFloat(j.CPI, 2), j.Currency, optFloat(j.LOI, 0), optFloat(j.Incidence, 0), optFloat(j.EPC, 2), j.EPCSource, string(j.Sendability),
			strings.Join(j.Reasons, " "), strconv.Itoa(j.OpenQuotas), strconv.Itoa(j.ClosedQuotas), strings.Join(links, "; "))
		if err != nil {
			return err
		}
	}
	return out.Flush()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// optFloat formats an optional number with the given decimals (-1: as
// few as needed), "" when absent.
func optFloat(v *float64, decimals int) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', decimals, 64)
}

func optInt(v *int64) string {
	if v == nil {
		return ""
	}
	return itoa(*v)
}

func optTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
