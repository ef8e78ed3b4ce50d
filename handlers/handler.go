// Package handlers turns HTTP requests into pages, fragments, CSV and
// JSON: each route parses its request, asks the checks service or the
// store, and renders a views component or a format of views/formats.
// Handlers return errors; the server's error handler turns them into
// pages. They declare what they need of their dependencies as small
// interfaces beside the handlers that use them (SnapshotChecks in
// overview.go, SubsampleChecks in subsample.go, SendChecks in targets.go,
// PanelistChecks in panelists_page.go, ProfilingChecks in profiling.go,
// PolicyChecks in policy.go, Outcomes in outcomes.go, Refresher) and
// import nothing from web.
package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/handlers/htmx"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
)

// Refresher is what the handlers need of the refresher; web adapts
// web/refresh's to it.
type Refresher interface {
	// Start starts a refresh, or joins the one running, and returns its
	// progress: of one live subsample's quotas and rules when subsampleID
	// is not 0; else of every dataset with force, and of the events and
	// whatever else is due without.
	Start(subsampleID int64, force bool) views.RefreshProgress
	// Progress is the refresh running, or the last one.
	Progress() views.RefreshProgress
	// NextDue says when the schedule next reads each dataset.
	NextDue(states map[string]store.DatasetState) map[string]time.Time
}

// RoutingRecorder keeps the router's decisions (web's queue in front of
// the store): Record must not wait for the database.
type RoutingRecorder interface {
	Record(d domain.RoutingDecision)
}

// ClickRefusals counts the invitation clicks web's click limits refused,
// which /routing tells beside the decisions recorded.
type ClickRefusals interface {
	Refused() views.RefusedClicks
}

// Handler holds the dependencies of every route.
type Handler struct {
	// Store is the store itself, not an interface: it has one
	// implementation, and the tests use it as it is, on a temporary
	// SQLite file (or PostgreSQL), rather than a fake.
	Store *store.Store
	// The checks service (*checks.Service), by what the handlers ask of
	// it: each interface, a few methods, is declared beside the handlers
	// that use it, and web sets all five to the one service.
	SnapshotChecks  SnapshotChecks  // the lists: overview, events, live, the API's, /healthz
	SubsampleChecks SubsampleChecks // one subsample: its page, refresh and downloads
	SendChecks      SendChecks      // send lists and bulk checks
	PanelistChecks  PanelistChecks  // a panelist's surveys and eligibility, the router
	ProfilingChecks ProfilingChecks // what to profile next: the ranking and the coverage
	PolicyChecks    PolicyChecks    // our own rules: the policy page and API
	// Outcomes is the outcomes service (*outcomes.Service): what the
	// sending produced, the invoice, a panelist's completes.
	Outcomes  Outcomes
	Refresher Refresher
	Routings  RoutingRecorder
	// ReturnChecks records the respondents' returns (the checks service).
	ReturnChecks ReturnChecks
	// ClickRefusals may be nil (no limits: none refused).
	ClickRefusals ClickRefusals
	// Subscriber checks and makes webhook subscriptions.
	Subscriber Subscriber
	// Now is the clock; Location the time zone pages show times in;
	// ProviderLocation the provider's, in which zone-less history dates
	// are read.
	Now              func() time.Time
	Location         *time.Location
	ProviderLocation *time.Location
	// PublicURL is where panelists reach this server (invitation links
	// are PublicURL/r/TOKEN); "" makes no invitation links. InviteTTL is
	// how long those links stay valid. NoSurveyURL is where a click that
	// no survey would take goes; "" shows a plain page instead.
	PublicURL   string
	InviteTTL   time.Duration
	NoSurveyURL string
	// CompleteURL is where a respondent returned with a complete goes;
	// "" shows a plain page of thanks.
	CompleteURL string
	// Instance is this instance's lease holder id, which /healthz names.
	Instance string
}

// page builds the base view model of a page.
func (h *Handler) page(title, active string) views.Page {
	return views.Page{Title: title, Active: active, Now: h.Now(), Location: h.Location}
}

// pathParam returns the path parameter name, decoded once. Echo routes on
// the request's RawPath when net/url keeps one (the path holds an escape
// such as %2F that decoding would change) and on the decoded Path
// otherwise, so the parameter is decoded here only in the first case:
// decoding it again would refuse "100%25" (the id 100%) as a bad escape and
// read "a%252Fb" as a/b.
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	return url.PathUnescape(v)
}

// wantsFragment reports whether the request wants a part of a page rather
// than the whole (htmx.WantsFragment), and sets the Vary header the
// answer then needs. Only the render helpers below ask it: a handler
// says what it would answer either way and lets them choose.
func wantsFragment(c echo.Context) bool {
	varyOnFragment(c)
	return htmx.WantsFragment(c.Request())
}

