package demo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
)

// The replayed day's send lists and clicks: invitations signed as the
// send lists sign them, each click answered by the invitation link's
// handler, and the returns of the panelists sent imported as a
// supplier's history.

// invitation is a token a panelist was sent, to be clicked at step.
type invitation struct {
	token string
	step  int
}

// Clicks wait this long after a refresh, and each next one this much
// more: all within the checks service's staleness limit.
const (
	clickAfter = 2 * time.Minute
	clickEvery = 3 * time.Minute
)

// invite makes a send list of three panelists not invited there before
// for one of the sendable subsamples (a different one each step) and
// signs each an invitation, clicked at this step, the next one and three
// steps on, when the subsample may have filled or closed; every third
// step a panelist of the panel is also sent an invitation for whatever
// survey the router chooses, clicked at this step.
func (p *player) invite(ctx context.Context) error {
	now := p.Clock.Now()
	d, err := p.Checks.Current(ctx)
	if err != nil {
		return err
	}
	var sendable []int64
	for _, row := range d.LiveRows() {
		if row.Verdict.State == rules.Sendable {
			sendable = append(sendable, row.SubsampleID)
		}
	}
	key, err := p.Store.SigningKey(ctx, now)
	if err != nil {
		return err
	}
	signer, err := invite.NewSigner(key.SigningKey, now, p.InviteTTL, "")
	if err != nil {
		return err
	}
	later := []int{0, 1, 3}
	for try := 0; try < 3 && len(sendable) > 0; try++ {
		subsample := sendable[(p.steps*7+try)%len(sendable)]
		var panelists []string
		invited := p.invitedTo[subsample]
		err := p.Checks.SendList(ctx, subsample, len(later)+len(invited), func(id, _ string) error {
			if !invited[id] && len(panelists) < len(later) {
				panelists = append(panelists, id)
			}
			return nil
		})
		if errors.Is(err, checks.ErrNotSendable) {
			continue
		}
		if err != nil {
			return fmt.Errorf("demo: the replay's send list of subsample %d: %w", subsample, err)
		}
		if invited == nil {
			invited = map[string]bool{}
			p.invitedTo[subsample] = invited
		}
		for i, id := range panelists {
			invited[id] = true
			p.invited = append(p.invited, invitation{token: signer.Token(id, subsample), step: p.steps + later[i]})
		}
		if len(panelists) > 0 {
			break
		}
	}
	if p.steps%3 == 0 {
		id := p.Sim.PanelistID((p.steps*131 + 17) % p.size())
		p.invited = append(p.invited, invitation{token: signer.Token(id, 0), step: p.steps})
	}
	return nil
}

// click answers a click on token with the invitation link's handler
// (handlers.Handler.Redirect), which routes it on the checks service and
// records the decision.
func (p *player) click(ctx context.Context, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/r/"+token, nil)
	if err != nil {
		return err
	}
	c := p.echo.NewContext(req, &discardResponse{header: http.Header{}})
	c.SetParamNames("token")
	c.SetParamValues(token)
	p.routings.last = domain.RoutingDecision{}
	if err := p.handler.Redirect(c); err != nil {
		return fmt.Errorf("demo: a replayed click: %w", err)
	}
	if err := p.routings.err; err != nil {
		return fmt.Errorf("demo: a replayed click: %w", err)
	}
	p.counts.clicks++
	if sent := p.routings.last; sent.Chosen != 0 {
		p.returns = append(p.returns, p.Sim.Returns(p.Seed, sent.PanelistID, sent.Chosen, sent.At)...)
	}
	return nil
}

// importReturns imports the returns registered by until, as a supplier
// imports its history: through the store's import, after which the
// eligibility rules see them.
func (p *player) importReturns(ctx context.Context, until time.Time) error {
	var due []domain.HistoryRecord
	kept := p.returns[:0]
	for _, r := range p.returns {
		if r.RegisteredAt.After(until) {
			kept = append(kept, r)
		} else {
			due = append(due, r)
		}
	}
	p.returns = kept
	if len(due) == 0 {
		return nil
	}
	if _, err := p.Store.ImportHistory(ctx, due); err != nil {
		return fmt.Errorf("demo: the replayed day's returns: %w", err)
	}
	p.counts.returns += len(due)
	return nil
}

// routingWriter records each decision at once (handlers.RoutingRecorder),
// as the server's routing log writes its batches: the replay waits for
// nothing else.
type routingWriter struct {
	store *store.Store
	n     int
	last  domain.RoutingDecision
	err   error
}

func (w *routingWriter) Record(d domain.RoutingDecision) {
	if err := w.store.RecordRoutings(context.Background(), []domain.RoutingDecision{d}); err != nil {
		w.err = err
		return
	}
	w.n++
	w.last = d
}

// discardResponse takes a replayed click's answer, a redirect or a page
// nobody reads.
type discardResponse struct {
	header http.Header
}

func (r *discardResponse) Header() http.Header         { return r.header }
func (r *discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (r *discardResponse) WriteHeader(int)             {}
