package demo_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/web/demo"
	"fieldboard/web/webhooks"
)

var discard = slog.New(slog.DiscardHandler)

// TestReceiverChecksAsARealOneWould: the demo's receiver can be
// subscribed only through a guard that lists it, takes what the webhook
// worker signs with the subscription's secret, also from a worker on the
// replay's clock, a day behind (its deliveries are stamped with the time
// they are sent), and refuses a bad signature and a timestamp 10 minutes
// old.
func TestReceiverChecksAsARealOneWould(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	replayed := time.Now().Add(-demo.Day + time.Hour)
	r, err := demo.StartReceiver(ctx, st, time.Now, discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Subscribe(ctx, st, webhooks.Guard{}, replayed); err == nil {
		t.Error("a guard that does not list the receiver let it be subscribed")
	}
	id, err := r.Subscribe(ctx, st, webhooks.Guard{Allow: []netip.AddrPort{r.Addr()}}, replayed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.QueueWebhookTest(ctx, id, "msg_1", replayed); err != nil {
		t.Fatal(err)
	}
	worker := &webhooks.Worker{Store: st, Logger: discard, Guard: webhooks.Guard{Allow: []netip.AddrPort{r.Addr()}}, Now: func() time.Time { return replayed }}
	if n, err := worker.SendDue(ctx); err != nil || n != 1 {
		t.Fatalf("SendDue = %d, %v", n, err)
	}
	post := func(id string, at time.Time, signature string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, r.URL(), strings.NewReader(`{}`))
		req.Header.Set("webhook-id", id)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
		req.Header.Set("webhook-signature", signature)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("msg_1", time.Now(), "v1,AAAA"); code != http.StatusUnauthorized {
		t.Errorf("a bad signature: %d, want 401", code)
	}
	if code := post("msg_2", time.Now().Add(-10*time.Minute), "v1,AAAA"); code != http.StatusBadRequest {
		t.Errorf("a stale timestamp: %d, want 400", code)
	}
	if r.Received() != 1 || r.Refused() != 2 {
		t.Errorf("received %d, refused %d; want the worker's 1 and the 2 forged", r.Received(), r.Refused())
	}
}
