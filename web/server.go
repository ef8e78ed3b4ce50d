// Package web assembles Fieldboard's HTTP server: the routes in one list,
// the middleware, the embedded static files, the error pages and the
// refresher's schedule.
package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"fieldboard/handlers"
	"fieldboard/handlers/htmx"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/static"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/web/auth"
	"fieldboard/web/metrics"
	"fieldboard/web/refresh"
	"fieldboard/web/webhooks"
)

// Server is the dashboard's HTTP server and its refresh schedule. Its
// fields are the dependencies of every route; Routes hands them to the
// handlers.
type Server struct {
	Store  *store.Store
	Checks *checks.Service
	// Outcomes is the outcomes service; Routes makes one of Store,
	// Checks and ProviderLocation when nil.
	Outcomes  *outcomes.Service
	Refresher *refresh.Refresher
	Auth      *auth.Auth
	Logger    *slog.Logger
	// Now is the clock; Location the time zone pages show times in;
	// ProviderLocation the provider's, in which zone-less history dates
	// are read.
	Now              func() time.Time
	Location         *time.Location
	ProviderLocation *time.Location
	// ScheduleTick is how often the schedule checks what is due; 0 turns
	// the schedule off (refreshes then run only on demand).
	ScheduleTick time.Duration
	// PublicURL, InviteTTL and NoSurveyURL are the router's
	// (handlers.Handler).
	PublicURL   string
	InviteTTL   time.Duration
	NoSurveyURL string
	// CompleteURL is where a respondent returned with a complete goes
	// (handlers.Handler).
	CompleteURL string
	// The public invitation links' clicks are limited per client address
	// (ClicksPerSecond, ClickBurst) [5 a second, bursts of 30], per link
	// (LinkClicksPerSecond, LinkClickBurst) [1 a second, bursts of 10] and
	// over all links (AllClicksPerSecond, AllClickBurst) [200 a second,
	// bursts of 1,000]: see clickLimits.
	ClicksPerSecond     float64
	ClickBurst          int
	LinkClicksPerSecond float64
	LinkClickBurst      int
	AllClicksPerSecond  float64
	AllClickBurst       int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client: a request from one of them counts, for the sign-in
	// limits, as coming from the last address in that header that is not
	// one of them. Without any, the address is the connection's, and the
	// header is ignored: anyone could write it.
	TrustedProxies []*net.IPNet
	// ReadTimeout bounds the reading of a request, its body included
	// (defaultReadTimeout when 0), so that connections trickling a body,
	// to the public sign-in form or anywhere else, are closed. The upload
	// routes get UploadReadTimeout instead (defaultUploadReadTimeout when
	// 0): large files take long on a slow line.
	ReadTimeout, UploadReadTimeout time.Duration
	// AllowPrivateWebhooks lets the webhooks page subscribe inside
	// addresses (loopback, private, link-local), as the worker's guard may.
	// WebhookResolver resolves the host names typed on it
	// [net.DefaultResolver].
	AllowPrivateWebhooks bool
	WebhookResolver      *net.Resolver
	// Webhooks, when set, sends the queue of webhook deliveries while
	// Serve runs.
	Webhooks *webhooks.Worker
	// Instance is this instance's lease holder id (lease.Holder.ID), which
	// /healthz and /metrics tell.
	Instance string
	// Metrics are served at /metrics; Routes makes them when nil.
	Metrics *metrics.Metrics

	// routing writes the router's decisions, started by Routes and
	// stopped by Close.
	routing *routingLog
	// clicks limit the invitation links' clicks, made by Routes.
	clicks *clickLimits
	// slowChecks, set by web's tests only (export_test.go), answer the
	// subsample pages and the send lists in the service's stead.
	slowChecks interface {
		handlers.SubsampleChecks
		handlers.SendChecks
	}
}

// Close writes the router's decisions still queued. Serve calls it on
// the way out; a server used through Routes alone should too.
func (s *Server) Close() {
	if s.routing != nil {
		s.routing.Close()
		s.routing = nil
	}
}

