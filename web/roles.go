package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
)

// Who may do what, for every route in one place (needRole): reading needs
// only to be signed in (web/auth); every other method needs the
// coordinator role, and the admin areas the admin role. A route added to
// Routes is covered by this default without being named here.

// adminAreas are the paths, with all under them, that need the admin
// role: for every request (reads too) or only for changes.
var adminAreas = []struct {
	path  string
	reads bool
	what  string // what is done there, to start the refusal's sentence
}{
	{"/users", true, "Managing users and tokens"},
	{"/webhooks", false, "Changing webhooks"},
}

// anyoneMay are the changes that need no role: signing in and out. The
// respondents' links (/r/:token, /return/:status) are reads, and need
// none either: web/auth lets them through unsigned.
var anyoneMay = map[string]bool{"/login": true, "/logout": true}

// changingReads are the GET routes that change what is stored, and so
// need the coordinator role: the next-survey answer records the router's
// send.
var changingReads = map[string]bool{"/api/v1/panelists/:id/next": true}

// needRole is the role a request needs, and what it does, for the
// refusal's sentence; "" for no role beyond what web/auth asks. route is
// the matched route's path (echo's c.Path()).
func needRole(method, path, route string) (store.Role, string) {
	write := method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
	for _, a := range adminAreas {
		if (a.reads || write) && (path == a.path || strings.HasPrefix(path, a.path+"/")) {
			return store.RoleAdmin, a.what
		}
	}
	switch {
	case write && anyoneMay[path]:
		return "", ""
	case write:
		return store.RoleCoordinator, "Changing data and decisions"
	case changingReads[route]:
		return store.RoleCoordinator, "Asking the router for a panelist's next survey (it records the send)"
	}
	return "", ""
}

// requireRole refuses, with 403 and a sentence naming the role needed and
// the asker's, a request whose route needs a role the asker (web/auth's
// viewer) lacks.
func requireRole(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		need, what := needRole(req.Method, req.URL.Path, c.Path())
		if need == "" {
			return next(c)
		}
		v := views.ViewerOf(req.Context())
		if v.Role.Covers(need) {
			return next(c)
		}
		who := "you are " + views.ARole(v.Role)
		switch {
		case v.Role == "":
			who = "you are not signed in"
		case v.Token:
			who = "this token has the " + string(v.Role) + " role"
		}
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("%s needs the %s role; %s.", what, need, who))
	}
}
