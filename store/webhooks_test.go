package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestWebhookDeliveriesAreQueuedWithTheirChanges: each change of a
// snapshot is queued, in its transaction, for every enabled subscription
// whose kinds and country it matches; a claim leases what is due, an
// attempt's outcome is recorded, a 410 disables the subscription and
// fails its other pending deliveries, and the changes still to be
// delivered outlive the feed's pruning.
func TestWebhookDeliveriesAreQueuedWithTheirChanges(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		add := func(url string, events []domain.ChangeKind, country string) int64 {
			t.Helper()
			id, err := s.AddWebhook(ctx, store.WebhookSubscription{URL: url, Secret: "whsec_c2VjcmV0", Events: events, Country: country, CreatedAt: t0})
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		all := add("https://all.example/hook", nil, "")
		sendable := add("https://sendable.example/hook", []domain.ChangeKind{domain.ChangeSendable, domain.ChangeClosed}, "")
		france := add("https://fr.example/hook", nil, "FR")

		subs, err := s.Webhooks(ctx)
		if err != nil || len(subs) != 3 || subs[1].URL != "https://sendable.example/hook" || len(subs[1].Events) != 2 || subs[2].Country != "FR" {
			t.Fatalf("webhooks: %+v, %v", subs, err)
		}
		for _, sub := range subs {
			if sub.Secret != "" {
				t.Errorf("webhook %d is listed with its secret", sub.ID)
			}
		}

		save := func(at time.Time, states map[int64]store.SubsampleState) {
			t.Helper()
			snap := snapshotAt(at, 40)
			snap.States = states
			snap.Detect = func(previous, next map[int64]store.SubsampleState) (map[int64]store.SubsampleState, []domain.Change) {
				return rules.Detect(previous, next, at)
			}
			if _, err := s.SaveEvents(ctx, snap, 2*time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		// The first refresh is the baseline: no change, so no delivery.
		save(t0.Add(-time.Minute), map[int64]store.SubsampleState{
			5: {Status: "Complete", Sendability: "not_sendable", EventID: 12, Country: "FR"},
		})
		if n, err := s.PendingDeliveries(ctx); err != nil || n != 0 {
			t.Fatalf("the baseline queued %d deliveries, %v; want none", n, err)
		}
		// Then three new, two of them sendable; one in France (5 was
		// Complete already).
		save(t0, map[int64]store.SubsampleState{
			1: {Status: "Live", Sendability: "sendable", EventID: 10, Country: "US"},
			2: {Status: "Live", Sendability: "unknown", EventID: 10, Country: "US"},
			4: {Status: "Live", Sendability: "sendable", EventID: 11, Country: "FR"},
			5: {Status: "Complete", Sendability: "not_sendable", EventID: 12, Country: "FR"},
		})
		counts := map[int64]int{}
		for _, id := range []int64{all, sendable, france} {
			d, err := s.WebhookDeliveries(ctx, id, 100)
			if err != nil {
				t.Fatal(err)
			}
			counts[id] = len(d)
			for _, x := range d {
				if x.Status != store.DeliveryPending || x.MessageID == "" || !x.NextAttemptAt.Equal(t0) {
					t.Errorf("webhook %d: queued %+v", id, x)
				}
			}
		}
		if counts[all] != 5 || counts[sendable] != 2 || counts[france] != 2 {
			t.Fatalf("queued %v; want 5 to all (3 new, 2 sendable), 2 to sendable, 2 to France", counts)
		}

		// A claim leases what is due; a second claim meanwhile finds nothing.
		due, err := s.ClaimDeliveries(ctx, t0, time.Minute, 100)
		if err != nil || len(due) != 9 {
			t.Fatalf("claimed %d, %v; want 9", len(due), err)
		}
		if again, _ := s.ClaimDeliveries(ctx, t0.Add(30*time.Second), time.Minute, 100); len(again) != 0 {
			t.Errorf("claimed %d leased deliveries again", len(again))
		}
		var first store.DueDelivery
		for _, d := range due {
			if d.SubscriptionID == sendable && d.Change.Kind == domain.ChangeSendable && d.Change.SubsampleID == 1 {
				first = d
			}
		}
		if first.Secret != "whsec_c2VjcmV0" || first.URL != "https://sendable.example/hook" || first.Change.EventID != 10 || first.Change.ChangeID == 0 ||
			first.MessageID == "" || first.Change.After != "sendable" {
			t.Errorf("subsample 1's sendable change to the second webhook: %+v", first)
		}

		// An outcome recorded: retried later, then delivered.
		if err := s.RecordDeliveryAttempt(ctx, first.ID, store.DeliveryAttempt{At: t0, StatusCode: 500, Error: "500 Internal Server Error",
			Status: store.DeliveryPending, NextAttemptAt: t0.Add(5 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		retry, _ := s.ClaimDeliveries(ctx, t0.Add(6*time.Second), time.Minute, 100)
		if len(retry) != 1 || retry[0].ID != first.ID || retry[0].Attempts != 1 || retry[0].LastStatusCode != 500 || retry[0].MessageID != first.MessageID {
			t.Fatalf("the retry: %+v", retry)
		}
		if err := s.RecordDeliveryAttempt(ctx, first.ID, store.DeliveryAttempt{At: t0.Add(6 * time.Second), StatusCode: 200, Status: store.DeliveryDelivered}); err != nil {
			t.Fatal(err)
		}

		// A 410 disables France's webhook: its other delivery fails unsent,
		// and its next changes are not queued.
		var fr []store.DueDelivery
		for _, d := range due {
			if d.SubscriptionID == france {
				fr = append(fr, d)
			}
		}
		if err := s.RecordDeliveryAttempt(ctx, fr[0].ID, store.DeliveryAttempt{At: t0.Add(time.Second), StatusCode: 410, Error: "410 Gone",
			Status: store.DeliveryFailed, Disable: true}); err != nil {
			t.Fatal(err)
		}
		if sub, err := s.Webhook(ctx, france); err != nil || sub.DisabledAt == nil || sub.DisabledReason != "410 Gone" {
			t.Errorf("France's webhook after a 410: %+v, %v", sub, err)
		}
		frDone, _ := s.WebhookDeliveries(ctx, france, 100)
		for _, d := range frDone {
			if d.Status != store.DeliveryFailed {
				t.Errorf("France's delivery %d is %s after the 410", d.ID, d.Status)
			}
		}

		// Three hours on, subsample 4 closes: queued for all and sendable,
		// not France; the changes of the first refresh with a pending
		// delivery outlive the two hours' retention, the others go.
		save(t0.Add(3*time.Hour), map[int64]store.SubsampleState{
			1: {Status: "Live", Sendability: "sendable", EventID: 10, Country: "US"},
			2: {Status: "Live", Sendability: "unknown", EventID: 10, Country: "US"},
			4: {Status: "Complete", Sendability: "not_sendable", EventID: 11, Country: "FR"},
		})
		// France's failed deliveries are pruned, and nothing new is queued.
		if d, _ := s.WebhookDeliveries(ctx, france, 100); len(d) != 0 {
			t.Errorf("the disabled webhook has %d deliveries, want none", len(d))
		}
		// sendable: the delivered one pruned, subsample 4's sendable pending,
		// and the close.
		if d, _ := s.WebhookDeliveries(ctx, sendable, 100); len(d) != 2 || d[0].Kind != string(domain.ChangeClosed) {
			t.Errorf("sendable's deliveries after the close: %+v", d)
		}
		due, err = s.ClaimDeliveries(ctx, t0.Add(4*time.Hour), time.Minute, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range due {
			if d.Change.ChangeID == 0 || d.Change.SubsampleID == 0 {
				t.Errorf("delivery %d's change was pruned before it was delivered: %+v", d.ID, d.Change)
			}
		}
		// all: its 5 and the close and not_sendable; sendable: its 2.
		if len(due) != 9 {
			t.Errorf("claimed %d after the second refresh, want 9", len(due))
		}

		// A test event, then removal with the deliveries.
		if _, err := s.QueueWebhookTest(ctx, 99, "msg_x", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a test event for an unknown webhook: %v", err)
		}
		if _, err := s.QueueWebhookTest(ctx, all, "msg_test", t0.Add(5*time.Hour)); err != nil {
			t.Fatal(err)
		}
		test, _ := s.ClaimDeliveries(ctx, t0.Add(5*time.Hour), time.Minute, 100)
		if last := test[len(test)-1]; last.Kind != domain.WebhookTest || last.MessageID != "msg_test" || last.Change.ChangeID != 0 || !last.Change.At.Equal(t0.Add(5*time.Hour)) {
			t.Errorf("the test event: %+v", last)
		}
		if err := s.RemoveWebhook(ctx, all); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveWebhook(ctx, all); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("removing it again: %v", err)
		}
		if d, _ := s.WebhookDeliveries(ctx, all, 100); len(d) != 0 {
			t.Errorf("a removed webhook keeps %d deliveries", len(d))
		}
	})
}

// TestInstancesClaimEachDeliveryOnce: two instances on one PostgreSQL
// database claiming at the same time never take the same delivery (a
// claim skips the rows another holds).
func TestInstancesClaimEachDeliveryOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := storetest.PostgresURL(t)
	a, b := openAt(t, target), openAt(t, target)
	id, err := a.AddWebhook(ctx, store.WebhookSubscription{URL: "https://all.example/hook", Secret: "whsec_c2VjcmV0", CreatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	const deliveries = 300
	for i := range deliveries {
		if _, err := a.QueueWebhookTest(ctx, id, fmt.Sprintf("msg_%d", i), t0); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	claimed := map[int64]int{}
	var wg sync.WaitGroup
	for _, s := range []*store.Store{a, b, a, b} {
		wg.Go(func() {
			for {
				due, err := s.ClaimDeliveries(ctx, t0.Add(time.Minute), time.Hour, 5)
				if err != nil {
					t.Error(err)
					return
				}
				if len(due) == 0 {
					return
				}
				mu.Lock()
				for _, d := range due {
					claimed[d.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	twice := 0
	for _, n := range claimed {
		if n > 1 {
			twice++
		}
	}
	if len(claimed) != deliveries || twice > 0 {
		t.Errorf("%d deliveries claimed, %d of them more than once; want each of the %d once", len(claimed), twice, deliveries)
	}
}

// TestDisabledWebhookKeepsNothingPending: nothing sent to a disabled
// subscription stays pending (claims skip it, and pruning keeps pending
// deliveries): a test event for it is refused with ErrWebhookDisabled and
// why, and an attempt that ends in a retry after another of its
// deliveries disabled it (a 410 answered meanwhile, in the same batch)
// fails instead.
func TestDisabledWebhookKeepsNothingPending(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		id, err := s.AddWebhook(ctx, store.WebhookSubscription{URL: "https://gone.example/hook", Secret: "whsec_c2VjcmV0", CreatedAt: t0})
		if err != nil {
			t.Fatal(err)
		}
		for _, msg := range []string{"msg_1", "msg_2"} {
			if _, err := s.QueueWebhookTest(ctx, id, msg, t0); err != nil {
				t.Fatal(err)
			}
		}
		due, err := s.ClaimDeliveries(ctx, t0, time.Minute, 10)
		if err != nil || len(due) != 2 {
			t.Fatalf("claimed %d, %v; want 2", len(due), err)
		}
		if err := s.RecordDeliveryAttempt(ctx, due[0].ID, store.DeliveryAttempt{At: t0, StatusCode: 410, Error: "410 Gone",
			Status: store.DeliveryFailed, Disable: true}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordDeliveryAttempt(ctx, due[1].ID, store.DeliveryAttempt{At: t0.Add(time.Second), Error: "no answer: timeout",
			Status: store.DeliveryPending, NextAttemptAt: t0.Add(5 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		if n, err := s.PendingDeliveries(ctx); err != nil || n != 0 {
			t.Errorf("%d deliveries pending, %v; want none once the subscription is disabled", n, err)
		}
		deliveries, _ := s.WebhookDeliveries(ctx, id, 10)
		for _, d := range deliveries {
			if d.Status != store.DeliveryFailed {
				t.Errorf("delivery %d of the disabled subscription: %+v", d.ID, d)
			}
		}
		if want := "no answer: timeout; not tried again: the subscription was disabled"; deliveries[0].LastError != want {
			t.Errorf("the retry recorded after the 410: %q, want %q", deliveries[0].LastError, want)
		}

		_, err = s.QueueWebhookTest(ctx, id, "msg_3", t0.Add(time.Minute))
		if !errors.Is(err, store.ErrWebhookDisabled) || !strings.Contains(err.Error(), "410 Gone") {
			t.Errorf("a test event for a disabled subscription: %v, want ErrWebhookDisabled saying why", err)
		}
		if after, _ := s.WebhookDeliveries(ctx, id, 10); len(after) != 2 {
			t.Errorf("the refused test event was queued: %d deliveries", len(after))
		}
		if _, err := s.QueueWebhookTest(ctx, id+1, "msg_4", t0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a test event for an unknown subscription: %v", err)
		}
	})
}

// TestDeliveriesAreClaimedBySubscription: DueWebhooks lists the enabled
// subscriptions with a delivery due, the one due the longest first, and
// ClaimDeliveryOf claims a subscription's delivery due the longest, never
// another's, leasing it; ErrNotFound once none of it is due.
func TestDeliveriesAreClaimedBySubscription(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		var subs []int64
		for _, host := range []string{"a", "b", "c"} {
			id, err := s.AddWebhook(ctx, store.WebhookSubscription{URL: "https://" + host + ".example/hook", Secret: "whsec_c2VjcmV0", CreatedAt: t0})
			if err != nil {
				t.Fatal(err)
			}
			subs = append(subs, id)
		}
		a, b, c := subs[0], subs[1], subs[2]
		for _, q := range []struct {
			sub int64
			msg string
			at  time.Time
		}{{b, "b1", t0}, {a, "a1", t0.Add(time.Second)}, {b, "b2", t0.Add(2 * time.Second)}, {a, "a2", t0.Add(3 * time.Second)}, {c, "c1", t0.Add(time.Hour)}} {
			if _, err := s.QueueWebhookTest(ctx, q.sub, q.msg, q.at); err != nil {
				t.Fatal(err)
			}
		}
		if due, err := s.DueWebhooks(ctx, t0.Add(time.Minute)); err != nil || !slices.Equal(due, []int64{b, a}) {
			t.Errorf("due a minute on: %v, %v; want b then a (c is due in an hour)", due, err)
		}
		for _, want := range []string{"a1", "a2"} {
			d, err := s.ClaimDeliveryOf(ctx, a, t0.Add(time.Minute), time.Minute)
			if err != nil || d.MessageID != want || d.SubscriptionID != a || d.URL != "https://a.example/hook" || d.Secret == "" {
				t.Errorf("claimed %+v, %v; want a's %s with its address and secret", d, err, want)
			}
		}
		if d, err := s.ClaimDeliveryOf(ctx, a, t0.Add(time.Minute), time.Minute); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a third claim of a: %+v, %v; want ErrNotFound (both are leased)", d, err)
		}
		if due, err := s.DueWebhooks(ctx, t0.Add(time.Minute)); err != nil || !slices.Equal(due, []int64{b}) {
			t.Errorf("due once a's are claimed: %v, %v; want b", due, err)
		}
		d, err := s.ClaimDeliveryOf(ctx, b, t0.Add(time.Minute), time.Minute)
		if err != nil || d.MessageID != "b1" {
			t.Fatalf("claimed %+v, %v; want b1", d, err)
		}
		if err := s.RecordDeliveryAttempt(ctx, d.ID, store.DeliveryAttempt{At: t0.Add(time.Minute), StatusCode: 410, Error: "410 Gone",
			Status: store.DeliveryFailed, Disable: true}); err != nil {
			t.Fatal(err)
		}
		if due, err := s.DueWebhooks(ctx, t0.Add(2*time.Hour)); err != nil || !slices.Equal(due, []int64{a, c}) {
			t.Errorf("due two hours on, b disabled: %v, %v; want a (its leases ended), then c", due, err)
		}
		if d, err := s.ClaimDeliveryOf(ctx, b, t0.Add(2*time.Hour), time.Minute); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a claim of the disabled b: %+v, %v; want ErrNotFound", d, err)
		}
	})
}
