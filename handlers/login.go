package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/views"
	"fieldboard/web/auth"
)

// Login answers GET /login: the sign-in form, or straight back to where
// the user was going when they are signed in already.
func (h *Handler) Login(c echo.Context) error {
	next := auth.SafeNext(c.QueryParam("next"))
	if views.ViewerOf(c.Request().Context()).Name != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return render(c, http.StatusOK, views.LoginPage(views.LoginView{Page: h.page("Sign in", ""), Next: next}))
}

// SignIn answers POST /login: a session cookie and back to the page the
// user asked for, or the form again with why not (401, or 429 after too
// many failures, with Retry-After).
func (h *Handler) SignIn(c echo.Context) error {
	name, next := c.FormValue("name"), auth.SafeNext(c.FormValue("next"))
	cookie, err := h.Auth.SignIn(c.Request().Context(), c.Request(), name, c.FormValue("password"), c.RealIP())
	var limited *auth.RateLimitedError
	switch {
	case errors.Is(err, auth.ErrBadCredentials):
		return h.loginFailed(c, http.StatusUnauthorized, name, next, "Wrong user name or password.")
	case errors.As(err, &limited):
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(limited.RetryAfter.Round(time.Second).Seconds())))
		return h.loginFailed(c, http.StatusTooManyRequests, name, next, "Too many failed sign-ins: try again in "+limited.RetryAfter.Round(time.Minute).String()+".")
	case err != nil:
		return err
	}
	c.SetCookie(cookie)
	return c.Redirect(http.StatusSeeOther, next)
}

func (h *Handler) loginFailed(c echo.Context, status int, name, next, msg string) error {
	return render(c, status, views.LoginPage(views.LoginView{Page: h.page("Sign in", ""), Next: next, Name: name, Err: msg}))
}

// SignOut answers POST /logout: the session ends and the browser goes to
// the sign-in page.
func (h *Handler) SignOut(c echo.Context) error {
	cookie, err := h.Auth.SignOut(c.Request().Context(), c.Request())
	if err != nil {
		return err
	}
	c.SetCookie(cookie)
	return c.Redirect(http.StatusSeeOther, "/login")
}
