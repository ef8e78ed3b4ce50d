package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/rules/domain"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// Outcomes is what the outcomes pages, the invoice and the panelist's
// completes ask of the outcomes service (*outcomes.Service).
type Outcomes interface {
	Outcomes(ctx context.Context, q outcomes.Query) (outcomes.Report, error)
	Invoice(ctx context.Context, month string) (outcomes.InvoiceReport, error)
	Reconcile(ctx context.Context, inv outcomes.InvoiceReport) (rules.Reconciliation, error)
	Panelist(ctx context.Context, panelistID string) (outcomes.PanelistReport, error)
}

// outcomesPageSize is how many rows a page of /outcomes lists.
const outcomesPageSize = 50

// providerLocation is the provider's time zone, in which outcomes count
// days and months (UTC when unset).
func (h *Handler) providerLocation() *time.Location {
	if h.ProviderLocation == nil {
		return time.UTC
	}
	return h.ProviderLocation
}

// parseOutcomesQuery reads the outcomes' query, on the page and the API
// alike: group (subsample, event, country or day), from and to
// (yyyy-MM-dd in the provider's time zone, to inclusive; by default the
// last 30 days), country, event and subsample. form is the query as
// typed, for the page's form and links.
func (h *Handler) parseOutcomesQuery(c echo.Context) (outcomes.Query, views.OutcomesFilterForm, error) {
	var form views.OutcomesFilterForm
	var q outcomes.Query
	for _, f := range []struct {
		name string
		to   *string
	}{{"group", &form.Group}, {"from", &form.From}, {"to", &form.To}, {"country", &form.Country}, {"event", &form.Event}, {"subsample", &form.Subsample}} {
		v, err := queryValue(c, f.name)
		if err != nil {
			return q, form, err
		}
		*f.to = v
	}
	var err error
	if q.Group, err = outcomes.ParseGrouping(form.Group); err != nil {
		return q, form, echo.NewHTTPError(http.StatusBadRequest, "Group: "+err.Error()+".")
	}
	if q.From, q.To, err = rules.PeriodOrLast30Days(form.From, form.To, h.Now(), h.providerLocation()); err != nil {
		return q, form, echo.NewHTTPError(http.StatusBadRequest, capitalise(err.Error())+".")
	}
	if form.Country != "" {
		if q.Country, err = domain.ParseCountry(form.Country); err != nil {
			return q, form, echo.NewHTTPError(http.StatusBadRequest, "Country: "+err.Error())
		}
	}
	if form.Event != "" {
		if q.EventID, err = parseID("Event id", form.Event); err != nil {
			return q, form, err
		}
	}
	if form.Subsample != "" {
		if q.SubsampleID, err = parseID("Subsample id", form.Subsample); err != nil {
			return q, form, err
		}
	}
	return q, form, nil
}

// outcomesQuery is the form's filters as name, value pairs, for links and file
// names.
func outcomesQuery(form views.OutcomesFilterForm) []string {
	return []string{"group", form.Group, "from", form.From, "to", form.To, "country", form.Country, "event", form.Event, "subsample", form.Subsample}
}