// The read timeouts when the Server's are 0.
const (
	defaultReadTimeout       = 30 * time.Second
	defaultUploadReadTimeout = 15 * time.Minute
)

// Routes returns the HTTP handler with every route of the dashboard.
func (s *Server) Routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = s.clientAddress()
	e.Use(middleware.Recover())
	e.Use(s.logRequests)
	e.Use(secureHeaders)
	e.Use(noStore)
	e.Use(sameOrigin)
	e.Use(readableQuery)
	e.Use(s.bodyLimits) // before anything parses a form: sign-in and the CSRF check do
	e.Use(s.Auth.Middleware)
	e.Use(requireRole)      // after sign-in, before anything waits long for an upload
	e.Use(s.uploadDeadline) // after: only who may upload waits long
	e.Use(s.staleBanner)
	e.Use(s.linksUnchecked)

	if s.routing == nil {
		s.routing = newRoutingLog(s.Store, s.Logger)
	}
	if s.Checks != nil && s.Checks.Returns.Pending == nil {
		s.Checks.Returns.Pending = s.routing.Flush
		s.Checks.Returns.Queued = s.routing.Queued
	}
	h := &handlers.Handler{Store: s.Store, Refresher: handlersRefresher{s.Refresher}, Routings: s.routing,
		Subscriber: webhookSubscriber{guard: webhooks.Guard{AllowPrivate: s.AllowPrivateWebhooks, Resolver: s.WebhookResolver}, now: s.Now, logger: s.Logger},
		Now:        s.Now, Location: s.Location, ProviderLocation: s.ProviderLocation,
		PublicURL: s.PublicURL, InviteTTL: s.InviteTTL, NoSurveyURL: s.NoSurveyURL, CompleteURL: s.CompleteURL, Instance: s.Instance}
	// A server without the checks service (some tests') hands the
	// handlers no service at all, never a nil one in an interface.
	var verdicts metrics.Checker
	if s.Checks != nil {
		verdicts = s.Checks
		h.SnapshotChecks, h.SubsampleChecks, h.SendChecks, h.PanelistChecks = s.Checks, s.Checks, s.Checks, s.Checks
		h.ReturnChecks = s.Checks
		h.ProfilingChecks = s.Checks
		h.PolicyChecks = s.Checks
		if s.slowChecks != nil {
			h.SubsampleChecks, h.SendChecks = s.slowChecks, s.slowChecks
		}
		if s.Outcomes == nil {
			s.Outcomes = &outcomes.Service{Store: s.Store, Checks: s.Checks, ProviderLocation: s.ProviderLocation}
		}
	}
	if s.Outcomes != nil {
		h.Outcomes = s.Outcomes
	}
	if s.Metrics == nil {
		src := metrics.Sources{Store: s.Store, Checks: verdicts, Instance: s.Instance, Now: s.Now, Logger: s.Logger}
		if s.Checks != nil {
			src.Returns = s.Checks
		}
		s.Metrics = metrics.New(src)
	}
	if s.clicks == nil {
		s.clicks = newClickLimits(s, s.Metrics.ObserveRefusedClick)
	}
	h.ClickRefusals = s.clicks
	signIn := &auth.Pages{Auth: s.Auth, Now: s.Now, Location: s.Location}
	e.GET("/", h.Overview)
	e.GET("/overview.csv", h.Overview)
	e.GET("/healthz", h.Health)
	e.GET("/metrics", echo.WrapHandler(s.Metrics.Handler()))
	e.GET("/r/:token", h.Redirect, s.observeRouter("invitation"), s.clicks.middleware)
	e.GET("/return/:status", h.ReturnAddress, s.observeRouter("return"))
	e.GET("/login", signIn.Login)
	e.POST("/login", signIn.SignIn)
	e.POST("/logout", signIn.SignOut)
	e.GET("/users", signIn.Users) // users and tokens: admins only (requireRole)
	e.POST("/users", signIn.AddUser)
	e.POST("/users/role", signIn.SetUserRole)
	e.POST("/users/tokens", signIn.CreateToken)
	e.POST("/users/tokens/revoke", signIn.RevokeToken)
	e.GET("/live", h.Live)
	e.GET("/live.csv", h.Live)
	e.POST("/refresh", h.StartRefresh)
	e.GET("/refresh/progress", h.RefreshProgress)

	e.GET("/subsamples/:id", h.Subsample)
	e.GET("/subsamples/:id/outcomes", h.SubsampleOutcomes)
	e.GET("/subsamples/:id/coverage", h.SubsampleCoverage)
	e.GET("/subsamples/:id/quotas.csv", h.SubsampleQuotasCSV)
	e.GET("/subsamples/:id/verdict.csv", h.SubsampleVerdictCSV)
	e.GET("/subsamples/:id/links.csv", h.SubsampleLinksCSV)
	e.GET("/subsamples/:id/targets.csv", h.SubsampleTargets)
	e.GET("/subsamples/:id/targets/count", h.SubsampleTargetCount)
	e.POST("/subsamples/:id/refresh", h.RefreshSubsample)
	e.GET("/subsamples/:id/refresh/progress", h.SubsampleRefreshProgress)
	e.GET("/events", h.Events)
	e.GET("/events.csv", h.Events)
	e.GET("/library", h.Library)
	e.GET("/library.csv", h.Library)
	e.GET("/library/:locale/questions/:qid/answers", h.LibraryAnswers)
	e.GET("/library/:locale/questions/:qid/answers.csv", h.LibraryAnswers)
	e.GET("/reference", h.Reference)
	e.GET("/reference/:table", h.ReferenceCSV)

	e.GET("/panelists", h.Panelists)
	e.GET("/panelists.csv", h.Panelists)
	e.POST("/panelists/history", h.UploadHistory)
	e.POST("/panelists/bulk", h.BulkCheck)
	e.POST("/panelists/profiles", h.UploadProfiles)
	e.POST("/panelists/panel", h.UploadPanel)
	e.GET("/panelists/held", h.HeldPanelists)
	e.GET("/panelists/held.csv", h.HeldPanelists)
	e.POST("/panelists/held", h.HoldPanelist)
	e.POST("/panelists/held/:id/release", h.ReleasePanelist)
	e.GET("/profiling", h.Profiling)
	e.GET("/profiling.csv", h.Profiling)
	e.POST("/profiling/mapping", h.UploadMapping)
	e.POST("/profiling/own", h.UploadOwnProfiles)
	e.GET("/changes", h.Changes)
	e.GET("/changes.csv", h.Changes)
	e.GET("/routing", h.Routing)
	e.GET("/outcomes", h.OutcomesPage)
	e.GET("/outcomes.csv", h.OutcomesPage)
	e.GET("/outcomes/invoice", h.InvoicePage)
	e.GET("/outcomes/invoice.csv", h.InvoicePage)
	e.GET("/webhooks", h.Webhooks)
	e.POST("/webhooks", h.AddWebhook)
	e.POST("/webhooks/:id/remove", h.RemoveWebhook)
	e.POST("/webhooks/:id/test", h.TestWebhook)
	e.GET("/policy", h.Policy)
	e.GET("/policy.csv", h.Policy)
	e.GET("/policy/changes.csv", h.PolicyChangesCSV)
	e.POST("/policy", h.AddPolicyRule)
	e.POST("/policy/resume", h.ResumeSubsample)
	e.POST("/policy/:id/remove", h.RemovePolicyRule)
	e.GET("/routing.csv", h.Routing)

	api := e.Group("/api/v1")
	api.GET("/subsamples", h.APISubsamples)
	api.POST("/subsamples/:id/eligibility", h.APIBulkEligibility)
	api.GET("/subsamples/:id/targets", h.SubsampleTargets)
	api.POST("/profiles", h.APIImportProfiles)
	api.POST("/profiles/own", h.APIImportOwnProfiles)
	api.POST("/profiles/mapping", h.APIImportMapping)
	api.GET("/profiles/mapping", h.APIProfileMapping)
	api.POST("/panelists", h.APIImportPanel)
	api.GET("/eligibility", h.APIEligibility)
	api.GET("/profiling", h.APIProfiling)
	api.GET("/panelists/held", h.APIHeldPanelists)
	api.GET("/panelists/:id/surveys", h.APIPanelistSurveys)
	api.GET("/panelists/:id/next", h.APINextSurveys, s.observeRouter("next"))
	api.GET("/changes", h.APIChanges)
	api.GET("/policy", h.APIPolicy)
	api.POST("/policy", h.APISetPolicyRule)
	api.GET("/policy/changes", h.APIPolicyChanges)
	api.POST("/policy/:id/remove", h.APIRemovePolicyRule)
	api.GET("/outcomes", h.APIOutcomes)
	api.GET("/invoice", h.APIInvoice)
	api.POST("/history", h.APIImportHistory)
	api.POST("/returns", h.APIReturns, s.observeRouter("return"))
	api.POST("/refresh", h.APIRefresh)
	api.GET("/refresh", h.APIRefreshProgress)
	api.GET("/openapi.json", h.APIOpenAPI)
	e.StaticFS("/static", static.Files)
	e.GET("/favicon.ico", favicon) // asked for by every browser, on every page
	return e
}

