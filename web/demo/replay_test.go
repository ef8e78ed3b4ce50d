package demo_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web/demo"
	"fieldboard/web/refresh"
	"fieldboard/web/webhooks"
)

// started is one start of the demo on a database, wired as serve wires
// it: the simulator on the demo's clock, the receiver, and the replay
// when the database is fresh.
type started struct {
	store    *store.Store
	clock    *demo.Clock
	receiver *demo.Receiver
	replayed bool
	log      *bytes.Buffer
}

// startDemo starts the demo on the SQLite file db, with a small world,
// and fails the test when the replay fails.
func startDemo(t *testing.T, db string) started {
	t.Helper()
	s, err := startDemoOn(t, db, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startDemoOn starts the demo on db; with providerDown the simulator's
// event list answers 503, so no refresh succeeds. Its webhook guard lets
// through the receiver and the addresses in allow. It returns the
// replay's error.
func startDemoOn(t *testing.T, db string, providerDown bool, allow ...netip.AddrPort) (started, error) {
	t.Helper()
	ctx := context.Background()
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	clock := demo.NewClock(time.Now)
	simulator := sim.New(sim.Options{Seed: 1, Subsamples: 50, Locales: 3, QuestionsPerLocale: 12, Now: clock.Now, BusyDay: true})
	if providerDown {
		simulator.FailPath("/supplier/v1/event/all", sim.FailServerError)
	}
	upstream := httptest.NewServer(simulator)
	t.Cleanup(upstream.Close)
	provider, err := client.New(client.Config{BaseURL: upstream.URL, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	seeder := demo.Seeder{Store: st, Sim: simulator, Seed: 1, Logger: logger, Size: 1000}
	if err := seeder.Panel(ctx); err != nil {
		t.Fatal(err)
	}
	fresh, err := demo.Fresh(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	receiver, err := demo.StartReceiver(ctx, st, time.Now, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { receiver.Close() })
	replay := &demo.Replay{Seeder: seeder, Clock: clock, Receiver: receiver, Provider: provider,
		Refresh:   refresh.Options{Logger: logger, Concurrency: 4},
		Checks:    &checks.Service{Store: st, Now: clock.Now, StaleAfter: 15 * time.Minute},
		Guard:     webhooks.Guard{Allow: append([]netip.AddrPort{receiver.Addr()}, allow...)},
		InviteTTL: 7 * 24 * time.Hour}
	err = replay.Run(ctx)
	return started{store: st, clock: clock, receiver: receiver, replayed: fresh, log: &log}, err
}

// TestFirstStartReplaysADay: a fresh database gets the simulator's last
// 24 hours, through the refresher, the invitation link's handler and the
// webhook worker: pacing and at-risk subsamples, a change feed of real
// moves, routing decisions over the day and the returns of those sent,
// and webhook deliveries the demo's receiver took. A second start
// replays nothing.
func TestFirstStartReplaysADay(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	began := time.Now()
	first := startDemo(t, db)
	t.Logf("first start took %s\n%s", time.Since(began).Round(time.Millisecond), first.log)
	st := first.store
	if !first.replayed {
		t.Fatal("a fresh database was not replayed")
	}
	if now := first.clock.Now(); now.Before(first.clock.End()) || time.Since(now) > time.Second {
		t.Errorf("after the replay the clock says %s; want the real time, past the replay's end %s", now, first.clock.End())
	}
	for _, phase := range []string{"its first refresh, 24 hours ago, is the baseline", "replayed the day's first 20 hours", "replayed the day's last 4 hours", "last 24 hours are replayed"} {
		if !strings.Contains(first.log.String(), phase) {
			t.Errorf("the log has no line saying %q", phase)
		}
	}

	// The pages' checks service, on the real clock.
	service := &checks.Service{Store: st, Now: time.Now, StaleAfter: 15 * time.Minute}
	d, err := service.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	paced, atRisk := 0, 0
	for _, row := range d.LiveRows() {
		if row.Pacing != nil && row.Pacing.Known() {
			paced++
			if row.Pacing.AtRisk {
				atRisk++
			}
		}
	}
	if paced == 0 || atRisk == 0 {
		t.Errorf("%d live subsamples paced, %d at risk; want some of each", paced, atRisk)
	}

	changes, _, err := st.Changes(ctx, store.ChangeFilter{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[domain.ChangeKind]int{}
	for _, c := range changes {
		kinds[c.Kind]++
		if c.At.Before(first.clock.Start()) || c.At.After(first.clock.End()) {
			t.Errorf("change %+v outside the replayed day", c)
		}
	}
	t.Logf("changes by kind: %v", kinds)
	for _, k := range []domain.ChangeKind{domain.ChangeClosed, domain.ChangePaused, domain.ChangeSendable, domain.ChangeQuotaClosed} {
		if kinds[k] == 0 {
			t.Errorf("no %s change in the replayed day", k)
		}
	}

	decisions, _, err := st.Routings(ctx, store.RoutingFilter{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	hours := map[int]bool{}
	routed := map[domain.RoutingOutcome]int{}
	for _, dec := range decisions {
		if dec.At.Before(first.clock.Start()) || dec.At.After(first.clock.End()) {
			t.Errorf("routing decision at %s, outside the replayed day", dec.At)
		}
		hours[int(first.clock.End().Sub(dec.At).Hours())] = true
		routed[dec.Outcome]++
	}
	t.Logf("%d routing decisions in %d different hours: %v", len(decisions), len(hours), routed)
	if len(hours) < 12 || routed[domain.RoutedIntended] == 0 {
		t.Errorf("%d routing decisions in %d different hours, %v; want them over the day, some sent as invited", len(decisions), len(hours), routed)
	}

	// The field's returns of those sent: the day's outcomes, wrong sends
	// or screen-outs of sends among them.
	report, err := (&outcomes.Service{Store: st, Checks: service}).Outcomes(ctx, outcomes.Query{From: first.clock.Start(), To: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the day's outcomes: %d redirects, %d entrants, %d completes, %d wrong sends, %d screen-outs of sends",
		report.Total.Redirects, report.Total.Entrants, report.Total.Completes, report.Total.WrongSends, report.Total.SentScreenOuts)
	if report.Total.Redirects == 0 || report.Total.Completes == 0 || report.Total.WrongSends+report.Total.SentScreenOuts == 0 {
		t.Errorf("the day's outcomes: %+v; want redirects, completes and wrong sends or screen-outs of sends", report.Total)
	}

	subs, err := st.Webhooks(ctx)
	if err != nil || len(subs) != 1 {
		t.Fatalf("webhook subscriptions %+v, %v; want the demo receiver's", subs, err)
	}
	deliveries, err := st.WebhookDeliveries(ctx, subs[0].ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	delivered := 0
	for _, dl := range deliveries {
		if dl.Status == store.DeliveryDelivered {
			delivered++
		}
	}
	if delivered == 0 || first.receiver.Received() < delivered || first.receiver.Refused() != 0 {
		t.Errorf("%d of %d deliveries delivered; the receiver took %d and refused %d", delivered, len(deliveries), first.receiver.Received(), first.receiver.Refused())
	}

	// A restart keeps all that and replays nothing; its receiver takes
	// the first one's port, where the subscription sends.
	addr := first.receiver.Addr()
	first.receiver.Close()
	st.Close()
	second := startDemo(t, db)
	if second.replayed || strings.Contains(second.log.String(), "replay") {
		t.Errorf("a restart replayed:\n%s", second.log)
	}
	again, _, err := second.store.Changes(ctx, store.ChangeFilter{}, 0, 0)
	if err != nil || len(again) != len(changes) {
		t.Errorf("%d changes after a restart, %v; want the %d of the first start", len(again), err, len(changes))
	}
	if second.receiver.Addr() != addr {
		t.Errorf("the restarted receiver listens on %s; the subscription sends to %s", second.receiver.Addr(), addr)
	}
}

// TestReplayAfterAFailedStartSubscribesOnce: a first start whose replay
// stopped before any refresh succeeded (the provider down) has subscribed
// the receiver; the next start replays the day into the still empty
// database and keeps that subscription rather than adding a second,
// which would post every change twice.
func TestReplayAfterAFailedStartSubscribesOnce(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	first, err := startDemoOn(t, db, true)
	if err == nil {
		t.Fatal("a replay with the provider down did not fail")
	}
	first.receiver.Close()
	first.store.Close()
	second, err := startDemoOn(t, db, false)
	if err != nil {
		t.Fatal(err)
	}
	if !second.replayed {
		t.Fatal("the database of a failed replay was not replayed again")
	}
	subs, err := second.store.Webhooks(ctx)
	if err != nil || len(subs) != 1 {
		t.Fatalf("webhook subscriptions %+v, %v; want the demo receiver's, once", subs, err)
	}
	if second.receiver.Received() == 0 || second.receiver.Refused() != 0 {
		t.Errorf("the receiver took %d deliveries and refused %d", second.receiver.Received(), second.receiver.Refused())
	}
}

// TestReplayReachesASubscriptionMadeBeforeIt: a coordinator's subscription
// made before the first start gets nothing from the replay itself, whose
// worker delivers to the demo's own receiver alone (an outside receiver,
// slow or silent, would hold the start up), and then, from the server's
// worker on the real clock, every replayed change, as the change feed
// shows them; a receiver that checks as the Standard Webhooks libraries
// do (a webhook-timestamp within 5 minutes of its clock, and the
// signature over it) takes every one: each attempt is stamped with the
// time it is sent, though its change is hours old.
func TestReplayReachesASubscriptionMadeBeforeIt(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	secret := webhooks.NewSecret()
	var mu sync.Mutex
	took, refused := map[string]bool{}, []string{}
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
		unix, err := strconv.ParseInt(ts, 10, 64)
		want, _ := webhooks.Sign(secret, id, time.Unix(unix, 0), body)
		mu.Lock()
		defer mu.Unlock()
		if age := time.Since(time.Unix(unix, 0)); err != nil || age > 5*time.Minute || age < -5*time.Minute || req.Header.Get("webhook-signature") != want {
			refused = append(refused, id+" stamped "+ts)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		took[id] = true
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(own.Close)
	ownAddr := netip.MustParseAddrPort(strings.TrimPrefix(own.URL, "http://"))
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := st.AddWebhook(ctx, store.WebhookSubscription{URL: own.URL + "/hooks", Secret: secret, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	first, err := startDemoOn(t, db, false, ownAddr)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	during := len(took) + len(refused)
	mu.Unlock()
	if during != 0 {
		t.Errorf("the replay posted %d requests to the subscription made before the start; want none, its own receiver's only", during)
	}
	server := &webhooks.Worker{Store: first.store, Logger: discard, Guard: webhooks.Guard{Allow: []netip.AddrPort{first.receiver.Addr(), ownAddr}}}
	if _, err := server.SendDue(ctx); err != nil {
		t.Fatal(err)
	}
	changes, _, err := first.store.Changes(ctx, store.ChangeFilter{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	deliveries, err := first.store.WebhookDeliveries(ctx, sub, 1000)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(changes) == 0 || len(deliveries) != len(changes) || len(took) != len(changes) || len(refused) != 0 {
		t.Errorf("%d changes replayed, %d queued to the subscription made before the start; the server's worker sent them, its receiver took %d and refused %d: %v",
			len(changes), len(deliveries), len(took), len(refused), refused[:min(len(refused), 3)])
	}
}
