package formats

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// TestAppendNextSurveysIsTheEncoders checks the hand-written next-survey
// answer against what encoding/json's Encoder (echo's c.JSON) writes of
// NextSurveys, on random routes: ids, links and currencies with the
// characters JSON and HTML escape, figures from tiny to huge, missing
// ones. Where AppendNextSurveys declines (a string it leaves to
// encoding/json, a figure that is not finite), it appends nothing.
func TestAppendNextSurveysIsTheEncoders(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 12))
	plain := []string{"", "P0000001", "p 1", `a"b\c`, "<x>&y", "https://s.example/e?a=1&SAPI=1&id=P1", "USD", " eur "}
	odd := []string{"tab\there", "é", "\u2028", "a\x7fb", "\xff"}
	text := func() string {
		if rng.IntN(30) == 0 {
			return odd[rng.IntN(len(odd))]
		}
		return plain[rng.IntN(len(plain))]
	}
	floats := []float64{0, 1, -1, 0.5, 1.005, 12.345678, 1e-7, 2.5e-6, 1e-6, 1e20, 1e21, 3e25, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.NaN()}
	number := func() *float64 {
		if rng.IntN(4) == 0 {
			return nil
		}
		v := floats[rng.IntN(len(floats))]
		if (math.IsInf(v, 0) || math.IsNaN(v)) && rng.IntN(10) > 0 {
			v = 1 // seldom: most answers are written
		}
		if rng.IntN(3) == 0 {
			v = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
		return &v
	}
	appended, declined := 0, 0
	for round := range 5000 {
		var routes []checks.Route
		for range rng.IntN(6) {
			r := &checks.SubsampleReport{SubsampleRow: store.SubsampleRow{SubsampleID: rng.Int64N(1 << 40), EventID: rng.Int64N(1<<20) - 5,
				Currency: text(), CPI: number(), ExpectedLOI: number()}}
			if v := number(); v != nil {
				r.EPC = rules.EPC{Value: *v, Currency: r.Currency, Source: rules.EPCField}
			}
			routes = append(routes, checks.Route{SubsampleReport: r, EntryLink: text()})
		}
		id := text()
		var want bytes.Buffer
		wantErr := json.NewEncoder(&want).Encode(NextSurveys(id, routes))
		got, ok := AppendNextSurveys([]byte("before"), id, routes)
		switch {
		case !ok && string(got) != "before":
			t.Fatalf("round %d: declined, but left %q", round, got)
		case !ok:
			declined++
		case wantErr != nil:
			t.Fatalf("round %d: encoding/json refuses (%v), AppendNextSurveys wrote %q", round, wantErr, got)
		case string(got) != "before"+want.String():
			t.Fatalf("round %d:\n got  %s\n want %s", round, got[len("before"):], want.Bytes())
		default:
			appended++
		}
	}
	if appended < 1000 || declined < 100 {
		t.Errorf("%d answers written, %d declined: the test does not exercise both", appended, declined)
	}
}