// favicon answers GET /favicon.ico, which browsers ask for whatever the
// page links, with the SVG favicon: public, cached like the static files.
func favicon(c echo.Context) error {
	svg, err := static.Files.ReadFile(static.Favicon)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/svg+xml", svg)
}

// observeRouter counts the router's requests on route ("invitation",
// "next") and their time, for /metrics: its answers, refusals by the
// click limit included, with their status.
func (s *Server) observeRouter(route string) echo.MiddlewareFunc {
	observe := s.Metrics.RouterObserver(route)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			code := c.Response().Status
			if err != nil {
				code = http.StatusInternalServerError
				if he := (*echo.HTTPError)(nil); errors.As(err, &he) {
					code = he.Code
				}
			}
			observe(code, time.Since(start))
			return err
		}
	}
}

// webhookSubscriber adapts web/webhooks to handlers.Subscriber.
type webhookSubscriber struct {
	guard  webhooks.Guard
	now    func() time.Time
	logger *slog.Logger
}

// NewSubscription refuses a host name that does not resolve to public
// addresses without saying, to the page, what it resolved to or which
// resolver said so (webhooks.HostError); the log says it.
func (w webhookSubscriber) NewSubscription(ctx context.Context, url, events, country string) (store.WebhookSubscription, error) {
	sub, err := webhooks.NewSubscription(ctx, w.guard, url, events, country, w.now())
	if refused := (*webhooks.HostError)(nil); errors.As(err, &refused) {
		w.logger.Warn("webhook address refused", "host", refused.Host, "detail", refused.Cause)
	}
	return sub, err
}

