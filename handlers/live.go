package handlers

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// Live answers GET /live and /live.csv: the live subsamples of the current
// snapshot, filtered, sorted and paged as the URL says. An htmx request
// gets the table alone; the CSV holds every row that passes the filters,
// not only the page.
func (h *Handler) Live(c echo.Context) error {
	ctx := c.Request().Context()
	q, err := ParseLiveQuery(c.QueryParams())
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The filters could not be read: "+err.Error()+".")
	}
	d, err := h.SnapshotChecks.Current(ctx)
	if err != nil {
		return err
	}
	all := d.LiveRows()
	if _, err := q.CPIRange(all); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The filters could not be applied: "+err.Error()+".")
	}
	if wantsCSV(c) {
		snapshot, err := h.snapshotTime(ctx, store.DatasetEvents)
		if err != nil {
			return err
		}
		matching, err := q.Filter(all)
		if err != nil {
			return err
		}
		return h.sendCSV(c, formats.FileName("live-subsamples", snapshot, q.FilterScope()...), func(w *formats.Writer) error { return formats.WriteLiveCSV(w, matching) })
	}
	// The filters and the table depend only on the decisions and the
	// query, so they are rendered once per version and query; the rest of
	// the page (times, the refresh panel, the viewer) every time. They are
	// kept by the query as read, not as spelled: parameters the list does
	// not know, their order and spaces around values make no new fragment.
	p := h.page("Live subsamples", "live")
	cached := func(part string, component func(views.Page, views.LiveTableView) templ.Component) ([]byte, error) {
		return fragment(d, part+q.Values().Encode(), func() ([]byte, error) {
			options, _ := checks.Memo(d, "handlers.live.options", func() (views.LiveOptions, error) { return liveOptions(all), nil })
			matching, err := q.Filter(all)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			err = component(p, liveTable(q, all, matching, options)).Render(ctx, &buf)
			return buf.Bytes(), err
		})
	}
	table := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		html, err := cached("live table?", views.LiveTable)
		if err != nil {
			return err
		}
		_, err = w.Write(html)
		return err
	})
	return pageOrFragment(c, http.StatusOK, table, func() (templ.Component, error) {
		html, err := cached("live page?", views.LiveFiltersAndTable)
		if err != nil {
			return nil, err
		}
		rv, err := h.refreshView(ctx)
		return views.LivePage(views.LiveView{Page: p, Refresh: rv, Body: templ.Raw(string(html))}), err
	})
}

// liveTable builds the view of one page of the list, with the URLs of its
// neighbours, its CSV and its sorted columns.
func liveTable(q LiveQuery, all, matching []checks.LiveRow, options views.LiveOptions) views.LiveTableView {
	rows, page := q.PageOf(matching)
	t := views.LiveTableView{
		Rows: rows, Matching: len(matching), All: len(all), Page: page,
		Pages: max(1, (len(matching)+livePageSize-1)/livePageSize), Sort: q.Sort,
		Options: options, SortURLs: map[string]string{},
		Filters: views.LiveFilters{Sendability: q.Sendability, Status: q.Status, Country: q.Country, ResearchType: q.ResearchType,
			Category: q.Category, Device: q.Device, AtRisk: q.AtRisk, Whose: q.Whose, CPIMin: formats.OptFloat(q.CPIMin, -1), CPIMax: formats.OptFloat(q.CPIMax, -1),
			Currency: strings.ToUpper(q.Currency), Text: q.Text},
	}
	at := func(edit func(*LiveQuery)) string {
		c := q
		edit(&c)
		if enc := c.Values().Encode(); enc != "" {
			return "/live?" + enc
		}
		return "/live"
	}
	t.Self = at(func(c *LiveQuery) { c.Page = page })
	if page > 1 {
		t.Prev = at(func(c *LiveQuery) { c.Page = page - 1 })
	}
	if page < t.Pages {
		t.Next = at(func(c *LiveQuery) { c.Page = page + 1 })
	}
	t.CSV = strings.Replace(at(func(c *LiveQuery) { c.Page = 1 }), "/live", "/live.csv", 1)
	for key := range liveSorts {
		sort := key
		if q.Sort == key {
			sort = "-" + key
		}
		t.SortURLs[key] = at(func(c *LiveQuery) { c.Sort, c.Page = sort, 1 })
	}
	return t
}

// liveOptions collects the filter form's choices from the rows.
func liveOptions(rows []checks.LiveRow) views.LiveOptions {
	seen := map[string]map[string]bool{"country": {}, "rtype": {}, "category": {}}
	add := func(kind, list string) {
		for _, v := range strings.Split(list, ", ") {
			if v = strings.TrimSpace(v); v != "" {
				seen[kind][v] = true
			}
		}
	}
	for _, r := range rows {
		add("country", r.Countries)
		add("rtype", r.ResearchType)
		add("category", r.Categories)
	}
	keys := func(m map[string]bool) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	return views.LiveOptions{Countries: keys(seen["country"]), ResearchTypes: keys(seen["rtype"]), Categories: keys(seen["category"]),
		Currencies: Currencies(rows)}
}
