package checks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
)

// Returns are the service's settings for the way back: how a return is
// matched to a send and how far a session goes. The zero value matches
// returns within DefaultReturnWindow, checks no signature, flags no
// complete as too fast and routes on up to DefaultMaxHops surveys.
type Returns struct {
	// Window is how long after a send its return is accepted
	// (--return-window).
	Window time.Duration
	// MaxHops is how many surveys one session sends a respondent to
	// (--max-hops): a return from the last is not routed on.
	MaxHops int
	// Signature, when it has a secret, refuses a return address not
	// signed with it (--return-secret).
	Signature rules.ReturnSignature
	// TooFastShare flags a complete returned sooner than this share of
	// the survey's expected length (--too-fast-share; 0 flags none).
	TooFastShare float64
	// Pending, when set, writes the sends still queued for the routing
	// log: a return that finds no send asks it once before it is refused,
	// since a click's send is recorded a moment after its redirect.
	Pending func(ctx context.Context) error
	// Queued, when set, says whether a send of the panelist is still
	// queued for the routing log: a return then asks Pending first, since
	// the newest send, the one the respondent returns from, may be it.
	Queued func(panelistID string) bool
	// JudgeLinksAfter is how long after a return other than a complete
	// its subsample's survey link is judged (judgeLink): the returns of
	// a subsample within it are judged together. 0 judges at once, in the
	// background.
	JudgeLinksAfter time.Duration
	// Logger, when set, logs each refused return with its reason.
	Logger *slog.Logger
}

// Defaults of Returns.
const (
	DefaultReturnWindow = 24 * time.Hour
	DefaultMaxHops      = 3
)

func (r Returns) window() time.Duration {
	if r.Window <= 0 {
		return DefaultReturnWindow
	}
	return r.Window
}

func (r Returns) maxHops() int {
	if r.MaxHops <= 0 {
		return DefaultMaxHops
	}
	return r.MaxHops
}

// The reasons a return is refused, as /routing, /metrics and the log
// count them.
const (
	RefusedNoSend       = "no open send"
	RefusedReturned     = "already returned"
	RefusedNotOnPanel   = "not on the panel"
	RefusedBadSignature = "bad signature"
)

// RefusedReasons are the reasons, in the order pages list them.
var RefusedReasons = []string{RefusedNoSend, RefusedReturned, RefusedNotOnPanel, RefusedBadSignature}

// Return is a respondent coming back from a survey.
type Return struct {
	PanelistID string // the id the entry link carried
	StatusID   int64  // domain.ReturnComplete, ReturnScreenOut or ReturnQuotaFull
	At         time.Time
	Via        string // domain.ReturnByRedirect or ReturnByPost
	// Address is the return address's path and raw query as received,
	// for the signature; a post (ReturnByPost) is not signed: its sender
	// signed in with a token.
	Address string
}

// ReturnResult is what became of a return: recorded against a send or
// refused (Refused, with Why), and where the respondent goes next.
type ReturnResult struct {
	Refused string // one of RefusedReasons; "" when recorded
	Why     string // a sentence
	// Send is the send the return was recorded against (zero when
	// refused); TooFast flags a complete doubted for its speed.
	Send    domain.RoutingDecision
	TooFast bool
	// Next is the survey the respondent is sent on to, decided by the
	// router (Link "" when none): set for a recorded return other than a
	// complete, for the routing log; zero otherwise.
	Next Routed
}

// refusedTally counts refused returns by reason, since the service began.
type refusedTally struct {
	mu     sync.Mutex
	counts map[string]int64
}

func (t *refusedTally) add(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		t.counts = map[string]int64{}
	}
	t.counts[reason]++
}

// RefusedReturns counts the returns this service refused since it began,
// by reason (every one of RefusedReasons, 0 included).
func (s *Service) RefusedReturns() map[string]int64 {
	s.refused.mu.Lock()
	defer s.refused.mu.Unlock()
	out := make(map[string]int64, len(RefusedReasons))
	for _, r := range RefusedReasons {
		out[r] = s.refused.counts[r]
	}
	return out
}

