package demo

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fieldboard/store"
	"fieldboard/web/webhooks"
)

// ReceiverPath is the path the demo's webhook receiver takes deliveries
// on: the demo knows its own subscription by it.
const ReceiverPath = "/fieldboard-demo/webhooks"

// receiverTolerance is how far a delivery's webhook-timestamp may be from
// the receiver's clock, as the Standard Webhooks libraries allow.
const receiverTolerance = 5 * time.Minute

// Receiver is the webhook receiver the demo runs for itself on loopback,
// so that its change feed has somewhere to go: it checks each delivery's
// timestamp against the real time, not the demo's clock, and its
// signature (webhooks.Sign's scheme), as a receiver elsewhere would, and
// counts what it accepted and refused.
// After a restart it takes the deliveries of the subscription it made
// on the first start, on the same port, but cannot check their
// signatures: the store never gives a secret back after the subscription
// is made.
type Receiver struct {
	addr   netip.AddrPort
	srv    *http.Server
	now    func() time.Time
	logger *slog.Logger

	mu      sync.Mutex
	secret  string // "" when not subscribed this run
	subbed  int64  // the id of an earlier run's subscription that sends here; 0 for none
	seen    map[string]bool
	refused atomic.Int64
}

// StartReceiver starts the receiver on a loopback port: on the one of
// the demo's subscription in st when there is one (a restart), else on a
// free one, to be subscribed (Subscribe). now is its clock, the real
// one, as a receiver's elsewhere.
func StartReceiver(ctx context.Context, st *store.Store, now func() time.Time, logger *slog.Logger) (*Receiver, error) {
	r := &Receiver{now: now, logger: logger, seen: map[string]bool{}}
	listenOn := "127.0.0.1:0"
	subs, err := st.Webhooks(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range subs {
		if host, ok := ownSubscription(s.URL); ok && s.DisabledAt == nil {
			listenOn, r.subbed = host, s.ID
		}
	}
	ln, err := net.Listen("tcp", listenOn)
	if err != nil && r.subbed != 0 {
		logger.Warn("demo: the webhook receiver's port is taken: its subscription gets nothing this run", "address", listenOn, "err", err)
		r.subbed = 0
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("start the demo's webhook receiver: %w", err)
	}
	r.addr = netip.MustParseAddrPort(ln.Addr().String())
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+ReceiverPath, r.receive)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

// ownSubscription reports whether raw is the address of a demo receiver,
// and its host and port.
func ownSubscription(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Path != ReceiverPath {
		return "", false
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil || !ap.Addr().IsLoopback() {
		return "", false
	}
	return u.Host, true
}

// Addr is the address and port the receiver listens on: the one the
// webhook guard lets through (webhooks.Guard.Allow).
func (r *Receiver) Addr() netip.AddrPort { return r.addr }

// URL is the address deliveries are posted to.
func (r *Receiver) URL() string { return "http://" + r.addr.String() + ReceiverPath }

// Subscribe subscribes the receiver to every change, as the webhooks page
// does (webhooks.NewSubscription through guard, then the store), made at
// at, and returns the subscription's id. A receiver listening for an earlier
// run's subscription (a replay that stopped before its first refresh and
// is run again) keeps that one: a second would post every change twice.
func (r *Receiver) Subscribe(ctx context.Context, st *store.Store, guard webhooks.Guard, at time.Time) (int64, error) {
	if r.subbed != 0 {
		return r.subbed, nil
	}
	sub, err := webhooks.NewSubscription(ctx, guard, r.URL(), "", "", at)
	if err != nil {
		return 0, fmt.Errorf("subscribe the demo's webhook receiver: %w", err)
	}
	id, err := st.AddWebhook(ctx, sub)
	if err != nil {
		return 0, fmt.Errorf("subscribe the demo's webhook receiver: %w", err)
	}
	r.mu.Lock()
	r.secret = sub.Secret
	r.mu.Unlock()
	return id, nil
}

// Received is how many different messages the receiver accepted; Refused
// how many requests it turned away (a bad signature or timestamp).
func (r *Receiver) Received() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *Receiver) Refused() int64 { return r.refused.Load() }

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

// receive accepts a delivery whose signature and timestamp check out:
// 204, once per webhook-id (a message sent again is acknowledged, not
// counted twice); 400 for a timestamp too far from now, 401 for a bad
// signature.
func (r *Receiver) receive(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	id := req.Header.Get("webhook-id")
	if err := r.verify(id, req.Header.Get("webhook-timestamp"), req.Header.Get("webhook-signature"), body); err != nil {
		r.refused.Add(1)
		r.logger.Warn("demo: the webhook receiver refused a delivery", "id", id, "err", err)
		status := http.StatusUnauthorized
		if errors.Is(err, errTimestamp) {
			status = http.StatusBadRequest
		}
		http.Error(w, err.Error(), status)
		return
	}
	r.mu.Lock()
	again := r.seen[id]
	r.seen[id] = true
	r.mu.Unlock()
	r.logger.Debug("demo: the webhook receiver took a delivery", "id", id, "again", again)
	w.WriteHeader(http.StatusNoContent)
}

var errTimestamp = errors.New("webhook-timestamp is not Unix seconds within 5 minutes of now")

// verify checks a delivery as the Standard Webhooks scheme says: a
// timestamp near now, and one v1 signature of id.timestamp.body that
// matches, compared in constant time.
func (r *Receiver) verify(id, timestamp, signatures string, body []byte) error {
	r.mu.Lock()
	secret, subbed := r.secret, r.subbed
	r.mu.Unlock()
	if secret == "" && subbed == 0 {
		return errors.New("not subscribed")
	}
	if id == "" {
		return errors.New("no webhook-id")
	}
	unix, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errTimestamp
	}
	at := time.Unix(unix, 0)
	if d := r.now().Sub(at); d > receiverTolerance || d < -receiverTolerance {
		return errTimestamp
	}
	if secret == "" { // subscribed on an earlier run: its secret is not to be had
		if !strings.HasPrefix(signatures, "v1,") {
			return errors.New("no v1 signature")
		}
		return nil
	}
	want, err := webhooks.Sign(secret, id, at, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(signatures) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no v1 signature matches")
}
