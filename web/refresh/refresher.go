// Package refresh keeps the store's snapshots up to date with the provider:
// a schedule that honours the provider's caching windows, and on-demand
// refreshes (everything, or one subsample) that run one at a time: one at
// a time in the process, and, with Options.Lease, one at a time among
// every instance on the database.
package refresh

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"fieldboard/client"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web/lease"
)

// Provider is what a refresh reads: the provider API, as client.Client
// implements it.
type Provider interface {
	AllSubsamples(ctx context.Context) ([]domain.SubsampleSummary, []domain.MalformedElement, error)
	LiveSubsamples(ctx context.Context) ([]domain.LiveSubsample, []domain.MalformedElement, error)
	Quotas(ctx context.Context, subsampleID int64) ([]domain.Quota, error)
	EligibilityRules(ctx context.Context, subsampleID int64) (domain.EligibilityRules, error)
	Questions(ctx context.Context, locale string) ([]domain.Question, []domain.MalformedElement, error)
	Answers(ctx context.Context, locale string, questionID int64) ([]domain.Answer, []domain.MalformedElement, error)
	Countries(ctx context.Context) ([]domain.Country, []domain.MalformedElement, error)
	Locales(ctx context.Context) ([]domain.Locale, []domain.MalformedElement, error)
	SurveyStatuses(ctx context.Context) ([]domain.SurveyStatus, []domain.MalformedElement, error)
}

// Options tunes a Refresher; zero values take the defaults in brackets.
type Options struct {
	// EventsEvery is how often the event lists, quotas and eligibility
	// rules are read [3m, the provider's cache window for them].
	EventsEvery time.Duration
	// LibraryEvery is how often the question library is read [24h, its
	// cache window].
	LibraryEvery time.Duration
	// ReferenceEvery is how often countries, locales and statuses are read
	// [24h; the spec gives no cache window for them].
	ReferenceEvery time.Duration
	// Concurrency bounds the per-subsample and per-question calls in flight [8].
	Concurrency int
	// Retention is how long the quota history, the refresh log, the
	// change feed, the routing record and the webhook deliveries are
	// kept [7 days].
	Retention time.Duration
	// Deadline bounds one whole refresh [2m]: calls still running then are
	// cancelled, the subsamples they were for keep their earlier data
	// marked as failed, and what was read is written.
	Deadline time.Duration
	// Now is the clock [time.Now].
	Now func() time.Time
	// Logger receives one line per refresh [slog.Default()].
	Logger *slog.Logger
	// Lease, when set, runs every refresh under the database's refresh
	// lease (store.LeaseRefresh), for several instances on one database:
	// see Refresher.leased. Without it (one process, the refresh command)
	// refreshes run one at a time in this process only.
	Lease *lease.Holder
	// Observe, when set, is told how long each dataset's refresh took and
	// whether it failed (for the metrics).
	Observe func(dataset string, took time.Duration, failed bool)
}

