package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
	"fieldboard/web/webhooks/dnstest"
)

// TestWebhookCommands: add refuses an inside address unless allowed, and
// bad kinds or countries, with the reason; it prints the secret once
// (whsec_ and base64 of 32 bytes), which list never shows; test queues a
// webhook.test event; remove removes, and an unknown id is a usage error.
func TestWebhookCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	var out, errOut bytes.Buffer
	for _, args := range [][]string{
		{"--url", "http://127.0.0.1:9/hook"},
		{"--url", "http://169.254.169.254/latest"},
		{"--url", "https://93.184.216.34/hook", "--events", "subsample.sendable,subsample.bogus"},
		{"--url", "https://93.184.216.34/hook", "--country", "USA"},
		{"--url", "ftp://93.184.216.34/hook"},
		{"--url", "https://93.184.216.34:0/hook"},
		{"--url", "https://93.184.216.34:99999/hook"},
		{"--url", "http://127.0.0.1:0/hook", "--allow-private"},
		{},
	} {
		err := runWebhook(ctx, append([]string{"add", "--db", db}, args...), &out, &errOut)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("webhook add %v: %v (exit %d), want a usage error", args, err, exitCode(err))
		}
	}
	out.Reset()
	if err := runWebhook(ctx, []string{"add", "--db", db, "--url", "http://127.0.0.1:9/hook", "--allow-private", "--events", "subsample.sendable,quota.closed", "--country", "us"}, &out, &errOut); err != nil {
		t.Fatalf("webhook add: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	secret := lines[len(lines)-1]
	if key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_")); !strings.HasPrefix(secret, "whsec_") || err != nil || len(key) != 32 {
		t.Errorf("webhook add printed %q; want whsec_ and base64 of 32 bytes alone on the last line", out.String())
	}
	// An address whose path and query carry a token is printed without
	// them, by add and by list.
	const token = "xoxTOKENabcdEFGHijklMNOP"
	out.Reset()
	if err := runWebhook(ctx, []string{"add", "--db", db, "--url", "https://93.184.216.34/services/T0SECRET/B0SECRET/" + token + "?token=" + token}, &out, &errOut); err != nil {
		t.Fatalf("webhook add: %v", err)
	}
	if got := out.String(); !strings.Contains(got, "https://93.184.216.34/services/…") || strings.Contains(got, token) || strings.Contains(got, "T0SECRET") {
		t.Errorf("webhook add of an address with a token printed:\n%s", got)
	}
	out.Reset()
	if err := runWebhook(ctx, []string{"test", "--db", db, "1"}, &out, &errOut); err != nil {
		t.Fatalf("webhook test: %v", err)
	}
	out.Reset()
	if err := runWebhook(ctx, []string{"list", "--db", db}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, strings.TrimPrefix(secret, "whsec_")) || !strings.Contains(got, "subsample.sendable,quota.closed") ||
		!strings.Contains(got, "country US") || !strings.Contains(got, "webhook.test\tpending") ||
		!strings.Contains(got, "2\thttps://93.184.216.34/services/…?…\t") || strings.Contains(got, token) || strings.Contains(got, "T0SECRET") {
		t.Errorf("webhook list:\n%s", got)
	}
	if err := runWebhook(ctx, []string{"remove", "--db", db, "1"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"remove", "test"} {
		if err := runWebhook(ctx, []string{sub, "--db", db, "1"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "no webhook 1") {
			t.Errorf("webhook %s of a removed webhook: %v", sub, err)
		}
	}
}

// TestWebhookAddNamesNoAddress: webhook add refuses a host name that
// resolves to a private address (through DNS or the hosts file) or does
// not resolve by its name alone, saying neither what it resolved to nor
// which resolver was asked ("lookup x on 10.0.0.2:53: no such host").
// (Names are resolved by a DNS server of the test's own on loopback.)
func TestWebhookAddNamesNoAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dns := dnstest.Start(t, map[string]string{"db.inside.test": "10.1.2.3"})
	db := filepath.Join(t.TempDir(), "fb.db")
	leak := regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b|lookup|no such host`)
	for _, host := range []string{"db.inside.test", "localhost", "nowhere.inside.test"} {
		var out, errOut bytes.Buffer
		err := runWebhookWith(ctx, dns.Resolver(), []string{"add", "--db", db, "--url", "http://" + host + ":8080/hook"}, &out, &errOut)
		if err == nil || exitCode(err) != 2 || err.Error() != "usage: the URL: "+host+" is not a public address, or could not be resolved" ||
			leak.MatchString(out.String()+errOut.String()) {
			t.Errorf("webhook add --url http://%s:8080/hook: %v (exit %d), printed %q %q; want a usage error naming the host alone", host, err, exitCode(err), out.String(), errOut.String())
		}
	}
}

// TestWebhookTestOfADisabledWebhook: webhook test of a subscription
// disabled by a 410 queues nothing (nothing would ever send it) and exits
// non-zero, saying why.
func TestWebhookTestOfADisabledWebhook(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	var out, errOut bytes.Buffer
	if err := runWebhook(ctx, []string{"add", "--db", db, "--url", "https://93.184.216.34/hook"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if err := runWebhook(ctx, []string{"test", "--db", db, "1"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	disable(t, db, 1)
	err := runWebhook(ctx, []string{"test", "--db", db, "1"}, &out, &errOut)
	if err == nil || exitCode(err) == 0 || !strings.Contains(err.Error(), "disabled: 410 Gone") || !strings.Contains(err.Error(), "remove it and add it again") {
		t.Errorf("webhook test of a disabled webhook: %v (exit %d), want a refusal saying why", err, exitCode(err))
	}
	if d := deliveriesOf(t, db); len(d) != 1 {
		t.Errorf("%d deliveries queued, want the first test's only", len(d))
	}
}

// disable disables webhook id of the database at db as a 410 would: its
// pending delivery is claimed and answered 410 Gone.
func disable(t *testing.T, db string, id int64) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	due, err := st.ClaimDeliveries(ctx, time.Now(), time.Minute, 1)
	if err != nil || len(due) != 1 || due[0].SubscriptionID != id {
		t.Fatalf("claimed %+v, %v; want webhook %d's delivery", due, err, id)
	}
	if err := st.RecordDeliveryAttempt(ctx, due[0].ID, store.DeliveryAttempt{At: time.Now(), StatusCode: 410,
		Error: "410 Gone: the receiver ended the subscription", Status: store.DeliveryFailed, Disable: true}); err != nil {
		t.Fatal(err)
	}
}

// TestKilledWebhookWorkerLosesNothing runs `fieldboard serve` against a
// simulator with a webhook subscribed to a slow receiver, kills it
// (SIGKILL) once the receiver has answered some of the first refresh's
// changes and holds others unanswered, and starts it again: every queued
// delivery is then delivered, each webhook-id answered, and none twice but
// the few in flight at the kill (at least once).
func TestKilledWebhookWorkerLosesNothing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	var (
		mu       sync.Mutex
		seen     = map[string]int{}
		hang     = true
		released = make(chan struct{})
	)
	// The receiver counts a delivery as received when it answers it.
	// Once it has answered 50, it answers nothing more until the test
	// says so: the deliveries in flight then are claimed and never
	// answered, and a worker that marked them delivered before the
	// answer (at the claim, say) would lose them at the kill.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock() // one at a time, slowly, so the kill lands mid-queue
		time.Sleep(5 * time.Millisecond)
		if n := 0; hang {
			for _, c := range seen {
				n += c
			}
			if n >= 50 {
				mu.Unlock()
				// The sender goes away without an answer (its going is
				// seen once the body is read); the test's end lets go of
				// a request that is somehow still here.
				io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-released:
				}
				return
			}
		}
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(released) }) // before the Close above
	received := func() (distinct, total int) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range seen {
			distinct, total = distinct+1, total+n
		}
		return distinct, total
	}
	fixed := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // the same world on both starts: the second refresh finds no change
	_, upstream := newSim(t, sim.Options{Seed: 5, Subsamples: 300, Now: func() time.Time { return fixed }})
	db := filepath.Join(t.TempDir(), "fb.db")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"webhook", "add", "--db", db, "--allow-private", "--url", receiver.URL + "/hook"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	// The first refresh of a database is the baseline and records no
	// change: an empty event list stands for it, so that serve's first
	// refresh finds the 300 subsamples new, the deliveries to kill midway.
	baseline, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	at := fixed.Add(-time.Hour)
	if _, err := baseline.SaveEvents(context.Background(), store.EventsSnapshot{Run: store.Run{Dataset: store.DatasetEvents, StartedAt: at, FinishedAt: at}}, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	baseline.Close()
	// serve starts fieldboard serve; the channel closes when it has exited.
	// The restarted serve takes over the webhooks lease when the killed
	// one's runs out: --lease-ttl keeps that short beside the default, yet
	// long beside a renewal on a loaded machine (at 2 s, a renewal had
	// 1.3 s before the worker gave up its lease mid-batch). A delivery
	// may take 10 s (--webhook-timeout): the receiver answers one at a
	// time, and at 1 s a loaded machine could time out deliveries it had
	// received, which are then sent again and counted twice.
	serve := func() (*exec.Cmd, chan struct{}) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childArgs+"=serve\n--upstream\n"+upstream+"\n--db\n"+db+"\n--addr\n127.0.0.1:0\n--allow-private-webhooks\n--webhook-timeout\n10s\n--lease-ttl\n10s\n--log-level\nwarn")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		return cmd, exited
	}
	waitFor := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Minute); !done(); time.Sleep(20 * time.Millisecond) { // a hang, not a speed
			if time.Now().After(deadline) {
				t.Fatalf("waited five minutes for %s", what)
			}
		}
	}

	first, firstExited := serve()
	waitFor("the first 50 deliveries", func() bool { _, n := received(); return n >= 50 })
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-firstExited
	atKill, _ := received()
	queued := deliveriesOf(t, db)
	if atKill >= len(queued) {
		t.Fatalf("all %d deliveries were received before the kill: it did not land mid-queue", len(queued))
	}

	mu.Lock()
	hang = false
	mu.Unlock()
	serve()
	waitFor("every delivery", func() bool {
		for _, d := range deliveriesOf(t, db) {
			if d.Status != store.DeliveryDelivered {
				return false
			}
		}
		return true
	})
	after := deliveriesOf(t, db)
	mu.Lock()
	defer mu.Unlock()
	twice := 0
	for _, d := range after {
		switch n := seen[d.MessageID]; {
		case n == 0:
			t.Errorf("delivery %s is marked delivered but was never received", d.MessageID)
		case n > 1:
			twice++
		}
	}
	if len(seen) != len(after) {
		t.Errorf("received %d webhook-ids, the queue holds %d", len(seen), len(after))
	}
	// At most the one in flight when the kill landed goes twice: a
	// subscription's deliveries are sent one at a time.
	if twice > 1 {
		t.Errorf("%d deliveries were received twice; at least once allows the one in flight at the kill", twice)
	}
	t.Logf("%d deliveries, %d received before the kill, %d received twice", len(after), atKill, twice)
}

// deliveriesOf reads every webhook delivery of the database at db.
func deliveriesOf(t *testing.T, db string) []store.WebhookDelivery {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	subs, err := st.Webhooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.WebhookDelivery
	for _, s := range subs {
		d, err := st.WebhookDeliveries(ctx, s.ID, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d...)
	}
	return out
}
