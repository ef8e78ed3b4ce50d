package sim

import (
	"net/http/httptest"
	"testing"
	"time"
)

// largeOptions is the size the store and dashboard benchmarks use.
func largeOptions() Options {
	return Options{Seed: 1, Subsamples: 6000, Locales: 20, QuestionsPerLocale: 300, AnswersPerQuestion: 10,
		Now: func() time.Time { return testStart }}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(largeOptions())
	}
}

func BenchmarkLiveDetails(b *testing.B) {
	s := New(largeOptions())
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("POST", pathLive, nil))
	}
}

func BenchmarkEventAll(b *testing.B) {
	s := New(largeOptions())
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("POST", pathAll, nil))
	}
}

func BenchmarkQuotas(b *testing.B) {
	s := New(largeOptions())
	path := quotasPath(s.LiveSubsampleIDs()[0])
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	}
}

// TestLargeWorldServes checks that the benchmark-sized world generates and
// answers live-details; how fast is for the benchmarks above, not a test.
func TestLargeWorldServes(t *testing.T) {
	if testing.Short() {
		t.Skip("large world")
	}
	s := New(largeOptions())
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("POST", pathLive, nil))
	if rec.Code != 200 || len(s.LiveSubsampleIDs()) < 1500 {
		t.Errorf("large world: live-details %d, %d live subsamples; want 200 and about 2,000", rec.Code, len(s.LiveSubsampleIDs()))
	}
}
