package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web/webhooks"
)

var t0 = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// received is one request a receiver saw.
type received struct {
	id, timestamp string
	body          []byte
	verified      bool
	reason        string
}

// receiver is an httptest server that verifies each request's signature
// with its own implementation of the scheme, records it, and answers with
// the next of its answers for that webhook-id (the last one repeats); an answer of 0 never
// comes (the request waits until the sender gives up).
type receiver struct {
	*httptest.Server
	secret  string
	answers []int
	header  http.Header // added to every answer

	mu   sync.Mutex
	seen []received
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	r := &receiver{answers: answers, header: http.Header{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	rec := received{id: req.Header.Get("webhook-id"), timestamp: req.Header.Get("webhook-timestamp"), body: body}
	rec.verified, rec.reason = verify(r.secret, req.Header, body)
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
		rec.verified, rec.reason = false, "not a JSON POST: "+req.Method+" "+req.Header.Get("Content-Type")
	}
	r.mu.Lock()
	tries := 0
	for _, s := range r.seen {
		if s.id == rec.id {
			tries++
		}
	}
	answer := r.answers[min(tries, len(r.answers)-1)]
	r.seen = append(r.seen, rec)
	r.mu.Unlock()
	if answer == 0 {
		<-req.Context().Done()
		return
	}
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(answer)
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.seen...)
}

// verify checks a Standard Webhooks signature as a receiver would, written
// from the specification rather than from the package: the key is the
// base64 after whsec_; the signed content is id.timestamp.body; the header
// holds space-separated version,signature pairs, one of which must be v1
// and match.
func verify(secret string, h http.Header, body []byte) (bool, string) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false, "bad secret"
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	if id == "" || ts == "" {
		return false, "missing webhook-id or webhook-timestamp"
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return false, "webhook-timestamp is not Unix seconds"
	}
	mac := hmac.New(sha256.New, key)
	io.WriteString(mac, id+"."+ts+"."+string(body))
	want := mac.Sum(nil)
	for _, pair := range strings.Fields(h.Get("webhook-signature")) {
		version, sig, _ := strings.Cut(pair, ",")
		got, err := base64.StdEncoding.DecodeString(sig)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return true, ""
		}
	}
	return false, "no v1 signature matches: " + h.Get("webhook-signature")
}

// fixture is a store with a change feed and a worker on a clock the test
// moves, which it also sends on.
type fixture struct {
	t      *testing.T
	store  *store.Store
	worker *webhooks.Worker
	now    time.Time
}

func newFixture(t *testing.T, guard webhooks.Guard) *fixture {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{t: t, store: st, now: t0}
	clock := func() time.Time { return f.now }
	f.worker = &webhooks.Worker{Store: st, Logger: slog.New(slog.DiscardHandler), Guard: guard, Now: clock, SendClock: clock,
		Timeout: 300 * time.Millisecond}
	return f
}