func (webhookSubscriber) NewTestMessageID() string { return webhooks.NewTestMessageID() }

// clientAddress finds the client's address, which the sign-in limits
// count: the connection's, or behind a trusted proxy the one it forwards
// for. X-Forwarded-For from anyone else is ignored, or a guesser could
// pick a fresh address for every attempt. Loopback, link-local and
// private addresses are trusted only when listed.
func (s *Server) clientAddress() echo.IPExtractor {
	if len(s.TrustedProxies) == 0 {
		return echo.ExtractIPDirect()
	}
	trust := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, proxy := range s.TrustedProxies {
		trust = append(trust, echo.TrustIPRange(proxy))
	}
	return echo.ExtractIPFromXFFHeader(trust...)
}

// contentSecurityPolicy allows the pages nothing but their own files: no
// inline script or style, no framing, forms posting only here.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

// secureHeaders sets the headers that keep the pages from being framed,
// sniffed or leaking their addresses to other sites.
func secureHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		// As Header.Set would, the keys canonical already, the four
		// values in one allocation rather than one each: every answer
		// pays for them.
		h := c.Response().Header()
		v := make([]string, 4)
		v[0], v[1], v[2], v[3] = contentSecurityPolicy, "nosniff", "DENY", "same-origin"
		h["Content-Security-Policy"], h["X-Content-Type-Options"], h["X-Frame-Options"], h["Referrer-Policy"] = v[0:1:1], v[1:2:2], v[2:3:3], v[3:4:4]
		return next(c)
	}
}

