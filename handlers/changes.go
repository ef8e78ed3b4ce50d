package handlers

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// changesPageSize is how many changes a page of /changes lists.
const changesPageSize = 100

// The API's page of changes: by default and at most.
const (
	defaultChangesLimit = 100
	maxChangesLimit     = 1000
)

// parseChangeFilter reads /changes' query: kind, country, event, from and
// to (yyyy-MM-dd in the dashboard's time zone, to inclusive) and page.
func (h *Handler) parseChangeFilter(c echo.Context) (store.ChangeFilter, views.ChangeFilterForm, int, error) {
	q := c.QueryParams()
	form := views.ChangeFilterForm{Kind: filterValue(q, "kind"), Country: filterValue(q, "country"),
		Event: filterValue(q, "event"), From: filterValue(q, "from"), To: filterValue(q, "to")}
	var f store.ChangeFilter
	var err error
	if form.Kind != "" {
		if f.Kind = domain.ChangeKind(form.Kind); !slices.Contains(domain.ChangeKinds, f.Kind) {
			return f, form, 0, echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Kind %q is none of %s.", form.Kind, kindList()))
		}
	}
	if form.Country != "" {
		if f.Country, err = domain.ParseCountry(form.Country); err != nil {
			return f, form, 0, echo.NewHTTPError(http.StatusBadRequest, "Country: "+err.Error())
		}
	}
	if form.Event != "" {
		if f.EventID, err = parseID("Event id", form.Event); err != nil {
			return f, form, 0, err
		}
	}
	if f.Since, f.Until, err = rules.ParsePeriod(form.From, form.To, h.Location); err != nil {
		return f, form, 0, echo.NewHTTPError(http.StatusBadRequest, capitalise(err.Error())+".")
	}
	page, err := pageParam(q)
	return f, form, page, err
}

func kindList() string {
	kinds := make([]string, len(domain.ChangeKinds))
	for i, k := range domain.ChangeKinds {
		kinds[i] = string(k)
	}
	return strings.Join(kinds, ", ")
}

// Changes answers GET /changes and /changes.csv: the change feed, newest
// first, filtered by the query; the page lists a hundred at a time, the
// CSV every change the filters keep.
func (h *Handler) Changes(c echo.Context) error {
	ctx := c.Request().Context()
	filter, form, page, err := h.parseChangeFilter(c)
	if err != nil {
		return err
	}
	return answerList(h, c, page, list[domain.Change]{
		path: "/changes", name: "changes", size: changesPageSize,
		query: []string{"kind", form.Kind, "country", form.Country, "event", form.Event, "from", form.From, "to", form.To},
		read: func(limit, offset int) ([]domain.Change, int, error) {
			return h.Store.Changes(ctx, filter, limit, offset)
		},
		csv: func(w *formats.Writer, changes []domain.Change) error {
			return formats.WriteChangesCSV(w, changes, h.csvTime)
		},
		page: func(l listPage[domain.Change]) templ.Component {
			return views.ChangesPage(views.ChangesView{Page: h.page("Changes", "changes"), Filter: form, Kinds: domain.ChangeKinds,
				Changes: l.Rows, Total: l.Total, PageNo: l.PageNo, Pages: l.Pages, Prev: l.Prev, Next: l.Next,
				Filtered: filter != store.ChangeFilter{}, CSVHref: l.CSVHref})
		},
	})
}

// APIChanges answers GET /api/v1/changes?since=ID&limit=N, for scripts
// that poll the feed: the changes after id since (0: from the oldest
// kept), oldest first, at most limit (default 100, at most 1,000), and
// the id to ask after next time.
func (h *Handler) APIChanges(c echo.Context) error {
	var since int64
	raw, err := queryValue(c, "since")
	if err != nil {
		return err
	}
	if raw != "" {
		if since, err = strconv.ParseInt(raw, 10, 64); err != nil || since < 0 {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("since %q is not a change id (a whole number from 0)", raw))
		}
	}
	limit := defaultChangesLimit
	if raw, err = queryValue(c, "limit"); err != nil {
		return err
	}
	if raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit < 1 || limit > maxChangesLimit {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a whole number from 1 to %d", raw, maxChangesLimit))
		}
	}
	changes, err := h.Store.ChangesAfter(c.Request().Context(), since, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.ChangesPage(changes, since))
}