// subscribe subscribes r to every change.
func (f *fixture) subscribe(r *receiver) int64 {
	f.t.Helper()
	r.secret = webhooks.NewSecret()
	id, err := f.store.AddWebhook(context.Background(), store.WebhookSubscription{URL: r.URL + "/hook", Secret: r.secret, CreatedAt: f.now})
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

// refresh writes an events snapshot at f.now in which subsample 1 is
// sendable for the first time: two changes (new, sendable). The first
// refresh of a database is the baseline and records nothing, so one with
// no subsamples is written a minute before.
func (f *fixture) refresh() {
	f.t.Helper()
	f.save(f.now.Add(-time.Minute), map[int64]store.SubsampleState{})
	f.save(f.now, map[int64]store.SubsampleState{1: {Status: "Live", Sendability: "sendable", EventID: 10, Country: "US"}})
}

func (f *fixture) save(at time.Time, states map[int64]store.SubsampleState) {
	f.t.Helper()
	snap := store.EventsSnapshot{Run: store.Run{Dataset: store.DatasetEvents, StartedAt: at, FinishedAt: at},
		States: states,
		Detect: func(previous, next map[int64]store.SubsampleState) (map[int64]store.SubsampleState, []domain.Change) {
			return rules.Detect(previous, next, at)
		}}
	if _, err := f.store.SaveEvents(context.Background(), snap, 7*24*time.Hour); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) sendDue() {
	f.t.Helper()
	if _, err := f.worker.SendDue(context.Background()); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) deliveries(sub int64) []store.WebhookDelivery {
	f.t.Helper()
	d, err := f.store.WebhookDeliveries(context.Background(), sub, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// TestDeliveriesAreSignedAndRetried: a refresh's changes reach every
// receiver signed as the Standard Webhooks scheme says; one that answers
// 500 then 200 gets the same webhook-id again after the schedule's first
// delay; one that answers 410 is disabled at its first change, and the
// second is not sent; one that never answers is
// retried after the timeout; a Retry-After longer than the schedule's
// delay is honoured.
func TestDeliveriesAreSignedAndRetried(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	good, flaky, gone, silent, busy := newReceiver(t, 200), newReceiver(t, 500, 200), newReceiver(t, 410), newReceiver(t, 0), newReceiver(t, 429, 204)
	busy.header.Set("Retry-After", "120")
	ids := map[*receiver]int64{}
	for _, r := range []*receiver{good, flaky, gone, silent, busy} {
		ids[r] = f.subscribe(r)
	}
	f.refresh()
	f.sendDue()

	if n := len(gone.requests()); n != 1 {
		t.Errorf("the receiver that answered 410 got %d requests, want the first change only", n)
	}
	for _, r := range []*receiver{good, flaky, gone, silent, busy} {
		seen := r.requests()
		if r != gone && len(seen) != 2 {
			t.Fatalf("webhook %d received %d requests, want the 2 changes", ids[r], len(seen))
		}
		for _, s := range seen {
			if !s.verified {
				t.Errorf("webhook %d: %s failed verification: %s", ids[r], s.id, s.reason)
			}
			if s.timestamp != strconv.FormatInt(t0.Unix(), 10) {
				t.Errorf("webhook-timestamp %s, want the attempt's time %d", s.timestamp, t0.Unix())
			}
		}
	}
	var msg struct {
		Type      string
		Timestamp time.Time
		Data      struct {
			ID          int64
			Kind        string
			SubsampleID int64
			EventID     int64
			Country     string
			Before      string
			After       string
		}
	}
	for _, s := range good.requests() {
		if err := json.Unmarshal(s.body, &msg); err != nil {
			t.Fatal(err)
		}
		if msg.Type == string(domain.ChangeSendable) {
			break
		}
	}
	if msg.Type != "subsample.sendable" || !msg.Timestamp.Equal(t0) || msg.Data.SubsampleID != 1 || msg.Data.EventID != 10 ||
		msg.Data.Country != "US" || msg.Data.After != "sendable" || msg.Data.Kind != msg.Type {
		t.Errorf("the sendable change's body: %+v", msg)
	}
	if id := good.requests()[1].id; id != "chg_"+strconv.FormatInt(msg.Data.ID, 10) && good.requests()[0].id != "chg_"+strconv.FormatInt(msg.Data.ID, 10) {
		t.Errorf("webhook-ids %s, %s: want the change's id %d", good.requests()[0].id, id, msg.Data.ID)
	}

	for _, d := range f.deliveries(ids[good]) {
		if d.Status != store.DeliveryDelivered || d.Attempts != 1 || d.LastStatusCode != 200 {
			t.Errorf("good: %+v", d)
		}
	}
	for _, d := range f.deliveries(ids[flaky]) {
		if d.Status != store.DeliveryPending || d.Attempts != 1 || d.LastStatusCode != 500 || !d.NextAttemptAt.Equal(t0.Add(5*time.Second)) {
			t.Errorf("flaky after its 500: %+v", d)
		}
	}
	if sub, _ := f.store.Webhook(context.Background(), ids[gone]); sub.DisabledAt == nil {
		t.Errorf("the webhook that answered 410 is not disabled: %+v", sub)
	}
	for _, d := range f.deliveries(ids[gone]) {
		if d.Status != store.DeliveryFailed {
			t.Errorf("gone: %+v", d)
		}
	}
	for _, d := range f.deliveries(ids[silent]) {
		if d.Status != store.DeliveryPending || d.LastStatusCode != 0 || !strings.Contains(d.LastError, "no answer") {
			t.Errorf("silent after its timeout: %+v", d)
		}
	}
	for _, d := range f.deliveries(ids[busy]) {
		if d.Status != store.DeliveryPending || !d.NextAttemptAt.Equal(t0.Add(120*time.Second)) {
			t.Errorf("busy after a 429 with Retry-After 120: %+v, want its next attempt at +120s", d)
		}
	}

	// Five seconds on: flaky's second attempt, same ids, delivered; the
	// silent one is tried again; busy waits; gone gets nothing more.
	f.now = t0.Add(5 * time.Second)
	f.sendDue()
	all := flaky.requests()
	if len(all) != 4 || !sameIDs(all[:2], all[2:]) || !all[2].verified || !all[3].verified {
		t.Errorf("flaky's requests: %+v; want the two ids again, signed", all)
	}
	for _, d := range f.deliveries(ids[flaky]) {
		if d.Status != store.DeliveryDelivered || d.Attempts != 2 || d.LastStatusCode != 200 {
			t.Errorf("flaky after its 200: %+v", d)
		}
	}
	if n := len(silent.requests()); n != 4 {
		t.Errorf("the silent receiver saw %d requests, want 2 and their retries", n)
	}
	if n, m := len(busy.requests()), len(gone.requests()); n != 2 || m != 1 {
		t.Errorf("busy saw %d requests before its Retry-After, gone %d after its 410; want 2 and 1", n, m)
	}
	f.now = t0.Add(120 * time.Second)
	f.sendDue()
	for _, d := range f.deliveries(ids[busy]) {
		if d.Status != store.DeliveryDelivered || d.Attempts != 2 {
			t.Errorf("busy after its Retry-After: %+v", d)
		}
	}

	// Three days after queueing, the silent one's next failure is its last.
	f.now = t0.Add(webhooks.GiveUpAfter - 10*time.Minute)
	f.sendDue()
	for _, d := range f.deliveries(ids[silent]) {
		if d.Status != store.DeliveryFailed || d.Attempts != 3 {
			t.Errorf("silent after three days: %+v, want failed after its third attempt", d)
		}
	}
}

// TestRetrySchedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
// then every 12 h up to 3 days after queueing; a Retry-After beyond the
// schedule's delay is honoured, however long, up to those 3 days; one
// that ends beyond them fails the delivery, saying so.
func TestRetrySchedule(t *testing.T) {
	at := t0
	var delays []time.Duration
	for attempts := 1; ; attempts++ {
		next, err := webhooks.NextAttempt(t0, attempts, at, 0)
		if err != nil {
			if !strings.Contains(err.Error(), "the 3 days a delivery is tried are over") {
				t.Errorf("the schedule's end: %v", err)
			}
			break
		}
		delays = append(delays, next.Sub(at))
		at = next
	}
	want := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour}
	if len(delays) != len(want) {
		t.Fatalf("delays %v, want %v", delays, want)
	}
	for i := range want {
		if delays[i] != want[i] {
			t.Errorf("delay %d: %v, want %v", i+1, delays[i], want[i])
		}
	}
	for _, c := range []struct {
		name       string
		now        time.Time
		retryAfter time.Duration
		next       time.Time // zero: the delivery has failed
		reason     string
	}{
		{"Retry-After 60 s on the first failure", t0, time.Minute, t0.Add(time.Minute), ""},
		{"Retry-After shorter than the schedule's delay", t0.Add(time.Hour), 2 * time.Second, t0.Add(time.Hour + 5*time.Second), ""},
		{"Retry-After of a day", t0, 24 * time.Hour, t0.Add(24 * time.Hour), ""},
		{"Retry-After of two days", t0, 48 * time.Hour, t0.Add(48 * time.Hour), ""},
		{"Retry-After ending with the 3 days", t0.Add(time.Hour), 71 * time.Hour, t0.Add(72 * time.Hour), ""},
		{"Retry-After of four days", t0, 96 * time.Hour, time.Time{}, "asked to retry after 96h, beyond the 3 days a delivery is tried"},
		{"Retry-After ending a second after the 3 days", t0.Add(60 * time.Hour), 12*time.Hour + time.Second, time.Time{},
			"asked to retry after 12h0m1s, beyond the 3 days a delivery is tried"},
	} {
		next, err := webhooks.NextAttempt(t0, 1, c.now, c.retryAfter)
		if !next.Equal(c.next) || (c.reason == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: next at %v, %v; want %v, %q", c.name, next, err, c.next, c.reason)
		}
	}
}

// TestRetryAfterIsHonouredWithinThreeDays: a receiver that answers 503
// with a Retry-After of a day, in seconds or as a date, is tried again a
// day later, not before; one that asks for four days, or for more seconds
// than fit an int64, fails at once, saying why.
func TestRetryAfterIsHonouredWithinThreeDays(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	day, date, long, huge := newReceiver(t, 503, 200), newReceiver(t, 503, 200), newReceiver(t, 503), newReceiver(t, 503)
	day.header.Set("Retry-After", "86400")
	date.header.Set("Retry-After", t0.Add(24*time.Hour).Format(http.TimeFormat))
	long.header.Set("Retry-After", "345600")
	huge.header.Set("Retry-After", "99999999999999999999999")
	ids := map[*receiver]int64{}
	for _, r := range []*receiver{day, date, long, huge} {
		ids[r] = f.subscribe(r)
		if _, err := f.store.QueueWebhookTest(context.Background(), ids[r], webhooks.NewTestMessageID(), f.now); err != nil {
			t.Fatal(err)
		}
	}
	f.sendDue()
	for _, r := range []*receiver{day, date} {
		for _, d := range f.deliveries(ids[r]) {
			if d.Status != store.DeliveryPending || !d.NextAttemptAt.Equal(t0.Add(24*time.Hour)) {
				t.Errorf("after a 503 asking for a day (%s): %+v, want the next attempt a day on", r.header.Get("Retry-After"), d)
			}
		}
	}
	for r, asked := range map[*receiver]string{long: "96h", huge: "87600h"} {
		for _, d := range f.deliveries(ids[r]) {
			want := "answered 503 Service Unavailable; not tried again: asked to retry after " + asked + ", beyond the 3 days a delivery is tried"
			if d.Status != store.DeliveryFailed || d.LastError != want {
				t.Errorf("after a 503 asking for %s: %+v, want failed: %q", r.header.Get("Retry-After"), d, want)
			}
		}
	}
	f.now = t0.Add(12 * time.Hour)
	f.sendDue()
	if n, m := len(day.requests()), len(date.requests()); n != 1 || m != 1 {
		t.Errorf("12 hours on, the receivers that asked for a day got %d and %d requests, want 1 each", n, m)
	}
	f.now = t0.Add(24 * time.Hour)
	f.sendDue()
	for _, r := range []*receiver{day, date} {
		for _, d := range f.deliveries(ids[r]) {
			if d.Status != store.DeliveryDelivered || d.Attempts != 2 {
				t.Errorf("a day on: %+v, want delivered at the second attempt", d)
			}
		}
	}
}

// sameIDs says whether a and b hold the same webhook-ids, in any order.
func sameIDs(a, b []received) bool {
	count := map[string]int{}
	for _, r := range a {
		count[r.id]++
	}
	for _, r := range b {
		count[r.id]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// TestLogsShowOnlyTheAddressHost: the worker's log names a webhook by its
// id and its address's scheme and host, never the path or query, where
// Slack-style addresses carry a token: delivered, retried, disabled by a
// 410 or failed for good.
func TestLogsShowOnlyTheAddressHost(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	var logs strings.Builder
	var mu sync.Mutex
	f.worker.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const token = "xoxTOKENabcdEFGHijklMNOP"
	ok, flaky, gone, beyond := newReceiver(t, 200), newReceiver(t, 500), newReceiver(t, 410), newReceiver(t, 503)
	beyond.header.Set("Retry-After", "345600")
	for _, r := range []*receiver{ok, flaky, gone, beyond} {
		r.secret = webhooks.NewSecret()
		id, err := f.store.AddWebhook(context.Background(), store.WebhookSubscription{URL: r.URL + "/services/T0SECRET/B0SECRET/" + token + "?token=" + token,
			Secret: r.secret, CreatedAt: f.now})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.QueueWebhookTest(context.Background(), id, webhooks.NewTestMessageID(), f.now); err != nil {
			t.Fatal(err)
		}
	}
	f.sendDue()
	mu.Lock()
	defer mu.Unlock()
	out := logs.String()
	for _, r := range []*receiver{ok, flaky, gone, beyond} {
		if n := len(r.requests()); n != 1 {
			t.Fatalf("a receiver got %d requests, want 1", n)
		}
	}
	for _, want := range []string{"webhook delivered", "retried", "disabled", "failed for good", "url=" + flaky.URL, "url=" + gone.URL, "url=" + beyond.URL} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not say %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{token, "T0SECRET", "/services"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log shows %q of the address:\n%s", secret, out)
		}
	}
}

// lockedWriter serializes the writes of the worker's side-by-side attempts.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestTestEventIsSignedAndAsDocumented: a webhook.test event goes through
// the worker like a change: signed as the receiver verifies, webhook-id
// test_ and 16 hex digits, and the body the README documents: type
// webhook.test, timestamp in RFC 3339 (when it was asked for, to the
// second), data {"subscriptionId": N, "message": "..."}, nothing more.
func TestTestEventIsSignedAndAsDocumented(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	r := newReceiver(t, 200)
	id := f.subscribe(r)
	asked := t0.Add(1500 * time.Millisecond)
	messageID := webhooks.NewTestMessageID()
	if _, err := f.store.QueueWebhookTest(context.Background(), id, messageID, asked); err != nil {
		t.Fatal(err)
	}
	f.now = t0.Add(3 * time.Second)
	f.sendDue()

	seen := r.requests()
	if len(seen) != 1 {
		t.Fatalf("the receiver got %d requests, want the test event", len(seen))
	}
	s := seen[0]
	if !s.verified {
		t.Errorf("the test event failed verification: %s", s.reason)
	}
	if s.id != messageID || !regexp.MustCompile(`^test_[0-9a-f]{16}$`).MatchString(s.id) {
		t.Errorf("webhook-id %q, want %q, test_ and 16 hex digits", s.id, messageID)
	}
	if s.timestamp != strconv.FormatInt(f.now.Unix(), 10) {
		t.Errorf("webhook-timestamp %s, want the attempt's time %d", s.timestamp, f.now.Unix())
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(s.body, &body); err != nil {
		t.Fatalf("the body %s: %v", s.body, err)
	}
	var kind, timestamp string
	var data map[string]any
	json.Unmarshal(body["type"], &kind)
	json.Unmarshal(body["timestamp"], &timestamp)
	json.Unmarshal(body["data"], &data)
	at, err := time.Parse(time.RFC3339, timestamp)
	if len(body) != 3 || kind != "webhook.test" || err != nil || !at.Equal(asked.Truncate(time.Second)) || timestamp != "2026-11-20T09:30:01Z" {
		t.Errorf("the body %s: want type webhook.test and timestamp 2026-11-20T09:30:01Z (RFC 3339), data, nothing more", s.body)
	}
	message, _ := data["message"].(string)
	if len(data) != 2 || data["subscriptionId"] != float64(id) || !strings.Contains(message, "test event") {
		t.Errorf("the test event's data %s: want {\"subscriptionId\": %d, \"message\": \"...\"}", body["data"], id)
	}
	for _, d := range f.deliveries(id) {
		if d.Status != store.DeliveryDelivered || d.Attempts != 1 || d.LastStatusCode != 200 || d.Kind != "webhook.test" {
			t.Errorf("the test event's delivery: %+v", d)
		}
	}
}

// TestAttemptIsStampedWithTheTimeItIsSent: a change found hours before it
// is sent (the demo's replay records a day on its own clock, Now, and
// sends it at once) goes out with a webhook-timestamp of the time it is
// sent, "the timestamp of when the webhook attempt has been made", which
// a Standard Webhooks receiver refuses when more than a few minutes from
// its clock; the signature verifies with it; the body's timestamp stays
// "when the event occurred", the refresh that found the change.
func TestAttemptIsStampedWithTheTimeItIsSent(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	f.worker.SendClock = nil // the real time
	found := time.Now().Add(-23 * time.Hour).Truncate(time.Second)
	f.now = found
	r := newReceiver(t, 200)
	f.subscribe(r)
	f.refresh()
	before := time.Now().Truncate(time.Second)
	f.sendDue()
	after := time.Now()

	seen := r.requests()
	if len(seen) != 2 {
		t.Fatalf("the receiver got %d requests, want the 2 changes", len(seen))
	}
	for _, s := range seen {
		unix, err := strconv.ParseInt(s.timestamp, 10, 64)
		if sent := time.Unix(unix, 0); err != nil || sent.Before(before) || sent.After(after) {
			t.Errorf("%s: webhook-timestamp %s (%s), want the time it was sent, %s to %s, not the change's %s",
				s.id, s.timestamp, sent.UTC(), before.UTC(), after.UTC(), found.UTC())
		}
		if !s.verified {
			t.Errorf("%s failed verification: %s", s.id, s.reason)
		}
		var msg struct{ Timestamp time.Time }
		if err := json.Unmarshal(s.body, &msg); err != nil || !msg.Timestamp.Equal(found) {
			t.Errorf("%s: the body's timestamp %s, want the refresh that found the change, %s (%v)", s.id, msg.Timestamp, found.UTC(), err)
		}
	}
}