// noStore keeps every answer but the static files out of caches: pages,
// CSVs and API answers hold panelists' ids, eligibility and entry links,
// and prices, which must not stay on a shared computer's disk or in a
// proxy's cache after the user signed out. The static files (stylesheet,
// scripts) hold nothing of that and keep their caching.
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if path := c.Request().URL.Path; !strings.HasPrefix(path, "/static/") && path != "/favicon.ico" {
			c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		}
		return next(c)
	}
}

// sameOrigin refuses state-changing requests that a browser sends on
// behalf of another site (a cross-site form post to /refresh or
// /api/v1/history): those carry Sec-Fetch-Site cross-site, or an Origin
// that is not this server. Scripts (curl, a router) send neither and pass.
func sameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if req.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return echo.NewHTTPError(http.StatusForbidden, "Requests from other sites are refused.")
		}
		if origin := req.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if err != nil || u.Host != req.Host {
				return echo.NewHTTPError(http.StatusForbidden, "Requests from other sites are refused.")
			}
		}
		return next(c)
	}
}

// Query strings are capped before anything reads them. No page, CSV or
// API call needs more: the longest filter a user types is a free-text
// search or a panelist id (128 bytes), and every other parameter is a
// number, a code or a name from a list. A longer query would only make the
// server parse, remember and render what an attacker sends.
const (
	maxQueryBytes      = 8 << 10 // the whole query string, as sent
	maxQueryParamBytes = 1 << 10 // one parameter's name or value, decoded
)

// readableQuery refuses a query string that net/url cannot decode (a bad
// escape such as %zz, a semicolon): its parameters would otherwise be
// dropped silently, and the page would answer for filters nobody asked.
// It refuses one longer than maxQueryBytes, or with a parameter longer
// than maxQueryParamBytes, saying which.
func readableQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		raw := c.Request().URL.RawQuery
		if plainQuery(raw) {
			return next(c) // nothing to decode, nothing too long: url.ParseQuery would refuse nothing
		}
		if len(raw) > maxQueryBytes {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The query string is %d bytes long; at most %d.", len(raw), maxQueryBytes))
		}
		query, err := url.ParseQuery(raw)
		if err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, "The query string could not be read: "+err.Error()+".")
		}
		for name, values := range query {
			if len(name) > maxQueryParamBytes {
				return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("A query parameter's name is %d bytes long; at most %d.", len(name), maxQueryParamBytes))
			}
			for _, v := range values {
				if len(v) > maxQueryParamBytes {
					return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("The query parameter %q is %d bytes long; at most %d.", name, len(v), maxQueryParamBytes))
				}
			}
		}
		return next(c)
	}
}

// plainQuery reports whether readableQuery would let raw through without
// decoding it: nothing escaped (no %, no +), no semicolon, and no name or
// value longer than maxQueryParamBytes. Such a query decodes to itself,
// so url.ParseQuery could refuse nothing in it. Any other query goes
// through url.ParseQuery, which says what is wrong.
func plainQuery(raw string) bool {
	if len(raw) > maxQueryBytes || strings.ContainsAny(raw, "%+;") {
		return false
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		name, value, _ := strings.Cut(pair, "=")
		if len(name) > maxQueryParamBytes || len(value) > maxQueryParamBytes {
			return false
		}
	}
	return true
}

// Request bodies are capped before anything reads them: files on the
// upload routes, small forms everywhere else.
const (
	maxUploadBytes = 1 << 30
	maxFormBytes   = 64 << 10
)

