package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"fieldboard/handlers/htmx"
	"fieldboard/store"
	"fieldboard/views"
)

// CookieName is the session cookie.
const CookieName = "fieldboard_session"

// CSRFHeader carries the CSRF token of htmx requests (static/app.js sets
// it); plain forms send it as the field CSRFField.
const (
	CSRFHeader = "X-CSRF-Token"
	CSRFField  = "_csrf"
)

// Sign-in limits: failed attempts allowed per window, per user name and
// per address. An address tries many names, so it gets more. A name's
// lock holds only for addresses that have failed (see SignIn). The
// failures are counted in the database, alike on every instance.
const (
	failuresPerUser    = 5
	failuresPerAddress = 20
	failureWindow      = 15 * time.Minute
)

// ErrBadCredentials is a sign-in with an unknown name or a wrong password;
// which one is not said.
var ErrBadCredentials = errors.New("wrong user name or password")

// RateLimitedError is a sign-in refused because of too many failures.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("too many failed sign-ins; try again in %s", e.RetryAfter.Round(time.Second))
}

// Options configure an Auth; zero values take the defaults.
type Options struct {
	// SessionTTL is how long a sign-in lasts (12 hours, a working day).
	SessionTTL time.Duration
	// SecureCookies marks the cookie Secure on plain HTTP too: set it
	// behind a proxy that terminates TLS. Requests over TLS always get it.
	SecureCookies bool
	Now           func() time.Time
	Logger        *slog.Logger
	// UnknownNameCost is the bcrypt cost of the hash an unknown name's
	// password is compared with, so that a sign-in takes as long whether
	// or not the name exists: the cost of the stored hashes. Zero means
	// bcrypt.DefaultCost, the cost HashPassword hashes with.
	UnknownNameCost int
}

// Auth signs users in and out and guards every route but the public ones.
type Auth struct {
	store *store.Store
	opts  Options
	// dummyHash is compared against for an unknown user, so that a sign-in
	// takes as long whether or not the name exists; made at first need.
	dummyOnce sync.Once
	dummyHash []byte
}

// New returns an Auth over the users, sessions and tokens of st.
func New(st *store.Store, opts Options) *Auth {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 12 * time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.UnknownNameCost == 0 {
		opts.UnknownNameCost = bcrypt.DefaultCost
	}
	return &Auth{store: st, opts: opts}
}

// SignIn checks a user's password and opens a session, returning its
// cookie. It returns ErrBadCredentials or a *RateLimitedError when it
// refuses; address is the client's, for the limit per address.
//
// A name with failuresPerUser failures in the window is locked, but only
// for addresses that have failed themselves (any name, in the window): an
// address without a failure still gets its attempt checked, so whoever
// guesses a user's name cannot lock that user out. That attempt counts as
// any other: a wrong password is a failure of the address, which is then
// locked out of the name too, and of the name, whose lock it prolongs; a
// right one signs in without lifting the lock for the addresses that
// caused it.
func (a *Auth) SignIn(ctx context.Context, r *http.Request, name, password, address string) (*http.Cookie, error) {
	now := a.opts.Now()
	since := now.Add(-failureWindow)
	byAddress, byUser := store.SignInKey{Kind: store.SignInByAddress, Key: AddressKey(address)}, store.SignInKey{Kind: store.SignInByUser, Key: strings.ToLower(name)}
	// Every user's name is a valid one (user add checks it). Another
	// names nobody, and may be more than the database can store or look
	// up (too long for an index, not UTF-8): it counts as the address's
	// failure alone, and is checked against the dummy hash.
	possible := ValidUserName(name) == nil
	keys := []store.SignInKey{byAddress}
	if possible {
		keys = append(keys, byUser)
	}
	var refused *RateLimitedError
	var refusedFor string // what the refusal is for, in the log
	var throughLock bool
	// The attempt counts as a failure of the address, and of the name
	// unless it is let through the name's lock, until it succeeds.
	counted, err := a.store.ReserveSignIn(ctx, keys, since, now, func(recent [][]time.Time) []bool {
		count := make([]bool, len(recent))
		refused, throughLock = nil, false
		if wait := limitWait(recent[0], failuresPerAddress, now); wait > 0 {
			refused, refusedFor = &RateLimitedError{RetryAfter: wait}, "the address"
			return count
		}
		if len(recent) > 1 {
			if wait := limitWait(recent[1], failuresPerUser, now); wait > 0 {
				if len(recent[0]) > 0 {
					refused, refusedFor = &RateLimitedError{RetryAfter: wait}, "the user"
					return count
				}
				throughLock = true
			} else {
				count[1] = true
			}
		}
		count[0] = true
		return count
	})
	switch {
	case err != nil:
		return nil, err
	case refused != nil:
		a.opts.Logger.Warn("sign-in refused: too many failures for "+refusedFor, "user", name, "address", address)
		return nil, refused
	}
	hash, err := "", error(store.ErrNotFound)
	if possible {
		hash, err = a.store.PasswordHash(ctx, name)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		a.dummyOnce.Do(func() {
			a.dummyHash, _ = bcrypt.GenerateFromPassword([]byte(GeneratePassword()), a.opts.UnknownNameCost)
		})
		bcrypt.CompareHashAndPassword(a.dummyHash, []byte(password))
		err = ErrBadCredentials
	case err != nil:
		return nil, err
	default:
		if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
			err = ErrBadCredentials
		}
	}
	if err != nil {
		if throughLock { // the name was locked: not counted yet
			if err := a.store.AddSignInFailure(ctx, byUser, since, now); err != nil {
				return nil, err
			}
		}
		a.opts.Logger.Warn("sign-in failed", "user", name, "address", address, "nameLocked", throughLock)
		return nil, err // counted by ReserveSignIn
	}
	if throughLock {
		a.opts.Logger.Warn("signed in through a lock of the user name: its failures came from other addresses", "user", name, "address", address)
	} else if err := a.store.ForgetSignInFailures(ctx, byUser); err != nil {
		return nil, err
	}
	if err := a.store.UndoSignInFailure(ctx, counted[0]); err != nil {
		return nil, err
	}
	secret := newSecret()
	sess := store.Session{SecretHash: hashSecret(secret), UserName: name, CSRFToken: newSecret(), CreatedAt: now, ExpiresAt: now.Add(a.opts.SessionTTL)}
	if err := a.store.CreateSession(ctx, sess); err != nil {
		return nil, err
	}
	a.opts.Logger.Info("signed in", "user", name, "address", address)
	return a.cookie(r, secret, sess.ExpiresAt), nil
}

