package handlers

import (
	"context"
	"errors"
	"fmt"
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
// rules in words, the stored counts of its total quota, and the parts of
// the page made of nothing else, rendered (views.SubsampleStill). Every
// write of them moves the version on, so they are read and rendered once
// per version and subsample, and kept with the version's decisions
// (checks.Memo); a view then reads only what moves between versions (the
// refresh lease, the invitation clicks of the last 24 hours), paces the
// quotas on the clock and renders the parts those show.
type subsampleStill struct {
	// view is the page's view but for what a view adds: its Page, its
	// refresh and clicks, the quotas' pace and the total quota's trend.
	// Its Quotas are shared: a view paces a copy.
	view         views.SubsampleView
	total        *domain.Quota // the one total quota; nil for none or several
	totalHistory []store.QuotaPoint
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
	// The page's times are in h's time zone.
	cache, _ := checks.Memo(parts.Decisions, "handlers.subsampleStill "+h.Location.String(), func() (*stillCache, error) {
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

// readSubsampleStill reads the still parts of parts' subsample, and
// renders them.
func (h *Handler) readSubsampleStill(ctx context.Context, parts checks.SubsampleParts) (*subsampleStill, error) {
	id := parts.SubsampleID
	v := views.SubsampleView{Page: h.page(fmt.Sprintf("Subsample %d", id), "live"), Row: parts.SubsampleRow, Verdict: parts.Verdict, EPC: parts.EPC, Links: parts.Links}
	still := &subsampleStill{}
	var err error
	if v.Summary, err = h.Store.SubsampleSummary(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	v.InEventList = err == nil
	for _, r := range parts.Siblings {
		v.Siblings = append(v.Siblings, views.SiblingView{SubsampleRow: r.SubsampleRow, Verdict: r.Verdict})
	}
	if parts.Live {
		live, err := h.Store.LiveSubsample(ctx, id)
		if err != nil {
			return nil, err
		}
		v.Live = &live
		fetch, err := h.Store.FetchOf(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			v.Fetch = &fetch
		}
		lib, err := h.quotaLibraryFor(ctx, parts, live.Locales)
		if err != nil {
			return nil, err
		}
		v.LibraryLocale = lib.Locale
		v.Quotas = QuotaViews(parts.Quotas, lib)
		if parts.RulesOK != nil {
			v.Rules = rules.DescribeRules(parts.Rules)
		}
		v.UniqueRule = rules.UniqueEventRule(parts.EventID)
		if still.total = totalOf(parts.Quotas); still.total != nil {
			if still.totalHistory, err = h.Store.QuotaHistory(ctx, id, still.total.QuotaID); err != nil {
				return nil, err
			}
		}
	}
	if v.Still, err = views.RenderSubsampleStill(ctx, v); err != nil {
		return nil, err
	}
	still.view = v
	return still, nil
}
