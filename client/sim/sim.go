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

	// ReturnURL turns on the simulated survey (survey.go): the supplier's
	// registered return address, a template in which the provider puts
	// the respondent's status for {status} (complete, screenout or
	// quotafull) and the id the entry link carried for {id}, query-escaped
	// (url.QueryEscape), such as
	// "http://127.0.0.1:8080/return/{status}?id={id}". It must hold both,
	// be an absolute http or https address with a path and have no
	// fragment (CheckSurvey). The simulator then answers GET on the path of
	// EntryURL as the survey behind every entry link and sends the
	// respondent back there. Empty, the survey is off, the entry path is
	// not served and every other answer is what it was; none of the
	// survey's options draws from the world.
	ReturnURL string
	// ReturnSecret, when set, signs every return address (SignReturn):
	// "&<ReturnSigParam>=<hex HMAC>" is appended, "?" instead of "&" when
	// the address has no query. Unset, return addresses are not signed.
	ReturnSecret []byte
	// ReturnSigParam names the signature parameter; default "sig". It is
	// a plain query name: letters, digits, '-', '_' and '.'.
	ReturnSigParam string
	// ReturnSigAlg is the HMAC's hash: "sha256" (the default), "sha1" or
	// "sha512".
	ReturnSigAlg string
	// SurveyPause is how long the simulated survey takes. 0: an entry is
	// answered at once with a 302 to the return address. More: with a
	// 200 and a small page that says which status the respondent will be
	// returned with and refreshes to the return address after the pause,
	// rounded up to whole seconds.
	SurveyPause time.Duration
	// BrokenLink makes the survey of one Live, sendable subsample screen
	// out every respondent, as a survey whose link is broken in the field
	// does (BrokenLinkSubsample). No draw of the world depends on it.
	BrokenLink bool
	// FieldFullLag > 0 makes the first cell besides the total of one
	// Live, sendable subsample full in the field: its survey returns every
	// respondent quota full, while the quotas endpoint reports the cell
	// open as before until FieldFullLag respondents have been returned
	// quota full from that subsample; from then on it reports the cell
	// with its remaining completes achieved and none remaining
	// (FieldFullQuota). Only with ReturnURL; no draw of the world
	// depends on it.
	FieldFullLag int
}

// Defaults of Options.
const (
	DefaultSubsamples         = 240
	DefaultLocales            = 8
	DefaultQuestionsPerLocale = 40
	DefaultAnswersPerQuestion = 6
	DefaultEntryURL           = "https://survey.provider.test/start"
	DefaultReturnSigParam     = "sig"
	DefaultReturnSigAlg       = "sha256"
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
	if o.ReturnSigParam == "" {
		o.ReturnSigParam = DefaultReturnSigParam
	}
	if o.ReturnSigAlg == "" {
		o.ReturnSigAlg = DefaultReturnSigAlg
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

	survey *survey // the simulated survey; nil while Options.ReturnURL is empty
}

// New generates the world for opts and returns a simulator serving it.
// Generation is deterministic for opts.Seed and the time opts.Now returns.
// It panics on survey options CheckSurvey rejects: check options that come
// from outside first.
func New(opts Options) *Simulator {
	opts = opts.withDefaults()
	if err := opts.CheckSurvey(); err != nil {
		panic("sim: " + err.Error())
	}
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
	s.survey = newSurvey(opts, s.world)
	return s
}

// ServeHTTP counts the request, waits the configured latency, fails the
// request when a failure switch says so and otherwise serves the endpoint.
// The simulated survey's entry path is served apart: it is the provider's
// survey, not its API, so it is neither counted, delayed nor failed.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.survey != nil && r.URL.Path == s.survey.path {
		s.surveyEntry(w, r)
		return
	}
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
