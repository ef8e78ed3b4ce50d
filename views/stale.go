package views

import "context"

type staleKey struct{}

// WithStale returns ctx carrying why the data is too old to decide on
// (checks.Service.Stale), for the banner every page then shows.
func WithStale(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, staleKey{}, why)
}

// StaleOf returns why the data is too old to decide on, "" when it is not.
func StaleOf(ctx context.Context) string {
	s, _ := ctx.Value(staleKey{}).(string)
	return s
}
