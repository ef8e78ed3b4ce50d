package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// PanelistChecks is what a panelist's surveys, their eligibility and the
// router ask of the checks service.
type PanelistChecks interface {
	Eligibility(ctx context.Context, panelistID string, subsampleID int64) (checks.PanelistCheck, error)
	PanelistSurveys(ctx context.Context, panelistID string) ([]checks.PanelistCheck, error)
	NextSurveys(ctx context.Context, panelistID string, limit int) ([]checks.Route, error)
	// PreviewNextSurveys is NextSurveys looked at, not sent: nothing is
	// counted under our caps.
	PreviewNextSurveys(ctx context.Context, panelistID string, limit int) ([]checks.Route, error)
	// RouteToken is checks.Service.Route for a click's token, opened at
	// now: a token that is not valid is invite.ErrInvalid.
	RouteToken(ctx context.Context, token string, now time.Time) (checks.Routed, error)
	// ReadPanelist reads the panelist for a surveys answer
	// (formats.SurveysWriter), with the decisions it is decided on.
	ReadPanelist(ctx context.Context, panelistID string) (*checks.Panelist, error)
	// HoldChecks are the holds and releases by hand and the held list.
	HoldChecks
}

// Panelists answers GET /panelists: the forms, and with ?panelist=P the
// lookup of one panelist. An htmx request gets the page too; the form
// selects the lookup section from it.
func (h *Handler) Panelists(c echo.Context) error {
	ctx := c.Request().Context()
	var v views.PanelistsView
	status := http.StatusOK
	if raw := filterValue(c.QueryParams(), "panelist"); raw != "" {
		v.LookupID = raw
		id, err := domain.ParsePanelistID(raw)
		switch {
		case err != nil && wantsCSV(c):
			return echo.NewHTTPError(http.StatusBadRequest, "Panelist id "+err.Error()+".")
		case err != nil:
			v.LookupErr, status = "Panelist id "+err.Error()+".", http.StatusBadRequest
		case wantsCSV(c):
			return h.lookupCSV(c, id)
		default:
			if v.Lookup, err = h.lookup(ctx, id); err != nil {
				return err
			}
		}
	} else if wantsCSV(c) {
		return echo.NewHTTPError(http.StatusBadRequest, "Name a panelist: /panelists.csv?panelist=P.")
	}
	page, err := h.panelistsPage(ctx, v)
	if err != nil {
		return err
	}
	return Render(c, status, page)
}

