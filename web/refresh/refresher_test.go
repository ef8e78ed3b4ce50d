package refresh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	sim       *sim.Simulator
	store     *store.Store
	refresher *Refresher
	clock     *fakeClock
}

// newFixture wires a simulator over loopback, a client, a temporary
// database and a refresher, all on one fake clock.
func newFixture(t *testing.T, opts sim.Options) *fixture {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	opts.Now = clock.Now
	if opts.Subsamples == 0 {
		opts.Subsamples = 40
	}
	if opts.Locales == 0 {
		opts.Locales = 3
	}
	if opts.QuestionsPerLocale == 0 {
		opts.QuestionsPerLocale = 12
	}
	simulator := sim.New(opts)
	srv := httptest.NewServer(simulator)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, Timeout: 2 * time.Second, MaxAttempts: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := New(c, st, Options{Now: clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Concurrency: 4})
	t.Cleanup(r.Close)
	return &fixture{sim: simulator, store: st, refresher: r, clock: clock}
}

func TestRefreshFillsEveryDataset(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	liveIDs := f.sim.LiveSubsampleIDs()
	rows, err := f.store.LiveRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || len(rows) != len(liveIDs) {
		t.Fatalf("stored %d live subsamples, the simulator has %d", len(rows), len(liveIDs))
	}
	for _, r := range rows {
		if r.QuotasOK == nil || !*r.QuotasOK || r.TotalAchieved == nil {
			t.Errorf("subsample %d: quotas not stored (%+v)", r.SubsampleID, r)
		}
	}
	locales, err := f.store.SubsampleLocales(ctx)
	if err != nil || len(locales) == 0 {
		t.Fatalf("locales of live subsamples: %v, %v", locales, err)
	}
	questions, err := f.store.Questions(ctx, locales[0])
	if err != nil || len(questions) == 0 {
		t.Errorf("questions of %s: %d, %v; want the library stored", locales[0], len(questions), err)
	}
	countries, err := f.store.Countries(ctx)
	if err != nil || len(countries) == 0 {
		t.Errorf("countries: %d, %v", len(countries), err)
	}
	p := f.refresher.Progress()
	if p.Running || p.Done != p.Total || p.Total == 0 || p.Err != "" {
		t.Errorf("progress after the refresh = %+v, want finished with done = total", p)
	}
}

func TestEventListFailureCommitsNothing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := f.store.LiveRows(ctx)

	for _, path := range []string{"/supplier/v1/event/all", "/supplier/v1/event/live-details"} {
		t.Run(path, func(t *testing.T) {
			f.sim.FailPath(path, sim.FailServerError)
			defer f.sim.ClearFailures()
			f.clock.Advance(30 * time.Minute) // the simulator's world moves on
			err := f.refresher.Refresh(ctx, Request{})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("refresh error = %v, want one naming %s", err, path)
			}
			after, _ := f.store.LiveRows(ctx)
			if len(after) != len(before) || *after[0].TotalAchieved != *before[0].TotalAchieved {
				t.Errorf("a failed refresh changed the live list")
			}
			states, _ := f.store.Datasets(ctx)
			if ev := states[store.DatasetEvents]; !ev.Failing() || !strings.Contains(ev.LastErrorEndpoint, path) {
				t.Errorf("events state = %+v, want the failure at %s recorded", ev, path)
			}
		})
	}
	// The next refresh recovers by itself.
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	states, _ := f.store.Datasets(ctx)
	if states[store.DatasetEvents].Failing() {
		t.Errorf("events still failing after a good refresh")
	}
}

