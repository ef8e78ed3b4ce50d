//go:build race

package rules

// raceEnabled reports whether the tests run with the race detector, which
// drops a quarter of what a sync.Pool is given: a pool's reuse, and so
// the bytes an answer allocates, are not measured under it.
const raceEnabled = true
