package handlers

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

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
// read of their profiles, one of their history.
const bulkChunk = 500

// liveTarget returns the prepared live subsample subsampleID of the current
// snapshot, or an error wrapping store.ErrNotFound or ErrNotLive. It takes
// the cached snapshot when it is current, and otherwise reads that one
// subsample alone: a command-line send list does not wait for the whole
// snapshot.
func (c *Checker) liveTarget(ctx context.Context, subsampleID int64) (*snapshot, *liveTarget, error) {
	snap, err := c.cachedOr(ctx, func() (*snapshot, error) { return c.load(ctx, subsampleID) })
	if err != nil {
		return nil, nil, err
	}
	if _, ok := snap.byID[subsampleID]; !ok {
		return nil, nil, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
	}
	i, ok := snap.targetOf[subsampleID]
	if !ok {
		return nil, nil, fmt.Errorf("subsample %d: %w", subsampleID, ErrNotLive)
	}
	return snap, &snap.targets[i], nil
}

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
// profiles and only the history records that can matter for the
// subsample's rules, so memory does not grow with the input or the
// history.
func (c *Checker) BulkCheck(ctx context.Context, subsampleID int64, panelists iter.Seq[string], emit func(BulkResult) error) error {
	snap, t, err := c.liveTarget(ctx, subsampleID)
	if err != nil {
		return err
	}
	filter := store.HistoryFilter(rules.Relevant(t.target, t.rules, snap.parents))
	now := c.now()
	decide := func(chunk []string) error {
		profiles, err := c.Store.ProfilesOf(ctx, chunk)
		if err != nil {
			return err
		}
		return c.Store.ScanHistory(ctx, slices.Values(chunk), filter, func(id string, records []domain.HistoryRecord) error {
			profile := profiles[id]
			pc := PanelistCheck{SubsampleReport: t.report, RulesUnread: t.unread,
				Eligibility: rules.Eligibility(t.target, t.rules, records, snap.parents, now), Quota: t.quotaVerdict(profile, now)}
			out := BulkResult{PanelistID: id, Eligible: pc.Eligible(), Quota: pc.Quota, Send: pc.Send()}
			if pc.RulesUnread != "" {
				out.Reasons = append(out.Reasons, pc.RulesUnread)
			}
			for _, e := range pc.Eligibility.Exclusions {
				out.Reasons = append(out.Reasons, e.Reason)
			}
			if pc.Quota != rules.QuotaFits {
				out.Reasons = append(out.Reasons, t.explainQuota(profile, now)...)
			}
			return emit(out)
		})
	}
	chunk := make([]string, 0, bulkChunk)
	for id := range panelists {
		if chunk = append(chunk, id); len(chunk) == bulkChunk {
			if err := decide(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if len(chunk) > 0 {
		return decide(chunk)
	}
	return nil
}

// errEnough stops a send list at its limit.
var errEnough = errors.New("limit reached")

// Targets streams the send list of a live subsample: every profiled
// panelist who may enter it now and surely fits an open quota cell
// (rules.Send), in panelist id order, with the subsample's live entry link
// filled for them; at most limit of them (0: no limit). A subsample that is
// not sendable has nobody on it: the error wraps ErrNotSendable with why.
//
// Profiles are scanned once; only the panelists who fit a cell have their
// history read, bulkChunk at a time, so memory does not grow with the
// number of panelists. One send list is computed at a time.
func (c *Checker) Targets(ctx context.Context, subsampleID int64, limit int, emit func(panelistID, entryLink string) error) error {
	snap, t, err := c.liveTarget(ctx, subsampleID)
	if err != nil {
		return err
	}
	if t.report.Verdict.State != rules.Sendable {
		return notSendable(fmt.Sprintf("Subsample %d is %s now. %s", subsampleID, strings.ToLower(t.report.Verdict.State.Label()), strings.Join(t.report.Verdict.Reasons, " ")))
	}
	link := firstLiveLink(t.report.Links)
	if link.Live == "" {
		return notSendable(fmt.Sprintf("Subsample %d has no usable live entry link.", subsampleID))
	}
	release, err := c.acquireSendList(ctx)
	if err != nil {
		return err
	}
	defer release()
	filter := store.HistoryFilter(rules.Relevant(t.target, t.rules, snap.parents))
	now := c.now()
	sent := 0
	send := func(chunk []string) error {
		return c.Store.ScanHistory(ctx, slices.Values(chunk), filter, func(id string, records []domain.HistoryRecord) error {
			pc := PanelistCheck{SubsampleReport: t.report, RulesUnread: t.unread, Quota: rules.QuotaFits,
				Eligibility: rules.Eligibility(t.target, t.rules, records, snap.parents, now)}
			if !pc.Send() {
				return nil
			}
			filled := withPanelist([]EntryLinks{link}, id, func() []EntryLinks { return firstLinkFor(snap, t, id) })
			if err := emit(id, filled[0].Live); err != nil {
				return err
			}
			if sent++; limit > 0 && sent >= limit {
				return errEnough
			}
			return nil
		})
	}
	// Fitting panelists are collected during the profile scan, and each
	// chunk of them has its history read from inside it: a send list holds
	// two reader connections, which is why one runs at a time.
	var fitting []string
	flush := func() error {
		err := send(fitting)
		fitting = fitting[:0]
		return err
	}
	err = c.Store.ScanProfiles(ctx, func(id string, p domain.Profile) error {
		if t.quotaVerdict(p, now) == rules.QuotaFits {
			fitting = append(fitting, id)
		}
		if len(fitting) == bulkChunk {
			return flush()
		}
		return nil
	})
	if err == nil && len(fitting) > 0 {
		err = flush()
	}
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// firstLiveLink is the first locale's usable live entry link.
func firstLiveLink(links []EntryLinks) EntryLinks {
	for _, l := range links {
		if l.Problem == "" && l.Live != "" {
			return EntryLinks{Locale: l.Locale, Live: l.Live}
		}
	}
	return EntryLinks{}
}

// firstLinkFor prepares the first live link again for one panelist, for a
// link that does not end with the id's place.
func firstLinkFor(snap *snapshot, t *liveTarget, panelistID string) []EntryLinks {
	return []EntryLinks{firstLiveLink(snap.entryLinks(t.report.SubsampleRow, panelistID))}
}

// acquireSendList waits for the turn to compute a send list, or for ctx to
// end (the client went away); release gives the turn back.
func (c *Checker) acquireSendList(ctx context.Context) (release func(), err error) {
	c.sendListOnce.Do(func() { c.sendList = make(chan struct{}, 1) })
	select {
	case c.sendList <- struct{}{}:
		return func() { <-c.sendList }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
