// Package lease runs work under a named lease of the database, so that of
// several Fieldboard instances on one database one at a time does it:
// the refresh, the webhook delivery worker.
//
// A lease lasts TTL (30 s) from its last renewal. Its holder renews it
// every third of that, and stops the work it holds it for (the context
// of its Tenure is cancelled) as soon as a renewal finds the lease lost,
// or when no renewal has succeeded for two thirds of the TTL: the
// database is out of reach, or the process was paused. That leaves a
// third of the TTL (10 s) between the moment the holder gives up and the
// moment another instance may take the lease, for the work to stop and
// for the instances' clocks to differ (each compares its own clock with
// the expiry another wrote: they must agree within that, which NTP gives).
// Writes made under the lease check its fencing token in their own
// transaction (store.Fenced), so even a holder that stops late writes
// nothing once another took over.
package lease

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"fieldboard/store"
)

// DefaultTTL is how long a lease lasts without renewal: how long an
// instance that dies holding it keeps the others waiting.
const DefaultTTL = 30 * time.Second

// NewID returns an id for this instance as a lease holder: its host name,
// its process id and a random part, so two processes never share one,
// nor one process restarted with the same pid.
func NewID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Holder takes leases for one instance. Fields with zero values take the
// defaults in brackets.
type Holder struct {
	Store *store.Store
	// ID names this instance in the leases it holds (NewID).
	ID string
	// TTL is how long a lease lasts without renewal [DefaultTTL].
	TTL time.Duration
	// Now is the clock the leases' times are written and read in
	// [time.Now]; the renewal schedule runs on real time.
	Now    func() time.Time
	Logger *slog.Logger
}

func (h *Holder) ttl() time.Duration { return cmp.Or(h.TTL, DefaultTTL) }

func (h *Holder) now() time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now()
}

func (h *Holder) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.Default()
	}
	return h.Logger
}

// ErrLost is the cause of a Tenure's context when the lease was lost or
// could not be renewed in time.
var ErrLost = errors.New("this instance lost the lease, or could not renew it in time, and stopped")

// Tenure is a lease held: its Context is cancelled, with the cause
// ErrLost, when the lease is lost or may be; Release ends it.
type Tenure struct {
	lease  store.Lease // as taken: its token fences the writes
	holder *Holder
	ctx    context.Context
	cancel context.CancelCauseFunc
	done   chan struct{}
	once   sync.Once
}

// Take takes the lease name if it is free or already this instance's,
// and keeps it renewed until Release. When another instance holds it,
// Take returns a nil Tenure and the lease as the other holds it.
func (h *Holder) Take(ctx context.Context, name string) (*Tenure, store.Lease, error) {
	started := time.Now() // the renewal deadline counts from before the acquire was sent
	l, err := h.Store.AcquireLease(ctx, name, h.ID, h.now(), h.ttl())
	if err != nil {
		return nil, store.Lease{}, err
	}
	if l.Holder != h.ID {
		return nil, l, nil
	}
	tctx, cancel := context.WithCancelCause(ctx)
	t := &Tenure{lease: l, holder: h, ctx: tctx, cancel: cancel, done: make(chan struct{})}
	go t.renew(started)
	return t, l, nil
}

// Lease is the lease as taken: its name, holder and token (for
// store.Fenced).
func (t *Tenure) Lease() store.Lease { return t.lease }

// Context is cancelled with the cause ErrLost when the lease is lost or
// could not be renewed in time, and when Release is called.
func (t *Tenure) Context() context.Context { return t.ctx }

// Release stops renewing the lease and gives it up, so another instance
// may take it at once. It is safe to call more than once.
func (t *Tenure) Release() {
	t.once.Do(func() {
		t.cancel(context.Canceled)
		<-t.done
		h := t.holder
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Store.ReleaseLease(ctx, t.lease, h.now()); err != nil && !errors.Is(err, store.ErrLeaseLost) {
			h.logger().Warn("releasing a lease; it runs out by itself", "lease", t.lease.Name, "err", err)
		}
	})
}

// renew renews the lease every third of the TTL until the tenure ends,
// and ends it when a renewal finds the lease lost or none succeeded for
// two thirds of the TTL since renewed (the time the last successful
// renewal was sent).
func (t *Tenure) renew(renewed time.Time) {
	defer close(t.done)
	h := t.holder
	ttl := h.ttl()
	giveUp := time.NewTimer(time.Until(renewed.Add(ttl * 2 / 3)))
	defer giveUp.Stop()
	tick := time.NewTicker(ttl / 3)
	defer tick.Stop()
	l := t.lease
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-giveUp.C:
			h.logger().Error("could not renew a lease in time: stopping its work", "lease", l.Name, "holder", l.Holder)
			t.cancel(ErrLost)
			return
		case <-tick.C:
		}
		sent := time.Now()
		rctx, cancel := context.WithDeadline(t.ctx, renewed.Add(ttl*2/3))
		next, err := h.Store.RenewLease(rctx, l, h.now(), ttl)
		cancel()
		switch {
		case err == nil:
			l, renewed = next, sent
			giveUp.Reset(time.Until(renewed.Add(ttl * 2 / 3)))
		case errors.Is(err, store.ErrLeaseLost):
			h.logger().Error("lost a lease: stopping its work", "lease", l.Name, "holder", l.Holder)
			t.cancel(ErrLost)
			return
		case t.ctx.Err() == nil:
			h.logger().Warn("renewing a lease failed; trying again", "lease", l.Name, "err", err)
		}
	}
}

// WaitChange waits until the lease other described is no longer held as
// it was: released, run out, or taken anew (another token). It looks
// every tenth of the TTL, at most every second.
func (h *Holder) WaitChange(ctx context.Context, other store.Lease) error {
	t := time.NewTicker(min(time.Second, h.ttl()/10))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		l, err := h.Store.LeaseOf(ctx, other.Name)
		if err != nil {
			return err
		}
		if l.Free(h.now()) || l.Holder != other.Holder || l.Token != other.Token {
			return nil
		}
	}
}
