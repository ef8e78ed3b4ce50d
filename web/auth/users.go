package auth

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"fieldboard/handlers"
	"fieldboard/store"
	"fieldboard/views"
)

// The admins' page of users and tokens (/users). Only admins reach it:
// web's requireRole refuses everyone else before these run.

// Users answers GET /users: the users and the tokens, and the forms.
func (p *Pages) Users(c echo.Context) error {
	return p.renderUsers(c, http.StatusOK, views.UsersView{})
}

// renderUsers renders the page with v's message, error or new token.
func (p *Pages) renderUsers(c echo.Context, status int, v views.UsersView) error {
	ctx := c.Request().Context()
	users, err := p.Auth.store.Users(ctx)
	if err != nil {
		return err
	}
	tokens, err := p.Auth.store.Tokens(ctx)
	if err != nil {
		return err
	}
	v.Page = views.Page{Title: "Users and tokens", Active: "users", Now: p.Now(), Location: p.Location}
	v.Users, v.Tokens = users, tokens
	return handlers.Render(c, status, views.UsersPage(v))
}

// AddUser answers POST /users (name, role, password): a user who signs in
// with that password. A name taken, a bad name, role or password is
// refused with why, the form keeping the name and role.
func (p *Pages) AddUser(c echo.Context) error {
	form := views.UsersForm{Name: c.FormValue("name"), Role: store.Role(c.FormValue("role"))}
	refuse := func(status int, why string) error {
		return p.renderUsers(c, status, views.UsersView{Err: "Not added: " + why + ".", UserForm: form})
	}
	if err := ValidUserName(form.Name); err != nil {
		return refuse(http.StatusUnprocessableEntity, err.Error())
	}
	role, err := store.ParseRole(string(form.Role))
	if err != nil {
		return refuse(http.StatusUnprocessableEntity, err.Error())
	}
	hash, err := HashPassword(c.FormValue("password"))
	if err != nil {
		return refuse(http.StatusUnprocessableEntity, err.Error())
	}
	err = p.Auth.store.AddUser(c.Request().Context(), form.Name, role, hash, p.Now())
	if errors.Is(err, store.ErrExists) {
		return refuse(http.StatusConflict, "a user "+form.Name+" exists already")
	}
	if err != nil {
		return err
	}
	p.Auth.opts.Logger.Info("user added", "user", form.Name, "role", role, "by", views.ViewerOf(c.Request().Context()).Name)
	return p.renderUsers(c, http.StatusOK, views.UsersView{Message: fmt.Sprintf("%s added as %s; they sign in with the password you chose.", form.Name, views.ARole(role))})
}

// SetUserRole answers POST /users/role (name, role). The last admin
// stays one: without an admin, nobody could manage users and tokens here.
func (p *Pages) SetUserRole(c echo.Context) error {
	name := c.FormValue("name")
	role, err := store.ParseRole(c.FormValue("role"))
	if err != nil {
		return p.renderUsers(c, http.StatusUnprocessableEntity, views.UsersView{Err: "Role not changed: " + err.Error() + "."})
	}
	err = p.Auth.store.SetUserRole(c.Request().Context(), name, role)
	switch {
	case errors.Is(err, store.ErrLastAdmin):
		return p.renderUsers(c, http.StatusConflict, views.UsersView{Err: fmt.Sprintf(
			"%s stays an admin: they are the only one, and without an admin nobody could manage users and tokens. Make someone else an admin first.", name)})
	case errors.Is(err, store.ErrNotFound):
		return p.renderUsers(c, http.StatusNotFound, views.UsersView{Err: fmt.Sprintf("Role not changed: there is no user %q.", name)})
	case err != nil:
		return err
	}
	p.Auth.opts.Logger.Info("role changed", "user", name, "role", role, "by", views.ViewerOf(c.Request().Context()).Name)
	return p.renderUsers(c, http.StatusOK, views.UsersView{Message: fmt.Sprintf("%s is now %s, from their next request on.", name, views.ARole(role))})
}

// CreateToken answers POST /users/tokens (name, role): a bearer token made
// by the signed-in admin, its secret shown on this answer only. A role
// wider than the maker's is refused (store.CreateToken).
func (p *Pages) CreateToken(c echo.Context) error {
	form := views.UsersForm{Name: c.FormValue("name"), Role: store.Role(c.FormValue("role"))}
	refuse := func(status int, why string) error {
		return p.renderUsers(c, status, views.UsersView{Err: "No token made: " + why + ".", TokenForm: form})
	}
	if err := ValidUserName(form.Name); err != nil {
		return refuse(http.StatusUnprocessableEntity, "a token's name follows a user name's rule: "+err.Error())
	}
	role, err := store.ParseRole(string(form.Role))
	if err != nil {
		return refuse(http.StatusUnprocessableEntity, err.Error())
	}
	maker := views.ViewerOf(c.Request().Context()).Name
	secret, hash := NewToken()
	err = p.Auth.store.CreateToken(c.Request().Context(), store.Token{Name: form.Name, Role: role, CreatedBy: maker, CreatedAt: p.Now()}, hash)
	var wide *store.TooWideError
	switch {
	case errors.As(err, &wide):
		return refuse(http.StatusForbidden, fmt.Sprintf("a token never has more rights than its maker, and you are %s", views.ARole(wide.MakerRole)))
	case errors.Is(err, store.ErrExists):
		return refuse(http.StatusConflict, "a token "+form.Name+" exists already (revoked ones keep their names)")
	case err != nil:
		return err
	}
	p.Auth.opts.Logger.Info("token made", "token", form.Name, "role", role, "by", maker)
	return p.renderUsers(c, http.StatusOK, views.UsersView{NewTokenName: form.Name, NewToken: secret})
}

// RevokeToken answers POST /users/tokens/revoke (name): the token's
// scripts are refused from now on; it stays listed.
func (p *Pages) RevokeToken(c echo.Context) error {
	name := c.FormValue("name")
	err := p.Auth.store.RevokeToken(c.Request().Context(), name, p.Now())
	if errors.Is(err, store.ErrNotFound) {
		return p.renderUsers(c, http.StatusNotFound, views.UsersView{Err: fmt.Sprintf("Nothing revoked: there is no token %q that is not revoked already.", name)})
	}
	if err != nil {
		return err
	}
	p.Auth.opts.Logger.Info("token revoked", "token", name, "by", views.ViewerOf(c.Request().Context()).Name)
	return p.renderUsers(c, http.StatusOK, views.UsersView{Message: fmt.Sprintf("Token %s revoked: its scripts are refused from now on.", name)})
}