// Return records a respondent's return against their open send (the
// newest send to them within Returns.Window, not returned yet), writes it
// to the history as that status at that time (store.RecordReturn), and,
// for a return other than a complete, decides the survey they are sent on
// to with that record counted (Route's decision, so never a second
// subsample of an event they just left), while the session has had fewer
// than Returns.MaxHops surveys. A return that cannot be believed is
// refused and counted (RefusedReturns): a bad signature, an id not on
// the panel, no open send, or a send returned already. A return other
// than a complete may flag the subsample's survey link as possibly broken
// in the change feed (judgeLink).
func (s *Service) Return(ctx context.Context, r Return) (ReturnResult, error) {
	res, p, err := s.recordReturn(ctx, r)
	if err != nil || res.Refused != "" {
		if res.Refused != "" {
			s.refused.add(res.Refused)
			if s.Returns.Logger != nil {
				s.Returns.Logger.Info("return refused", "reason", res.Refused, "status", domain.ReturnCodeName(r.StatusID), "via", r.Via, "why", res.Why)
			}
		}
		return res, err
	}
	if r.StatusID == domain.ReturnComplete {
		return res, nil
	}
	res.Next, err = s.routeOn(ctx, r, res.Send, p)
	return res, err
}

// recordReturn is Return's recording: the send found, the return checked
// and written. It returns the panelist as read before, their history
// holding the return's record as well: what routeOn decides on when the
// snapshot has not moved since.
func (s *Service) recordReturn(ctx context.Context, r Return) (ReturnResult, *Panelist, error) {
	status := domain.ReturnCodeName(r.StatusID)
	if rules.ReturnStatusName(r.StatusID) == "" {
		return ReturnResult{}, nil, fmt.Errorf("status %d is not one a respondent is returned with", r.StatusID)
	}
	if r.Via != domain.ReturnByPost {
		if why := s.Returns.Signature.Check(r.Address); why != "" {
			return ReturnResult{Refused: RefusedBadSignature, Why: why}, nil, nil
		}
	}
	// The panelist and their newest send, read with one statement.
	since := r.At.Add(-s.Returns.window())
	read := func() (store.PanelistRows, error) { return s.Store.PanelistRowsWithSend(ctx, r.PanelistID, since) }
	rows, err := read()
	if err != nil {
		return ReturnResult{}, nil, fmt.Errorf("record a return: %w", err)
	}
	p, err := s.readPanelist(ctx, rows, read)
	if err != nil {
		return ReturnResult{}, nil, fmt.Errorf("record a return: %w", err)
	}
	if !p.rows.OnPanel {
		return ReturnResult{Refused: RefusedNotOnPanel, Why: fmt.Sprintf("Panelist %q is not on the panel.", r.PanelistID)}, nil, nil
	}
	var send domain.RoutingDecision
	err = store.ErrNotFound
	if p.rows.LastSend != nil {
		send, err = *p.rows.LastSend, nil
	}
	// A send is written a moment after its redirect (the routing log): a
	// respondent back sooner finds none, or the send before it (returned
	// or not). Once what is queued is written, the newest is theirs.
	if s.Returns.Pending != nil && (errors.Is(err, store.ErrNotFound) || err == nil && send.ReturnStatus != 0 ||
		s.Returns.Queued != nil && s.Returns.Queued(r.PanelistID)) {
		if err := s.Returns.Pending(ctx); err != nil {
			return ReturnResult{}, nil, fmt.Errorf("record a return: %w", err)
		}
		send, err = s.Store.LastSend(ctx, r.PanelistID, since)
	}
	if errors.Is(err, store.ErrNotFound) {
		return ReturnResult{Refused: RefusedNoSend, Why: fmt.Sprintf("Panelist %q was sent to no survey in the %s before this %s.", r.PanelistID, s.Returns.window(), status)}, nil, nil
	}
	if err != nil {
		return ReturnResult{}, nil, fmt.Errorf("record a return: %w", err)
	}
	res := ReturnResult{Send: send}
	if r.StatusID == domain.ReturnComplete {
		res.TooFast = rules.TooFast(r.At.Sub(send.At), p.d.expectedLOI(send.Chosen), s.Returns.TooFastShare)
	}
	flag := ""
	if res.TooFast {
		flag = domain.ReturnTooFast
	}
	d := p.d
	rec := d.returnRecord(r, send.Chosen)
	err = s.Store.RecordReturn(ctx, store.Returned{Send: send, Record: rec, Flag: flag, Via: r.Via})
	// The one check of a second return: the store marks a send returned
	// only while it is not, whoever else marks it at the same moment.
	if errors.Is(err, store.ErrAlreadyReturned) {
		return ReturnResult{Refused: RefusedReturned, Why: fmt.Sprintf("Panelist %q's last send, to subsample %d, was returned already.", r.PanelistID, send.Chosen)}, nil, nil
	}
	if err != nil {
		return ReturnResult{}, nil, err
	}
	// The record just written, counted as a read would count it now: the
	// history is newest first.
	p.rows.History = append([]domain.HistoryRecord{rec}, p.rows.History...)
	if r.StatusID == domain.ReturnQuotaFull {
		// The field proved the provider's quotas wrong for the cells the
		// panelist was judged to fall in: closed at once, and read again.
		if cells := parseCells(send.Cells); len(cells) > 0 {
			if err := s.CloseFromField(ctx, send.Chosen, cells, r.At); err != nil {
				return ReturnResult{}, nil, fmt.Errorf("record a return: %w", err)
			}
			p = nil // the closure moved the snapshot on: routeOn reads it again
		} else if s.QuotasStale != nil {
			s.QuotasStale(send.Chosen)
		}
	}
	if r.StatusID != domain.ReturnComplete {
		// The flag is the coordinator's to act on: judged after the
		// answer, it costs the respondent nothing.
		s.judgeLink(send.Chosen)
	}
	res.Why = fmt.Sprintf("Recorded as %s from subsample %d.", status, send.Chosen)
	if res.TooFast {
		res.Why += " Flagged: returned sooner than the survey's length makes believable."
	}
	return res, p, nil
}