// uploadRoutes are the routes that take files: history, profile, panel
// and mapping files and lists of panelist ids.
var uploadRoutes = map[string]bool{
	"/panelists/history": true, "/panelists/bulk": true, "/panelists/profiles": true, "/panelists/panel": true,
	"/api/v1/history": true, "/api/v1/profiles": true, "/api/v1/panelists": true, "/api/v1/subsamples/:id/eligibility": true,
	"/profiling/mapping": true, "/profiling/own": true, "/api/v1/profiles/mapping": true, "/api/v1/profiles/own": true,
	"/api/v1/returns": true, // its handler caps it lower (handlers.maxReturnsBody)
}

// bodyLimits refuses a body declared larger than its route allows (413)
// and stops reading one that grows past it, chunked or not.
func (s *Server) bodyLimits(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		limit := int64(maxFormBytes)
		if uploadRoutes[c.Path()] {
			limit = maxUploadBytes
		}
		req := c.Request()
		if req.ContentLength > limit {
			return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is larger than %d bytes.", limit))
		}
		req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		return next(c)
	}
}

// uploadDeadline moves the connection's read deadline, on the upload
// routes, from the server's short ReadTimeout to UploadReadTimeout from
// now, and then reads a form's file, spooling it to a temporary file past
// a megabyte (auth.ReadForm) rather than echo's 32, and removing that
// file afterwards.
//
// It runs after the sign-in check (auth's Middleware), which lets through
// only a signed-in user whose form carries the session's CSRF token, or a
// valid bearer token: whoever else is refused under the short deadline,
// and cannot hold a connection for the long one by trickling a body. The
// CSRF check reads a form's token from the X-CSRF-Token header or the
// form's first field (where every dashboard form puts it, before the
// file), so a file is never read before the long deadline is granted.
func (s *Server) uploadDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	uploadTimeout := cmp.Or(s.UploadReadTimeout, defaultUploadReadTimeout)
	return func(c echo.Context) error {
		if !uploadRoutes[c.Path()] {
			return next(c)
		}
		err := http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(uploadTimeout))
		if err != nil && !errors.Is(err, http.ErrNotSupported) { // not supported: no deadline to move
			return fmt.Errorf("extend the upload's read deadline: %w", err)
		}
		req := c.Request()
		// net/http removes the temporary files of the request it handed
		// over only; this one is auth's copy, with the viewer.
		defer func() {
			if req.MultipartForm != nil {
				req.MultipartForm.RemoveAll()
			}
		}()
		if _, err := auth.ReadForm(req); err != nil {
			return err
		}
		return next(c)
	}
}

// refusalGrace is how long a refused request's connection stays open for
// its client to read the answer, reading nothing more of the body: as
// long as net/http's own wait before it closes a connection with unread
// data (its rstAvoidanceDelay), after which the client's next bytes are
// met with a reset that may drop an answer not yet read.
const refusalGrace = 500 * time.Millisecond

// closeAfterRefusal, called before a refusal is written, makes the
// answer go out at once and the connection close behind it, when the
// request has a body that may not have been read. Without it, net/http
// reads up to 256 KiB of an unread body before it writes the answer, and
// again when the request is done, at the client's pace until the read
// deadline: a client trickling the body of a refused upload would hold
// the connection for as long. Connection: close spares the first reading
// (net/http does not read a body before an answer that closes); the
// returned stop, called once the answer is written, moves the read
// deadline to refusalGrace from now, which ends the second.
func closeAfterRefusal(c echo.Context) (stop func()) {
	if c.Request().ContentLength == 0 { // no body (-1 is one of unknown length)
		return func() {}
	}
	c.Response().Header().Set(echo.HeaderConnection, "close")
	return func() {
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(refusalGrace)) // not supported: nothing to cut short
	}
}