// SignOut ends the session of r, if any, and returns the cookie that
// clears it in the browser.
func (a *Auth) SignOut(ctx context.Context, r *http.Request) (*http.Cookie, error) {
	if c, err := r.Cookie(CookieName); err == nil && c.Value != "" {
		if err := a.store.DeleteSession(ctx, hashSecret(c.Value)); err != nil {
			return nil, err
		}
	}
	cookie := a.cookie(r, "", time.Unix(0, 0))
	cookie.MaxAge = -1
	return cookie, nil
}

func (a *Auth) cookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: "/", Expires: expires, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: a.opts.SecureCookies || r.TLS != nil}
}

// refusal is an Authorization header that lets nobody in, as the
// sentence the caller gets.
type refusal string

func (r refusal) Error() string { return string(r) }

// identify returns who is asking: a bearer token's name, a signed-in user
// with their CSRF token, or nobody (a zero Viewer).
func (a *Auth) identify(r *http.Request) (views.Viewer, error) {
	if header := r.Header.Get("Authorization"); header != "" {
		scheme, token, ok := strings.Cut(header, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			return views.Viewer{}, refusal(`The Authorization header must be "Bearer TOKEN".`)
		}
		t, err := a.store.TokenOf(r.Context(), hashSecret(strings.TrimSpace(token)))
		if errors.Is(err, store.ErrNotFound) {
			return views.Viewer{}, refusal("The bearer token is not valid: mistyped, or revoked.")
		}
		if err != nil {
			return views.Viewer{}, err
		}
		return views.Viewer{Name: t.Name, Token: true, Role: t.Role}, nil
	}
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return views.Viewer{}, nil
	}
	sess, err := a.store.SessionOf(r.Context(), hashSecret(c.Value), a.opts.Now())
	if errors.Is(err, store.ErrNotFound) {
		return views.Viewer{}, nil // expired or signed out: sign in again
	}
	if err != nil {
		return views.Viewer{}, err
	}
	return views.Viewer{Name: sess.UserName, CSRF: sess.CSRFToken, Role: sess.Role}, nil
}

// public reports whether path is open to everyone: the health check, the
// static files and the favicon, the sign-in page and the invitation links
// (/r/TOKEN) and the return addresses (/return/STATUS).
func public(path string) bool {
	return path == "/healthz" || path == "/login" || path == "/favicon.ico" || strings.HasPrefix(path, "/static/") || respondents(path)
}

// respondents reports whether path is one a respondent's browser opens:
// an invitation link or a return address. No session or token is read
// for them.
func respondents(path string) bool {
	return strings.HasPrefix(path, "/r/") || strings.HasPrefix(path, "/return/")
}

