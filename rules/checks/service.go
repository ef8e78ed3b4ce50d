// Package checks applies the rules to the current snapshot: which
// subsamples may be sent to, may panelist P enter subsample S, which of a
// list of panelists may, and whom to send to S. The dashboard, the JSON API
// and the command line all ask it, so they give the same answers.
//
// The snapshot is read once per version and decided once (Decisions):
// every subsample's verdict, the live ones prepared for panelist checks and
// their rules compiled into a rule book. A refresh or an import moves the
// version on, and the next question reads it again. Callers may keep what
// they derive from one version beside it (Memo), such as rendered pages;
// the service itself knows nothing of HTTP, pages or encodings.
package checks

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/store"
)

// Service answers the checks on the store's current snapshot. Its zero
// value is not usable: set Store and Now.
type Service struct {
	Store *store.Store
	Now   func() time.Time
	// ProviderLocation is the provider's time zone: a panelist's age for
	// the quota cells is counted on its calendar day. UTC when nil.
	ProviderLocation *time.Location
	// StaleAfter is how old the last successful read of the events may
	// be: past it, every subsample is unknown and no send list is made
	// (rules.Staleness). 0 sets no limit.
	StaleAfter time.Duration
	// EntryURLs are the provider's entry addresses (--entry-url): an entry
	// link outside them is not usable. None checks no link's host, and
	// LinksUnchecked says so.
	EntryURLs rules.EntryURLs
	// QualityHold holds a panelist whose completes were reversed too
	// often (--hold-reversals, --hold-days): they are eligible nowhere.
	// The zero value holds nobody.
	QualityHold rules.QualityHoldPolicy
	// Returns are the settings of the way back (Return).
	Returns Returns
	// FieldCloseFor is how long a cell closed by the field (CloseFromField)
	// stays closed when the provider's counts do not move;
	// rules.DefaultFieldCloseFor when 0.
	FieldCloseFor time.Duration
	// QuotasStale, when set, is told of a subsample whose quotas the field
	// proved wrong (CloseFromField), to read them again soon. It must not
	// block: it is called on the request that reported the return.
	QuotasStale func(subsampleID int64)

	mu             sync.Mutex
	cached         *Decisions // nil until the first read
	staleDecisions *Decisions // the cached ones decided again, as stale or since a field ended (withStaleness)
	loading        sync.Mutex // one read of the whole snapshot at a time
	// turn lets one send list, or one chunk of a bulk check, be computed
	// at a time (takeTurn): each holds up to two of the store's few
	// reader connections (a send list on SQLite its profile scan's and the
	// history's of each chunk of fitting panelists, on PostgreSQL one
	// query's; a bulk check's chunk its history's and its profiles'), and
	// pages need the rest.
	turnOnce sync.Once
	turn     chan struct{}
	// stale is the events' refresh state of one version (staleReasonOf).
	stale staleState
	// refused counts the refused returns (RefusedReturns).
	refused refusedTally
	// links judge survey links after returns (judgeLink).
	links linkJudges
	// caps are the places this instance took under our caps and has not
	// used yet (caps.go).
	caps capStock
}

// ErrNotLive is returned for a subsample that is not live in the current
// snapshot: it has no eligibility rules to check against.
var ErrNotLive = errors.New("not among the live subsamples of the current snapshot")

// Current returns the current snapshot decided, from memory when its
// version is still the store's. It is shared: read-only. When the snapshot
// is stale (StaleAfter), every subsample in it is unknown.
func (s *Service) Current(ctx context.Context) (*Decisions, error) {
	d, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return s.withStaleness(ctx, d, true)
}

// withStaleness returns d when it still holds at the clock, or d decided
// again: with every subsample unknown when the snapshot is too old to
// decide on, and at the clock when a field has ended since d was decided
// (Decisions.endedBy), so a field that ends between two refreshes stops
// every send at that minute. With keep, that one is kept for the next
// call of the same version, reason and ended fields.
func (s *Service) withStaleness(ctx context.Context, d *Decisions, keep bool) (*Decisions, error) {
	why, err := s.staleReasonOf(ctx, d.version)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	ended := d.endedBy(now)
	if why == "" && ended == d.ended {
		return d, nil
	}
	if !keep {
		return d.decidedAt(why, now), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if again := s.staleDecisions; again == nil || again.version != d.version || again.staleReason != why || again.ended != ended {
		s.staleDecisions = d.decidedAt(why, now)
	}
	return s.staleDecisions, nil
}

// StaleReason says why the current snapshot is too old to decide on
// (rules.Staleness), "" when it is not.
func (s *Service) StaleReason(ctx context.Context) (string, error) {
	if s.StaleAfter <= 0 {
		return "", nil
	}
	states, err := s.Store.Datasets(ctx)
	if err != nil {
		return "", fmt.Errorf("check how old the data is: %w", err)
	}
	return staleness(states[store.DatasetEvents], s), nil
}

// LinksUnchecked says that entry links are not checked against the
// provider's entry address (rules.LinksUnchecked) when no EntryURLs are
// set; "" when they are.
func (s *Service) LinksUnchecked() string {
	if len(s.EntryURLs) > 0 {
		return ""
	}
	return rules.LinksUnchecked
}

// current is Current without the staleness.
func (s *Service) current(ctx context.Context) (*Decisions, error) {
	return s.cachedOr(ctx, func() (*Decisions, error) {
		// Requests that miss together wait for one read instead of each
		// making their own.
		s.loading.Lock()
		defer s.loading.Unlock()
		if version, err := s.Store.SnapshotVersion(ctx); err == nil {
			if d := s.cachedAt(version); d != nil {
				return d, nil
			}
		}
		return s.readWhole(ctx)
	})
}

// cachedAt returns the cached decisions if they are of version, else nil.
func (s *Service) cachedAt(version int64) *Decisions {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached != nil && s.cached.version == version {
		return s.cached
	}
	return nil
}

// cachedOr returns the cached decisions when their version is still the
// store's, else what read returns (without caching it).
func (s *Service) cachedOr(ctx context.Context, read func() (*Decisions, error)) (*Decisions, error) {
	version, err := s.Store.SnapshotVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("find the current decisions: %w", err)
	}
	if d := s.cachedAt(version); d != nil {
		return d, nil
	}
	return read()
}

