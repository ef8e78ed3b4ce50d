// Package sim simulates the provider's Supplier Sample Allocation API
// (see the spec in shared/supplier-api-spec.md) for tests, benchmarks and
// the demo. A Simulator is an http.Handler serving all nine endpoints with
// realistic data that is a pure function of the seed and of the time
// elapsed since the simulator was created, plus switches to inject latency
// and failures.
package sim

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Simulator. Zero values select the defaults.
type Options struct {
	Seed               int64
	Subsamples         int              // number of subsamples in event/all; default 240
	Locales            int              // locales that have a question library; default 8, at most MaxLocales
	QuestionsPerLocale int              // default 40; the core profiling questions always exist, filler questions make up the rest
	AnswersPerQuestion int              // answers of filler questions; default 6, at least 2
	Latency            time.Duration    // added to every request; a canceled request stops waiting
	FailRate           float64          // probability 0..1 that a request fails with one of the first three FailModes, drawn at random
	Now                func() time.Time // clock; default time.Now. The world is generated relative to Now() at New.
	EntryURL           string           // base of entry links; default "https://survey.provider.test/start"
	// FormulaNames starts the name of every second event, and so of its
	// subsamples and their quotas, and the text of every second question
	// and answer of the library, with what a spreadsheet reads as a formula
	// (formulaPrefixes): = + - @, their full-width forms, tab, CR, or a
	// cell that splits on ;. Off, the world is what it always was; no
	// random draw depends on it.
	FormulaNames bool
	// FormulaIDs starts the id of every second panelist of Profiles, Panel
	// and History (PanelistID) with what a spreadsheet reads as a formula
	// (formulaIDPrefixes): = + - @, their full-width forms, or ;= that
	// splits the cell. Tab and CR are not among them: a panelist id holds
	// no control character (domain.ParsePanelistID). Off, the ids are
	// P0000000, P0000001, ...; no random draw depends on it.
	FormulaIDs bool
	// BusyDay spreads the moves of the world over its first day, for a
	// demo that replays that day (web/demo): the Pending subsamples that
	// go live do so over 24 hours instead of the first 90 minutes, one
	// Live subsample in six is Pending until some hour of the day, half of
	// those whose total quota fills stay Live, paused, for one to five
	// hours before they turn Complete, and one normal Live subsample in
	// nine fills ten times slower. Off, the world is what it always was;
	// no random draw depends on it.
	BusyDay bool
}

// Defaults of Options.
const (
	DefaultSubsamples         = 240
	DefaultLocales            = 8
	DefaultQuestionsPerLocale = 40
	DefaultAnswersPerQuestion = 6
	DefaultEntryURL           = "https://survey.provider.test/start"
)

// withDefaults fills in the zero fields of o and bounds the others.
func (o Options) withDefaults() Options {
	if o.Subsamples <= 0 {
		o.Subsamples = DefaultSubsamples
	}
	if o.Locales <= 0 {
		o.Locales = DefaultLocales
	}
	o.Locales = min(o.Locales, MaxLocales)
	if o.QuestionsPerLocale <= 0 {
		o.QuestionsPerLocale = DefaultQuestionsPerLocale
	}
	if o.AnswersPerQuestion <= 0 {
		o.AnswersPerQuestion = DefaultAnswersPerQuestion
	}
	o.AnswersPerQuestion = max(o.AnswersPerQuestion, 2)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.EntryURL == "" {
		o.EntryURL = DefaultEntryURL
	}
	return o
}

// FailMode is a way a request can fail.
type FailMode int

const (
	FailServerError       FailMode = iota + 1 // 503 with a short text body
	FailTimeout                               // hang until the request context is done
	FailMalformed                             // 200 with a truncated JSON body
	FailReset                                 // the connection is reset before any response
	FailRateLimited                           // 429 with a Retry-After header (SetRetryAfter); see RetryWaits
	FailWrongTypes                            // 200 with the real body's numbers turned into strings
	FailHugeBody                              // 200 with the real body padded to a huge size (SetHugeBodySize), streamed
	FailEmptyList                             // 200 with an empty JSON array
	FailOneElement                            // 200 with the real list, its second element's numbers but subsampleId turned into strings
	FailOneElementUnnamed                     // as FailOneElement, its subsampleId a string too, so the element names no subsample
)

// randomModes is how many modes, from the first, the fail rate draws from.
const randomModes = 3

// Simulator is the provider. It is safe for concurrent use.
type Simulator struct {
	world      *world
	now        func() time.Time
	mux        *http.ServeMux
	formulaIDs bool   // Options.FormulaIDs
	entryURL   string // Options.EntryURL

	requests atomic.Int64
	latency  atomic.Int64  // time.Duration
	failRate atomic.Uint64 // math.Float64bits of the rate

	mu         sync.Mutex // guards the fields below
	rng        *rand.Rand // draws failures
	failing    map[string]failRule
	retryAfter string               // Retry-After value of FailRateLimited
	hugeBody   int64                // padding of FailHugeBody, in bytes
	limitedAt  map[string]time.Time // when a path was last answered 429
	waits      []time.Duration      // see RetryWaits
	rewrites   map[string]func([]byte) []byte
}

// New generates the world for opts and returns a simulator serving it.
// Generation is deterministic for opts.Seed and the time opts.Now returns.
func New(opts Options) *Simulator {
	opts = opts.withDefaults()
	s := &Simulator{
		world:      newWorld(opts),
		now:        opts.Now,
		formulaIDs: opts.FormulaIDs,
		entryURL:   opts.EntryURL,
		rng:        rand.New(rand.NewPCG(uint64(opts.Seed), 0xfa11)),
		failing:    make(map[string]failRule),
		retryAfter: DefaultRetryAfter,
		hugeBody:   DefaultHugeBodySize,
		limitedAt:  make(map[string]time.Time),
		rewrites:   make(map[string]func([]byte) []byte),
	}
	s.SetLatency(opts.Latency)
	s.SetFailRate(opts.FailRate)
	s.mux = s.routes()
	return s
}

// ServeHTTP counts the request, waits the configured latency, fails the
// request when a failure switch says so and otherwise serves the endpoint.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	arrived := time.Now()
	// Read the request body first: net/http notices a client hanging up,
	// and cancels r's context, only once the body is consumed; a POST
	// held by the latency or FailTimeout would otherwise never let go.
	io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	if d := time.Duration(s.latency.Load()); d > 0 && !sleep(r.Context(), d) {
		return
	}
	if mode := s.failure(r.URL.Path, arrived); mode != 0 {
		s.fail(w, r, mode)
		return
	}
	if s.rewritten(w, r) {
		return
	}
	s.mux.ServeHTTP(w, r)
}

// sleep waits d or until ctx is done; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// SetFailRate sets the probability, 0 to 1, that a request fails with a
// random FailMode.
func (s *Simulator) SetFailRate(rate float64) {
	s.failRate.Store(math.Float64bits(math.Max(0, math.Min(1, rate))))
}

// SetLatency sets the delay added to every request.
func (s *Simulator) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// Latency is the delay added to every request.
func (s *Simulator) Latency() time.Duration { return time.Duration(s.latency.Load()) }

// Requests returns the number of requests received so far, failed ones
// included.
func (s *Simulator) Requests() int64 { return s.requests.Load() }

// LiveSubsampleIDs returns the ids live-details lists at the simulator's
// current time, in ascending order.
func (s *Simulator) LiveSubsampleIDs() []int64 {
	m := s.world.minutesAt(s.now())
	var ids []int64
	for _, ss := range s.world.subs {
		if ss.listedLive(m) {
			ids = append(ids, ss.id)
		}
	}
	return ids
}
