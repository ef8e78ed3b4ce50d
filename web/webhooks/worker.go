package webhooks

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"fieldboard/store"
	"fieldboard/web/lease"
)

// Worker sends the queue of deliveries the store keeps. Each subscription
// is sent apart from the others, in a lane of its own: one delivery at a
// time, the longest due first, so a slow or silent receiver delays its
// own deliveries only. Each due delivery is attempted once per turn, and
// its outcome recorded before it counts as sent, so a worker that dies
// mid-queue sends again, after restart, what it had not recorded (at
// least once, never lost). Fields with zero values take the defaults in
// brackets.
type Worker struct {
	Store  *store.Store
	Logger *slog.Logger
	Guard  Guard
	// Now is the clock deliveries are claimed, scheduled and recorded on
	// [time.Now].
	Now func() time.Time
	// SendClock is the clock an attempt is sent on [time.Now]: its
	// webhook-timestamp header (signed with the body) is the time it is
	// sent, as the receiver checks it against its own clock within a few
	// minutes (Standard Webhooks' "timestamp of the attempt"), however
	// old the change is (the body's timestamp). A Retry-After date is
	// read against it too. It differs from Now only where Now is not the
	// real time: the demo's replay records a replayed day's deliveries at
	// their replayed times, and sends them at the time it runs.
	SendClock func() time.Time
	// Timeout bounds one attempt, from connecting to the answer's end [15s].
	Timeout time.Duration
	// Tick is how often the queue is looked at for subscriptions with a
	// delivery due and no lane sending them [1s].
	Tick time.Duration
	// Lease, when set, makes Run send only while this instance holds the
	// webhooks lease (store.LeaseWebhooks), for several instances on one
	// database: one sends the queue, the others wait to take over.
	// (Claims alone would keep two workers from sending one delivery at
	// once; the lease keeps the sending, and its order, in one place.)
	Lease *lease.Holder
	// Observe, when set, is told each attempt's outcome: "delivered",
	// "retry" or "failed" (for the metrics).
	Observe func(outcome string)

	clientOnce sync.Once
	client     *http.Client

	mu      sync.Mutex
	sending map[int64]bool // the subscriptions a lane sends
}

// maxAnswerHeader is the most of an answer's header read, in bytes.
const maxAnswerHeader = 64 << 10

// lease is how long a claimed delivery is held for its attempt: the
// timeout and a margin. A worker killed meanwhile leaves it due again
// once the lease ends.
func (w *Worker) lease() time.Duration { return w.timeout() + 5*time.Second }

func (w *Worker) timeout() time.Duration { return cmp.Or(w.Timeout, 15*time.Second) }

func (w *Worker) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

func (w *Worker) sendTime() time.Time {
	if w.SendClock == nil {
		return time.Now()
	}
	return w.SendClock()
}