func TestSubsampleFailureCommitsTheRestMarked(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	ids := f.sim.LiveSubsampleIDs()
	broken := ids[0]
	f.sim.FailPath("/supplier/v1/subsamples/"+itoa(broken)+"/quotas", sim.FailMalformed)
	f.clock.Advance(10 * time.Minute)
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatalf("a refresh with one failing subsample must still commit: %v", err)
	}
	fetch, err := f.store.FetchOf(ctx, broken)
	if err != nil {
		t.Fatal(err)
	}
	if fetch.QuotasOK || fetch.QuotasError == "" || !fetch.RulesOK {
		t.Errorf("broken subsample's fetch state = %+v, want quotas failed and rules ok", fetch)
	}
	quotas, _ := f.store.QuotasOf(ctx, broken)
	if len(quotas) == 0 {
		t.Errorf("the broken subsample's earlier quotas were dropped; they should be kept, marked stale")
	}
	other, err := f.store.FetchOf(ctx, ids[1])
	if err != nil || !other.QuotasOK {
		t.Errorf("another subsample's fetch state = %+v, %v; want ok", other, err)
	}
}

func TestSecondRequestJoinsTheRunningRefresh(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7, Latency: 20 * time.Millisecond})
	first := f.refresher.Start(Request{Force: true})
	second := f.refresher.Start(Request{Force: true})
	if !first.Running || !second.StartedAt.Equal(first.StartedAt) {
		t.Fatalf("second Start = %+v, want it to join the first (%+v)", second, first)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	runs, err := f.store.RecentRuns(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	for _, r := range runs {
		if r.Dataset == store.DatasetEvents {
			events++
		}
	}
	if events != 1 {
		t.Errorf("%d events refreshes ran for five overlapping requests, want 1", events)
	}
}

func TestProgressWhileRunning(t *testing.T) {
	f := newFixture(t, sim.Options{Seed: 7, Latency: 30 * time.Millisecond})
	f.refresher.Start(Request{Force: true})
	// Until the refresh ends, however long it takes here; the failsafe is
	// for a hang.
	failsafe := time.Now().Add(5 * time.Minute)
	var seen Progress
	for {
		p := f.refresher.Progress()
		if !p.Running {
			break
		}
		if time.Now().After(failsafe) {
			t.Fatalf("in five minutes the refresh did not end: %+v", p)
		}
		if p.Total > 0 && p.Done > 0 {
			seen = p
		}
		time.Sleep(5 * time.Millisecond)
	}
	if seen.Total == 0 || seen.Phase == "" || seen.Done > seen.Total {
		t.Errorf("progress seen while running = %+v, want a phase and done/total", seen)
	}
}

func TestScheduleHonoursCacheWindows(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	scheduled := Request{scheduled: true}
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	afterFirst := f.sim.Requests()
	f.clock.Advance(2 * time.Minute)
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	if n := f.sim.Requests() - afterFirst; n != 0 {
		t.Errorf("a scheduled refresh 2 minutes later asked the provider %d times; its cache window is 3 minutes", n)
	}
	f.clock.Advance(time.Minute)
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	live := int64(len(f.sim.LiveSubsampleIDs()))
	if n := f.sim.Requests() - afterFirst; n != 2+2*live {
		t.Errorf("3 minutes later the schedule made %d requests, want %d (event lists, then quotas and rules of %d live subsamples; library and reference not yet due)", n, 2+2*live, live)
	}
}

func TestRefreshOneSubsample(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	id := f.sim.LiveSubsampleIDs()[0]
	before := f.sim.Requests()
	f.clock.Advance(time.Minute)
	if err := f.refresher.Refresh(ctx, Request{SubsampleID: id}); err != nil {
		t.Fatal(err)
	}
	if n := f.sim.Requests() - before; n != 2 {
		t.Errorf("refreshing one subsample made %d requests, want 2 (quotas and rules)", n)
	}
	fetch, err := f.store.FetchOf(ctx, id)
	if err != nil || !fetch.QuotasAt.Equal(f.clock.Now()) {
		t.Errorf("fetch state = %+v, %v; want quotas read at %v", fetch, err, f.clock.Now())
	}
	if err := f.refresher.Refresh(ctx, Request{SubsampleID: 1}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refreshing an unknown subsample: %v, want ErrNotFound", err)
	}
}

func TestCloseCancelsTheRefreshInFlight(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := f.store.LiveRows(ctx)
	// The provider takes an hour, and so would a refresher that waited
	// for it: its client here waits as long as the provider takes. Close
	// returning at all, however slow the machine, says it cancelled the
	// refresh. (At one second a call and a bound of three seconds, as
	// before, a loaded machine could not tell the two apart.)
	f.sim.SetLatency(time.Hour)
	f.clock.Advance(time.Hour)
	r := New(patientClientOf(t, f), f.store, Options{Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler), Concurrency: 4})
	t.Cleanup(r.Close) // before the server's Close, which waits for the requests in flight
	asked := f.sim.Requests()
	r.Start(Request{})
	for failsafe := time.Now().Add(5 * time.Minute); f.sim.Requests() == asked; time.Sleep(time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatal("in five minutes the refresh asked the provider nothing")
		}
	}
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Minute): // a hang, not a speed: the provider takes an hour
		t.Fatal("Close did not return: it waited for the refresh held by the provider instead of cancelling it")
	}
	after, _ := f.store.LiveRows(ctx)
	if len(after) != len(before) || *after[0].TotalAchieved != *before[0].TotalAchieved {
		t.Errorf("a cancelled refresh changed the snapshot")
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func TestFailedDailyReadIsRetriedWithinMinutes(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	f.sim.FailPath("/supplier/v1/countries", sim.FailServerError)
	scheduled := Request{scheduled: true}
	if err := f.refresher.Refresh(ctx, scheduled); err == nil {
		t.Fatal("the reference read should have failed")
	}
	f.sim.ClearFailures()
	f.clock.Advance(time.Minute)
	f.refresher.Refresh(ctx, scheduled)
	if countries, _ := f.store.Countries(ctx); len(countries) != 0 {
		t.Fatal("retried within a minute; the retry waits for the events interval")
	}
	f.clock.Advance(3 * time.Minute)
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	if countries, _ := f.store.Countries(ctx); len(countries) == 0 {
		t.Error("a failed reference read was not retried after the events interval")
	}
}

func TestFullRefreshAskedDuringASubsampleRefreshRunsAfterIt(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	f.sim.SetLatency(50 * time.Millisecond)
	f.clock.Advance(10 * time.Minute)
	f.refresher.Start(Request{SubsampleID: f.sim.LiveSubsampleIDs()[0]})
	f.refresher.Start(Request{}) // "Refresh now" while the subsample refresh runs
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	runs, _ := f.store.RecentRuns(ctx, 20)
	events := 0
	for _, r := range runs {
		if r.Dataset == store.DatasetEvents {
			events++
		}
	}
	if events != 2 {
		t.Errorf("%d events refreshes, want 2: the first and the one asked during the subsample refresh", events)
	}
}

// TestRefreshDeadline: a refresh never hangs on the provider. Past the
// deadline the calls still running are cancelled, the subsamples they
// were for keep their earlier data marked as failed (so they are not
// sendable), the rest is written, and the refresh says so.
func TestRefreshDeadline(t *testing.T) {
	f := newFixture(t, sim.Options{Seed: 4})
	ctx := context.Background()
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	f.refresher.Close()
	live, err := f.store.LiveRows(ctx)
	if err != nil || len(live) < 8 {
		t.Fatalf("%d live subsamples (%v); want a few to be left unread", len(live), err)
	}
	// The event lists answer at once; every live subsample's quotas never
	// answer, and the client would wait two hours for them. Only the
	// deadline ends the refresh, however slow the machine: the event
	// lists have its five seconds to come, the quotas never come. (At
	// 150 ms a call and a 700 ms deadline, as before, the event lists
	// themselves could miss it on a loaded machine.)
	for _, l := range live {
		f.sim.FailPath(fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", l.SubsampleID), sim.FailTimeout)
	}
	f.clock.Advance(10 * time.Minute)
	r := New(patientClientOf(t, f), f.store, Options{Now: f.clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Concurrency: 4, Deadline: 5 * time.Second})
	t.Cleanup(r.Close)
	refreshed := make(chan error, 1)
	go func() { refreshed <- r.Refresh(ctx, Request{}) }()
	select {
	case err = <-refreshed:
	case <-time.After(5 * time.Minute): // a hang, not a speed: the quotas never answer
		t.Fatal("the refresh went on past its deadline, waiting for quotas that never come")
	}
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("refresh past its deadline: %v, want an error saying the deadline passed", err)
	}
	states, err := f.store.Datasets(ctx)
	if err != nil || states[store.DatasetEvents].LastSuccessAt == nil || !states[store.DatasetEvents].LastSuccessAt.Equal(f.clock.Now()) {
		t.Fatalf("events dataset %+v (%v): the snapshot read before the deadline must be written", states[store.DatasetEvents], err)
	}
	failed := 0
	for _, l := range live {
		fetch, err := f.store.FetchOf(ctx, l.SubsampleID)
		if err != nil {
			continue // closed since
		}
		if !fetch.QuotasOK || !fetch.RulesOK {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no subsample was left unread: the deadline did not cut the refresh")
	}
}

// clientOf is a client of the fixture's simulator.
// patientClientOf is clientOf with a client that waits two hours for an
// answer: a test's refresh against a provider that takes an hour runs
// until it is cancelled.
func patientClientOf(t *testing.T, f *fixture) *client.Client {
	t.Helper()
	srv := httptest.NewServer(f.sim)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, Timeout: 2 * time.Hour, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func clientOf(t *testing.T, f *fixture) *client.Client {
	t.Helper()
	srv := httptest.NewServer(f.sim)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, Timeout: 5 * time.Second, MaxAttempts: 1, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// localesProvider lists a live subsample's locales as the store cannot
// be told from the list alone: the first live subsample gains a locale
// whose case only some lower() folds ("Zz-Éé": SQLite's lower() folds
// ASCII only), and it is listed again, first, with another locale
// ("yy-yy") that the live tables drop (a subsample listed twice keeps
// its first element's locales).
type localesProvider struct{ *client.Client }

func (p localesProvider) LiveSubsamples(ctx context.Context) ([]domain.LiveSubsample, []domain.MalformedElement, error) {
	live, malformed, err := p.Client.LiveSubsamples(ctx)
	if err != nil || len(live) == 0 {
		return live, malformed, err
	}
	first := live[0]
	first.Locales = append(slices.Clone(first.Locales), domain.SubsampleLocale{Name: "Zz-Éé"})
	again := first
	again.Locales = []domain.SubsampleLocale{{Name: "yy-yy"}}
	return append([]domain.LiveSubsample{first, again}, live[1:]...), malformed, nil
}

// Locales lists the two locales LiveSubsamples adds as the provider's:
// the library is read only for the locales the provider lists.
func (p localesProvider) Locales(ctx context.Context) ([]domain.Locale, []domain.MalformedElement, error) {
	list, malformed, err := p.Client.Locales(ctx)
	return append(list, domain.Locale{ID: 9001, Locale: "Zz-Éé"}, domain.Locale{ID: 9002, Locale: "yy-yy"}), malformed, err
}

// TestLibraryIsReadForTheStoredLocales: the library read while the events
// snapshot is written is of the locales its live subsamples list, but
// the locales stored decide, as when it was read after the write: the
// library is asked for every locale of the live tables, and for no
// other.
func TestLibraryIsReadForTheStoredLocales(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	r := New(localesProvider{clientOf(t, f)}, f.store, Options{Now: f.clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Concurrency: 4})
	t.Cleanup(r.Close)
	err := r.Refresh(ctx, Request{Force: true})
	if err == nil || !strings.Contains(err.Error(), "question library of") {
		t.Fatalf("refresh: %v; want the library of the locale the simulator does not know failed", err)
	}
	stored, err := f.store.SubsampleLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(stored, "zz-Éé") && !slices.Contains(stored, "zz-éé") || slices.Contains(stored, "yy-yy") {
		t.Fatalf("stored locales %v: want zz-Éé (or zz-éé) and not yy-yy", stored)
	}
	asked, err := f.store.LibraryLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(asked)); !slices.Equal(got, stored) {
		t.Errorf("the library was asked for %v; want the stored locales %v", got, stored)
	}
}

// The schedule looks every tick; a look that finds nothing due reads
// nothing and is no refresh, so the status still tells of the last one,
// and a refresh's scope says what it read.
func TestScheduledCheckKeepsTheLastRefresh(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, sim.Options{Seed: 7})
	scheduled := Request{scheduled: true}
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	forced := f.refresher.Progress()
	if want := "reference data, events and question library"; forced.Scope != want || forced.Total == 0 || forced.Done != forced.Total {
		t.Fatalf("after a forced refresh the status is %+v, want scope %q and done = total > 0", forced, want)
	}

	f.clock.Advance(time.Minute) // nothing due: the events' window is 3 minutes
	before := f.sim.Requests()
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	if n := f.sim.Requests() - before; n != 0 {
		t.Fatalf("the check asked the provider %d times, want none", n)
	}
	if p := f.refresher.Progress(); p != forced {
		t.Errorf("after a check that read nothing the status is %+v, want the forced refresh's %+v", p, forced)
	}

	f.clock.Advance(2 * time.Minute) // the events are due, the rest is not
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	p := f.refresher.Progress()
	if p.Scope != "events" || !p.FinishedAt.Equal(f.clock.Now()) || p.Total == 0 || p.Done != p.Total {
		t.Errorf("after a scheduled read of the events the status is %+v, want scope \"events\", finished now, done = total > 0", p)
	}
	f.clock.Advance(time.Minute)
	if err := f.refresher.Refresh(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	if after := f.refresher.Progress(); after != p {
		t.Errorf("after a check that read nothing the status is %+v, want the events refresh's %+v", after, p)
	}

	id := f.sim.LiveSubsampleIDs()[0]
	if err := f.refresher.Refresh(ctx, Request{SubsampleID: id}); err != nil {
		t.Fatal(err)
	}
	if p := f.refresher.Progress(); p.Scope != "subsample "+itoa(id) {
		t.Errorf("after a subsample's refresh the scope is %q, want %q", p.Scope, "subsample "+itoa(id))
	}
}

// While the schedule's look runs and has read nothing, the status is the
// last refresh's, not a refresh of nothing that runs; once it reads, or
// when a refresh asked for waits for it, it is the one that runs.
func TestProgressOfAScheduledCheckInFlight(t *testing.T) {
	f := newFixture(t, sim.Options{Seed: 7})
	r := f.refresher
	last := Progress{Scope: "events", Phase: "done", Done: 4, Total: 4, FinishedAt: f.clock.Now()}
	check := &run{req: Request{scheduled: true}, progress: Progress{Running: true, Scope: "the provider's data", Phase: "starting"}}
	r.mu.Lock()
	r.last, r.inflight = last, check
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.inflight, r.pending = nil, nil; r.mu.Unlock() }()

	if p := r.Progress(); p != last {
		t.Errorf("while a check that has read nothing runs, the status is %+v, want the last refresh's %+v", p, last)
	}
	r.mu.Lock()
	r.pending = &Request{Force: true}
	r.mu.Unlock()
	if p := r.Progress(); !p.Running {
		t.Errorf("with a refresh asked for waiting on the check, the status is %+v, want running", p)
	}
	r.mu.Lock()
	r.pending = nil
	r.mu.Unlock()
	check.reading(store.DatasetEvents)
	if p := r.Progress(); !p.Running || p.Scope != "events" {
		t.Errorf("once the check reads the events, the status is %+v, want running with scope \"events\"", p)
	}
}

func TestScopeOf(t *testing.T) {
	for _, tc := range []struct {
		read []string
		want string
	}{
		{[]string{store.DatasetEvents}, "events"},
		{[]string{store.DatasetLibrary}, "question library"},
		{[]string{store.DatasetLibrary, store.DatasetEvents}, "events and question library"},
		{[]string{store.DatasetEvents, store.DatasetLibrary, store.DatasetReference}, "reference data, events and question library"},
	} {
		if got := scopeOf(tc.read); got != tc.want {
			t.Errorf("scopeOf(%q) = %q, want %q", tc.read, got, tc.want)
		}
	}
}
