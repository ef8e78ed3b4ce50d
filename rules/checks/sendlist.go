package checks

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// ErrNotSendable is returned for a send list of a subsample that may not
// be sent to now: nobody is on it.
var ErrNotSendable = errors.New("not sendable now")

// notSendable says why a subsample's send list is empty; it is
// ErrNotSendable.
type notSendable string

func (e notSendable) Error() string        { return string(e) }
func (e notSendable) Is(target error) bool { return target == ErrNotSendable }

// bulkChunk is how many panelists a bulk check decides per round: one
// read of their panel rows and profiles, one of their history.
const bulkChunk = 500

// BulkResult is one panelist's line of a bulk check.
type BulkResult struct {
	PanelistID string
	Eligible   bool
	Quota      rules.QuotaVerdict
	Send       bool // rules.Send: sendable, eligible, surely in an open cell
	Reasons    []string
}

// BulkCheck checks many panelists against one live subsample, calling emit
// once per panelist in input order: eligibility, quota verdict and whether
// to send. Panelists are decided bulkChunk at a time, reading their
// panel rows and profiles and only the history records that can matter
// for the subsample's rules, so memory does not grow with the input or
// the history. A chunk's panel rows and profiles are read beside its
// history, on a second reader connection: the two reads take about as
// long, and neither waits for the other.
//
// Each chunk is decided in its turn (takeTurn), and its lines are emitted
// after the turn is given back: a caller that writes them to a slow
// client holds up no other bulk check or send list, and a long bulk check
// lets the others have their turns between its chunks.
func (s *Service) BulkCheck(ctx context.Context, subsampleID int64, panelists iter.Seq[string], emit func(BulkResult) error) error {
	d, t, err := s.liveTarget(ctx, subsampleID)
	if err != nil {
		return err
	}
	now := s.now()
	set := d.rulesOf(subsampleID)
	filter := s.relevantHistory(d, t, set, now)
	subsampleNotSendable := t.notSendable()
	capped := s.capped(ctx, d, t, now)
	// The words the quota sentences name questions and answers by, read
	// before the history is scanned, not on its connection's time.
	words, err := s.quotaWords(ctx, d, t.report.CountryCode, []int{int(d.targetOf[subsampleID])})
	if err != nil {
		return err
	}
	results := make([]BulkResult, 0, bulkChunk)
	// decide decides one chunk into results.
	decide := func(chunk []string) error {
		type read struct {
			facts map[string]store.PanelistFacts
			err   error
		}
		reading := make(chan read, 1)
		go func() {
			facts, err := s.Store.PanelistsOf(ctx, chunk)
			reading <- read{facts, err}
		}()
		var facts map[string]store.PanelistFacts
		var factsErr error
		received := false
		receive := func() error {
			if !received {
				r := <-reading
				facts, factsErr, received = r.facts, r.err, true
			}
			return factsErr
		}
		defer receive() // the chunk is reused once decide returns
		return s.Store.ScanHistory(ctx, slices.Values(chunk), filter, func(id string, records []domain.HistoryRecord) error {
			if err := receive(); err != nil {
				return err
			}
			profile := facts[id].Profile
			pc := PanelistCheck{SubsampleReport: t.report, Panel: d.fitPanel(t, facts[id].Panel), RulesUnread: t.unread,
				Eligibility: s.eligibility(d, t, set, id, records, now), Quota: t.quotaVerdict(profile, now), Capped: capped}
			out := BulkResult{PanelistID: id, Eligible: pc.Eligible(), Quota: pc.Quota, Send: pc.Send()}
			if subsampleNotSendable != "" {
				out.Reasons = append(out.Reasons, subsampleNotSendable)
			}
			if capped != "" {
				out.Reasons = append(out.Reasons, capped)
			}
			if !pc.Panel.Fits {
				out.Reasons = append(out.Reasons, pc.Panel.Reason)
			}
			if pc.RulesUnread != "" {
				out.Reasons = append(out.Reasons, pc.RulesUnread)
			}
			for _, e := range pc.Eligibility.Exclusions {
				out.Reasons = append(out.Reasons, e.Reason)
			}
			if pc.Quota != rules.QuotaFits {
				out.Reasons = append(out.Reasons, t.explainQuota(profile, now, words)...)
			}
			results = append(results, out)
			return nil
		})
	}
	flush := func(chunk []string) error {
		release, err := s.takeTurn(ctx)
		if err != nil {
			return err
		}
		results = results[:0]
		err = decide(chunk)
		release()
		if err != nil {
			return fmt.Errorf("bulk check of subsample %d: %w", subsampleID, err)
		}
		for _, r := range results {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	}
	chunk := make([]string, 0, bulkChunk)
	for id := range panelists {
		if chunk = append(chunk, id); len(chunk) == bulkChunk {
			if err := flush(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if len(chunk) > 0 {
		return flush(chunk)
	}
	return nil
}

// relevantHistory names the history records that can keep a panelist
// out of t at now: those its rules, set, can match (rules.Relevant) and,
// while the quality hold is on, those the hold reads
// (rules.QualityHoldPolicy.Relevant).
func (s *Service) relevantHistory(d *Decisions, t *liveTarget, set domain.EligibilityRules, now time.Time) store.HistoryFilter {
	r := rules.Relevant(t.target, set, d.parents, d.topics)
	return store.HistoryFilter(s.QualityHold.Relevant(r, now))
}

// eligibility decides, from the records relevantHistory read, whether
// the panelist's history lets them into t: its rules (set), then the quality
// hold and a hold by hand, as the rule book and the holds do for one
// panelist (eachLive).
func (s *Service) eligibility(d *Decisions, t *liveTarget, set domain.EligibilityRules, panelistID string, records []domain.HistoryRecord, now time.Time) rules.EligibilityResult {
	r := rules.Eligibility(t.target, set, rules.WithTopics(records, d.topics), d.parents, now)
	return rules.WithQualityHold(r, d.ours.HeldWhy(panelistID, records, s.QualityHold, now))
}

// capped says which of our caps on t has no place left now, "" when
// none: its send list and bulk check send nobody. A panelist's own cap is
// counted where their send is made (the router's), not read per
// panelist here.
func (s *Service) capped(ctx context.Context, d *Decisions, t *liveTarget, now time.Time) string {
	return (&capTaker{s: s, ctx: ctx, ours: d.ours, now: now}).subsample(t.target.SubsampleID, false)
}

// errEnough stops a send list at its limit.
var errEnough = errors.New("limit reached")

// SendList streams the send list of a live subsample: every profiled
// panelist who may enter it now and surely fits an open quota cell
// (rules.Send), their country and language included (rules.FitPanel), in
// panelist id order, with the live entry link of their locale filled for
// them; at most limit of them (0: no limit). A subsample that is not
// sendable, or has no usable live entry link, has nobody on it: the error
// wraps ErrNotSendable with why.
//
// The profiles of the panelists of the subsample's countries are scanned
// once with their panel rows, not the whole panel's: only those whose
// panel row holds one of its countries in a form FitPanel accepts
// (rules.PanelTarget.CountryForms; a pre-filter never narrower than
// FitPanel, which still decides each one read; countries it cannot give
// so have the whole panel read). Only the panelists who fit a cell count
// their history (store.ScanPanelistsWithHistory: on PostgreSQL one query
// with the profiles, elsewhere bulkChunk at a time), so memory does not
// grow with the number of panelists. It is computed in its turn
// (takeTurn), emit called inside it: a caller that writes to a slow client
// writes to a file first, or it holds up every other send list and bulk
// check.
func (s *Service) SendList(ctx context.Context, subsampleID int64, limit int, emit func(panelistID, entryLink string) error) error {
	d, t, err := s.liveTarget(ctx, subsampleID)
	if err != nil {
		return err
	}
	if why := t.notSendable(); why != "" {
		return notSendable(why)
	}
	if why := s.capped(ctx, d, t, s.now()); why != "" {
		return notSendable(fmt.Sprintf("Subsample %d takes nobody now: %s", subsampleID, why))
	}
	if !slices.ContainsFunc(t.panel.Locales, func(l rules.PanelLocale) bool { return l.Usable }) {
		return notSendable(fmt.Sprintf("Subsample %d has no usable live entry link.", subsampleID))
	}
	release, err := s.takeTurn(ctx)
	if err != nil {
		return err
	}
	defer release()
	now := s.now()
	set := d.rulesOf(subsampleID)
	filter := s.relevantHistory(d, t, set, now)
	sent := 0
	var emitErr error // emit's own, handed back as it is
	countries, ok := t.panel.CountryForms()
	err = s.Store.ScanPanelistsWithHistory(ctx, countries, !ok, filter, func(_ string, m domain.PanelMember, p domain.Profile) bool {
		return d.fitPanel(t, m).Fits && t.quotaVerdict(p, now) == rules.QuotaFits
	}, func(id string, m domain.PanelMember, records []domain.HistoryRecord) error {
		pc := PanelistCheck{SubsampleReport: t.report, Panel: rules.PanelFit{Fits: true, Locale: d.fitPanel(t, m).Locale}, RulesUnread: t.unread,
			Quota: rules.QuotaFits, Eligibility: s.eligibility(d, t, set, id, records, now)}
		if !pc.Send() {
			return nil
		}
		link := d.liveLink(pc, id)
		if link == "" {
			return nil
		}
		if err := emit(id, link); err != nil {
			emitErr = err
			return err
		}
		if sent++; limit > 0 && sent >= limit {
			return errEnough
		}
		return nil
	})
	switch {
	case errors.Is(err, errEnough):
		return nil
	case err != nil && err != emitErr:
		return fmt.Errorf("send list of subsample %d: %w", subsampleID, err)
	}
	return err
}

// SendListSize returns how many panelists are on a subsample's send list,
// counted once per version: a subsample page asks on every view, and a
// count scans every profile of the subsample's countries.
func (s *Service) SendListSize(ctx context.Context, subsampleID int64) (int, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return 0, err
	}
	d.memoMu.Lock()
	n, ok := d.sendListSizes[subsampleID]
	d.memoMu.Unlock()
	if ok {
		return n, nil
	}
	if err := s.SendList(ctx, subsampleID, 0, func(string, string) error { n++; return nil }); err != nil {
		return 0, err
	}
	d.memoMu.Lock()
	if d.sendListSizes == nil {
		d.sendListSizes = map[int64]int{}
	}
	d.sendListSizes[subsampleID] = n
	d.memoMu.Unlock()
	return n, nil
}

// SendListPool is what a subsample's send list is drawn from.
type SendListPool struct {
	Countries []string // the subsample's, as the provider names them
	// Profiled counts the panelists with a profile and a panel row in one
	// of Countries: those SendList decides on.
	Profiled int64
	// Whole is set when the countries cannot be given as the panel stores
	// them (rules.PanelTarget.CountryForms): Profiled then counts every
	// profiled panelist, all of whom SendList reads.
	Whole bool
}

// SendListPool returns what a subsample's send list is drawn from, to
// compare its size with: the profiled panelists of the subsample's
// countries, not of the whole panel.
func (s *Service) SendListPool(ctx context.Context, subsampleID int64) (SendListPool, error) {
	_, t, err := s.liveTarget(ctx, subsampleID)
	if err != nil {
		return SendListPool{}, err
	}
	pool := SendListPool{Countries: t.panel.Countries}
	countries, ok := t.panel.CountryForms()
	if pool.Whole = !ok; pool.Whole {
		pool.Profiled, err = s.Store.CountProfiles(ctx)
	} else {
		pool.Profiled, err = s.Store.CountProfiledIn(ctx, countries)
	}
	if err != nil {
		return SendListPool{}, fmt.Errorf("send list pool of subsample %d: %w", subsampleID, err)
	}
	return pool, nil
}

// takeTurn waits for the turn to compute a send list or a chunk of a bulk
// check, or for ctx to end (the client went away); release gives the turn
// back. Waiters are served in the order they came (a channel's), so a
// send list waits for at most the chunk being decided, and bulk checks
// running together take turns chunk by chunk.
func (s *Service) takeTurn(ctx context.Context) (release func(), err error) {
	s.turnOnce.Do(func() { s.turn = make(chan struct{}, 1) })
	select {
	case s.turn <- struct{}{}:
		return func() { <-s.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