// routeOn decides where a respondent returned from send goes next:
// Route's decision for no subsample in particular, the next hop of the
// session, on p (the panelist with the return's record) or, when nil, on
// the panelist read again.
func (s *Service) routeOn(ctx context.Context, r Return, send domain.RoutingDecision, p *Panelist) (Routed, error) {
	came := fmt.Sprintf("Returned as %s from subsample %d.", domain.ReturnCodeName(r.StatusID), send.Chosen)
	hop := max(send.Hop, 1) + 1
	if hop > s.Returns.maxHops() {
		return Routed{RoutingDecision: domain.RoutingDecision{At: s.now(), PanelistID: r.PanelistID, Outcome: domain.RoutedNone, Hop: hop, After: send.DecisionID,
			Reason: fmt.Sprintf("%s The session has had its %d surveys; no more are offered.", came, s.Returns.maxHops())}}, nil
	}
	if p == nil {
		var err error
		if p, err = s.ReadPanelist(ctx, r.PanelistID); err != nil {
			return Routed{}, fmt.Errorf("route a returned respondent on: %w", err)
		}
	}
	next := p.route(ctx, invite.Invitation{PanelistID: r.PanelistID})
	next.Hop, next.After = hop, send.DecisionID
	next.Reason = came + " " + next.Reason
	if next.Chosen != 0 {
		next.Outcome = domain.RoutedOnReturn
	}
	return next, nil
}

// expectedLOI is the expected length of interview, in minutes, of the
// subsample, nil when the snapshot gives none.
func (d *Decisions) expectedLOI(subsampleID int64) *float64 {
	if i, ok := d.byID[subsampleID]; ok {
		return d.reports[i].ExpectedLOI
	}
	return nil
}

// returnRecord is the history record of a return from subsampleID: its
// event, research type and first specific category as the snapshot and
// the topics seen tell them (0 when unknown).
func (d *Decisions) returnRecord(r Return, subsampleID int64) domain.HistoryRecord {
	rec := domain.HistoryRecord{PanelistID: r.PanelistID, SubsampleID: subsampleID, StatusID: r.StatusID, RegisteredAt: r.At}
	t, _ := d.topics.Of(subsampleID)
	rec.ResearchTypeID = t.ResearchTypeID
	if len(t.CategoryIDs) > 0 {
		rec.CategoryID = t.CategoryIDs[0]
	}
	if i, ok := d.byID[subsampleID]; ok {
		rec.EventID = d.reports[i].EventID
	} else if len(t.EventIDs) > 0 {
		rec.EventID = t.EventIDs[0]
	}
	return rec
}