// lookup checks one panelist against every live subsample. An id on file
// nowhere (no panel row, profile or history record) is answered as not on
// the panel, with no check, and with the id in another letter case when
// one is on file.
func (h *Handler) lookup(ctx context.Context, panelistID string) (*views.LookupResult, error) {
	same, err := h.Store.SameIDsOnFile(ctx, panelistID)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(same, panelistID) {
		r := &views.LookupResult{PanelistID: panelistID, Unknown: true}
		if len(same) > 0 {
			r.DidYouMean = same[0]
		}
		return r, nil
	}
	checked, err := h.PanelistChecks.PanelistSurveys(ctx, panelistID)
	if err != nil {
		return nil, err
	}
	history, err := h.Store.HistoryOf(ctx, panelistID)
	if err != nil {
		return nil, err
	}
	r := &views.LookupResult{PanelistID: panelistID, History: len(history)}
	if r.Completes, err = h.Outcomes.Panelist(ctx, panelistID); err != nil {
		return nil, err
	}
	if r.Holds, err = h.PanelistChecks.HoldsOf(ctx, panelistID); err != nil {
		return nil, err
	}
	if r.Sessions, err = h.sessions(ctx, panelistID); err != nil {
		return nil, err
	}
	r.SessionLimit = sessionLimit
	// The router's pick: the next-survey answer's first, from the one
	// function that decides it (looked at, not recorded as a send).
	switch routes, err := h.PanelistChecks.PreviewNextSurveys(ctx, panelistID, 1); {
	case err == nil && len(routes) > 0:
		r.Pick = &views.RouterPick{SubsampleID: routes[0].SubsampleID, Name: routes[0].Name, Currency: routes[0].Currency}
	case err != nil && !errors.Is(err, checks.ErrNotOnPanel):
		return nil, err
	}
	switch m, err := h.Store.PanelOf(ctx, panelistID); {
	case err == nil:
		r.Country, r.Locale = m.Country, m.Locale
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	for _, pc := range checked {
		sc := views.SurveyCheck{
			SubsampleID: pc.SubsampleID, EventID: pc.EventID, Name: pc.Name, Country: pc.CountryCode,
			State: pc.Verdict.State, StateWhy: pc.Verdict.Reasons, Eligible: pc.Eligible(), Quota: pc.Quota, EPC: pc.EPC,
		}
		if pc.Capped != "" {
			sc.StateWhy = append(slices.Clip(sc.StateWhy), pc.Capped)
		}
		if cpi := rules.KnownCPI(pc.CPI, pc.Currency); cpi != nil {
			sc.CPI = views.Money(*cpi, pc.Currency)
		}
		if pc.MayEnter() {
			for _, l := range pc.PanelistLinks {
				if l.Live != "" {
					sc.Links = append(sc.Links, views.LinkView{Locale: l.Locale, URL: l.Live})
				}
			}
			sc.Why = pc.QuotaWhy // an unknown verdict says which answer is missing
			r.MayEnter = append(r.MayEnter, sc)
			continue
		}
		sc.Why = append(sc.Why, pc.Verdict.Reasons...)
		if !pc.Panel.Fits {
			sc.Why = append(sc.Why, pc.Panel.Reason)
		}
		if pc.RulesUnread != "" {
			sc.Why = append(sc.Why, pc.RulesUnread)
		}
		for _, e := range pc.Eligibility.Exclusions {
			sc.Why = append(sc.Why, e.Reason)
		}
		sc.Why = append(sc.Why, pc.QuotaWhy...)
		sc.Kind = notNowKind(pc)
		r.Others = append(r.Others, sc)
	}
	r.NotNow = views.GroupNotNow(r.Others)
	return r, nil
}

// sessionLimit is how many of a panelist's newest decisions their page
// groups into sessions.
const sessionLimit = 20

// sessions are the panelist's newest decisions grouped into sessions,
// each return marked unconfirmed while no import has replaced its record.
func (h *Handler) sessions(ctx context.Context, panelistID string) ([]views.SessionChain, error) {
	decisions, _, err := h.Store.Routings(ctx, store.RoutingFilter{PanelistID: panelistID}, sessionLimit, 0)
	if err != nil {
		return nil, err
	}
	reported, err := h.Store.UnconfirmedReturnsOf(ctx, panelistID)
	if err != nil {
		return nil, err
	}
	unconfirmed := make(map[int64]bool, len(reported))
	for _, r := range reported {
		unconfirmed[r.DecisionID] = true
	}
	return views.GroupSessions(decisions, unconfirmed), nil
}

// notNowKind is the first of the reasons a panelist may not enter a
// subsample now, as a views.NotNowKind, in this order: their country or
// language (a reason that lasts), the subsample's sendability, its rules
// unread, their history, their quota cells. It reads the decision, never
// changes it.
func notNowKind(pc checks.PanelistCheck) string {
	switch {
	case !pc.Panel.Fits:
		return views.KindPanel + pc.Panel.Misfit
	case !rules.MayEnter(pc.Verdict.State, true, rules.QuotaFits):
		return views.KindState + string(pc.Verdict.State)
	case pc.RulesUnread != "":
		return views.KindRulesUnread
	case len(pc.Eligibility.Exclusions) > 0:
		return views.KindExcluded + pc.Eligibility.Exclusions[0].Kind
	}
	return views.KindQuota + string(pc.Quota)
}

// bulkForm lists the live subsamples for the bulk check's picker.
func (h *Handler) bulkForm(ctx context.Context, selected int64) (views.BulkForm, error) {
	rows, err := h.Store.LiveRows(ctx)
	if err != nil {
		return views.BulkForm{}, err
	}
	f := views.BulkForm{Selected: selected}
	for _, r := range rows {
		f.Subsamples = append(f.Subsamples, views.SubsampleOption{ID: r.SubsampleID, Label: fmt.Sprintf("%d %s (%s)", r.SubsampleID, r.Name, r.Status)})
	}
	return f, nil
}

// UploadHistory answers POST /panelists/history: the history import form.
// htmx gets the outcome alone; a plain form post gets the whole page.
func (h *Handler) UploadHistory(c echo.Context) error {
	var result views.ImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file to import.", func(r io.Reader) (err error) {
		result.Report, err = h.Store.ImportHistoryCSV(c.Request().Context(), r, h.ProviderLocation)
		return err
	})
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	return pageOrFragment(c, status, views.ImportOutcome(result), func() (templ.Component, error) {
		return h.panelistsPage(c.Request().Context(), views.PanelistsView{Import: &result})
	})
}

