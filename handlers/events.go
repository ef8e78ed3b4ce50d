package handlers

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strings"
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

// EventFilter narrows the events page. Status, Country and Q apply to each
// subsample; From and To to the field period of its whole event. Zero
// fields match everything.
type EventFilter struct {
	Status  string // canonical status name
	Country string // country code, any case
	// From is the first day of the period asked for and To the day after
	// its last, both at midnight in the dashboard's time zone: an event is
	// kept when its field period overlaps [From, To).
	From, To time.Time
	// Q matches a subsample id or event id exactly, or part of a subsample
	// or event name, in any case.
	Q string
}

// IsZero reports whether the filter keeps everything.
func (f EventFilter) IsZero() bool { return f == EventFilter{} }

// ParseEventFilter reads the events page's query: status, country, from,
// to (yyyy-MM-dd, in loc) and q, an empty one as one left out
// (filterValue). It rejects a status that is not one of
// the five, a date that does not parse and a from after to.
func ParseEventFilter(q url.Values, loc *time.Location) (EventFilter, error) {
	f := EventFilter{Country: filterValue(q, "country"), Q: filterValue(q, "q")}
	var err error
	if s := filterValue(q, "status"); s != "" {
		if f.Status, err = domain.ParseStatus(s); err != nil {
			return f, err
		}
	}
	f.From, f.To, err = rules.ParsePeriod(filterValue(q, "from"), filterValue(q, "to"), loc)
	return f, err
}

// GroupEvents groups the subsamples of the snapshot by event, in the order
// given, keeping the subsamples that pass f and the events left with at
// least one. An event is named after its live details when any of its
// subsamples is live, else after its first subsample. Its totals,
// statuses, countries and field period describe all its subsamples,
// whatever the filter.
func GroupEvents(reports []checks.SubsampleReport, f EventFilter) []views.EventGroup {
	var order []int64
	byEvent := map[int64][]checks.SubsampleReport{}
	for _, r := range reports {
		if _, seen := byEvent[r.EventID]; !seen {
			order = append(order, r.EventID)
		}
		byEvent[r.EventID] = append(byEvent[r.EventID], r)
	}
	q := strings.ToLower(f.Q)
	var out []views.EventGroup
	for _, id := range order {
		subs := byEvent[id]
		g := summarise(id, subs)
		if !overlaps(g.FieldStart, g.FieldEnd, f.From, f.To) {
			continue
		}
		eventMatches := q == "" || formats.Int(id) == q || g.liveName != "" && strings.Contains(strings.ToLower(g.liveName), q)
		for _, r := range subs {
			if f.Status != "" && r.Status != f.Status ||
				f.Country != "" && !strings.EqualFold(r.CountryCode, f.Country) ||
				!eventMatches && formats.Int(r.SubsampleID) != q && !strings.Contains(strings.ToLower(r.Name), q) {
				continue
			}
			g.Subsamples = append(g.Subsamples, views.EventSubsample{SubsampleRow: r.SubsampleRow, Verdict: r.Verdict})
		}
		if len(g.Subsamples) > 0 {
			out = append(out, g.EventGroup)
		}
	}
	return out
}

// eventSummary is an event's group with the name live details give it,
// empty when none of its subsamples is live.
type eventSummary struct {
	views.EventGroup
	liveName string
}

// summarise describes a whole event: name, number of subsamples, statuses,
// countries and field period (earliest start to latest end).
func summarise(eventID int64, subs []checks.SubsampleReport) eventSummary {
	g := eventSummary{EventGroup: views.EventGroup{EventID: eventID, Total: len(subs)}}
	counts := map[string]int{}
	countries := map[string]bool{}
	for _, r := range subs {
		if g.liveName == "" && r.EventName != "" {
			g.liveName = r.EventName
		}
		counts[r.Status]++
		if r.CountryCode != "" && !countries[r.CountryCode] {
			countries[r.CountryCode] = true
			g.Countries = append(g.Countries, r.CountryCode)
		}
		if r.FieldStart != nil && (g.FieldStart == nil || r.FieldStart.Before(*g.FieldStart)) {
			g.FieldStart = r.FieldStart
		}
		if r.FieldEnd != nil && (g.FieldEnd == nil || r.FieldEnd.After(*g.FieldEnd)) {
			g.FieldEnd = r.FieldEnd
		}
	}
	g.Name = g.liveName
	if g.Name == "" && len(subs) > 0 {
		g.Name = subs[0].Name
	}
	slices.Sort(g.Countries)
	for status, n := range counts {
		g.Statuses = append(g.Statuses, views.StatusCount{Status: status, Count: n})
	}
	slices.SortFunc(g.Statuses, func(a, b views.StatusCount) int {
		return cmp.Or(cmp.Compare(statusRank(a.Status), statusRank(b.Status)), strings.Compare(a.Status, b.Status))
	})
	return g
}

