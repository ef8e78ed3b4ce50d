package views

import "context"

type staleKey struct{}

// WithStale returns ctx carrying why the data is too old to decide on
// (checks.Service.StaleReason), for the banner every page then shows.
func WithStale(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, staleKey{}, why)
}

// StaleOf returns why the data is too old to decide on, "" when it is not.
func StaleOf(ctx context.Context) string {
	s, _ := ctx.Value(staleKey{}).(string)
	return s
}

type linksUncheckedKey struct{}

// WithLinksUnchecked returns ctx carrying that entry links are not
// checked against the provider's entry address
// (checks.Service.LinksUnchecked), for the line every page then shows.
func WithLinksUnchecked(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, linksUncheckedKey{}, why)
}

// LinksUncheckedOf returns that entry links are not checked, "" when they
// are.
func LinksUncheckedOf(ctx context.Context) string {
	s, _ := ctx.Value(linksUncheckedKey{}).(string)
	return s
}
