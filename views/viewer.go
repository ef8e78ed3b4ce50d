package views

import "context"

// Viewer is who a page is rendered for: a signed-in user with the CSRF
// token their forms must send, or a bearer token's name (Token true, no
// CSRF token: a script sends no forms).
type Viewer struct {
	Name  string
	CSRF  string
	Token bool
}

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
