package views

import (
	"context"

	"fieldboard/store"
)

// Viewer is who a page is rendered for: a signed-in user with the CSRF
// token their forms must send, or a bearer token's name (Token true, no
// CSRF token: a script sends no forms), with their role.
type Viewer struct {
	Name  string
	CSRF  string
	Token bool
	Role  store.Role
}

// MayChange reports whether the viewer may change data and decisions
// (a coordinator or an admin): pages show their forms only then. The
// server refuses the others whatever the page shows.
func (v Viewer) MayChange() bool { return v.Role.Covers(store.RoleCoordinator) }

// Admin reports whether the viewer may manage users, tokens and
// webhooks.
func (v Viewer) Admin() bool { return v.Role.Covers(store.RoleAdmin) }

type viewerKey struct{}

// WithViewer returns ctx carrying v, for the pages rendered with it.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerOf returns the viewer ctx carries; the zero Viewer when none.
func ViewerOf(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// ARole is a role with its article, as a sentence says it: "a viewer",
// "an admin".
func ARole(r store.Role) string {
	if r == store.RoleAdmin {
		return "an admin"
	}
	return "a " + string(r)
}
