package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"testing"
	"time"
)

// The digests of every byte the API answered for the worlds of
// bodiesDigest, taken from the simulator before it played the survey.
const (
	goldenBodies        = "d8f85bfb8e384dd2b457bf1e032b68fae620a7df2f5cb72d132b5a54d97accfa"
	goldenBusyDayBodies = "fe09315fa5fc44fd1e83ec5ae62496e72c0f5d17035d9d94c1df74c8f2c69b9d"
)

// bodiesDigest walks a world through two days, eight hours at a time, and
// digests the raw bodies of event/all, live-details and every listed
// subsample's quotas and eligibility rules.
func bodiesDigest(t *testing.T, opts Options) string {
	t.Helper()
	opts.Seed, opts.Subsamples = 11, 120
	s, clk := newSim(opts)
	h := sha256.New()
	for range 7 {
		h.Write(do(s, http.MethodPost, pathAll).Body.Bytes())
		h.Write(do(s, http.MethodPost, pathLive).Body.Bytes())
		for _, d := range liveDetails(t, s) {
			h.Write(do(s, http.MethodGet, quotasPath(d.SubsampleID)).Body.Bytes())
			h.Write(do(s, http.MethodGet, rulesPath(d.SubsampleID)).Body.Bytes())
		}
		clk.Advance(8 * time.Hour)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSurveyOffAnswersAsBefore holds every API answer byte for byte to
// the simulator's before the simulated survey existed, with the survey off
// (no ReturnURL) and on with neither demo situation: its options draw
// nothing from the world.
func TestSurveyOffAnswersAsBefore(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"survey off", Options{}, goldenBodies},
		{"survey off, busy day", Options{BusyDay: true}, goldenBusyDayBodies},
		{"survey on", Options{ReturnURL: testReturnURL, ReturnSecret: []byte("k"), BrokenLink: true, FieldFullLag: 2}, goldenBodies},
		{"survey on, busy day", Options{BusyDay: true, ReturnURL: testReturnURL, BrokenLink: true, FieldFullLag: 2}, goldenBusyDayBodies},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bodiesDigest(t, tt.opts); got != tt.want {
				t.Errorf("the API's answers changed: digest %s, want %s", got, tt.want)
			}
		})
	}
}