// load reads and decides only subsampleID (every subsample for 0), for a
// single check that should not wait for the whole snapshot; staleness is
// the caller's (withStaleness).
func (s *Service) load(ctx context.Context, subsampleID int64) (*Decisions, error) {
	data, err := s.Store.ReadSnapshot(ctx, subsampleID)
	if err != nil {
		return nil, fmt.Errorf("decide the snapshot: %w", err)
	}
	data.Quotas = compactQuotas(data.Quotas)
	parents, err := s.Store.CategoryParents(ctx)
	if err != nil {
		return nil, fmt.Errorf("decide the snapshot: %w", err)
	}
	topics, err := s.Store.SubsampleTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("decide the snapshot: %w", err)
	}
	locales, err := s.Store.Locales(ctx)
	if err != nil {
		return nil, fmt.Errorf("decide the snapshot: %w", err)
	}
	return decide(data, nil, s.EntryURLs, parents, topics, locales, "", s.Now()), nil
}

// readWhole reads the whole snapshot and keeps it when nothing was written
// while it was read.
func (s *Service) readWhole(ctx context.Context) (*Decisions, error) {
	d, err := s.load(ctx, 0)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.LiveRows(ctx)
	if err != nil {
		return nil, fmt.Errorf("decide the snapshot: %w", err)
	}
	if d.libraryLocales, err = s.Store.LibraryLocales(ctx); err != nil {
		return nil, fmt.Errorf("decide the snapshot: %w", err)
	}
	d.setLiveRows(rows)
	pacing, err := s.totalPacing(ctx, d)
	if err != nil {
		return nil, err
	}
	d.setPacing(pacing)
	d.hold()
	// Keep it only when nothing was written while it was read: the parts
	// come from separate reads.
	if after, err := s.Store.SnapshotVersion(ctx); err == nil && after == d.version {
		s.mu.Lock()
		s.cached = d
		s.mu.Unlock()
	}
	return d, nil
}

// Subsample returns one subsample of the current snapshot, or an error
// wrapping store.ErrNotFound.
func (s *Service) Subsample(ctx context.Context, subsampleID int64) (SubsampleParts, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return SubsampleParts{}, err
	}
	i, ok := d.byID[subsampleID]
	if !ok {
		return SubsampleParts{}, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
	}
	p := SubsampleParts{SubsampleReport: d.reports[i], Quotas: d.quotasOf(subsampleID), Rules: d.rulesOf(subsampleID), LibraryLocales: d.libraryLocales, Decisions: d}
	p.Verdict = rules.WithOurRules(d.verdict(p.SubsampleRow, p.Quotas), p.Ours)
	for _, j := range d.byEvent[d.reports[i].EventID] {
		if j != i {
			p.Siblings = append(p.Siblings, d.reports[j])
		}
	}
	return p, nil
}

// Subsamples returns every subsample of the current snapshot that passes
// filter, with its verdict.
func (s *Service) Subsamples(ctx context.Context, filter SubsampleFilter) ([]SubsampleReport, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SubsampleReport, 0, len(d.reports))
	for _, r := range d.reports {
		if filter.Keeps(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// MustBeLive returns nil when subsampleID is live in the current snapshot,
// and an error wrapping store.ErrNotFound or ErrNotLive when it is not.
// Callers that stream an answer ask it first, so they can still answer 404.
func (s *Service) MustBeLive(ctx context.Context, subsampleID int64) error {
	_, _, err := s.liveTarget(ctx, subsampleID)
	return err
}

// liveTarget returns the prepared live subsample subsampleID of the
// current snapshot, or an error wrapping store.ErrNotFound or ErrNotLive.
// It takes the cached decisions when they are current, and otherwise reads
// that one subsample alone: a command-line send list does not wait for the
// whole snapshot.
func (s *Service) liveTarget(ctx context.Context, subsampleID int64) (*Decisions, *liveTarget, error) {
	d, err := s.cachedOr(ctx, func() (*Decisions, error) { return s.load(ctx, subsampleID) })
	if err == nil {
		// The whole snapshot's decisions decided again are kept; one
		// subsample's read alone is not.
		d, err = s.withStaleness(ctx, d, s.cachedAt(d.version) == d)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, ok := d.byID[subsampleID]; !ok {
		return nil, nil, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
	}
	i, ok := d.targetOf[subsampleID]
	if !ok {
		return nil, nil, fmt.Errorf("subsample %d: %w", subsampleID, ErrNotLive)
	}
	return d, &d.targets[i], nil
}

// now is the time of a check in the provider's time zone.
func (s *Service) now() time.Time {
	if s.ProviderLocation == nil {
		return s.Now().UTC()
	}
	return s.Now().In(s.ProviderLocation)
}
