package refresh

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web/lease"
)

// gatedProvider serves a simulator that counts the event/all requests
// and, while closed, holds every quotas request (until the request's
// client gives up), so a test can stop a refresh in its middle.
type gatedProvider struct {
	sim      http.Handler
	eventAll atomic.Int64
	mu       sync.Mutex
	gate     chan struct{} // closed: open
	held     chan struct{} // receives once per held request
}

func newGatedProvider(s *sim.Simulator) *gatedProvider {
	g := &gatedProvider{sim: s, gate: make(chan struct{}), held: make(chan struct{}, 1000)}
	close(g.gate)
	return g
}

func (g *gatedProvider) close() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedProvider) open() {
	g.mu.Lock()
	select {
	case <-g.gate:
	default:
		close(g.gate)
	}
	g.mu.Unlock()
}

func (g *gatedProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/event/all") {
		g.eventAll.Add(1)
	}
	if strings.HasSuffix(r.URL.Path, "/quotas") {
		g.mu.Lock()
		gate := g.gate
		g.mu.Unlock()
		select {
		case <-gate:
		default:
			g.held <- struct{}{}
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
	}
	g.sim.ServeHTTP(w, r)
}

// instances are two refreshers, as two instances have, on one database
// and one provider, each with its holder of the refresh lease.
type instances struct {
	provider *gatedProvider
	a, b     *Refresher
	storeOf  map[*Refresher]*store.Store
	clock    *fakeClock
}

func newInstances(t *testing.T, path string, ttl time.Duration) *instances {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	p := newGatedProvider(sim.New(sim.Options{Seed: 7, Subsamples: 40, Locales: 2, QuestionsPerLocale: 5, Now: clock.Now}))
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	in := &instances{provider: p, storeOf: map[*Refresher]*store.Store{}, clock: clock}
	for _, name := range []string{"a", "b"} {
		c, err := client.New(client.Config{BaseURL: srv.URL, Timeout: time.Minute, MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		holder := &lease.Holder{Store: st, ID: name, TTL: ttl, Now: clock.Now, Logger: logger}
		r := New(c, st, Options{Now: clock.Now, Logger: logger, Concurrency: 4, Lease: holder})
		t.Cleanup(r.Close)
		in.storeOf[r] = st
		if name == "a" {
			in.a = r
		} else {
			in.b = r
		}
	}
	return in
}

// eventsRuns counts the events refreshes in the log.
func eventsRuns(t *testing.T, st *store.Store) int {
	t.Helper()
	runs, err := st.RecentRuns(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range runs {
		if r.Dataset == store.DatasetEvents {
			n++
		}
	}
	return n
}

// TestOneRefreshAtATimeAmongInstances: while one instance refreshes, the
// other's schedule leaves it the work, and a refresh asked of the other
// waits for it and answers with its outcome; the provider is asked once.
func TestOneRefreshAtATimeAmongInstances(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { oneRefreshAtATime(t, d.Target(t)) })
}

func oneRefreshAtATime(t *testing.T, path string) {
	ctx := context.Background()
	in := newInstances(t, path, 0)
	in.provider.close()
	in.a.Start(Request{Force: true})
	<-in.provider.held // a is in the middle of its refresh, holding the lease

	err := in.b.Refresh(ctx, Request{scheduled: true})
	var elsewhere *ElsewhereError
	if !errors.As(err, &elsewhere) || elsewhere.Lease.Holder != "a" {
		t.Fatalf("b's scheduled refresh while a refreshes: %v, want it left to a", err)
	}
	joined := make(chan error, 1)
	go func() { joined <- in.b.Refresh(ctx, Request{Force: true}) }()
	waitForPhase(t, in.b, "another instance (a)")
	in.provider.open()
	if err := <-joined; err != nil {
		t.Fatalf("b's refresh, joined to a's: %v", err)
	}
	if n := in.provider.eventAll.Load(); n != 1 {
		t.Errorf("the provider was asked for event/all %d times, want 1 (a's refresh, which b joined)", n)
	}
	if n := eventsRuns(t, in.storeOf[in.b]); n != 1 {
		t.Errorf("%d events refreshes recorded, want 1", n)
	}
	if l, err := in.storeOf[in.a].LeaseOf(ctx, store.LeaseRefresh); err != nil || !l.Free(in.clock.Now()) {
		t.Errorf("the refresh lease after the refresh: %+v, %v; want it released", l, err)
	}
}

// TestForcedRefreshIsNotCoveredByAnotherInstancesLesserOne: a forced
// refresh (every dataset, as POST /api/v1/refresh asks) that finds
// another instance refreshing the events only waits for it, then reads
// every dataset itself, as it would after a lesser refresh running in
// its own process: joining would have answered without the library and
// the reference data.
func TestForcedRefreshIsNotCoveredByAnotherInstancesLesserOne(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		in := newInstances(t, d.Target(t), 0)
		if err := in.a.Refresh(ctx, Request{Force: true}); err != nil {
			t.Fatal(err)
		}
		runs := func() map[string]int {
			recent, err := in.storeOf[in.a].RecentRuns(ctx, 100)
			if err != nil {
				t.Fatal(err)
			}
			n := map[string]int{}
			for _, r := range recent {
				n[r.Dataset]++
			}
			return n
		}
		before := runs()
		in.clock.Advance(time.Minute)
		in.provider.close()
		in.a.Start(Request{}) // the library and reference data are not due: events only
		<-in.provider.held
		forced := make(chan error, 1)
		go func() { forced <- in.b.Refresh(ctx, Request{Force: true}) }()
		waitForPhase(t, in.b, "another instance (a)")
		in.provider.open()
		if err := <-forced; err != nil {
			t.Fatalf("b's forced refresh: %v", err)
		}
		after := runs()
		if after[store.DatasetEvents] != before[store.DatasetEvents]+2 || after[store.DatasetLibrary] != before[store.DatasetLibrary]+1 ||
			after[store.DatasetReference] != before[store.DatasetReference]+1 {
			t.Errorf("runs recorded before %v, after %v: want a's events, then b's events, library and reference", before, after)
		}
	})
}