// Serve listens on ln and runs the refresh schedule until ctx is done,
// then shuts the server down gracefully and cancels the refresh in flight.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Routes(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cmp.Or(s.ReadTimeout, defaultReadTimeout), // the upload routes extend it once signed in (uploadDeadline)
		IdleTimeout:       2 * time.Minute,
		// Headers and the query string need little: a query is capped at
		// 8 KiB (readableQuery), and net/http's default would let each
		// connection hold 1 MiB of header.
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn),
	}
	defer s.Close() // after the last request: its decision is queued
	scheduleCtx, stopSchedule := context.WithCancel(ctx)
	defer stopSchedule()
	if s.ScheduleTick > 0 {
		go s.Refresher.Schedule(scheduleCtx, s.ScheduleTick)
	}
	hooksDone := make(chan struct{})
	go func() {
		defer close(hooksDone)
		if s.Webhooks != nil {
			s.Webhooks.Run(scheduleCtx)
		}
	}()
	defer func() { stopSchedule(); <-hooksDone }() // its last outcomes recorded before the store closes
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err := <-serveErr:
		s.Refresher.Close()
		return err
	case <-ctx.Done():
	}
	s.Logger.Info("shutting down")
	stopSchedule()
	s.Refresher.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// isInvitation reports whether req is for an invitation link (/r/TOKEN),
// which a panelist opens.
func isInvitation(req *http.Request) bool { return strings.HasPrefix(req.URL.Path, "/r/") }

// isReturn reports whether req is for a return address (/return/STATUS),
// which a respondent's browser opens.
func isReturn(req *http.Request) bool { return strings.HasPrefix(req.URL.Path, "/return/") }

// loggedPath is the request's path as the log shows it: an invitation
// link's token is left out, since it opens the panelist's survey.
func loggedPath(req *http.Request) string {
	if isInvitation(req) {
		return "/r/…"
	}
	return req.URL.Path
}

// statusClientClosedRequest is the status logged for a request whose
// client went away before any answer: nginx's 499.
const statusClientClosedRequest = 499

// clientGone reports whether a request failed because its client went
// away: the error is the cancellation of the request's context, which
// net/http cancels when it sees the connection close (a query interrupted,
// a send list given up; the store and the checks service return
// ctx.Err()), or a write to a connection the client reset or closed
// (ECONNRESET, EPIPE), which may come before that is seen. Other errors
// are answered and logged as usual: a body that stopped coming within the
// read timeout cancels the context too, but that client is still there
// and gets its 408.
func clientGone(req *http.Request, err error) bool {
	return errors.Is(err, context.Canceled) && req.Context().Err() != nil ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// staleBanner tells every page when the data is too old to decide on
// (checks.Service.StaleReason), for the banner the layout shows.
func (s *Server) staleBanner(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		// Pages of a signed-in user only: the sign-in page tells nobody
		// about the provider.
		if req.Method != http.MethodGet || views.ViewerOf(req.Context()).Name == "" || strings.HasPrefix(req.URL.Path, "/api/") || s.Checks == nil {
			return next(c)
		}
		why, err := s.Checks.StaleReason(req.Context())
		if err != nil {
			return err
		}
		if why != "" {
			c.SetRequest(req.WithContext(views.WithStale(req.Context(), why)))
		}
		return next(c)
	}
}

// EntryLinksHeader is the response header of every API answer while
// entry links are not checked against the provider's entry address
// (--entry-url not set): its value says so (rules.LinksUnchecked).
const EntryLinksHeader = "Fieldboard-Entry-Links"

// linksUnchecked tells every page, and every API answer by a header
// (EntryLinksHeader), that entry links are not checked against the
// provider's entry address, while no --entry-url is set.
func (s *Server) linksUnchecked(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.Checks == nil {
			return next(c)
		}
		why := s.Checks.LinksUnchecked()
		if why == "" {
			return next(c)
		}
		req := c.Request()
		if strings.HasPrefix(req.URL.Path, "/api/") {
			c.Response().Header().Set(EntryLinksHeader, "not checked; "+why)
			return next(c)
		}
		if req.Method == http.MethodGet && views.ViewerOf(req.Context()).Name != "" {
			c.SetRequest(req.WithContext(views.WithLinksUnchecked(req.Context(), why)))
		}
		return next(c)
	}
}