// OutcomesPage answers GET /outcomes and /outcomes.csv: what the sending
// produced in a period, per subsample or grouped by event, country or
// day; the page lists fifty rows at a time, the CSV every row, and the
// CSV with totals=true the totals per currency (outcomesCSV).
func (h *Handler) OutcomesPage(c echo.Context) error {
	q, form, err := h.parseOutcomesQuery(c)
	if err != nil {
		return err
	}
	page, err := pageParam(c.QueryParams())
	if err != nil {
		return err
	}
	rep, err := h.Outcomes.Outcomes(c.Request().Context(), q)
	if err != nil {
		return err
	}
	query := outcomesQuery(form)
	if wantsCSV(c) {
		return h.outcomesCSV(c, rep, form)
	}
	rows, total, page, _ := pageOf(page, outcomesPageSize, func(limit, offset int) ([]outcomes.Row, int, error) {
		from := min(offset, len(rep.Rows))
		return rep.Rows[from : from+min(limit, len(rep.Rows)-from)], len(rep.Rows), nil
	})
	v := views.OutcomesView{Page: h.page("Outcomes", "outcomes"), Filter: form, Groupings: outcomes.Groupings, Report: rep,
		Rows: rows, Total: total, PageNo: page, CSVHref: withQuery("/outcomes.csv", query...),
		TotalsCSVHref: withQuery("/outcomes.csv", append(query, "totals", "true")...),
		InvoiceHref:   "/outcomes/invoice?month=" + h.Now().In(h.providerLocation()).Format("2006-01")}
	v.Pages, v.Prev, v.Next = pageLinks("/outcomes", query, page, total, outcomesPageSize)
	if err := h.reconcileOutcomes(c.Request().Context(), q, &v); err != nil {
		return err
	}
	return pageOrFragment(c, http.StatusOK, views.OutcomesResults(v), func() (templ.Component, error) {
		return views.OutcomesPage(v), nil
	})
}

// reconcileOutcomes sets what v says of the invoice: when the period is
// one calendar month and no filter narrows it, how its earnings relate to
// the month's invoice; else the link to the outcomes of the month its
// last day is in, which do.
func (h *Handler) reconcileOutcomes(ctx context.Context, q outcomes.Query, v *views.OutcomesView) error {
	loc := h.providerLocation()
	month, ok := rules.MonthOf(q.From, q.To, loc)
	if !ok || q.SubsampleID != 0 || q.EventID != 0 || q.Country != "" {
		last := q.To.Add(-time.Nanosecond).In(loc)
		first := time.Date(last.Year(), last.Month(), 1, 0, 0, 0, 0, loc)
		v.MonthHref = withQuery("/outcomes", "from", first.Format(time.DateOnly), "to", first.AddDate(0, 1, -1).Format(time.DateOnly))
		v.MonthName = first.Format("January 2006")
		return nil
	}
	inv, err := h.Outcomes.Invoice(ctx, month)
	if err != nil {
		return err
	}
	rec, err := h.Outcomes.Reconcile(ctx, inv)
	if err != nil {
		return err
	}
	v.Reconciliation = &views.ReconciliationView{Reconciliation: rec, Month: month, Name: inv.From.Format("January 2006"),
		InvoiceHref: withQuery("/outcomes/invoice", "month", month), OutcomesHref: withQuery("/outcomes", "from", q.From.Format(time.DateOnly), "to", q.To.AddDate(0, 0, -1).Format(time.DateOnly))}
	v.InvoiceHref = v.Reconciliation.InvoiceHref
	return nil
}

// invoiceMonth reads the query's month (YYYY-MM, by default the current
// month in the provider's time zone); one that is not a month is a 400.
func (h *Handler) invoiceMonth(c echo.Context) (string, error) {
	month, err := queryValue(c, "month")
	if err != nil {
		return "", err
	}
	if month == "" {
		return h.Now().In(h.providerLocation()).Format("2006-01"), nil
	}
	if _, _, err := rules.MonthRange(month, h.providerLocation()); err != nil {
		return "", echo.NewHTTPError(http.StatusBadRequest, "Month: "+err.Error()+".")
	}
	return month, nil
}

// invoiceOf reads the invoice's month and billing entity (entity, ""
// for all) and answers the month's invoice of that entity alone, with
// the invoice of every entity it was cut from. An entity with nothing on
// the month's invoice is a 404 that names the month's entities, unless
// the page asks (page): it shows them to choose from.
func (h *Handler) invoiceOf(c echo.Context, page bool) (shown, all outcomes.InvoiceReport, err error) {
	month, err := h.invoiceMonth(c)
	if err != nil {
		return shown, all, err
	}
	entity, err := queryValue(c, "entity")
	if err != nil {
		return shown, all, err
	}
	all, err = h.Outcomes.Invoice(c.Request().Context(), month)
	if err != nil {
		return shown, all, err
	}
	shown, ok := all.Only(entity)
	if !ok && !page {
		return shown, all, echo.NewHTTPError(http.StatusNotFound, noEntityText(all, entity))
	}
	return shown, all, nil
}