// httpClient sends through the guard, with no proxy (a proxy would hide
// the address from it), no redirects (a 3xx is an answer that is not
// 2xx, retried) and at most maxAnswerHeader bytes of an answer's header
// read (more fails the attempt), so that no receiver makes the worker
// hold megabytes for each of its attempts.
func (w *Worker) httpClient() *http.Client {
	w.clientOnce.Do(func() {
		dialer := &net.Dialer{Timeout: w.timeout(), Control: w.Guard.control, Resolver: w.Guard.resolver()}
		w.client = &http.Client{
			Timeout: w.timeout(),
			Transport: &http.Transport{
				Proxy:                  nil,
				DialContext:            dialer.DialContext,
				TLSHandshakeTimeout:    w.timeout(),
				MaxIdleConnsPerHost:    4,
				MaxResponseHeaderBytes: maxAnswerHeader,
				IdleConnTimeout:        time.Minute,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return w.client
}

// Run looks at the queue every Tick until ctx is done, and starts a lane
// for each subscription with a delivery due that no lane sends yet,
// without waiting for it; with a Lease, only while it holds the webhooks
// lease, which it takes when it is free and gives up on the way out, once
// its lanes have stopped.
func (w *Worker) Run(ctx context.Context) {
	tick := cmp.Or(w.Tick, time.Second)
	t := time.NewTimer(0)
	defer t.Stop()
	var tenure *lease.Tenure
	defer func() {
		if tenure != nil {
			tenure.Release()
		}
	}()
	var lanes sync.WaitGroup
	defer lanes.Wait() // before the lease is released
	logged := func(sub int64, _ int, err error) {
		if err != nil && !errors.Is(err, context.Canceled) {
			w.Logger.Warn("webhook deliveries", "webhook", sub, "err", err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sendCtx := ctx
		if w.Lease != nil {
			if tenure != nil && tenure.Context().Err() != nil {
				lanes.Wait()     // they stop with the tenure
				tenure.Release() // lost: what it had claimed is sent again when the claims end
				tenure = nil
			}
			if tenure == nil {
				var other store.Lease
				var err error
				if tenure, other, err = w.Lease.Take(ctx, store.LeaseWebhooks); err != nil {
					if !errors.Is(err, context.Canceled) {
						w.Logger.Warn("taking the webhooks lease", "err", err)
					}
					t.Reset(tick)
					continue
				}
				if tenure == nil { // another instance sends: look again when its lease would run out
					t.Reset(max(other.ExpiresAt.Sub(w.now()), 0) + 50*time.Millisecond)
					continue
				}
			}
			sendCtx = tenure.Context()
		}
		if err := w.startLanes(sendCtx, &lanes, logged); err != nil && !errors.Is(err, context.Canceled) {
			w.Logger.Warn("webhook deliveries", "err", err)
		}
		t.Reset(tick)
	}
}

// SendDue sends, in a lane for each, the due deliveries of every
// subscription with one due now, waits until the lanes have nothing
// more due, and returns how many attempts they recorded.
func (w *Worker) SendDue(ctx context.Context) (int, error) {
	var lanes sync.WaitGroup
	var mu sync.Mutex
	sent, errs := 0, []error(nil)
	err := w.startLanes(ctx, &lanes, func(_ int64, n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		sent += n
		errs = append(errs, err)
	})
	lanes.Wait()
	return sent, errors.Join(append(errs, err)...)
}

// SendDueOf sends the due deliveries of subscription sub alone, in its
// lane, and returns how many attempts it recorded: none when a lane sends
// them already.
func (w *Worker) SendDueOf(ctx context.Context, sub int64) (int, error) {
	if !w.takeLane(sub) {
		return 0, nil
	}
	defer w.leaveLane(sub)
	return w.sendOf(ctx, sub)
}

// startLanes starts a lane (sendOf) for each subscription with a
// delivery due now that no lane sends yet, each added to lanes and told
// to finished when it stops.
func (w *Worker) startLanes(ctx context.Context, lanes *sync.WaitGroup, finished func(sub int64, attempts int, err error)) error {
	subs, err := w.Store.DueWebhooks(ctx, w.now())
	if err != nil {
		return err
	}
	for _, sub := range subs {
		if !w.takeLane(sub) {
			continue
		}
		lanes.Add(1)
		go func() {
			defer lanes.Done()
			n, err := w.sendOf(ctx, sub)
			w.leaveLane(sub)
			finished(sub, n, err)
		}()
	}
	return nil
}

// takeLane marks subscription sub as sent by a lane, unless one sends it
// already.
func (w *Worker) takeLane(sub int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sending[sub] {
		return false
	}
	if w.sending == nil {
		w.sending = map[int64]bool{}
	}
	w.sending[sub] = true
	return true
}

// leaveLane marks subscription sub as sent by no lane.
func (w *Worker) leaveLane(sub int64) {
	w.mu.Lock()
	delete(w.sending, sub)
	w.mu.Unlock()
}

// sendOf is a subscription's lane: it claims the subscription's delivery
// due the longest, attempts it, records the outcome, and goes on while
// one is due (none is once a 410 has disabled the subscription). It
// returns how many attempts it recorded.
func (w *Worker) sendOf(ctx context.Context, sub int64) (int, error) {
	sent := 0
	for ctx.Err() == nil {
		d, err := w.Store.ClaimDeliveryOf(ctx, sub, w.now(), w.lease())
		if errors.Is(err, store.ErrNotFound) {
			return sent, nil
		}
		if err != nil {
			return sent, err
		}
		a := w.attempt(ctx, d)
		if ctx.Err() != nil && a.Status != store.DeliveryDelivered {
			break // cut short by shutdown: not an attempt; sent again when the claim ends
		}
		if err := w.Store.RecordDeliveryAttempt(context.WithoutCancel(ctx), d.ID, a); err != nil {
			return sent, err
		}
		sent++
		if w.Observe != nil {
			w.Observe(outcomeOf(a))
		}
	}
	return sent, ctx.Err()
}

// attempt posts d once and says what came of it. The log names the
// delivery, its subscription, its address's scheme and host (logAddress)
// and the answer, never the secret.
func (w *Worker) attempt(ctx context.Context, d store.DueDelivery) store.DeliveryAttempt {
	at := w.now()
	code, wait, err := w.post(ctx, d)
	out := store.DeliveryAttempt{At: at, StatusCode: code, Status: store.DeliveryDelivered}
	log := w.Logger.With("delivery", d.ID, "webhook", d.SubscriptionID, "id", d.MessageID, "type", d.Kind, "status", code)
	switch {
	case err == nil:
		log.Info("webhook delivered")
		return out
	case code == http.StatusGone:
		out.Status, out.Disable = store.DeliveryFailed, true
		out.Error = "410 Gone: the receiver ended the subscription, which is disabled"
		log.Warn("webhook subscription disabled: the receiver answered 410 Gone", "url", logAddress(d.URL))
		return out
	}
	out.Error = deliveryError(err)
	next, over := NextAttempt(d.CreatedAt, d.Attempts+1, at, wait)
	if over != nil {
		out.Status, out.Error = store.DeliveryFailed, out.Error+"; "+over.Error()
		log.Warn("webhook delivery failed for good", "url", logAddress(d.URL), "attempts", d.Attempts+1, "err", out.Error, "detail", err)
		return out
	}
	out.Status, out.NextAttemptAt = store.DeliveryPending, next
	log.Info("webhook attempt failed; retried", "url", logAddress(d.URL), "next", next, "err", out.Error)
	log.Debug("webhook attempt failed: the detail", "err", err)
	return out
}

// post sends d, stamped and signed with the time it is sent (SendClock),
// and returns the answer's status code (0 when none came), its
// Retry-After, and an error unless it was 2xx.
func (w *Worker) post(ctx context.Context, d store.DueDelivery) (int, time.Duration, error) {
	body, err := Body(d)
	if err != nil {
		return 0, 0, fmt.Errorf("build the body: %w", err)
	}
	at := w.sendTime()
	sig, err := Sign(d.Secret, d.MessageID, at, body)
	if err != nil {
		return 0, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return 0, 0, fmt.Errorf("the address does not parse") // its error would repeat it, token and all
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Fieldboard-Webhooks")
	req.Header.Set("webhook-id", d.MessageID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := w.httpClient().Do(req)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // without the URL it repeats
		}
		return 0, 0, fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, 0, nil
	}
	// The code and its standard words: the receiver's own reason phrase
	// is not repeated on the pages that list every subscription.
	return resp.StatusCode, retryAfter(resp.Header.Get("Retry-After"), at),
		fmt.Errorf("%s", strings.TrimSpace(fmt.Sprintf("answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))))
}

// deliveryError is how a failed attempt is recorded, for the webhooks
// page and webhook list: what went wrong, never an address, as the guard
// says (Guard). A lookup's error names the resolver; a refused
// connection, the address a name resolved to; a read or write error,
// this server's own address and the receiver's. The log has them. It
// is cut at maxDeliveryError bytes: an error may quote a malformed
// answer, as long as the receiver made it.
func deliveryError(err error) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, ErrInsideAddress), errors.As(err, &dnsErr):
		return "no answer: the host is not a public address, or could not be resolved; nothing was sent"
	case errors.As(err, &opErr) && opErr.Err != nil:
		return cut("no answer: "+opErr.Op+": "+withoutAddresses(opErr.Err.Error()), maxDeliveryError)
	}
	return cut(withoutAddresses(err.Error()), maxDeliveryError)
}

// maxDeliveryError is the most of a delivery's error recorded, in bytes.
const maxDeliveryError = 160

// cut is s if it has at most n bytes, or its first whole runes and "…"
// in n bytes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = strings.ToValidUTF8(s[:n-len("…")], "")
	return s + "…"
}

// anAddress is an IPv4 address, or an IPv6 one in brackets, with or
// without a port.
var anAddress = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\[[0-9A-Fa-f:.%]+\](?::\d+)?`)

// withoutAddresses is s with every IP address it names left out: the
// errors deliveryError does not know may still name one.
func withoutAddresses(s string) string { return anAddress.ReplaceAllString(s, "(an address)") }

// logAddress is how the log names a webhook's address: its scheme and
// host only, as its path or query may carry a secret token (Slack's do).
func logAddress(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an address that does not parse)"
	}
	return u.Scheme + "://" + u.Host
}

// outcomeOf names an attempt's outcome for Worker.Observe.
func outcomeOf(a store.DeliveryAttempt) string {
	switch a.Status {
	case store.DeliveryDelivered:
		return "delivered"
	case store.DeliveryPending:
		return "retry"
	}
	return "failed"
}