// TestRefreshThatLosesItsLeaseStopsAndWritesNothing: a's lease runs out
// mid-refresh (its clock jumps past it, as for a paused process) and b
// takes it; a's next renewal finds it lost, a's refresh stops without
// waiting for the provider, and writes neither a snapshot nor a failure.
// The lease is 3 s, renewed every second: at 600 ms a loaded machine's
// renewal missed its 400 ms, a gave up before it reached the provider,
// and the test waited for a held request that never came.
func TestRefreshThatLosesItsLeaseStopsAndWritesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { refreshThatLosesItsLease(t, d.Target(t)) })
}

func refreshThatLosesItsLease(t *testing.T, path string) {
	ctx := context.Background()
	in := newInstances(t, path, 3*time.Second)
	in.provider.close()
	defer in.provider.open()
	refreshed := make(chan error, 1)
	go func() { refreshed <- in.a.Refresh(ctx, Request{Force: true}) }()
	select {
	case <-in.provider.held:
	case err := <-refreshed:
		t.Fatalf("a's refresh ended before it asked for quotas: %v", err)
	case <-time.After(5 * time.Minute): // a hang, not a speed
		t.Fatal("in five minutes a's refresh never asked for quotas")
	}
	before := eventsRuns(t, in.storeOf[in.a])

	in.clock.Advance(time.Minute)
	b, err := in.storeOf[in.b].AcquireLease(ctx, store.LeaseRefresh, "b", in.clock.Now(), time.Minute)
	if err != nil || b.Holder != "b" {
		t.Fatalf("b taking the lease that ran out: %+v, %v", b, err)
	}
	select {
	case err := <-refreshed:
		if !errors.Is(err, lease.ErrLost) {
			t.Fatalf("a's refresh after losing its lease: %v, want it stopped for lease.ErrLost", err)
		}
	case <-time.After(5 * time.Minute): // a hang, not a speed: renewals come every second
		t.Fatal("a's refresh went on after it lost its lease")
	}
	if after := eventsRuns(t, in.storeOf[in.a]); after != before {
		t.Errorf("events runs went from %d to %d: a wrote after losing its lease", before, after)
	}
	if l, _ := in.storeOf[in.a].LeaseOf(ctx, store.LeaseRefresh); l.Holder != "b" || l.Token != b.Token {
		t.Errorf("the lease after a stopped: %+v, want b's %+v", l, b)
	}
}

// TestRefreshAskedWhileTheHolderIsDeadTakesOver: an instance died holding
// the lease (it never renews). A refresh asked of another waits for the
// lease to run out, finds no outcome, and refreshes itself.
func TestRefreshAskedWhileTheHolderIsDeadTakesOver(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { refreshAskedWhileTheHolderIsDead(t, d.Target(t)) })
}

func refreshAskedWhileTheHolderIsDead(t *testing.T, path string) {
	ctx := context.Background()
	in := newInstances(t, path, 30*time.Second)
	_, err := in.storeOf[in.a].AcquireLease(ctx, store.LeaseRefresh, "dead", in.clock.Now(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	refreshed := make(chan error, 1)
	go func() { refreshed <- in.b.Refresh(ctx, Request{Force: true}) }()
	waitForPhase(t, in.b, "another instance (dead)")
	if n := in.provider.eventAll.Load(); n != 0 {
		t.Fatalf("b asked the provider while the lease was dead's")
	}
	in.clock.Advance(31 * time.Second)
	if err := <-refreshed; err != nil {
		t.Fatal(err)
	}
	if n := eventsRuns(t, in.storeOf[in.b]); n != 1 {
		t.Errorf("%d events refreshes after b took over, want 1", n)
	}
	if n := in.provider.eventAll.Load(); n != 1 {
		t.Errorf("event/all asked %d times, want 1", n)
	}
}

// waitForPhase waits until r's refresh says it is in phase; a failsafe
// ends a test that would wait forever.
func waitForPhase(t *testing.T, r *Refresher, phase string) {
	t.Helper()
	failsafe := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.Progress().Phase, phase) {
		if time.Now().After(failsafe) {
			t.Fatalf("the refresh never said %q; last: %+v", phase, r.Progress())
		}
		time.Sleep(time.Millisecond)
	}
}