// varyOnFragment marks the answer as one that varies with the headers
// wantsFragment reads (htmx.Vary), so that no cache hands a fragment to a
// page load or the other way round.
func varyOnFragment(c echo.Context) {
	c.Response().Header().Set("Vary", htmx.Vary)
}

// Render writes a component with the given status. It renders into a
// buffer first so that a failing component becomes an error page rather
// than half a page. It is for an answer that is the same whoever asks (a
// page htmx selects from, a form shown again with its error, sign-in);
// an answer that htmx gets a part of goes through pageOrFragment or its
// siblings below, which call it.
func Render(c echo.Context, status int, component templ.Component) error {
	buf := renderBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledRender {
			buf.Reset()
			renderBuffers.Put(buf)
		}
	}()
	if err := component.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// renderBuffers are Render's buffers, used again by the next answer
// once the bytes are written, rather than grown anew for every page; one
// grown past maxPooledRender (a long list, a large page) is left to the
// collector.
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledRender = 256 << 10

// pageOrFragment answers with a page that htmx may ask a part of, and is
// the one place that chooses between them: an htmx request that is not
// restoring a page from history (htmx.WantsFragment) gets fragment; any
// other gets the whole page, which page builds only then, so a fragment
// costs none of the rest of the page's work (the refresh panel, the
// filters' choices). Either is rendered by Render, with status, and the
// answer carries Vary: htmx.Vary. A fragment may do its work as it
// renders (the live list's reads its cache): its error is then Render's.
func pageOrFragment(c echo.Context, status int, fragment templ.Component, page func() (templ.Component, error)) error {
	if wantsFragment(c) {
		return Render(c, status, fragment)
	}
	whole, err := page()
	if err != nil {
		return err
	}
	return Render(c, status, whole)
}

// fragmentOr answers an htmx request that is not restoring history with
// the component fragment builds (called only then), rendered with status;
// any other request gets what otherwise answers, such as a redirect back
// to the page after a plain form post. Either carries Vary: htmx.Vary.
func fragmentOr(c echo.Context, status int, fragment func() (templ.Component, error), otherwise func() error) error {
	if !wantsFragment(c) {
		return otherwise()
	}
	part, err := fragment()
	if err != nil {
		return err
	}
	return Render(c, status, part)
}

// renderPolled answers with status and the panel a page polls through
// htmx while a refresh runs. The poll that finds the refresh over
// (running false) is the one that must tell the page: it also gets the
// response header name: value (htmx.HeaderTrigger or HeaderRefresh), and
// panel is called with ended true to say so. A request that is not an
// htmx fragment request (a browser opening the URL) never ends anything:
// it gets the panel alone. The answer carries Vary: htmx.Vary.
func renderPolled(c echo.Context, status int, running bool, name, value string, panel func(ended bool) templ.Component) error {
	ended := wantsFragment(c) && !running
	if ended {
		c.Response().Header().Set(name, value)
	}
	return Render(c, status, panel(ended))
}

// refreshView gathers the refresh panel's state.
func (h *Handler) refreshView(ctx context.Context) (views.RefreshView, error) {
	states, err := h.Store.Datasets(ctx)
	if err != nil {
		return views.RefreshView{}, err
	}
	progress, err := h.refreshProgress(ctx)
	if err != nil {
		return views.RefreshView{}, err
	}
	return views.RefreshView{
		Progress: progress,
		Events:   states[store.DatasetEvents],
		NextDue:  h.Refresher.NextDue(states)[store.DatasetEvents],
	}, nil
}

// refreshProgress is the refresh running on this instance, or the last
// one; but while this instance runs none and another holds the refresh
// lease, it is the other's as far as the database tells: running on that
// instance since it took the lease. Behind a load balancer the polls of a
// refresh started through one instance may reach another, which must not
// say it is over while it runs.
func (h *Handler) refreshProgress(ctx context.Context) (views.RefreshProgress, error) {
	p := h.Refresher.Progress()
	if p.Running {
		return p, nil
	}
	l, err := h.Store.LeaseOf(ctx, store.LeaseRefresh)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return p, nil
	case err != nil:
		return p, err
	}
	if now := h.Now(); !l.Free(now) && !l.HeldBy(h.Instance, now) {
		return views.RefreshProgress{Running: true, Scope: "the provider's data", Phase: "running on another instance (" + l.Holder + ")", StartedAt: l.AcquiredAt}, nil
	}
	return p, nil
}
