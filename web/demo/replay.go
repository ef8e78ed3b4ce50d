package demo

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/handlers"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/web/refresh"
	"fieldboard/web/webhooks"
)

// The replay's pace: a refresh every hour, then every ReplayCloseEvery
// for the last ReplayClose of the Day, so that the last hours, which
// pacing weighs most, are watched closely.
const (
	ReplayClose      = 4 * time.Hour
	ReplayCloseEvery = 15 * time.Minute
)

// Replay plays the last Day of the simulator's world into a database
// that has no snapshot yet (Fresh), at the demo's first start, so that
// pacing, the at-risk filter, the change feed, the router's record and
// the webhook deliveries have a day to show at once. The simulator
// (sim.Options.BusyDay) runs on Clock, created Day ago; the replay
// moves Clock through the day and at each step does what a day of use
// would have done, through the same code: a refresh (a refresher as the
// server's, on Clock), the webhook worker's turn for the demo's own
// Receiver (one as the server's, on Clock, its guard letting the
// Receiver through; other subscriptions' deliveries wait for the
// server's worker, so that no outside receiver, slow or silent, holds the
// replay up), a send list
// with invitation links (Checks, on Clock), and clicks on earlier
// invitations, each answered by the invitation link's handler and
// recorded at its time. The first step is the baseline refresh, after
// which the supplier's mapping is imported (Seeder.MapCodes). At the end
// Clock is released to the real time, which has moved on meanwhile:
// nothing goes back.
type Replay struct {
	Seeder
	Clock    *Clock
	Receiver *Receiver
	// Provider and Refresh are what the server's refresher reads and how:
	// the replay's reads the same on Clock, without a lease or Observe,
	// logging warnings only (QuietLogger).
	Provider refresh.Provider
	Refresh  refresh.Options
	// Checks decides as the server's checks service does, on Clock.
	Checks *checks.Service
	// Guard and WebhookTimeout are the server's webhook worker's; the
	// replay's runs on Clock.
	Guard          webhooks.Guard
	WebhookTimeout time.Duration
	// InviteTTL is how long the invitation links stay valid, as the
	// server's.
	InviteTTL time.Duration
}

// Fresh reports whether st holds no snapshot yet: no events refresh
// ever succeeded. Only then is there a day to replay; a restart keeps
// what is there.
func Fresh(ctx context.Context, st *store.Store) (bool, error) {
	states, err := st.Datasets(ctx)
	if err != nil {
		return false, err
	}
	events, ok := states[store.DatasetEvents]
	return !ok || events.LastSuccessAt == nil, nil
}

// replayCounts is what a part of the replay did.
type replayCounts struct {
	refreshes, clicks, deliveries, returns int
}

// Run replays the day into a fresh database, logging a line per phase,
// and releases Clock, also when it fails; on a database with a snapshot
// it only releases Clock. The simulator answers without its latency
// meanwhile.
func (r *Replay) Run(ctx context.Context) error {
	defer r.Clock.Release()
	fresh, err := Fresh(ctx, r.Store)
	if err != nil || !fresh {
		return err
	}
	began := time.Now()
	latency := r.Sim.Latency()
	r.Sim.SetLatency(0)
	defer r.Sim.SetLatency(latency)
	quiet := QuietLogger(r.Logger)
	opts := r.Refresh
	opts.Now, opts.Logger, opts.Lease, opts.Observe = r.Clock.Now, quiet, nil, nil
	p := &player{Replay: r, routings: &routingWriter{store: r.Store}, invitedTo: map[int64]map[string]bool{},
		refresher: refresh.New(r.Provider, r.Store, opts),
		webhooks:  &webhooks.Worker{Store: r.Store, Logger: quiet, Guard: r.Guard, Now: r.Clock.Now, Timeout: r.WebhookTimeout}}
	defer p.refresher.Close()
	p.handler = &handlers.Handler{Store: r.Store, PanelistChecks: r.Checks, Routings: p.routings, Now: r.Clock.Now, InviteTTL: r.InviteTTL}
	p.echo = echo.New()

	start := r.Clock.Start()
	if p.receiverSub, err = r.Receiver.Subscribe(ctx, r.Store, r.Guard, start); err != nil {
		return err
	}
	if err := p.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		return fmt.Errorf("demo: the replay's first refresh: %w", err)
	}
	r.Logger.Info("demo: replaying the simulator's last 24 hours: its first refresh, 24 hours ago, is the baseline; the demo's webhook receiver is subscribed",
		"at", start.Format(time.RFC3339), "receiver", r.Receiver.URL())
	if err := r.MapCodes(ctx, func(ctx context.Context) error { return p.refresher.Refresh(ctx, refresh.Request{}) }); err != nil {
		return err
	}
	if err := p.invite(ctx); err != nil {
		return err
	}
	phase := func(from, until time.Time, every time.Duration, what string) error {
		t0, before := time.Now(), p.counts
		for at := from.Add(every); !at.After(until); at = at.Add(every) {
			if err := p.step(ctx, at, every); err != nil {
				return err
			}
		}
		c := p.counts
		r.Logger.Info("demo: replayed "+what, "refreshes", c.refreshes-before.refreshes, "clicks", c.clicks-before.clicks,
			"webhook deliveries", c.deliveries-before.deliveries, "took", time.Since(t0).Round(time.Millisecond))
		return nil
	}
	closeFrom := r.Clock.End().Add(-ReplayClose)
	if err := phase(start, closeFrom, time.Hour, fmt.Sprintf("the day's first %.0f hours, a refresh an hour, with invitation clicks and webhook deliveries",
		(Day-ReplayClose).Hours())); err != nil {
		return err
	}
	if err := phase(closeFrom, r.Clock.End(), ReplayCloseEvery, fmt.Sprintf("the day's last %.0f hours, a refresh every %.0f minutes",
		ReplayClose.Hours(), ReplayCloseEvery.Minutes())); err != nil {
		return err
	}
	if err := p.importReturns(ctx, r.Clock.End()); err != nil {
		return err
	}
	return p.summarise(ctx, began)
}