// logRequests writes one log line per request.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		req := c.Request()
		if req.URL.Path == "/refresh/progress" || req.URL.Path == "/favicon.ico" || strings.HasPrefix(req.URL.Path, "/static/") {
			return nil // polled every second, or asked on every page; not worth a line each
		}
		if !s.Logger.Enabled(req.Context(), slog.LevelDebug) {
			return nil // the line would be dropped: spare building it
		}
		s.Logger.Debug("request", "method", req.Method, "path", loggedPath(req),
			"status", c.Response().Status, "took", time.Since(start).Round(time.Microsecond))
		return nil
	}
}

// handleError answers a failed request: JSON for the API, a page for the
// rest. 5xx are logged as errors with their detail, which the user never
// sees; 4xx keep their message, which is written for the user.
//
// A client that went away is no failure of ours: it is logged at info
// level, its request line gets the status 499 (nginx's "client closed
// request") when nothing was sent yet, and nothing is written.
func (s *Server) handleError(err error, c echo.Context) {
	if req := c.Request(); clientGone(req, err) {
		s.Logger.Info("client went away before the answer was sent", "method", req.Method, "path", loggedPath(req), "err", err)
		if !c.Response().Committed {
			c.Response().Status = statusClientClosedRequest
		}
		return
	}
	if c.Response().Committed {
		// A streamed answer (CSV) failed part-way: the client sees it cut
		// short; the log says why.
		level := slog.LevelError
		if errors.Is(err, os.ErrDeadlineExceeded) {
			level = slog.LevelWarn // a client that reads too slowly is cut off (handlers set write deadlines)
		}
		s.Logger.Log(c.Request().Context(), level, "answer failed after it started", "method", c.Request().Method, "path", loggedPath(c.Request()), "err", err)
		return
	}
	status, message := http.StatusInternalServerError, "Something went wrong on our side; the error is logged."
	var he *echo.HTTPError
	switch {
	case errors.Is(err, checks.ErrVersionMoving):
		status, message = http.StatusServiceUnavailable, "The data changed while the panelist was being checked; try again in a moment."
		c.Response().Header().Set("Retry-After", "1")
	case errors.As(err, &he):
		status = he.Code
		if status < 500 {
			if m, ok := he.Message.(string); ok {
				message = m
			} else {
				message = http.StatusText(status)
			}
		}
	}
	req := c.Request()
	defer closeAfterRefusal(c)()
	if status >= 500 && status != http.StatusServiceUnavailable {
		s.Logger.Error("request failed", "method", req.Method, "path", loggedPath(req), "err", err)
	} else {
		s.Logger.Warn("request refused", "method", req.Method, "path", loggedPath(req), "status", status, "err", err)
	}
	if strings.HasPrefix(req.URL.Path, "/api/") {
		_ = c.JSON(status, map[string]string{"error": message})
		return
	}
	p := views.Page{Title: http.StatusText(status), Now: s.Now(), Location: s.Location}
	v := views.ErrorView{Page: p, Status: status, Message: message, Path: req.URL.Path}
	component := views.ErrorPage(v)
	switch {
	case isInvitation(req):
		// A panelist's page, with nothing of the dashboard in it.
		message = "This link is not valid."
		if status >= 500 {
			message = "This link cannot be followed right now; please try again in a moment."
		}
		component = views.PanelistMessage(http.StatusText(status), message)
	case htmx.IsRequest(req):
		// Into the page's error slot, not the element that asked, which
		// must stay for the next request.
		component = views.ErrorFragment(v)
		c.Response().Header().Set(htmx.HeaderRetarget, "#flash")
		c.Response().Header().Set(htmx.HeaderReswap, "innerHTML")
		c.Response().Header().Set(htmx.HeaderReselect, "[role=alert]") // overrides an hx-select of the asking element
	}
	var buf bytes.Buffer
	if rerr := component.Render(req.Context(), &buf); rerr != nil {
		_ = c.String(status, message)
		return
	}
	_ = c.HTMLBlob(status, buf.Bytes())
}
