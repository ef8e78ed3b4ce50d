package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// routingPageSize is how many decisions a page of /routing lists.
const routingPageSize = 100

// parseRoutingFilter reads /routing's query: panelist, subsample (intended
// or chosen), outcome, from and to (yyyy-MM-dd in the dashboard's time
// zone, to inclusive) and page.
func (h *Handler) parseRoutingFilter(c echo.Context) (store.RoutingFilter, views.RoutingFilterForm, int, error) {
	q := c.QueryParams()
	form := views.RoutingFilterForm{Panelist: filterValue(q, "panelist"), Subsample: filterValue(q, "subsample"),
		Outcome: filterValue(q, "outcome"), From: filterValue(q, "from"), To: filterValue(q, "to")}
	var f store.RoutingFilter
	var err error
	if form.Panelist != "" {
		if f.PanelistID, err = domain.ParsePanelistID(form.Panelist); err != nil {
			return f, form, 0, echo.NewHTTPError(http.StatusBadRequest, "Panelist id: "+err.Error())
		}
	}
	if form.Subsample != "" {
		if f.SubsampleID, err = parseID("Subsample id", form.Subsample); err != nil {
			return f, form, 0, err
		}
	}
	if form.Outcome != "" {
		f.Outcome = domain.RoutingOutcome(form.Outcome)
		if !slices.Contains(domain.RoutingOutcomes, f.Outcome) {
			return f, form, 0, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Outcome %q is none of %s.", form.Outcome, outcomeList()))
		}
	}
	if f.Since, f.Until, err = rules.ParsePeriod(form.From, form.To, h.Location); err != nil {
		return f, form, 0, echo.NewHTTPError(http.StatusBadRequest, capitalise(err.Error())+".")
	}
	page, err := pageParam(q)
	return f, form, page, err
}

// Routing answers GET /routing and /routing.csv: the router's decisions,
// newest first, filtered by the query; the page lists them a hundred at a
// time, the CSV every one the filters keep.
func (h *Handler) Routing(c echo.Context) error {
	ctx := c.Request().Context()
	filter, form, page, err := h.parseRoutingFilter(c)
	if err != nil {
		return err
	}
	var refused views.RefusedClicks
	if h.ClickRefusals != nil {
		refused = h.ClickRefusals.Refused()
	}
	var refusedReturns []views.RefusedReturn
	if h.ReturnChecks != nil {
		counts := h.ReturnChecks.RefusedReturns()
		for _, reason := range checks.RefusedReasons {
			refusedReturns = append(refusedReturns, views.RefusedReturn{Reason: reason, Count: counts[reason]})
		}
	}
	return answerList(h, c, page, list[domain.RoutingDecision]{
		path: "/routing", name: "routing", size: routingPageSize,
		query: []string{"panelist", form.Panelist, "subsample", form.Subsample, "outcome", form.Outcome, "from", form.From, "to", form.To},
		read: func(limit, offset int) ([]domain.RoutingDecision, int, error) {
			return h.Store.Routings(ctx, filter, limit, offset)
		},
		csv: func(w *formats.Writer, decisions []domain.RoutingDecision) error {
			return formats.WriteRoutingCSV(w, decisions, h.csvTime)
		},
		page: func(l listPage[domain.RoutingDecision]) templ.Component {
			return views.RoutingPage(views.RoutingView{Page: h.page("Routing", "routing"), Filter: form, Outcomes: domain.RoutingOutcomes,
				Decisions: l.Rows, Total: l.Total, PageNo: l.PageNo, Pages: l.Pages, Prev: l.Prev, Next: l.Next,
				Filtered: filter != store.RoutingFilter{}, CSVHref: l.CSVHref, Refused: refused,
				RefusedReturns: refusedReturns})
		},
	})
}

// outcomeList names every routing outcome for an error: "intended, next,
// return, none and answer".
func outcomeList() string {
	names := make([]string, len(domain.RoutingOutcomes))
	for i, o := range domain.RoutingOutcomes {
		names[i] = string(o)
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " and " + names[last]
}
