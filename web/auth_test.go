package web_test

import (
	"context"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"fieldboard/store"
	"fieldboard/web"
	"fieldboard/web/auth"
)

// testerPassword is the password of the user every app signs in as.
const testerPassword = "correct horse battery"

func noRedirects(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signIn adds the user tester (with bcrypt's least cost, for speed) and a
// token, signs in through the form and reads the page's CSRF token.
func (a *app) signIn(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	hash, err := bcrypt.GenerateFromPassword([]byte(testerPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.AddUser(ctx, "tester", store.RoleAdmin, string(hash), time.Now()); err != nil {
		t.Fatal(err)
	}
	token, tokenHash := auth.NewToken()
	if err := a.store.CreateToken(ctx, store.Token{Name: "tests", Role: store.RoleAdmin, CreatedAt: time.Now()}, tokenHash); err != nil {
		t.Fatal(err)
	}
	a.token = token
	cookie, csrf := a.login(t, "tester", testerPassword)
	a.client = noRedirects(signedIn{cookie: cookie, csrf: csrf, token: token})
}

// login signs in through the form and returns the session cookie and the
// CSRF token the pages carry.
func (a *app) login(t *testing.T, name, password string) (*http.Cookie, string) {
	t.Helper()
	resp, err := a.anonymous.PostForm(a.url+"/login", url.Values{"name": {name}, "password": {password}, "next": {"/live"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == auth.CookieName {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/live" || cookie == nil {
		t.Fatalf("sign in as %s: %d to %q, cookie %v; want 303 to /live with a session cookie", name, resp.StatusCode, resp.Header.Get("Location"), cookie)
	}
	req, _ := http.NewRequest("GET", a.url+"/", nil)
	req.AddCookie(cookie)
	resp, err = a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the overview of a signed-in user carries no CSRF token: %d\n%s", resp.StatusCode, page)
	}
	return cookie, string(m[1])
}

// signedIn sends requests as a browser with a session would, or, to /api/,
// as a script with a token.
type signedIn struct {
	cookie      *http.Cookie
	csrf, token string
}

func (s signedIn) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") == "" && req.Header.Get("Cookie") == "" {
		req = req.Clone(req.Context())
		if strings.HasPrefix(req.URL.Path, "/api/") || strings.HasPrefix(req.URL.Opaque, "/api/") {
			req.Header.Set("Authorization", "Bearer "+s.token)
		} else {
			req.AddCookie(s.cookie)
			if req.Method != http.MethodGet && req.Method != http.MethodHead {
				req.Header.Set(auth.CSRFHeader, s.csrf)
			}
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestEveryRouteNeedsSignInButThePublicOnes(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	html := map[string]string{"Accept": "text/html,application/xhtml+xml"}
	tests := []struct {
		name, method, path string
		header             map[string]string
		status             int
		location, www      string
	}{
		{"a page sends the browser to sign in and back", "GET", "/live?sort=cpi", html, 303, "/login?next=%2Flive%3Fsort%3Dcpi", ""},
		{"the overview goes to the plain sign-in page", "GET", "/", html, 303, "/login", ""},
		{"a CSV download is refused", "GET", "/live.csv", html, 401, "", "Bearer"},
		{"the API is refused", "GET", "/api/v1/subsamples", nil, 401, "", "Bearer"},
		{"a change is refused", "POST", "/refresh", nil, 401, "", "Bearer"},
		{"an API change is refused", "POST", "/api/v1/refresh", nil, 401, "", "Bearer"},
		{"htmx is told where to go", "GET", "/refresh/progress", map[string]string{"HX-Request": "true"}, 401, "", "Bearer"},
		{"the health check is public", "GET", "/healthz", nil, 200, "", ""},
		{"static files are public", "GET", "/static/app.js", nil, 200, "", ""},
		{"the favicon is public", "GET", "/static/favicon.svg", nil, 200, "", ""},
		{"so is /favicon.ico, which every browser asks for", "GET", "/favicon.ico", nil, 200, "", ""},
		{"the sign-in page is public", "GET", "/login", html, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, a.url+tt.path, nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := a.anonymous.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status || resp.Header.Get("Location") != tt.location || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), tt.www) {
				t.Errorf("%s %s = %d, Location %q, WWW-Authenticate %q; want %d, %q, %q", tt.method, tt.path, resp.StatusCode,
					resp.Header.Get("Location"), resp.Header.Get("WWW-Authenticate"), tt.status, tt.location, tt.www)
			}
			if tt.header["HX-Request"] != "" && resp.Header.Get("HX-Redirect") != "/login" {
				t.Errorf("htmx was not sent to /login: HX-Redirect %q", resp.Header.Get("HX-Redirect"))
			}
		})
	}
}

func TestBearerTokens(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	bearer := func(token string) map[string]string { return map[string]string{"Authorization": "Bearer " + token} }
	tests := []struct {
		name, method, path string
		header             map[string]string
		status             int
		want               string
	}{
		{"a page", "GET", "/live", bearer(a.token), 200, "Live subsamples"},
		{"a CSV download, for scheduled reports", "GET", "/live.csv", bearer(a.token), 200, "subsampleId"},
		{"the JSON API", "GET", "/api/v1/subsamples", bearer(a.token), 200, "["},
		{"an API change: no CSRF token needed", "POST", "/api/v1/refresh", bearer(a.token), 202, ""},
		{"a dashboard form is not for scripts", "POST", "/refresh", bearer(a.token), 403, "only through /api/v1"},
		{"a mistyped token", "GET", "/api/v1/subsamples", bearer(a.token + "x"), 401, "not valid"},
		{"another scheme", "GET", "/api/v1/subsamples", map[string]string{"Authorization": "Basic dGVzdGVyOng="}, 401, "Bearer TOKEN"},
		{"an empty token", "GET", "/live.csv", map[string]string{"Authorization": "Bearer "}, 401, "Bearer TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := a.do(t, tt.method, tt.path, tt.header)
			if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("%s %s = %d %.200s; want %d with %q", tt.method, tt.path, resp.StatusCode, body, tt.status, tt.want)
			}
		})
	}
	if err := a.store.RevokeToken(context.Background(), "tests", time.Now()); err != nil {
		t.Fatal(err)
	}
	if resp, _ := a.do(t, "GET", "/api/v1/subsamples", bearer(a.token)); resp.StatusCode != 401 {
		t.Errorf("a revoked token: %d, want 401", resp.StatusCode)
	}
}

func TestChangesNeedTheSessionsCSRFToken(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cookie, csrf := a.login(t, "tester", testerPassword)
	post := func(header map[string]string, form url.Values) int {
		req, _ := http.NewRequest("POST", a.url+"/refresh", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := a.anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(nil, nil); got != 403 {
		t.Errorf("no CSRF token: %d, want 403", got)
	}
	if got := post(map[string]string{auth.CSRFHeader: csrf + "x"}, nil); got != 403 {
		t.Errorf("a wrong CSRF token: %d, want 403", got)
	}
	_, otherCSRF := a.login(t, "tester", testerPassword)
	if got := post(map[string]string{auth.CSRFHeader: otherCSRF}, nil); got != 403 {
		t.Errorf("another session's CSRF token: %d, want 403", got)
	}
	if got := post(map[string]string{auth.CSRFHeader: csrf, "HX-Request": "true"}, nil); got != 200 {
		t.Errorf("htmx with the header: %d, want 200", got)
	}
	if got := post(nil, url.Values{auth.CSRFField: {csrf}}); got != 303 {
		t.Errorf("a plain form with the field: %d, want 303", got)
	}
	_, page := a.do(t, "GET", "/panelists", nil)
	if n := strings.Count(page, `name="_csrf"`); n < 5 {
		t.Errorf("/panelists has %d forms carrying the CSRF field, want every posting form (sign out, history, profiles, panel, bulk)", n)
	}
}

// TestCSRFTokenNeverFromTheQuery: the token counts in the X-CSRF-Token
// header or a form body (URL-encoded or multipart), never in the query
// string, where it would be kept in histories, logs and Referer headers;
// nor does a sign-in read its password from there.
func TestCSRFTokenNeverFromTheQuery(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cookie, csrf := a.login(t, "tester", testerPassword)
	post := func(target, contentType string, body io.Reader) (int, string) {
		req, _ := http.NewRequest("POST", a.url+target, body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.AddCookie(cookie)
		resp, err := a.anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	query := "/refresh?" + url.Values{auth.CSRFField: {csrf}}.Encode()
	if status, body := post(query, "", nil); status != 403 || !strings.Contains(body, "CSRF token is missing or wrong") {
		t.Errorf("the right token in the query string alone: %d, want 403 saying the token is missing:\n%.300s", status, body)
	}
	if status, _ := post(query, "application/x-www-form-urlencoded", strings.NewReader("x=1")); status != 403 {
		t.Errorf("the right token in the query string beside a form without it: %d, want 403", status)
	}
	var multipartBody strings.Builder
	mw := multipart.NewWriter(&multipartBody)
	mw.WriteField(auth.CSRFField, csrf)
	mw.Close()
	if status, body := post("/refresh", mw.FormDataContentType(), strings.NewReader(multipartBody.String())); status != 303 {
		t.Errorf("the token in a multipart form: %d, want 303:\n%.300s", status, body)
	}

	// Sign-in reads its fields from the body only.
	resp, err := a.anonymous.Post(a.url+"/login?"+url.Values{"name": {"tester"}, "password": {testerPassword}}.Encode(), "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 || len(resp.Cookies()) != 0 {
		t.Errorf("a sign-in with the password in the query string: %d with cookies %v, want 400 and none", resp.StatusCode, resp.Cookies())
	}
}

func TestSignInSignOutAndCookie(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	resp, err := a.anonymous.PostForm(a.url+"/login", url.Values{"name": {"tester"}, "password": {testerPassword}, "next": {"//evil.example/x"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Location") != "/" {
		t.Errorf("next=//evil.example/x sent the user to %q, want / (no open redirect)", resp.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == auth.CookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Secure || cookie.Expires.Before(time.Now().Add(11*time.Hour)) {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Lax, not Secure on plain HTTP, expiring in about 12 hours", cookie)
	}

	resp, err = a.anonymous.PostForm(a.url+"/login", url.Values{"name": {"tester"}, "password": {"wrong password!"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Errorf("a wrong password: %d with cookies %v, want 401 and none", resp.StatusCode, resp.Cookies())
	}

	_, csrf := a.sessionCSRF(t, cookie)
	client := noRedirects(signedIn{cookie: cookie, csrf: csrf})
	if resp, err := client.Get(a.url + "/live"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("signed in: %v %v", resp, err)
	}
	resp, err = client.Post(a.url+"/logout", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/login" {
		t.Errorf("sign out: %d to %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	req, _ := http.NewRequest("GET", a.url+"/live.csv", nil)
	req.AddCookie(cookie)
	if resp, err := a.anonymous.Do(req); err != nil || resp.StatusCode != 401 {
		t.Errorf("the signed-out session's cookie still works: %v %v", resp.StatusCode, err)
	}
}

// sessionCSRF reads the CSRF token of cookie's session from the overview.
func (a *app) sessionCSRF(t *testing.T, cookie *http.Cookie) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.url+"/", nil)
	req.AddCookie(cookie)
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the overview: %d", resp.StatusCode)
	}
	return resp.StatusCode, string(m[1])
}

func TestSignInAttemptsAreLimited(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	try := func(name, password string) *http.Response {
		resp, err := a.anonymous.PostForm(a.url+"/login", url.Values{"name": {name}, "password": {password}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for i := range 5 {
		if resp := try("tester", "not the password"); resp.StatusCode != 401 {
			t.Fatalf("failure %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	resp := try("tester", testerPassword)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("the right password after 5 failures: %d, Retry-After %q; want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// Per address: many names from one address.
	for i := range 15 {
		try("nobody"+strconv.Itoa(i), "guess guess guess")
	}
	if resp := try("someone-else", "guess guess guess"); resp.StatusCode != 429 {
		t.Errorf("a 21st failure from one address: %d, want 429", resp.StatusCode)
	}
}

// TestLockedNameSparesOtherAddresses: failures from the guesser's
// address lock the name for that address only, over HTTP: the rightful
// user signs in from another address, the guesser stays refused, and an
// X-Forwarded-For header moves nobody to another address unless it comes
// from a trusted proxy.
func TestLockedNameSparesOtherAddresses(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	other := from(t, "127.0.0.2")
	for i := range 5 {
		if got := a.tryLogin(t, a.anonymous, "tester", "not the password", ""); got != 401 {
			t.Fatalf("guess %d from 127.0.0.1: %d, want 401", i+1, got)
		}
	}
	if got := a.tryLogin(t, a.anonymous, "tester", testerPassword, "198.51.100.7"); got != 429 {
		t.Errorf("the right password from the guesser's address, claiming another in X-Forwarded-For: %d, want 429", got)
	}
	if got := a.tryLogin(t, other, "tester", testerPassword, ""); got != 303 {
		t.Errorf("the right password from 127.0.0.2, which never failed: %d, want 303 (signed in)", got)
	}
	if got := a.tryLogin(t, a.anonymous, "tester", "guess again", ""); got != 429 {
		t.Errorf("a guess from 127.0.0.1 after the user signed in elsewhere: %d, want 429", got)
	}
	for i := range 15 { // 20 failures from 127.0.0.1 in all, each naming a new address
		a.tryLogin(t, a.anonymous, "nobody"+strconv.Itoa(i), "not the password", "203.0.113."+strconv.Itoa(i))
	}
	if got := a.tryLogin(t, a.anonymous, "someone", "not the password", "203.0.113.99"); got != 429 {
		t.Errorf("the 21st failure from 127.0.0.1, naming a new address in X-Forwarded-For each time: %d, want 429 (the header is not trusted)", got)
	}

	// Behind a trusted proxy the forwarded address counts, and the lock
	// spares the addresses it names that did not fail.
	a = newAppWith(t, func(s *web.Server) {
		s.TrustedProxies = []*net.IPNet{{IP: net.IPv4(127, 0, 0, 1), Mask: net.CIDRMask(32, 32)}}
	})
	for range 5 {
		a.tryLogin(t, a.anonymous, "tester", "not the password", "192.0.2.66")
	}
	if got := a.tryLogin(t, a.anonymous, "tester", testerPassword, "192.0.2.66"); got != 429 {
		t.Errorf("behind the proxy, the right password from the guesser: %d, want 429", got)
	}
	if got := a.tryLogin(t, a.anonymous, "tester", testerPassword, "192.0.2.66, 198.51.100.7"); got != 303 {
		t.Errorf("behind the proxy, the right password from another client: %d, want 303", got)
	}
	for i := range 20 { // from 127.0.0.2, which is no proxy
		a.tryLogin(t, other, "nobody"+strconv.Itoa(i), "not the password", "203.0.113."+strconv.Itoa(i))
	}
	if got := a.tryLogin(t, other, "someone", "not the password", "203.0.113.99"); got != 429 {
		t.Errorf("the 21st failure from 127.0.0.2, no proxy, naming a new address in X-Forwarded-For each time: %d, want 429", got)
	}
}

// tryLogin posts the sign-in form through c, with an X-Forwarded-For
// header unless forwardedFor is empty, and returns the status.
func (a *app) tryLogin(t *testing.T, c *http.Client, name, password, forwardedFor string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", a.url+"/login", strings.NewReader(url.Values{"name": {name}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", forwardedFor)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// from returns a client, following no redirects, whose connections come
// from the loopback address local. Linux answers on all of 127.0.0.0/8;
// elsewhere the test is skipped, and under CI=true it fails.
func from(t *testing.T, local string) *http.Client {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	probe, err := net.Listen("tcp", local+":0")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no loopback address %s to sign in from: %v", local, err)
		}
		t.Skipf("no loopback address %s to sign in from: %v", local, err)
	}
	probe.Close()
	transport := &http.Transport{DialContext: dialer.DialContext}
	t.Cleanup(transport.CloseIdleConnections)
	return noRedirects(transport)
}

// concrete fills a route's parameters with plausible values.
func concrete(path string) string {
	path = strings.ReplaceAll(path, ":id", "1")
	path = strings.ReplaceAll(path, ":qid", "1")
	path = strings.ReplaceAll(path, ":locale", "en-us")
	path = strings.ReplaceAll(path, ":table", "countries")
	return strings.ReplaceAll(path, "/*", "/app.js")
}

// TestNoRouteIsOpenByMistake walks every route of the server: only the
// health check, the static files and the favicon, the sign-in page and
// the invitation links answer someone who is not signed in.
func TestNoRouteIsOpenByMistake(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	open := map[string]bool{"/healthz": true, "/login": true, "/static/*": true, "/favicon.ico": true, "/r/:token": true, "/return/:status": true}
	for _, r := range a.routes {
		req, _ := http.NewRequest(r.Method, a.url+concrete(r.Path), strings.NewReader(""))
		resp, err := a.anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		refused := resp.StatusCode == 401 || resp.StatusCode == 303 && strings.HasPrefix(resp.Header.Get("Location"), "/login")
		if open[r.Path] == refused && !(r.Path == "/login" && r.Method == "POST") {
			t.Errorf("%s %s answers %d to someone not signed in; open routes are %v", r.Method, r.Path, resp.StatusCode, open)
		}
		if r.Method != "GET" || r.Path == "/login" { // signed in already: sent on
			continue
		}
		// A bearer token is accepted on every GET route: pages, downloads
		// and the API, for scheduled reports.
		req, _ = http.NewRequest("GET", a.url+concrete(r.Path), nil)
		req.Header.Set("Authorization", "Bearer "+a.token)
		resp, err = a.anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 401 || resp.StatusCode == 403 || resp.StatusCode == 303 {
			t.Errorf("GET %s with a bearer token: %d", r.Path, resp.StatusCode)
		}
	}
}

// TestEveryChangeNeedsTheCSRFToken walks every state-changing route with a
// session cookie but no CSRF token: all are refused, the API's included.
func TestEveryChangeNeedsTheCSRFToken(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cookie, _ := a.login(t, "tester", testerPassword)
	for _, r := range a.routes {
		if r.Method == "GET" || r.Path == "/login" {
			continue
		}
		req, _ := http.NewRequest(r.Method, a.url+concrete(r.Path), strings.NewReader("_csrf=wrong"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(cookie)
		resp, err := a.anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with a session and a wrong CSRF token: %d, want 403", r.Method, r.Path, resp.StatusCode)
		}
	}
}

// TestBodiesAreCapped sends bodies larger than a route allows: a declared
// length is refused at once, and a chunked body is not read past the cap.
func TestBodiesAreCapped(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	req, _ := http.NewRequest("POST", a.url+"/login", strings.NewReader(strings.Repeat("x", 200<<10)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 200 KiB sign-in form: %d, want 413", resp.StatusCode)
	}
	body := &countingReader{left: 64 << 20, closed: make(chan struct{})}
	req, _ = http.NewRequest("POST", a.url+"/login", body)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	resp, err = a.anonymous.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	<-body.closed // the transport may still be sending after the answer came
	if body.read > 8<<20 {
		t.Errorf("the server read %d bytes of a chunked 64 MiB sign-in body; want it to stop near 64 KiB", body.read)
	}
}

// countingReader is a multipart form whose one file part is left bytes
// of "x", counting what was read. The transport closes it when it has
// sent all it will.
type countingReader struct {
	left, read int
	closed     chan struct{}
	closeOnce  sync.Once
}

func (r *countingReader) Close() error {
	r.closeOnce.Do(func() { close(r.closed) })
	return nil
}

const partHeader = "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\n"

func (r *countingReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.left)
	for i := range n {
		p[i] = 'x'
	}
	if r.read == 0 {
		n = copy(p, partHeader)
	}
	r.left -= n
	r.read += n
	return n, nil
}
