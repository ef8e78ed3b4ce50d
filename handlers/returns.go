package handlers

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// ReturnChecks records the returns (*checks.Service).
type ReturnChecks interface {
	Return(ctx context.Context, r checks.Return) (checks.ReturnResult, error)
	RefusedReturns() map[string]int64
}

// ReturnAddress answers GET /return/{status}?id=ID, which needs no
// sign-in: a respondent returned by the provider with a status (complete,
// screenout, quotafull; rules.ReturnStatuses). The return is recorded
// against the panelist's open send (checks.Service.Return); one other than
// a complete is sent on (302) to the survey the router chooses now,
// recorded in the routing log, else to NoSurveyURL, else to a plain page;
// a complete goes to CompleteURL, else a plain page of thanks. A return
// refused (forged, late, twice) is not recorded, and the respondent gets
// the same end as one with no survey. An unknown status is a 404; a
// missing or bad id a 400.
func (h *Handler) ReturnAddress(c echo.Context) error {
	c.Response().Header().Set("Referrer-Policy", "no-referrer")
	statusID, ok := rules.ReturnStatuses[c.Param("status")]
	if !ok {
		return Render(c, http.StatusNotFound, views.PanelistMessage("Not found", "This address is not one a survey returns to."))
	}
	id, err := domain.ParsePanelistID(c.QueryParam("id"))
	if err != nil {
		return Render(c, http.StatusBadRequest, views.PanelistMessage("Not a valid return", "This return address carries no valid id."))
	}
	req := c.Request()
	res, err := h.ReturnChecks.Return(req.Context(), checks.Return{PanelistID: id, StatusID: statusID, At: h.Now(), Via: domain.ReturnByRedirect,
		Address: req.URL.EscapedPath() + "?" + req.URL.RawQuery})
	if err != nil {
		return err
	}
	if res.Refused == "" && statusID != domain.ReturnComplete {
		h.Routings.Record(res.Next.RoutingDecision)
	}
	switch {
	case res.Next.Link != "":
		return c.Redirect(http.StatusFound, res.Next.Link)
	case statusID == domain.ReturnComplete && h.CompleteURL != "":
		return c.Redirect(http.StatusFound, h.CompleteURL)
	case statusID == domain.ReturnComplete:
		return Render(c, http.StatusOK, views.PanelistMessage("Thank you", "Thank you for taking part."))
	case h.NoSurveyURL != "":
		return c.Redirect(http.StatusFound, h.NoSurveyURL)
	}
	return Render(c, http.StatusOK, views.PanelistMessage("No survey right now", "There is no survey for you right now. Thank you for your time; please try again later."))
}

// maxPostedReturns bounds the returns of one POST /api/v1/returns, and
// maxReturnsBody its body: room for as many.
const (
	maxPostedReturns = 10_000
	maxReturnsBody   = 2 << 20
)

// APIReturns answers POST /api/v1/returns: returns posted by the
// provider server to server, signed in with a bearer token instead of a
// signature, as CSV (header "panelistId,status") or a JSON array of
// {"panelistId", "status"}; status is a name (complete, screenout,
// quotafull) or its return code (3, 82, 83). Each is recorded as a return
// address's would be, at the time it arrives, in the order posted, and
// answered with what became of it and where the respondent goes next. A
// body that does not parse is a 400 naming the first bad row, before any
// is recorded.
func (h *Handler) APIReturns(c echo.Context) error {
	contentType := c.Request().Header.Get(echo.HeaderContentType)
	body := http.MaxBytesReader(c.Response(), c.Request().Body, maxReturnsBody)
	var posted []formats.PostedReturn
	var err error
	switch {
	case strings.Contains(contentType, "json"):
		posted, err = decodeReturnsJSON(body)
	case strings.Contains(contentType, "csv"):
		posted, err = decodeReturnsCSV(body)
	default:
		return echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the returns as text/csv or application/json.")
	}
	if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The returns of one request are at most %d bytes: send them in several.", maxReturnsBody))
	}
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	answers := make([]formats.ReturnAnswer, 0, len(posted))
	for _, p := range posted {
		res, err := h.ReturnChecks.Return(c.Request().Context(), checks.Return{PanelistID: p.PanelistID, StatusID: p.StatusID, At: h.Now(), Via: domain.ReturnByPost})
		if err != nil {
			return err
		}
		if res.Refused == "" && p.StatusID != domain.ReturnComplete {
			h.Routings.Record(res.Next.RoutingDecision)
		}
		answers = append(answers, formats.NewReturnAnswer(p, res))
	}
	return c.JSON(http.StatusOK, answers)
}

// parsePostedReturn checks one posted return's fields; row names it in
// the error ("row 3").
func parsePostedReturn(row, id, status string) (formats.PostedReturn, error) {
	panelistID, err := domain.ParsePanelistID(id)
	if err != nil {
		return formats.PostedReturn{}, fmt.Errorf("%s: panelistId: %w", row, err)
	}
	status = strings.TrimSpace(status)
	statusID, ok := rules.ReturnStatuses[strings.ToLower(status)]
	if !ok {
		n, err := strconv.ParseInt(status, 10, 64)
		if err != nil || rules.ReturnStatusName(n) == "" {
			return formats.PostedReturn{}, fmt.Errorf("%s: status %q is not complete, screenout, quotafull or 3, 82, 83", row, status)
		}
		statusID = n
	}
	return formats.PostedReturn{PanelistID: panelistID, StatusID: statusID}, nil
}

// decodeReturnsJSON reads a JSON array of posted returns.
func decodeReturnsJSON(r io.Reader) ([]formats.PostedReturn, error) {
	var raw []struct {
		PanelistID string          `json:"panelistId"`
		Status     json.RawMessage `json:"status"`
	}
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("the body is not a JSON array of returns: %w", err)
	}
	if len(raw) > maxPostedReturns {
		return nil, fmt.Errorf("%d returns in one request: send at most %d", len(raw), maxPostedReturns)
	}
	out := make([]formats.PostedReturn, 0, len(raw))
	for i, x := range raw {
		status := strings.Trim(string(x.Status), `"`)
		p, err := parsePostedReturn(fmt.Sprintf("element %d", i+1), x.PanelistID, status)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// decodeReturnsCSV reads a CSV of posted returns: the header
// "panelistId,status", then a return per line.
func decodeReturnsCSV(r io.Reader) ([]formats.PostedReturn, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 2
	header, err := cr.Read()
	if err != nil || strings.TrimPrefix(header[0], "\ufeff") != "panelistId" || header[1] != "status" {
		return nil, errors.New(`the first line must be the header "panelistId,status"`)
	}
	var out []formats.PostedReturn
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if len(out) == maxPostedReturns {
			return nil, fmt.Errorf("more than %d returns in one request", maxPostedReturns)
		}
		p, err := parsePostedReturn(fmt.Sprintf("line %d", line), rec[0], rec[1])
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
}