// Middleware lets a request through only when it comes from a signed-in
// user or carries a valid bearer token, except on the public paths. A
// user's state-changing request must carry the session's CSRF token (the
// X-CSRF-Token header or the _csrf form field); a token, which a browser
// never sends by itself, needs none, but may change things only through
// /api/. The viewer is put in the request's context for the pages.
func (a *Auth) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if respondents(req.URL.Path) {
			return next(c) // invitation links and return addresses know no viewer: no session or token is read for them
		}
		viewer, err := a.identify(req)
		var refused refusal
		if err != nil && !errors.As(err, &refused) {
			return err
		}
		if public(req.URL.Path) {
			c.SetRequest(req.WithContext(views.WithViewer(req.Context(), viewer)))
			return next(c)
		}
		if refused != "" {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="Fieldboard", error="invalid_token"`)
			return echo.NewHTTPError(http.StatusUnauthorized, string(refused))
		}
		if viewer.Name == "" {
			return a.unauthenticated(c)
		}
		if unsafe(req.Method) {
			switch {
			case viewer.Token && !strings.HasPrefix(req.URL.Path, "/api/"):
				return echo.NewHTTPError(http.StatusForbidden, "A bearer token may change things only through /api/v1; sign in to use the dashboard's buttons and forms.")
			case !viewer.Token:
				token, err := csrfOf(req)
				if err != nil {
					return err
				}
				if !sameToken(token, viewer.CSRF) {
					return echo.NewHTTPError(http.StatusForbidden, "This form is out of date or did not come from Fieldboard (its CSRF token is missing or wrong). Reload the page and try again.")
				}
			}
		}
		c.SetRequest(req.WithContext(views.WithViewer(req.Context(), viewer)))
		return next(c)
	}
}

// unauthenticated answers a request from nobody: a browser asking for a
// page is sent to the sign-in page and back; htmx is told to go there;
// scripts and downloads get 401.
func (a *Auth) unauthenticated(c echo.Context) error {
	req := c.Request()
	back := req.URL.RequestURI()
	page := req.Method == http.MethodGet && !strings.HasPrefix(req.URL.Path, "/api/") && !strings.HasSuffix(req.URL.Path, ".csv") &&
		strings.Contains(req.Header.Get(echo.HeaderAccept), "text/html")
	switch {
	case htmx.IsRequest(req):
		c.Response().Header().Set(htmx.HeaderRedirect, "/login")
	case page:
		return c.Redirect(http.StatusSeeOther, LoginURL(back))
	}
	c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="Fieldboard"`)
	return echo.NewHTTPError(http.StatusUnauthorized, "Sign in first, or send a bearer token (Authorization: Bearer TOKEN; see fieldboard token create).")
}

// maxNextBytes is the longest way back the sign-in page is given: the
// server refuses a query parameter longer than 1 KiB (web's
// maxQueryParamBytes).
const maxNextBytes = 1 << 10

// LoginURL is the sign-in page that returns to back afterwards. A back
// longer than maxNextBytes returns to its path without the query, or to
// the overview when the path too is longer: the sign-in page must open.
func LoginURL(back string) string {
	if len(back) > maxNextBytes {
		back, _, _ = strings.Cut(back, "?")
	}
	if back == "" || back == "/" || len(back) > maxNextBytes {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(back)
}

// SafeNext returns next when it is a path of this site, else "/": the
// sign-in page must not send anyone elsewhere (an open redirect). Browsers
// drop tabs and line breaks from a Location, so "/\t/evil.example" would
// be //evil.example, and a NUL breaks the header: next may hold no control
// character.
func SafeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsFunc(next, unicode.IsControl) {
		return "/"
	}
	return next
}

// csrfOf returns the CSRF token a request carries: the X-CSRF-Token
// header, or the _csrf field of a form body. A token in the query string
// does not count: it would sit in the browser's history, the server's
// logs and the Referer of every link the next page follows.
//
// A form's token is looked for first in its first field, read alone
// (firstField): every form of the dashboard puts it there, before an
// upload form's file. The upload routes' long read deadline is granted
// only after this check (web's uploadDeadline), so whoever has not shown
// the token gets the server's short one; reading the whole form here
// would read a gigabyte's file under it, and cut off a slow line. Only a
// form whose first field is not the token is read whole, under the short
// deadline, for its _csrf field wherever it is.
func csrfOf(req *http.Request) (string, error) {
	if t := req.Header.Get(CSRFHeader); t != "" {
		return t, nil
	}
	name, value, err := firstField(req)
	if err != nil || name == CSRFField {
		return value, err
	}
	form, err := ReadForm(req)
	return form.Get(CSRFField), err
}

