package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"fieldboard/store"
	"fieldboard/web/auth"
)

// routeRoles is the role every route that changes something needs, by
// "METHOD path" as web.Server.Routes registers it: every route but the
// GETs, and the GETs that change what is stored or need more than a
// viewer. "" is a route anyone may call (signing in and out).
// TestEveryChangeNeedsItsRole fails on a route of Routes that changes
// something and is missing here: add it with the role it needs.
var routeRoles = map[string]store.Role{
	"POST /login":  "",
	"POST /logout": "",

	"POST /refresh":                           store.RoleCoordinator,
	"POST /subsamples/:id/refresh":            store.RoleCoordinator,
	"POST /panelists/history":                 store.RoleCoordinator,
	"POST /panelists/bulk":                    store.RoleCoordinator,
	"POST /panelists/profiles":                store.RoleCoordinator,
	"POST /panelists/panel":                   store.RoleCoordinator,
	"POST /profiling/mapping":                 store.RoleCoordinator,
	"POST /profiling/own":                     store.RoleCoordinator,
	"POST /api/v1/subsamples/:id/eligibility": store.RoleCoordinator,
	"POST /api/v1/profiles":                   store.RoleCoordinator,
	"POST /api/v1/profiles/own":               store.RoleCoordinator,
	"POST /api/v1/profiles/mapping":           store.RoleCoordinator,
	"POST /api/v1/panelists":                  store.RoleCoordinator,
	"POST /api/v1/history":                    store.RoleCoordinator,
	"POST /api/v1/returns":                    store.RoleCoordinator,
	"POST /api/v1/refresh":                    store.RoleCoordinator,
	"POST /panelists/held":                    store.RoleCoordinator,
	"POST /panelists/held/:id/release":        store.RoleCoordinator,
	"POST /policy":                            store.RoleCoordinator,
	"POST /policy/resume":                     store.RoleCoordinator,
	"POST /policy/:id/remove":                 store.RoleCoordinator,
	"POST /api/v1/policy":                     store.RoleCoordinator,
	"POST /api/v1/policy/:id/remove":          store.RoleCoordinator,
	// The next-survey answer records the router's send.
	"GET /api/v1/panelists/:id/next": store.RoleCoordinator,

	"POST /webhooks":            store.RoleAdmin,
	"POST /webhooks/:id/remove": store.RoleAdmin,
	"POST /webhooks/:id/test":   store.RoleAdmin,
	"GET /users":                store.RoleAdmin,
	"POST /users":               store.RoleAdmin,
	"POST /users/role":          store.RoleAdmin,
	"POST /users/tokens":        store.RoleAdmin,
	"POST /users/tokens/revoke": store.RoleAdmin,
}

// routeParams fill a route's parameters with values that reach its
// handler (which may then answer 404 or 400: only 403 matters here).
var routeParams = strings.NewReplacer(":id", "1", ":token", "x", ":status", "complete", ":locale", "fr-fr", ":qid", "1", ":table", "countries")

// asker is one way of asking: a role, signed in or with a token.
type asker struct {
	role  store.Role
	token bool
	// session: cookie and CSRF token; token: the bearer token.
	cookie *http.Cookie
	csrf   string
	bearer string
}

func (k asker) String() string {
	if k.token {
		return string(k.role) + " token"
	}
	return "signed-in " + string(k.role)
}

