package webhooks_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web/lease"
	"fieldboard/web/webhooks"
)

// TestOneWorkerSendsAmongInstances: two instances' workers on one
// database; the one holding the webhooks lease sends the whole queue, and
// when it stops (releasing the lease) the other sends what comes next.
func TestOneWorkerSendsAmongInstances(t *testing.T) {
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { oneWorkerSends(t, d.Target(t)) })
}

func oneWorkerSends(t *testing.T, path string) {
	ctx := context.Background()
	r := newReceiver(t, 200)
	var sent [2]atomic.Int64
	var workers [2]*webhooks.Worker
	var stores [2]*store.Store
	for i := range workers {
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores[i] = st
		logger := slog.New(slog.DiscardHandler)
		workers[i] = &webhooks.Worker{Store: st, Logger: logger, Guard: webhooks.Guard{AllowPrivate: true},
			Tick: 10 * time.Millisecond,
			// The default TTL (30 s): the lease passes on by its release,
			// never by running out, so no renewal has to beat a short
			// deadline on a loaded machine.
			Lease:   &lease.Holder{Store: st, ID: fmt.Sprintf("instance-%d", i), Logger: logger},
			Observe: func(string) { sent[i].Add(1) }}
	}
	r.secret = webhooks.NewSecret()
	sub, err := stores[0].AddWebhook(ctx, store.WebhookSubscription{URL: r.URL + "/hook", Secret: r.secret, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	queue := func(n int) {
		for range n {
			if _, err := stores[0].QueueWebhookTest(ctx, sub, webhooks.NewTestMessageID(), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitForRequests := func(n int) {
		failsafe := time.Now().Add(5 * time.Minute) // a hang, not a speed
		for len(r.requests()) < n || sent[0].Load()+sent[1].Load() < int64(n) {
			if time.Now().After(failsafe) {
				t.Fatalf("in five minutes the receiver got %d requests and %d were recorded, want %d", len(r.requests()), sent[0].Load()+sent[1].Load(), n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	queue(20)
	var cancels [2]context.CancelFunc
	var wg sync.WaitGroup
	for i, w := range workers {
		runCtx, cancel := context.WithCancel(ctx)
		cancels[i] = cancel
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(runCtx) }()
	}
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
		wg.Wait()
	}()
	waitForRequests(20)
	first := 0
	if sent[1].Load() > 0 {
		first = 1
	}
	if got := sent[first].Load(); got != 20 || sent[1-first].Load() != 0 {
		t.Fatalf("instance 0 sent %d and instance 1 %d: want one of them to send all 20", sent[0].Load(), sent[1].Load())
	}

	cancels[first]() // the holder stops, releasing the lease
	queue(5)
	waitForRequests(25)
	if got := sent[1-first].Load(); got != 5 {
		t.Errorf("after instance %d stopped, instance %d sent %d, want 5", first, 1-first, got)
	}
}