// noEntityText says that entity has nothing on all, the month's invoice,
// and names the entities that have.
func noEntityText(all outcomes.InvoiceReport, entity string) string {
	return fmt.Sprintf("Billing entity %q has nothing on the invoice of %s; its billing entities are %s.", domain.Clip(entity, 80), all.Month, all.NamedEntities())
}

// InvoicePage answers GET /outcomes/invoice and /outcomes/invoice.csv: a
// month's invoice, of one billing entity with entity=NAME, its totals per
// currency and per billing entity and its lines, and (of every entity)
// how it relates to the month's outcomes; the CSV is `fieldboard report
// invoice`'s, byte for byte.
func (h *Handler) InvoicePage(c echo.Context) error {
	csv := wantsCSV(c)
	inv, all, err := h.invoiceOf(c, !csv)
	if err != nil {
		return err
	}
	if csv {
		return h.invoiceCSV(c, inv)
	}
	v := views.InvoiceView{Page: h.page("Invoice "+inv.Month, "outcomes"), Invoice: inv, Entities: all.Entities,
		CSVHref: withQuery("/outcomes/invoice.csv", "month", inv.Month, "entity", inv.Entity)}
	status := http.StatusOK
	if _, ok := all.Only(inv.Entity); !ok {
		status, v.NoEntity = http.StatusNotFound, noEntityText(all, inv.Entity)
	}
	v.PrevHref = withQuery("/outcomes/invoice", "month", inv.From.AddDate(0, -1, 0).Format("2006-01"), "entity", inv.Entity)
	v.NextHref = withQuery("/outcomes/invoice", "month", inv.From.AddDate(0, 1, 0).Format("2006-01"), "entity", inv.Entity)
	if inv.Entity == "" {
		rec, err := h.Outcomes.Reconcile(c.Request().Context(), all)
		if err != nil {
			return err
		}
		v.Reconciliation = &views.ReconciliationView{Reconciliation: rec, Month: inv.Month, Name: inv.From.Format("January 2006"), OnInvoice: true,
			InvoiceHref:  withQuery("/outcomes/invoice", "month", inv.Month),
			OutcomesHref: withQuery("/outcomes", "from", inv.From.Format(time.DateOnly), "to", inv.To.AddDate(0, 0, -1).Format(time.DateOnly))}
	}
	return pageOrFragment(c, status, views.InvoiceResults(v), func() (templ.Component, error) {
		return views.InvoicePage(v), nil
	})
}

func (h *Handler) invoiceCSV(c echo.Context, inv outcomes.InvoiceReport) error {
	return h.sendCSV(c, formats.FileName("invoice", h.Now(), "month", inv.Month, "entity", inv.Entity), func(w *formats.Writer) error { return formats.WriteInvoiceCSV(w, inv) })
}

// apiWantsCSV reports whether an API request that answers JSON by default
// asks for CSV instead: format=csv, or an Accept that names text/csv and
// not application/json. Another format is a 400.
func apiWantsCSV(c echo.Context) (bool, error) {
	format, err := queryValue(c, "format")
	if err != nil {
		return false, err
	}
	switch format {
	case "csv":
		return true, nil
	case "json":
		return false, nil
	case "":
		accept := c.Request().Header.Get(echo.HeaderAccept)
		return strings.Contains(accept, "text/csv") && !strings.Contains(accept, "application/json"), nil
	}
	return false, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("format %q is neither json nor csv", domain.Clip(format, 20)))
}