// maxFirstFieldBytes bounds what firstField reads: a form's first field,
// with its part's headers in a multipart form. A CSRF token is 43 bytes.
const maxFirstFieldBytes = 4 << 10

// firstField reads the first field of a URL-encoded or multipart form
// body, its name and value, and puts what it read back before the rest
// of the body, for whoever reads the form next. A first field longer than
// maxFirstFieldBytes, a file, or a body that is not a form has no name
// here. A body that cannot be read is an HTTP error, as for ReadForm.
func firstField(req *http.Request) (name, value string, err error) {
	mediaType, params, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if mediaType != echo.MIMEApplicationForm && mediaType != echo.MIMEMultipartForm {
		return "", "", nil
	}
	body := &recordingReader{r: req.Body}
	src := io.LimitReader(body, maxFirstFieldBytes)
	if mediaType == echo.MIMEApplicationForm {
		name, value = firstURLEncodedField(src)
	} else {
		name, value = firstPart(src, params["boundary"])
	}
	req.Body = readCloser{io.MultiReader(bytes.NewReader(body.read.Bytes()), req.Body), req.Body}
	if body.err != nil && !errors.Is(body.err, io.EOF) {
		return "", "", formError(body.err)
	}
	return name, value, nil
}

// firstURLEncodedField is the first name=value of a URL-encoded body, if
// it ends within src.
func firstURLEncodedField(src io.Reader) (name, value string) {
	field, err := bufio.NewReader(src).ReadString('&')
	if err != nil && (!errors.Is(err, io.EOF) || len(field) >= maxFirstFieldBytes) {
		return "", "" // cut off: not known whole
	}
	name, value, _ = strings.Cut(strings.TrimSuffix(field, "&"), "=")
	name, err1 := url.QueryUnescape(name)
	value, err2 := url.QueryUnescape(value)
	if err1 != nil || err2 != nil {
		return "", ""
	}
	return name, value
}

// firstPart is the name and value of a multipart body's first part when
// it is a field (not a file) that ends within src.
func firstPart(src io.Reader, boundary string) (name, value string) {
	if boundary == "" {
		return "", ""
	}
	part, err := multipart.NewReader(src, boundary).NextPart()
	if err != nil || part.FileName() != "" {
		return "", ""
	}
	b, err := io.ReadAll(part)
	if err != nil {
		return "", ""
	}
	return part.FormName(), string(b)
}

// recordingReader keeps what it reads from r, and r's first error.
type recordingReader struct {
	r    io.Reader
	read bytes.Buffer
	err  error
}

func (rr *recordingReader) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	rr.read.Write(p[:n])
	if err != nil && rr.err == nil {
		rr.err = err
	}
	return n, err
}

// readCloser is a request body read again from its start: Reader, which
// closing closes Closer, the body itself.
type readCloser struct {
	io.Reader
	io.Closer
}

// multipartMemory is how much of a multipart form is kept in memory;
// larger files are spooled to temporary files, which the handlers'
// FormFile reads the same. A megabyte, not echo's 32: the dashboard's
// upload forms take files of a gigabyte, and memory must not grow with
// what several of them send at once.
const multipartMemory = 1 << 20

// ReadForm parses a URL-encoded or multipart form body and returns its
// fields, never the query string's; another body has no fields. A body
// that cannot be read is an HTTP error that says why: too large (413),
// too slow (408) or malformed (400). A multipart form's files past
// multipartMemory go to temporary files, which whoever calls it removes
// (req.MultipartForm.RemoveAll) unless req is the one net/http handed
// over.
func ReadForm(req *http.Request) (url.Values, error) {
	mediaType, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	var err error
	switch mediaType {
	case echo.MIMEApplicationForm:
		err = req.ParseForm()
	case echo.MIMEMultipartForm:
		err = req.ParseMultipartForm(multipartMemory)
	default:
		return url.Values{}, nil
	}
	if err != nil {
		return url.Values{}, formError(err)
	}
	return req.PostForm, nil
}

// formError is the HTTP error of a form body that could not be read.
func formError(err error) error {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, fmt.Sprintf("The request body is larger than %d bytes.", tooBig.Limit)).SetInternal(err)
	case errors.As(err, &netErr) && netErr.Timeout():
		return echo.NewHTTPError(http.StatusRequestTimeout, "The form came too slowly and was cut off; send it again.").SetInternal(err)
	default:
		return echo.NewHTTPError(http.StatusBadRequest, "The form could not be read: "+err.Error()+".").SetInternal(err)
	}
}

func sameToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func unsafe(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}
