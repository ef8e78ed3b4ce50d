package handlers

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// SnapshotChecks is what the lists ask of the checks service: the
// current snapshot decided, its subsamples, the overview's counts, and
// why it is too old to decide on ("" when it is not).
type SnapshotChecks interface {
	Current(ctx context.Context) (*checks.Decisions, error)
	Subsamples(ctx context.Context, filter checks.SubsampleFilter) ([]checks.SubsampleReport, error)
	StaleReason(ctx context.Context) (string, error)
	Counts(ctx context.Context) (checks.Counts, error)
}

// Overview answers GET /: the counts by status and sendability, what the
// last refresh changed, and each dataset's schedule. An htmx request gets
// the figures alone.
func (h *Handler) Overview(c echo.Context) error {
	ctx := c.Request().Context()
	figures, err := h.overviewFigures(ctx)
	if err != nil {
		return err
	}
	if wantsCSV(c) {
		return h.overviewCSV(c, figures)
	}
	p := h.page("Overview", "overview")
	return pageOrFragment(c, http.StatusOK, views.OverviewBody(p, figures), func() (templ.Component, error) {
		rv, err := h.refreshView(ctx)
		return views.OverviewPage(views.OverviewView{Page: p, Refresh: rv, Figures: figures}), err
	})
}

func (h *Handler) overviewFigures(ctx context.Context) (views.OverviewFigures, error) {
	var f views.OverviewFigures
	counts, err := h.SnapshotChecks.Counts(ctx)
	if err != nil {
		return f, err
	}
	f.Total, f.Open, f.Listed, f.OpenUnlisted, f.ListedNotOpen = counts.Total, counts.Open, counts.Listed, counts.OpenUnlisted, counts.ListedNotOpen
	for _, s := range domain.Statuses {
		f.Statuses = append(f.Statuses, views.Count{Label: s, N: counts.ByStatus[s], Href: "/events?status=" + url.QueryEscape(s)})
	}
	for _, s := range slices.Sorted(maps.Keys(counts.ByStatus)) { // a status the events page does not filter on: counted, not linked
		if !slices.Contains(domain.Statuses, s) {
			f.Statuses = append(f.Statuses, views.Count{Label: s, N: counts.ByStatus[s]})
		}
	}
	for _, s := range rules.States {
		f.Sendability = append(f.Sendability, views.StateCount{State: s, N: counts.BySendability[s], Href: "/live?sendability=" + string(s)})
	}

	changes, err := h.Store.ChangeCounts(ctx)
	if err != nil {
		return f, err
	}
	if f.Baseline, err = h.Store.EventsBaseline(ctx); err != nil {
		return f, err
	}
	f.Changes = []views.Count{
		{Label: "became sendable", N: changes[domain.ChangeSendable]},
		{Label: "became paused", N: changes[domain.ChangePaused]},
		{Label: "closed (left Live)", N: changes[domain.ChangeClosed]},
		{Label: "new", N: changes[domain.ChangeNew]},
	}

	if f.Recent, _, err = h.Store.Changes(ctx, store.ChangeFilter{}, 10, 0); err != nil {
		return f, err
	}

	today, err := h.sendsToday(ctx)
	if err != nil {
		return f, err
	}
	f.WrongSends, f.WrongSendsByReturn, f.SentScreenOuts = today.WrongSends, today.WrongSendsByReturn, today.SentScreenOuts
	if f.LinkSuspects, err = h.Store.LinkSuspects(ctx); err != nil {
		return f, err
	}
	if h.PanelistChecks != nil {
		held, err := h.PanelistChecks.HeldPanelists(ctx)
		if err != nil {
			return f, err
		}
		f.HeldKnown = true
		f.HeldByHand, f.HeldForQuality = formats.HeldCounts(held)
	}

	states, err := h.Store.Datasets(ctx)
	if err != nil {
		return f, err
	}
	due := h.Refresher.NextDue(states)
	for _, d := range []struct{ name, label, endpoints, cache string }{
		{store.DatasetEvents, "Events, quotas and rules", "event/all, live-details, quotas, eligibility-rules", "3 minutes"},
		{store.DatasetLibrary, "Question library", "questions, answers (per locale)", "24 hours"},
		{store.DatasetReference, "Reference data", "countries, locales, survey-statuses", "not stated; read daily"},
	} {
		st := states[d.name]
		f.Datasets = append(f.Datasets, views.DatasetView{
			Label: d.label, Endpoints: d.endpoints, Cache: d.cache, LastSuccess: st.LastSuccessAt, NextDue: due[d.name],
			Failing: st.Failing(), LastError: st.LastError, ErrorAt: st.LastErrorAt,
			MalformedCost: formats.DroppedCost(d.name), MalformedCount: st.MalformedCount, MalformedFirst: st.MalformedFirst,
		})
	}
	return f, nil
}

// overviewCSV writes every figure of the overview, one a line
// (formats.WriteOverviewCSV); a dataset's last error only while it fails,
// as the page shows it.
func (h *Handler) overviewCSV(c echo.Context, f views.OverviewFigures) error {
	snapshot, err := h.snapshotTime(c.Request().Context(), store.DatasetEvents)
	if err != nil {
		return err
	}
	var lines formats.OverviewFigures
	for _, s := range f.Sendability {
		lines.Sendability = append(lines.Sendability, formats.StateFigure{State: s.State, N: s.N})
	}
	for _, s := range f.Statuses {
		lines.Statuses = append(lines.Statuses, formats.Figure{Label: s.Label, N: s.N})
	}
	for _, s := range f.Changes {
		lines.Changes = append(lines.Changes, formats.Figure{Label: s.Label, N: s.N})
	}
	for _, d := range f.Datasets {
		line := formats.DatasetFigure{Label: d.Label, LastSuccess: d.LastSuccess, NextDue: d.NextDue,
			MalformedCount: d.MalformedCount, MalformedFirst: d.MalformedFirst}
		if d.Failing {
			line.LastError = d.LastError
		}
		lines.Datasets = append(lines.Datasets, line)
	}
	return h.sendCSV(c, formats.FileName("overview", snapshot), func(w *formats.Writer) error { return formats.WriteOverviewCSV(w, lines) })
}