// player is a replay in progress.
type player struct {
	*Replay
	refresher *refresh.Refresher // on Clock
	webhooks  *webhooks.Worker   // on Clock
	// receiverSub is the demo receiver's subscription, the one the
	// replay delivers to.
	receiverSub int64
	handler     *handlers.Handler
	echo        *echo.Echo
	routings    *routingWriter
	// invited are the invitations sent and not yet clicked, each with the
	// step it is clicked at.
	invited []invitation
	// returns are what the field returned of the panelists the clicks
	// sent to a survey (sim.Returns), not yet imported; invitedTo the
	// panelists each subsample's send lists have invited.
	returns   []domain.HistoryRecord
	invitedTo map[int64]map[string]bool
	steps     int
	counts    replayCounts
}

// step plays one point of the day: the refresh at at, the webhook
// worker's turn, the import of the returns registered by then, a send
// list's invitations, and the clicks on the invitations due, at at plus a few minutes each, before the next step
// (every) and the day's end.
func (p *player) step(ctx context.Context, at time.Time, every time.Duration) error {
	p.steps++
	p.Clock.set(at)
	if err := p.refresher.Refresh(ctx, refresh.Request{}); err != nil {
		return fmt.Errorf("demo: the replay's refresh at %s: %w", at.Format(time.RFC3339), err)
	}
	p.counts.refreshes++
	sent, err := p.webhooks.SendDueOf(ctx, p.receiverSub)
	if err != nil {
		return fmt.Errorf("demo: the replay's webhook deliveries at %s: %w", at.Format(time.RFC3339), err)
	}
	p.counts.deliveries += sent
	if err := p.importReturns(ctx, at); err != nil {
		return err
	}
	if err := p.invite(ctx); err != nil {
		return err
	}
	clickAt, until := at.Add(clickAfter), at.Add(every)
	if until.After(p.Clock.End()) {
		until = p.Clock.End()
	}
	kept := p.invited[:0]
	for _, inv := range p.invited {
		if inv.step > p.steps || !clickAt.Before(until) {
			kept = append(kept, inv)
			continue
		}
		p.Clock.set(clickAt)
		if err := p.click(ctx, inv.token); err != nil {
			return err
		}
		clickAt = clickAt.Add(clickEvery)
	}
	p.invited = kept
	return nil
}

// summarise logs what the day left: changes, paced and at-risk
// subsamples, routing decisions and webhook deliveries received.
func (p *player) summarise(ctx context.Context, began time.Time) error {
	_, changes, err := p.Store.Changes(ctx, store.ChangeFilter{}, 1, 0)
	if err != nil {
		return err
	}
	d, err := p.Checks.Current(ctx)
	if err != nil {
		return err
	}
	paced, atRisk := 0, 0
	for _, row := range d.LiveRows() {
		if row.Pacing != nil && row.Pacing.Known() {
			paced++
			if row.Pacing.AtRisk {
				atRisk++
			}
		}
	}
	p.Logger.Info("demo: the simulator's last 24 hours are replayed: see the change feed (/changes), pacing and the at-risk filter (/live), /routing and /webhooks",
		"changes", changes, "live subsamples paced", paced, "at risk", atRisk, "routing decisions", p.routings.n, "returns of those sent", p.counts.returns,
		"webhooks received", p.Receiver.Received(), "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// QuietLogger is logger for the replay's refresher and webhook worker:
// their warnings and errors only, so that a replayed day's refreshes and
// deliveries do not fill the log with a line each.
func QuietLogger(logger *slog.Logger) *slog.Logger {
	return slog.New(atLeast{Handler: logger.Handler(), level: slog.LevelWarn})
}

// atLeast is a handler that passes on the records of level and above.
type atLeast struct {
	slog.Handler
	level slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.level && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{Handler: h.Handler.WithAttrs(attrs), level: h.level}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{Handler: h.Handler.WithGroup(name), level: h.level}
}