// statusRank orders statuses as domain.Statuses does, unknown ones last.
func statusRank(status string) int {
	if i := slices.Index(domain.Statuses, status); i >= 0 {
		return i
	}
	return len(domain.Statuses)
}

// overlaps reports whether the field period [start, end] meets [from, to).
// A missing bound of the period leaves it open on that side, so an event
// whose dates are unknown is never hidden by a date filter.
func overlaps(start, end *time.Time, from, to time.Time) bool {
	if !to.IsZero() && start != nil && !start.Before(to) {
		return false
	}
	if !from.IsZero() && end != nil && end.Before(from) {
		return false
	}
	return true
}

// eventsPageSize is how many events a page of /events lists, each with
// all its subsamples the filters keep.
const eventsPageSize = 20

// Events answers GET /events and /events.csv: every subsample of the
// snapshot grouped by event, filtered by the query, the page twenty
// events at a time (a page past the last shows the last). htmx gets the
// table alone; the CSV has one line per subsample the filters keep, on
// every page.
func (h *Handler) Events(c echo.Context) error {
	ctx := c.Request().Context()
	filter, err := ParseEventFilter(c.QueryParams(), h.Location)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, capitalise(err.Error())+".")
	}
	page, err := pageParam(c.QueryParams())
	if err != nil {
		return err
	}
	reports, err := h.SnapshotChecks.Subsamples(ctx, checks.SubsampleFilter{})
	if err != nil {
		return err
	}
	groups := GroupEvents(reports, filter)
	snapshot, err := h.snapshotTime(ctx, store.DatasetEvents)
	if err != nil {
		return err
	}
	if wantsCSV(c) {
		return h.sendCSV(c, formats.FileName("events", snapshot, "status", filter.Status, "country", filter.Country,
			"from", filterValue(c.QueryParams(), "from"), "to", filterValue(c.QueryParams(), "to"), "q", filter.Q), func(w *formats.Writer) error { return formats.WriteEventsCSV(w, eventLines(groups), h.csvTime) })
	}
	q := c.QueryParams()
	form := views.EventsFilterForm{Status: filter.Status, Country: filterValue(q, "country"),
		From: filterValue(q, "from"), To: filterValue(q, "to"), Q: filterValue(q, "q")}
	query := []string{"status", form.Status, "country", form.Country, "from", form.From, "to", form.To, "q", form.Q}
	result := views.EventsResult{Matching: len(groups), Total: len(reports), Filtered: !filter.IsZero(),
		CSVHref: withQuery("/events.csv", query...), ClearHref: "/events"}
	for _, g := range groups {
		result.Shown += len(g.Subsamples)
	}
	result.PageNo = min(page, pageCount(len(groups), eventsPageSize))
	start := pageOffset(result.PageNo, eventsPageSize)
	result.Events = groups[start:min(start+eventsPageSize, len(groups))]
	result.Pages, result.Prev, result.Next = pageLinks("/events", query, result.PageNo, len(groups), eventsPageSize)
	p := h.page("Events", "events")
	return pageOrFragment(c, http.StatusOK, views.EventsTable(p, result), func() (templ.Component, error) {
		v := views.EventsView{Page: p, Filter: form, Statuses: domain.Statuses, Snapshot: snapshot, Result: result}
		seen := map[string]bool{}
		for _, r := range reports {
			if r.CountryCode != "" && !seen[r.CountryCode] {
				seen[r.CountryCode] = true
				v.Countries = append(v.Countries, views.CountryOption{Code: r.CountryCode, Name: r.CountryName})
			}
		}
		slices.SortFunc(v.Countries, func(a, b views.CountryOption) int { return strings.Compare(a.Code, b.Code) })
		return views.EventsPage(v), nil
	})
}

// eventLines are the lines of the events CSV: the subsamples shown, each
// with its event's name as the page groups them.
func eventLines(groups []views.EventGroup) []formats.EventSubsample {
	var out []formats.EventSubsample
	for _, g := range groups {
		for _, s := range g.Subsamples {
			out = append(out, formats.EventSubsample{Event: g.Name, SubsampleRow: s.SubsampleRow, Verdict: s.Verdict})
		}
	}
	return out
}

// csvTime writes a time in RFC 3339 in the dashboard's time zone, empty
// when unknown.
func (h *Handler) csvTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	loc := h.Location
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(time.RFC3339)
}

// withQuery builds path with a query of the non-empty values of the given
// name, value pairs, in their order, such as "/events.csv?status=Live".
func withQuery(path string, pairs ...string) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := strings.TrimSpace(pairs[i+1]); v != "" {
			parts = append(parts, url.QueryEscape(pairs[i])+"="+url.QueryEscape(v))
		}
	}
	if len(parts) == 0 {
		return path
	}
	return path + "?" + strings.Join(parts, "&")
}

// capitalise upper-cases the first letter of a message for the user.
func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
