package auth

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/handlers"
	"fieldboard/views"
)

// Pages serves the sign-in form and signing out, beside the sessions they
// start and end.
type Pages struct {
	Auth *Auth
	// Now and Location are the clock and the time zone of the page's
	// base, as every page has them.
	Now      func() time.Time
	Location *time.Location
}

func (p *Pages) page() views.Page {
	return views.Page{Title: "Sign in", Now: p.Now(), Location: p.Location}
}

// Login answers GET /login: the sign-in form, or straight back to where
// the user was going when they are signed in already.
func (p *Pages) Login(c echo.Context) error {
	next := SafeNext(c.QueryParam("next"))
	if views.ViewerOf(c.Request().Context()).Name != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return handlers.Render(c, http.StatusOK, views.LoginPage(views.LoginView{Page: p.page(), Next: next}))
}

// SignIn answers POST /login: a session cookie and back to the page the
// user asked for, or the form again with why not (401, or 429 after too
// many failures, with Retry-After).
//
// The fields are read from the form body only: a password in the query
// string would be kept in logs and the browser's history. A form without
// a name or a password is refused (400) before anything is counted.
func (p *Pages) SignIn(c echo.Context) error {
	form, err := ReadForm(c.Request())
	if err != nil {
		return err
	}
	name, password, next := form.Get("name"), form.Get("password"), SafeNext(form.Get("next"))
	if name == "" || password == "" {
		return p.loginFailed(c, http.StatusBadRequest, name, next, "Type your user name and password.")
	}
	cookie, err := p.Auth.SignIn(c.Request().Context(), c.Request(), name, password, c.RealIP())
	var limited *RateLimitedError
	switch {
	case errors.Is(err, ErrBadCredentials):
		return p.loginFailed(c, http.StatusUnauthorized, name, next, "Wrong user name or password.")
	case errors.As(err, &limited):
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter.Round(time.Second).Seconds())))
		return p.loginFailed(c, http.StatusTooManyRequests, name, next, "Too many failed sign-ins: try again in "+limited.RetryAfter.Round(time.Minute).String()+".")
	case err != nil:
		return err
	}
	c.SetCookie(cookie)
	return c.Redirect(http.StatusSeeOther, next)
}

func (p *Pages) loginFailed(c echo.Context, status int, name, next, msg string) error {
	return handlers.Render(c, status, views.LoginPage(views.LoginView{Page: p.page(), Next: next, Name: name, Err: msg}))
}

// SignOut answers POST /logout: the session ends and the browser goes to
// the sign-in page.
func (p *Pages) SignOut(c echo.Context) error {
	cookie, err := p.Auth.SignOut(c.Request().Context(), c.Request())
	if err != nil {
		return err
	}
	c.SetCookie(cookie)
	return c.Redirect(http.StatusSeeOther, "/login")
}