// APIInvoice answers GET /api/v1/invoice?month=YYYY-MM[&entity=NAME]:
// the month's invoice (of one billing entity) as JSON, or with format=csv
// (or Accept: text/csv) the page's CSV.
func (h *Handler) APIInvoice(c echo.Context) error {
	asCSV, err := apiWantsCSV(c)
	if err != nil {
		return err
	}
	inv, _, err := h.invoiceOf(c, false)
	if err != nil {
		return err
	}
	if asCSV {
		return h.invoiceCSV(c, inv)
	}
	return c.JSON(http.StatusOK, formats.Invoice(inv))
}

// APIOutcomes answers GET /api/v1/outcomes with the page's filters and
// groupings: every row, their total, the days and the quota fulls on
// cells judged open, as JSON; or with format=csv (or Accept: text/csv)
// the page's CSV, its totals with totals=true.
func (h *Handler) APIOutcomes(c echo.Context) error {
	asCSV, err := apiWantsCSV(c)
	if err != nil {
		return err
	}
	q, form, err := h.parseOutcomesQuery(c)
	if err != nil {
		return err
	}
	rep, err := h.Outcomes.Outcomes(c.Request().Context(), q)
	if err != nil {
		return err
	}
	if asCSV {
		return h.outcomesCSV(c, rep, form)
	}
	totals, err := boolParam(c, "totals")
	if err != nil {
		return err
	}
	if totals {
		return echo.NewHTTPError(http.StatusBadRequest, "totals=true asks for the CSV of the totals, with format=csv: the JSON answer holds them in total")
	}
	return c.JSON(http.StatusOK, formats.Outcomes(rep))
}

// outcomesCSV answers a request for the outcomes as CSV: one line per
// group (outcomes.csv), or with totals=true what the period earned per
// currency (outcomes-totals.csv), never a line of totals among the
// groups, so that a spreadsheet's sum of a column counts each once.
func (h *Handler) outcomesCSV(c echo.Context, rep outcomes.Report, form views.OutcomesFilterForm) error {
	totals, err := boolParam(c, "totals")
	if err != nil {
		return err
	}
	if totals {
		return h.sendCSV(c, formats.FileName("outcomes-totals", h.Now(), outcomesQuery(form)...), func(w *formats.Writer) error { return formats.WriteOutcomeTotalsCSV(w, rep) })
	}
	return h.sendCSV(c, formats.FileName("outcomes", h.Now(), outcomesQuery(form)...), func(w *formats.Writer) error { return formats.WriteOutcomesCSV(w, rep) })
}

// SubsampleOutcomes answers GET /subsamples/{id}/outcomes, the part of a
// subsample's page that shows its outcomes over the last 30 days. The page
// asks it once loaded (htmx), so reading a month of the field's returns
// never holds the page up; a browser opening the address goes to
// /outcomes for the subsample.
func (h *Handler) SubsampleOutcomes(c echo.Context) error {
	id, _, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	return fragmentOr(c, http.StatusOK, func() (templ.Component, error) {
		from, to, err := rules.PeriodOrLast30Days("", "", h.Now(), h.providerLocation())
		if err != nil {
			return nil, err
		}
		rep, err := h.Outcomes.Outcomes(c.Request().Context(), outcomes.Query{From: from, To: to, SubsampleID: id})
		return views.SubsampleOutcomes(id, rep), err
	}, func() error {
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/outcomes?subsample=%d", id))
	})
}

// sendsToday are the outcomes of the last 24 hours in total, for the
// overview's wrong sends.
func (h *Handler) sendsToday(ctx context.Context) (outcomes.Row, error) {
	if h.Outcomes == nil {
		return outcomes.Row{}, nil
	}
	now := h.Now()
	rep, err := h.Outcomes.Outcomes(ctx, outcomes.Query{From: now.Add(-24 * time.Hour), To: now})
	return rep.Total, err
}