func (o Options) withDefaults() Options {
	if o.EventsEvery <= 0 {
		o.EventsEvery = 3 * time.Minute
	}
	if o.LibraryEvery <= 0 {
		o.LibraryEvery = 24 * time.Hour
	}
	if o.ReferenceEvery <= 0 {
		o.ReferenceEvery = 24 * time.Hour
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.Retention <= 0 {
		o.Retention = 7 * 24 * time.Hour
	}
	if o.Deadline <= 0 {
		o.Deadline = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Request says what to refresh.
type Request struct {
	// SubsampleID, when set, refreshes only that live subsample's quotas
	// and eligibility rules.
	SubsampleID int64
	// Force reads every dataset now. Without it the events are always read
	// and the library and reference data only when they are due.
	Force bool
	// scheduled reads only what is due; set by the schedule.
	scheduled bool
}

// Progress is what the refresh in flight, or the last one, has done.
type Progress struct {
	Running bool
	// Scope says what the refresh read: "subsample N", or the datasets it
	// has read so far in words ("events", "reference data, events and
	// question library"; see scopeOf); "the provider's data" until it
	// reads one.
	Scope      string
	Phase      string
	Done       int
	Total      int
	StartedAt  time.Time
	FinishedAt time.Time
	Err        string
}

// Refresher runs refreshes one at a time. Create it with New, run its
// schedule with Schedule, and Close it on shutdown.
type Refresher struct {
	provider Provider
	store    *store.Store
	opts     Options

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu       sync.Mutex
	inflight *run     // nil when idle
	pending  *Request // to run when the one in flight ends; see Start
	last     Progress // of the last finished run
	wg       sync.WaitGroup
}

// New returns a Refresher that reads p and writes s.
func New(p Provider, s *store.Store, opts Options) *Refresher {
	ctx, cancel := context.WithCancel(context.Background())
	return &Refresher{provider: p, store: s, opts: opts.withDefaults(), ctx: ctx, cancel: cancel}
}

// run is one refresh in flight.
type run struct {
	req  Request
	done chan struct{}
	err  error
	// store is what the run writes through: the Refresher's, fenced by
	// the refresh lease when there is one.
	store *store.Store

	mu       sync.Mutex
	progress Progress
	// read are the datasets the run has started to read (a subsample's
	// refresh counts as the events); none when a scheduled check found
	// nothing due.
	read []string
}

// reading records that the run reads dataset, and names in its scope
// what it has read so far; a subsample's refresh keeps its own scope.
func (r *run) reading(dataset string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.read, dataset) {
		r.read = append(r.read, dataset)
	}
	if r.req.SubsampleID == 0 {
		r.progress.Scope = scopeOf(r.read)
	}
}

// readNothing reports whether the run has read no dataset yet.
func (r *run) readNothing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.read) == 0
}

// datasetWords are the datasets as a scope names them, in the order a
// refresh reads them.
var datasetWords = []struct{ dataset, words string }{
	{store.DatasetReference, "reference data"},
	{store.DatasetEvents, "events"},
	{store.DatasetLibrary, "question library"},
}

// scopeOf names datasets in words, in the order a refresh reads them:
// "events", "events and question library", "reference data, events and
// question library".
func scopeOf(datasets []string) string {
	var words []string
	for _, d := range datasetWords {
		if slices.Contains(datasets, d.dataset) {
			words = append(words, d.words)
		}
	}
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func (r *run) setPhase(phase string, total int) {
	r.mu.Lock()
	r.progress.Phase = phase
	r.progress.Total += total
	r.mu.Unlock()
}

func (r *run) step() {
	r.mu.Lock()
	r.progress.Done++
	r.mu.Unlock()
}

func (r *run) currentProgress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress
}

// Start begins a refresh in the background and returns at once. When a
// refresh is already running, Start joins it instead of starting another:
// a second click while one runs does not ask the provider twice.
//
// When the refresh in flight does not cover what req asks for (a subsample
// refresh runs and req wants everything), req runs right after it.
func (r *Refresher) Start(req Request) Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	ru := r.beginLocked(req)
	if !covers(ru.req, req) {
		r.pending = &req
	}
	return ru.currentProgress()
}

