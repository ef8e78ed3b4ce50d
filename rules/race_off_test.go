//go:build !race

package rules

// raceEnabled: see race_on_test.go.
const raceEnabled = false
