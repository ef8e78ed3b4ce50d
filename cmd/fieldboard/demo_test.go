package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web/webhooks"
)

// serveDemo runs `fieldboard serve` without --upstream on db until it
// serves, calls during with its log so far, cancels it and returns its
// log.
func serveDemo(t *testing.T, db string, during func(log func() string)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &syncWriter{w: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--sim-subsamples", "80", "--sim-panelists", "500", "--sim-latency", "0"}, log, log)
	}()
	// A safety net against a hang: the race detector on a loaded
	// machine makes the replay take minutes.
	for failsafe := time.Now().Add(6 * time.Minute); !strings.Contains(log.String(), `msg="serving the dashboard"`); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s", err, log.String())
		default:
		}
		if time.Now().After(failsafe) {
			t.Fatalf("serve did not serve within 6 minutes:\n%s", log.String())
		}
	}
	during(log.String)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, log.String())
	}
	return log.String()
}

// TestDemoReplaysItsFirstDayOnce: the demo's first start replays the
// simulator's last day before it serves, delivering the day's changes to
// its own receiver; a restart replays nothing, and its webhook worker
// still reaches the receiver (the guard lets its address through), which
// listens where the subscription sends. Once the first start serves,
// simulated respondents take the simulator's survey and come back on the
// dashboard's return address; a restart drives nobody again.
func TestDemoReplaysItsFirstDayOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	const drove = "demo: simulated respondents took the simulator's survey and came back"
	first := serveDemo(t, db, func(log func() string) {
		for failsafe := time.Now().Add(2 * time.Minute); !strings.Contains(log(), drove); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(failsafe) {
				t.Fatalf("the simulated respondents did not come back within 2 minutes:\n%s", log())
			}
		}
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if records, err := st.ReturnedRecords(ctx, time.Time{}, time.Time{}); err != nil || len(records) == 0 {
			t.Errorf("after the drive the store holds returns %+v, %v; want some", records, err)
		}
		if _, hops, err := st.Routings(ctx, store.RoutingFilter{Outcome: domain.RoutedOnReturn}, 1, 0); err != nil || hops == 0 {
			t.Errorf("after the drive the router's record holds %d respondents sent on after a return, %v; want some", hops, err)
		}
		// The field's lessons in the feed: a cell closed at once, a
		// broken link flagged seconds after its returns.
		for _, kind := range []domain.ChangeKind{domain.ChangeQuotaClosedByField, domain.ChangeLinkSuspect} {
			for failsafe := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
				_, n, err := st.Changes(ctx, store.ChangeFilter{Kind: kind}, 1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					break
				}
				if time.Now().After(failsafe) {
					t.Errorf("after the drive the change feed holds no %s:\n%s", kind, log())
					break
				}
			}
		}
	})
	for _, line := range []string{"demo: replaying the simulator's last 24 hours", "demo: replayed the day's first 20 hours",
		"demo: replayed the day's last 4 hours", "demo: the simulator's last 24 hours are replayed"} {
		if strings.Count(first, line) != 1 {
			t.Errorf("the first start's log does not say once %q:\n%s", line, first)
		}
	}
	second := serveDemo(t, db, func(func() string) {
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		subs, err := st.Webhooks(ctx)
		if err != nil || len(subs) != 1 {
			t.Fatalf("subscriptions %+v, %v; want the demo receiver's", subs, err)
		}
		if _, err := st.QueueWebhookTest(ctx, subs[0].ID, webhooks.NewTestMessageID(), time.Now()); err != nil {
			t.Fatal(err)
		}
		for failsafe := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			deliveries, err := st.WebhookDeliveries(ctx, subs[0].ID, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(deliveries) == 1 && deliveries[0].Kind == "webhook.test" && deliveries[0].Status == store.DeliveryDelivered {
				return
			}
			if time.Now().After(failsafe) {
				t.Fatalf("the test event after a restart: %+v, want delivered", deliveries)
			}
		}
	})
	if strings.Contains(second, "replay") || strings.Contains(second, drove) {
		t.Errorf("a restart replayed or drove respondents:\n%s", second)
	}
}