// Refresh runs a refresh and waits for it, joining the one in flight if
// it covers req, or waiting for it and running req after it if not.
// Cancelling ctx stops the wait, not the refresh.
func (r *Refresher) Refresh(ctx context.Context, req Request) error {
	for {
		r.mu.Lock()
		ru := r.beginLocked(req)
		r.mu.Unlock()
		select {
		case <-ru.done:
			if covers(ru.req, req) {
				return ru.err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// covers reports whether a run of have does all that want asks for: a full
// refresh covers a subsample's; a forced one covers one that is not; a
// manual one covers a scheduled one.
func covers(have, want Request) bool {
	switch {
	case have.SubsampleID != 0:
		return want.SubsampleID == have.SubsampleID
	case want.SubsampleID != 0:
		return true
	case want.Force && !have.Force:
		return false
	case !want.scheduled && have.scheduled:
		return false
	}
	return true
}

// Progress returns the progress of the refresh in flight, or of the last
// finished one when none runs. The schedule's check that has read
// nothing (yet) is no refresh: while it looks, the last one is shown,
// unless a refresh asked for waits for it.
func (r *Refresher) Progress() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ru := r.inflight; ru != nil && !(ru.req.scheduled && r.pending == nil && ru.readNothing()) {
		return ru.currentProgress()
	}
	return r.last
}

// Close cancels the refresh in flight and waits for it to stop.
func (r *Refresher) Close() {
	r.cancel()
	r.wg.Wait()
}

// beginLocked starts a refresh of req unless one is in flight, and returns
// the run in flight. r.mu is held.
func (r *Refresher) beginLocked(req Request) *run {
	if r.inflight != nil {
		return r.inflight
	}
	scope := "the provider's data"
	if req.SubsampleID != 0 {
		scope = fmt.Sprintf("subsample %d", req.SubsampleID)
	}
	ru := &run{req: req, store: r.store, done: make(chan struct{}), progress: Progress{Running: true, Scope: scope, Phase: "starting", StartedAt: r.opts.Now()}}
	r.inflight = ru
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := r.leased(r.ctx, ru, req)
		var elsewhere *ElsewhereError
		// A schedule's check that found the refresh running elsewhere,
		// or nothing due, is no refresh: the last one stays.
		skipped := req.scheduled && (errors.As(err, &elsewhere) || err == nil && ru.readNothing())
		ru.mu.Lock()
		ru.err = err
		ru.progress.Running = false
		ru.progress.FinishedAt = r.opts.Now()
		ru.progress.Phase = "done"
		if err != nil {
			ru.progress.Phase = "failed"
			ru.progress.Err = err.Error()
		}
		final := ru.progress
		ru.mu.Unlock()
		r.mu.Lock()
		r.inflight = nil
		if !skipped {
			r.last = final
		}
		if next := r.pending; next != nil && r.ctx.Err() == nil {
			r.pending = nil
			r.beginLocked(*next)
		}
		r.mu.Unlock()
		close(ru.done)
	}()
	return ru
}

// Schedule refreshes every dataset when it is due, checking every tick,
// until ctx is done. When another instance holds the refresh lease, it
// looks again when that lease would run out if the other stopped
// renewing it (or at the tick, if sooner), so an instance that dies
// mid-refresh is taken over as soon as its lease ends.
func (r *Refresher) Schedule(ctx context.Context, tick time.Duration) {
	t := time.NewTimer(tick)
	defer t.Stop()
	for {
		wait := tick
		err := r.Refresh(ctx, Request{scheduled: true})
		var elsewhere *ElsewhereError
		switch {
		case errors.As(err, &elsewhere):
			r.opts.Logger.Debug("the scheduled refresh runs on another instance", "holder", elsewhere.Lease.Holder)
			wait = min(tick, max(elsewhere.Lease.ExpiresAt.Sub(r.opts.Now()), 0)+50*time.Millisecond)
		case err != nil && !errors.Is(err, context.Canceled):
			r.opts.Logger.Warn("scheduled refresh failed", "err", err)
		}
		t.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// NextDue returns when each dataset is next due on the schedule; the zero
// time means now.
func (r *Refresher) NextDue(states map[string]store.DatasetState) map[string]time.Time {
	out := make(map[string]time.Time, 3)
	for name := range r.intervals() {
		out[name] = r.nextDue(name, states[name])
	}
	return out
}

// nextDue is when a dataset is next read: its interval after the last
// success, or, while it is failing, the events interval after the last
// attempt, so a failed daily read is retried within minutes, not a day.
func (r *Refresher) nextDue(name string, st store.DatasetState) time.Time {
	switch {
	case st.Failing() && st.LastAttemptAt != nil:
		return st.LastAttemptAt.Add(r.opts.EventsEvery)
	case st.LastSuccessAt != nil:
		return st.LastSuccessAt.Add(r.intervals()[name])
	}
	return time.Time{}
}

func (r *Refresher) intervals() map[string]time.Duration {
	return map[string]time.Duration{
		store.DatasetEvents:    r.opts.EventsEvery,
		store.DatasetLibrary:   r.opts.LibraryEvery,
		store.DatasetReference: r.opts.ReferenceEvery,
	}
}

// execute performs one refresh, within the deadline: a refresh never
// hangs on the provider, and the next scheduled one starts on time.
func (r *Refresher) execute(ctx context.Context, ru *run, req Request) error {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Deadline)
	defer cancel()

	if req.SubsampleID != 0 {
		return r.refreshSubsample(ctx, ru, req.SubsampleID)
	}
	states, err := r.store.Datasets(ctx)
	if err != nil {
		return err
	}
	now := r.opts.Now()
	due := func(name string) bool {
		return req.Force || !now.Before(r.nextDue(name, states[name]))
	}
	var errs []error
	if due(store.DatasetReference) {
		errs = append(errs, r.refreshReference(ctx, ru))
	}
	// The library is read while the events snapshot is written (when the
	// events were read), and written after it: see refreshLibrary.
	libraryDue := due(store.DatasetLibrary)
	var early *libraryRead
	if !req.scheduled || due(store.DatasetEvents) {
		errs = append(errs, r.refreshEvents(ctx, ru, func(live []domain.LiveSubsample) {
			early = r.readLibraryEarly(ctx, ru, libraryDue, live)
		}))
	}
	errs = append(errs, r.refreshLibrary(ctx, ru, libraryDue, early))
	return errors.Join(errs...)
}

// counter counts a run's requests to the provider.
type counter struct {
	mu              sync.Mutex
	requests, fails int
}

func (c *counter) add(err error) {
	c.mu.Lock()
	c.requests++
	if err != nil {
		c.fails++
	}
	c.mu.Unlock()
}

func (c *counter) stamp(run *store.Run) {
	c.mu.Lock()
	run.Requests, run.FailedRequests = c.requests, c.fails
	c.mu.Unlock()
}

// fail records a dataset's failed refresh, keeping its previous snapshot,
// and returns the error to report.
func (r *Refresher) fail(ctx context.Context, ru *run, run store.Run, c *counter, err error) error {
	run.FinishedAt = r.opts.Now()
	c.stamp(&run)
	r.observe(run, true)
	switch {
	case errors.Is(context.Cause(ctx), lease.ErrLost):
		err = fmt.Errorf("stopped before it finished: %w", lease.ErrLost)
	case errors.Is(err, context.Canceled):
		err = fmt.Errorf("stopped before it finished (server shutting down): %w", err)
	}
	endpoint := ""
	var cerr *client.Error
	if errors.As(err, &cerr) {
		endpoint = cerr.Endpoint
	}
	// The record is written even when ctx was cancelled, so a shutdown
	// during a refresh still leaves a trace of it.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	switch rerr := ru.store.RecordFailure(recordCtx, run, endpoint, err); {
	case errors.Is(rerr, store.ErrLeaseLost):
		r.opts.Logger.Warn("a failed refresh not recorded: the refresh lease passed to another instance", "dataset", run.Dataset)
	case rerr != nil:
		r.opts.Logger.Error("recording a failed refresh", "dataset", run.Dataset, "err", rerr)
	}
	r.opts.Logger.Warn("refresh failed", "dataset", run.Dataset, "endpoint", endpoint, "err", err)
	return fmt.Errorf("refresh %s: %w", run.Dataset, err)
}

func (r *Refresher) done(run store.Run) {
	r.observe(run, false)
	r.opts.Logger.Info("refresh done", "dataset", run.Dataset, "requests", run.Requests,
		"failed_requests", run.FailedRequests, "took", run.FinishedAt.Sub(run.StartedAt).Round(time.Millisecond))
}

// observe tells Options.Observe of a dataset's refresh.
func (r *Refresher) observe(run store.Run, failed bool) {
	if r.opts.Observe != nil {
		r.opts.Observe(run.Dataset, run.FinishedAt.Sub(run.StartedAt), failed)
	}
}

// forEach calls fn for every item with at most n calls in flight, and
// stops starting new ones once ctx is done.
func forEach[T any](ctx context.Context, n int, items []T, fn func(T)) {
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, it := range items {
		select {
		case <-ctx.Done():
		case sem <- struct{}{}:
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				fn(it)
			}()
			continue
		}
		break
	}
	wg.Wait()
}