// askers signs in a user of each role and makes a token of each role:
// the app's user tester and token tests are admins.
func askers(t *testing.T, a *app) []asker {
	t.Helper()
	ctx := context.Background()
	hash, err := bcrypt.GenerateFromPassword([]byte(testerPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	var out []asker
	for _, role := range store.Roles {
		user, token := "as-"+string(role), "script-"+string(role)
		if err := a.store.AddUser(ctx, user, role, string(hash), time.Now()); err != nil {
			t.Fatal(err)
		}
		secret, secretHash := auth.NewToken()
		if err := a.store.CreateToken(ctx, store.Token{Name: token, Role: role, CreatedAt: time.Now()}, secretHash); err != nil {
			t.Fatal(err)
		}
		cookie, csrf := a.login(t, user, testerPassword)
		out = append(out, asker{role: role, cookie: cookie, csrf: csrf}, asker{role: role, token: true, bearer: secret})
	}
	return out
}

// ask sends method path as k, with an empty form body on a change.
func (a *app) ask(t *testing.T, k asker, method, path string) (int, string) {
	t.Helper()
	var body io.Reader
	if method != http.MethodGet {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, a.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if k.token {
		req.Header.Set("Authorization", "Bearer "+k.bearer)
	} else {
		req.AddCookie(k.cookie)
		req.Header.Set(auth.CSRFHeader, k.csrf)
	}
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestEveryChangeNeedsItsRole walks every route of web.Server.Routes.
// Each route that changes something (every method but GET, and the GETs
// of routeRoles) must be in routeRoles; each is asked by a signed-in
// viewer, coordinator and admin, and, on /api/ (the only place a token
// may change things), by a token of each role. One whose role is too low
// gets 403 with the sentence naming the role needed and the asker's (in
// JSON on /api/); one whose role is enough does not get 403. A viewer
// reads every other GET route without a 403.
func TestEveryChangeNeedsItsRole(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	all := askers(t, a)
	seen, asked := map[string]bool{}, 0
	for _, r := range a.routes {
		key := r.Method + " " + r.Path
		seen[key] = true
		need, known := routeRoles[key]
		switch {
		case !known && r.Method != http.MethodGet:
			t.Errorf("%s changes something and is not in routeRoles: add it there with the role it needs (web/roles.go decides it)", key)
			continue
		case !known:
			if strings.HasPrefix(r.Path, "/static") || r.Path == "/r/:token" || r.Path == "/return/:status" {
				continue // public, and a respondent's link counts a click
			}
			status, body := a.ask(t, all[0], r.Method, routeParams.Replace(r.Path))
			if status == http.StatusForbidden {
				t.Errorf("a viewer reading %s: 403 %s; a read needs no role beyond signing in, or list it in routeRoles", key, body)
			}
			continue
		}
		path := routeParams.Replace(r.Path)
		if r.Path == "/logout" {
			continue // would end the asker's session: asked last, below
		}
		for _, k := range all {
			if k.token && !strings.HasPrefix(r.Path, "/api/") {
				continue // a token changes things through /api/ only (web/auth)
			}
			status, body := a.ask(t, k, r.Method, path)
			asked++
			if !k.role.Covers(need) {
				who := "you are a " + string(k.role)
				if k.token {
					who = "this token has the " + string(k.role) + " role"
				}
				want := "needs the " + string(need) + " role; " + who + "."
				if strings.HasPrefix(r.Path, "/api/") {
					var e struct{ Error string }
					if json.Unmarshal([]byte(body), &e) != nil {
						t.Errorf("%s as a %s: %d %q, want a JSON error", key, k, status, body)
					}
					body = e.Error
				}
				if status != http.StatusForbidden || !strings.Contains(body, want) {
					t.Errorf("%s as a %s: %d %.300s; want 403 saying %q", key, k, status, body, want)
				}
				continue
			}
			if status == http.StatusForbidden {
				t.Errorf("%s as a %s: 403 %.300s; the %s role is enough", key, k, body, need)
			}
		}
	}
	if asked < 3*len(routeRoles) {
		t.Errorf("only %d changes asked: were the routes found?", asked)
	}
	for key := range routeRoles {
		if !seen[key] {
			t.Errorf("routeRoles lists %s, which Routes does not have: remove it", key)
		}
	}
	for _, k := range all {
		if k.token {
			continue
		}
		if status, body := a.ask(t, k, "POST", "/logout"); status == http.StatusForbidden {
			t.Errorf("POST /logout as a %s: 403 %s; anyone may sign out", k, body)
		}
	}
}

// TestRefusalsNameTheRole: a viewer's change from a page is refused on
// the error page, and from htmx in the page's flash, with the sentence
// that names the role needed and theirs; the menu shows Users to admins
// only, and the refresh button and the webhook form to those who may use
// them.
func TestRefusalsNameTheRole(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	all := askers(t, a)
	viewer, coordinator, admin := all[0], all[2], all[4]
	status, body := a.ask(t, viewer, "POST", "/webhooks")
	if status != http.StatusForbidden || !strings.Contains(body, "Changing webhooks needs the admin role; you are a viewer.") || !strings.Contains(body, "<html") {
		t.Errorf("a viewer adding a webhook: %d, want 403 on the error page naming the admin role:\n%.500s", status, body)
	}
	req, _ := http.NewRequest("POST", a.url+"/refresh", strings.NewReader(""))
	req.AddCookie(viewer.cookie)
	req.Header.Set(auth.CSRFHeader, viewer.csrf)
	req.Header.Set("HX-Request", "true")
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("HX-Retarget") != "#flash" || !strings.Contains(string(b), "Changing data and decisions needs the coordinator role; you are a viewer.") {
		t.Errorf("a viewer's htmx refresh: %d to %q, want 403 into #flash naming the coordinator role:\n%s", resp.StatusCode, resp.Header.Get("HX-Retarget"), b)
	}

	usersLink := regexp.MustCompile(`<a href="/users"`)
	for _, tc := range []struct {
		k                        asker
		users, refresh, webhooks bool
	}{
		{viewer, false, false, false},
		{coordinator, false, true, false},
		{admin, true, true, true},
	} {
		_, live := a.ask(t, tc.k, "GET", "/live")
		if got := usersLink.MatchString(live); got != tc.users {
			t.Errorf("%s: the menu links /users %v, want %v", tc.k, got, tc.users)
		}
		if got := strings.Contains(live, `action="/refresh"`); got != tc.refresh {
			t.Errorf("%s: /live shows the refresh button %v, want %v", tc.k, got, tc.refresh)
		}
		_, hooks := a.ask(t, tc.k, "GET", "/webhooks")
		if got := strings.Contains(hooks, `action="/webhooks"`); got != tc.webhooks {
			t.Errorf("%s: /webhooks shows the add form %v, want %v", tc.k, got, tc.webhooks)
		}
	}
}

// postForm sends a form as k (signed in) and returns the status and page.
func (a *app) postForm(t *testing.T, k asker, path string, form url.Values) (int, string) {
	t.Helper()
	form.Set("_csrf", k.csrf)
	req, err := http.NewRequest("POST", a.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(k.cookie)
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestUsersPage: an admin adds a user with a role, who signs in with it;
// changes a role; makes a token whose secret the answer shows once and
// the page never again, which then works with its role and is listed
// with its maker until revoked; and cannot take the admin role from the
// last admin, themselves.
func TestUsersPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	admin := askers(t, a)[4]
	tester := asker{role: store.RoleAdmin}
	tester.cookie, tester.csrf = a.login(t, "tester", testerPassword)

	_, page := a.ask(t, admin, "GET", "/users")
	for _, field := range []string{`<select id="new-user-role" name="role">`, `<select id="new-token-role" name="role">`, `name="password"`} {
		if !strings.Contains(page, field) {
			t.Errorf("/users lacks the form field %s", field)
		}
	}
	status, page := a.postForm(t, admin, "/users", url.Values{"name": {"maria"}, "role": {"coordinator"}, "password": {"a long enough secret"}})
	if status != http.StatusOK || !strings.Contains(page, `data-name="maria" data-role="coordinator"`) {
		t.Fatalf("add maria as a coordinator: %d\n%.2000s", status, page)
	}
	maria := asker{role: store.RoleCoordinator}
	maria.cookie, maria.csrf = a.login(t, "maria", "a long enough secret")
	if status, _ := a.ask(t, maria, "GET", "/users"); status != http.StatusForbidden {
		t.Errorf("maria, a coordinator, opening /users: %d, want 403", status)
	}
	for _, bad := range []url.Values{
		{"name": {"maria"}, "role": {"viewer"}, "password": {"another long secret"}},
		{"name": {"bad name"}, "role": {"viewer"}, "password": {"another long secret"}},
		{"name": {"olga"}, "role": {"owner"}, "password": {"another long secret"}},
		{"name": {"olga"}, "role": {"viewer"}, "password": {"short"}},
	} {
		if status, page := a.postForm(t, admin, "/users", bad); status < 400 || status >= 500 || !strings.Contains(page, `data-testid="users-error"`) {
			t.Errorf("add %v: %d, want a 4xx with why", bad, status)
		}
	}

	status, page = a.postForm(t, admin, "/users/role", url.Values{"name": {"maria"}, "role": {"admin"}})
	if status != http.StatusOK || !strings.Contains(page, `data-name="maria" data-role="admin"`) {
		t.Errorf("make maria an admin: %d", status)
	}
	if status, _ := a.ask(t, maria, "GET", "/users"); status != http.StatusOK {
		t.Errorf("maria, an admin now, opening /users: %d, want 200 at once", status)
	}

	status, page = a.postForm(t, admin, "/users/tokens", url.Values{"name": {"nightly"}, "role": {"viewer"}})
	secret := regexp.MustCompile(`data-testid="token-secret">(fbt_[^<]+)<`).FindStringSubmatch(page)
	if status != http.StatusOK || secret == nil || !strings.Contains(page, `data-name="nightly" data-role="viewer"`) {
		t.Fatalf("make the token nightly: %d, want its secret shown\n%.3000s", status, page)
	}
	if _, again := a.ask(t, admin, "GET", "/users"); strings.Contains(again, secret[1]) {
		t.Error("the token's secret is shown again on /users")
	}
	nightly := asker{role: store.RoleViewer, token: true, bearer: secret[1]}
	if status, _ := a.ask(t, nightly, "GET", "/api/v1/subsamples"); status != http.StatusOK {
		t.Errorf("the viewer token reading: %d, want 200", status)
	}
	if status, _ := a.ask(t, nightly, "POST", "/api/v1/refresh"); status != http.StatusForbidden {
		t.Errorf("the viewer token refreshing: %d, want 403", status)
	}
	toks, err := a.store.Tokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if tok.Name == "nightly" && tok.CreatedBy != "as-admin" {
			t.Errorf("nightly made by %q, want as-admin", tok.CreatedBy)
		}
	}
	status, page = a.postForm(t, admin, "/users/tokens/revoke", url.Values{"name": {"nightly"}})
	if status != http.StatusOK || strings.Contains(page, `aria-label="Revoke nightly"`) {
		t.Errorf("revoke nightly: %d, want it listed without a revoke button", status)
	}
	if status, _ := a.ask(t, nightly, "GET", "/api/v1/subsamples"); status != http.StatusUnauthorized {
		t.Errorf("the revoked token reading: %d, want 401", status)
	}

	// tester, as-admin and maria are admins: two may go, the last stays.
	for _, name := range []string{"maria", "as-admin"} {
		if status, _ := a.postForm(t, tester, "/users/role", url.Values{"name": {name}, "role": {"viewer"}}); status != http.StatusOK {
			t.Errorf("make %s a viewer: %d", name, status)
		}
	}
	status, page = a.postForm(t, tester, "/users/role", url.Values{"name": {"tester"}, "role": {"coordinator"}})
	if status != http.StatusConflict || !strings.Contains(page, "tester stays an admin: they are the only one") {
		t.Errorf("the last admin making themselves a coordinator: %d, want 409 saying why\n%.2000s", status, page)
	}
}