// importForm runs imp on the file of an upload form. It returns the
// file's name, the status to answer, and the sentence to show when there
// is no file or imp rejected it (store.ErrInvalidImport); other errors
// are returned as they are.
func importForm(c echo.Context, noFile string, imp func(io.Reader) error) (name string, status int, rejected string, err error) {
	file, err := c.FormFile("file")
	if err != nil {
		return "", http.StatusBadRequest, noFile, nil
	}
	f, err := file.Open()
	if err != nil {
		return file.Filename, 0, "", err
	}
	defer f.Close()
	switch err := imp(f); {
	case errors.Is(err, store.ErrInvalidImport):
		return file.Filename, http.StatusUnprocessableEntity, err.Error() + ".", nil
	case err != nil:
		return file.Filename, 0, "", err
	}
	return file.Filename, http.StatusOK, "", nil
}

// panelistsPage builds the whole /panelists page around v, with the bulk
// check's form.
func (h *Handler) panelistsPage(ctx context.Context, v views.PanelistsView) (templ.Component, error) {
	v.Page = h.page("Panelists", "panelists")
	var err error
	if v.Bulk, err = h.bulkForm(ctx, 0); err != nil {
		return nil, err
	}
	return views.PanelistsPage(v), nil
}

// BulkCheck answers POST /panelists/bulk: the bulk check form. The answer
// is a CSV download; a bad file or subsample re-renders the page with the
// reason.
func (h *Handler) BulkCheck(c echo.Context) error {
	ctx := c.Request().Context()
	subsampleID, err := strconv.ParseInt(c.FormValue("subsample"), 10, 64)
	if err != nil {
		subsampleID = 0 // out of range would read as the largest int64: ask for a subsample instead
	}
	form, err := h.bulkForm(ctx, subsampleID)
	if err != nil {
		return err
	}
	fail := func(status int, msg string, lines []store.LineError) error {
		form.Err, form.Lines = msg, lines
		return Render(c, status, views.PanelistsPage(views.PanelistsView{Page: h.page("Panelists", "panelists"), Bulk: form}))
	}
	if subsampleID <= 0 {
		return fail(http.StatusBadRequest, "Pick a live subsample.", nil)
	}
	err = h.SubsampleChecks.MustBeLive(ctx, subsampleID)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, checks.ErrNotLive) {
		return fail(http.StatusNotFound, fmt.Sprintf("Subsample %d is not live in the current snapshot.", subsampleID), nil)
	}
	if err != nil {
		return err
	}
	file, err := c.FormFile("file")
	if err != nil {
		return fail(http.StatusBadRequest, "Choose a CSV file of panelist ids.", nil)
	}
	f, err := file.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	ids, lines, err := formats.ParsePanelistList(f)
	if errors.Is(err, formats.ErrInvalidList) {
		return fail(http.StatusUnprocessableEntity, file.Filename+": "+err.Error(), lines)
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
	return formats.WriteBulkCSV(ctx, h.SendChecks, subsampleID, ids, toClient(c), false)
}

// lookupCSV answers /panelists.csv?panelist=P: every live subsample with
// whether P may enter it now, why not, and P's entry links.
func (h *Handler) lookupCSV(c echo.Context, panelistID string) error {
	ctx := c.Request().Context()
	checks, err := h.PanelistChecks.PanelistSurveys(ctx, panelistID)
	if err != nil {
		return err
	}
	snapshot, err := h.snapshotTime(ctx, store.DatasetEvents)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("panelist-surveys", snapshot, "panelist", panelistID), func(w *formats.Writer) error {
		return formats.WritePanelistSurveysCSV(w, panelistID, checks)
	})
}
