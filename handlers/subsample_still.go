package handlers

import (
	"context"
	"errors"
	"sync"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
)

// subsampleStill is what a subsample's page shows that moves only with
// the snapshot version: its event-list entry, its live details, the state
// of its last fetch, its quotas with their conditions translated, its
// rules in words and the stored counts of its total quota. Every write of
// them moves the version on, so they are read once per version and
// subsample, and kept with the version's decisions (checks.Memo); a view
// then reads only what moves between versions (the refresh lease, the
// invitation clicks of the last 24 hours) and paces the quotas on the
// clock.
type subsampleStill struct {
	summary     domain.SubsampleSummary
	inEventList bool
	// The rest is filled for a live subsample only.
	live          *domain.LiveSubsample
	fetch         *store.QuotaFetch // nil when never fetched
	libraryLocale string
	quotas        []views.QuotaView // without their pace: the caller's copy gets it
	rules         []rules.RuleSentence
	uniqueRule    string
	total         *domain.Quota // the one total quota; nil for none or several
	totalHistory  []store.QuotaPoint
}

// maxStillSubsamples bounds the subsamples whose still parts one version
// keeps: a page of them is a few KiB but for the total quota's stored
// counts, a few hundred points a day of the retention. Beyond it, those
// kept already make room, in no particular order.
const maxStillSubsamples = 64

// stillCache is the still parts of the subsamples asked for in one
// version, by subsample id.
type stillCache struct {
	mu   sync.Mutex
	kept map[int64]*subsampleStill
}

// subsampleStill returns the still parts of parts' subsample, read the
// first time its version asks for them (checks.Memo) and kept with it;
// parts without their decisions are read every time.
func (h *Handler) subsampleStill(ctx context.Context, parts checks.SubsampleParts) (*subsampleStill, error) {
	if parts.Decisions == nil {
		return h.readSubsampleStill(ctx, parts)
	}
	cache, _ := checks.Memo(parts.Decisions, "handlers.subsampleStill", func() (*stillCache, error) {
		return &stillCache{kept: map[int64]*subsampleStill{}}, nil
	})
	id := parts.SubsampleID
	cache.mu.Lock()
	still, ok := cache.kept[id]
	cache.mu.Unlock()
	if ok {
		return still, nil
	}
	still, err := h.readSubsampleStill(ctx, parts)
	if err != nil {
		return nil, err
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if kept, ok := cache.kept[id]; ok {
		return kept, nil // read twice at once: the first one stays
	}
	for other := range cache.kept {
		if len(cache.kept) < maxStillSubsamples {
			break
		}
		delete(cache.kept, other)
	}
	cache.kept[id] = still
	return still, nil
}

// readSubsampleStill reads the still parts of parts' subsample.
func (h *Handler) readSubsampleStill(ctx context.Context, parts checks.SubsampleParts) (*subsampleStill, error) {
	id := parts.SubsampleID
	still := &subsampleStill{}
	var err error
	if still.summary, err = h.Store.SubsampleSummary(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	still.inEventList = err == nil
	if !parts.Live {
		return still, nil
	}
	live, err := h.Store.LiveSubsample(ctx, id)
	if err != nil {
		return nil, err
	}
	still.live = &live
	fetch, err := h.Store.FetchOf(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		still.fetch = &fetch
	}
	lib, err := h.quotaLibraryFor(ctx, parts, live.Locales)
	if err != nil {
		return nil, err
	}
	still.libraryLocale = lib.Locale
	still.quotas = QuotaViews(parts.Quotas, lib)
	if parts.RulesOK != nil {
		still.rules = rules.DescribeRules(parts.Rules)
	}
	still.uniqueRule = rules.UniqueEventRule(parts.EventID)
	if still.total = totalOf(parts.Quotas); still.total != nil {
		if still.totalHistory, err = h.Store.QuotaHistory(ctx, id, still.total.QuotaID); err != nil {
			return nil, err
		}
	}
	return still, nil
}
