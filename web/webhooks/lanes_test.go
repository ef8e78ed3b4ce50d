package webhooks_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/web/webhooks"
)

// TestSlowReceiversDelayOnlyThemselves: sixty subscriptions whose
// receiver accepts a delivery and never answers do not hold up a fast
// one's: its event, queued after theirs, is delivered while all sixty
// hang at once (more than any batch of sixteen), and so is its next
// event, queued while they still hang. Nothing here waits for a timeout:
// the slow ones hang until the test ends.
func TestSlowReceiversDelayOnlyThemselves(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	f.worker.Timeout = time.Hour
	f.worker.Tick = 5 * time.Millisecond
	ctx := context.Background()

	release := make(chan struct{})
	var hanging atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // so that the server notices the worker hang up
		hanging.Add(1)
		defer hanging.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	const slowOnes = 60
	var slowIDs []int64
	for i := range slowOnes {
		id, err := f.store.AddWebhook(ctx, store.WebhookSubscription{URL: fmt.Sprintf("%s/hook/%d", slow.URL, i), Secret: webhooks.NewSecret(), CreatedAt: f.now})
		if err != nil {
			t.Fatal(err)
		}
		slowIDs = append(slowIDs, id)
		f.queueTest(id)
	}
	fast := newReceiver(t, 200)
	fastID := f.subscribe(fast)
	f.queueTest(fastID)

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); f.worker.Run(runCtx) }()
	t.Cleanup(func() { close(release); cancel(); <-done }) // before the servers close

	// slowStillHanging fails the test unless every slow receiver holds
	// its request and no slow delivery has an outcome.
	slowStillHanging := func(when string) {
		t.Helper()
		if n := hanging.Load(); n != slowOnes {
			t.Fatalf("%s, %d slow receivers hold a request, want all %d", when, n, slowOnes)
		}
		for _, id := range slowIDs {
			for _, d := range f.deliveries(id) {
				if d.Attempts != 0 {
					t.Fatalf("%s, a slow delivery has an outcome: %+v", when, d)
				}
			}
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		failsafe := time.Now().Add(2 * time.Minute) // a hang, not a speed
		for !ok() {
			if time.Now().After(failsafe) {
				t.Fatalf("in two minutes, %s did not happen (%d slow receivers hold a request)", what, hanging.Load())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	delivered := func(n int) func() bool {
		return func() bool {
			got := 0
			for _, d := range f.deliveries(fastID) {
				if d.Status == store.DeliveryDelivered {
					got++
				}
			}
			return got == n
		}
	}

	waitFor("the fast receiver's first delivery", delivered(1))
	waitFor("all slow receivers holding a request", func() bool { return hanging.Load() == slowOnes })
	slowStillHanging("once the fast receiver's first event is delivered")

	f.queueTest(fastID) // as the next refresh would, while the slow ones hang
	waitFor("the fast receiver's second delivery", delivered(2))
	slowStillHanging("once the fast receiver's second event is delivered")
	if n := len(fast.requests()); n != 2 {
		t.Errorf("the fast receiver got %d requests, want its 2 events", n)
	}
}

// TestSubscriptionIsSentOneAtATimeInOrder: a subscription's deliveries
// go one at a time, the longest due first: while its first event hangs
// until the attempt's timeout, its next ones wait, and each arrives once
// the attempts before it have their outcome recorded, in the order they
// were queued.
func TestSubscriptionIsSentOneAtATimeInOrder(t *testing.T) {
	f := newFixture(t, webhooks.Guard{AllowPrivate: true})
	var recorded atomic.Int64
	f.worker.Observe = func(string) { recorded.Add(1) }
	var mu sync.Mutex
	var arrived []string
	var early []string // arrived before the attempts before them were recorded
	r := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.ReadAll(req.Body) // so that the server notices the worker hang up
		mu.Lock()
		id := req.Header.Get("webhook-id")
		if int(recorded.Load()) != len(arrived) {
			early = append(early, id)
		}
		arrived = append(arrived, id)
		first := len(arrived) == 1
		mu.Unlock()
		if first {
			<-req.Context().Done() // until the worker gives up on it
		}
	}))
	t.Cleanup(r.Close)
	id, err := f.store.AddWebhook(context.Background(), store.WebhookSubscription{URL: r.URL + "/hook", Secret: webhooks.NewSecret(), CreatedAt: f.now})
	if err != nil {
		t.Fatal(err)
	}
	var queued []string
	for range 5 {
		queued = append(queued, f.queueTest(id))
	}
	if n, err := f.worker.SendDue(context.Background()); n != 5 || err != nil {
		t.Fatalf("SendDue = %d, %v; want the 5 events attempted", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(early) > 0 || !slices.Equal(arrived, queued) {
		t.Errorf("the receiver got %v (%v before the attempts before them were recorded); want %v, one at a time", arrived, early, queued)
	}
}

// queueTest queues a webhook.test event for subscription id, due now, and
// returns its webhook-id.
func (f *fixture) queueTest(id int64) string {
	f.t.Helper()
	messageID := webhooks.NewTestMessageID()
	if _, err := f.store.QueueWebhookTest(context.Background(), id, messageID, f.now); err != nil {
		f.t.Fatal(err)
	}
	return messageID
}
