package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
)

// Checker answers the questions the product exists for, on the current
// snapshot: which subsamples may be sent to, may panelist P enter
// subsample S, and which of a list of panelists may. The dashboard, the
// JSON API and the command line all ask it, so they agree.
//
// The whole snapshot, with every subsample's verdict, is read once per
// snapshot version and kept: pages and the API then answer from memory,
// and a refresh (a new version) makes the next request read it again.
type Checker struct {
	Store *store.Store
	Now   func() time.Time
	// ProviderLocation is the provider's time zone: a panelist's age for
	// the quota cells is counted on its calendar day. UTC when nil.
	ProviderLocation *time.Location

	mu      sync.Mutex
	cached  *snapshot  // nil until the first read
	loading sync.Mutex // one read of the whole snapshot at a time
	// sendList lets one send list be computed at a time: each holds two
	// of the store's few reader connections (the profile scan's, and the
	// history's of each chunk of fitting panelists read inside it), and
	// pages need the rest.
	sendListOnce sync.Once
	sendList     chan struct{}
}

// ErrNotLive is returned for a subsample that is not live in the current
// snapshot: it has no eligibility rules to check against.
var ErrNotLive = errors.New("not among the live subsamples of the current snapshot")

// SubsampleReport is a subsample with its sendability verdict and its
// entry links prepared for sending.
type SubsampleReport struct {
	store.SubsampleRow
	Verdict rules.Verdict
	Links   []EntryLinks
	// EPC is the expected earnings per entrant of a live subsample.
	EPC rules.EPC
}

// EntryLinks are one locale's entry links, prepared by rules.EntryLink. A
// link that is not a valid http(s) address is left empty with the reason.
type EntryLinks struct {
	Locale  string `json:"locale"`
	Live    string `json:"live,omitempty"`
	Testing string `json:"testing,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// snapshot is what the checks read of the current snapshot, in one read
// transaction, with the verdicts decided on it.
type snapshot struct {
	version int64
	rows    []store.SubsampleRow
	quotas  map[int64][]domain.Quota
	rules   map[int64]domain.EligibilityRules
	links   map[int64][]domain.SubsampleLocale
	parents domain.CategoryParents
	// reports are rows with their verdicts and entry links (no panelist),
	// in the same order; live the live list's rows.
	reports []SubsampleReport
	byID    map[int64]int   // index of a subsample in rows and reports
	byEvent map[int64][]int // indexes of an event's subsamples
	// libraryLocales are the locales with a stored question library.
	libraryLocales map[string]time.Time
	// targets are the live subsamples prepared for panelist checks, in the
	// order a panelist's surveys are listed, and book their rules.
	targets     []liveTarget
	targetOf    map[int64]int // index in targets of a live subsample
	book        *rules.RuleBook
	live        []views.LiveRow
	liveOptions views.LiveOptions

	// fragments are parts of pages rendered from this snapshot alone (the
	// live list for a query), and targetCounts the sizes of send lists,
	// kept until the version changes (imports of history and profiles
	// move it on too).
	fragMu       sync.Mutex
	fragments    map[string][]byte
	targetCounts map[int64]int
}

// TargetCount returns how many panelists are on a subsample's send list,
// counted once per version: a subsample page asks on every view, and a
// count scans every profile.
func (c *Checker) TargetCount(ctx context.Context, subsampleID int64) (int, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return 0, err
	}
	snap.fragMu.Lock()
	n, ok := snap.targetCounts[subsampleID]
	snap.fragMu.Unlock()
	if ok {
		return n, nil
	}
	if err := c.Targets(ctx, subsampleID, 0, func(string, string) error { n++; return nil }); err != nil {
		return 0, err
	}
	snap.fragMu.Lock()
	if snap.targetCounts == nil {
		snap.targetCounts = map[int64]int{}
	}
	snap.targetCounts[subsampleID] = n
	snap.fragMu.Unlock()
	return n, nil
}

// maxFragments bounds the fragments kept per snapshot; beyond it they are
// rendered every time.
const maxFragments = 256

// LiveFragment returns the page part called key, rendered by build from
// the live rows and filter choices of the current snapshot the first time
// and kept with the snapshot: asked again, it costs a map lookup. build's
// output must depend on nothing but those rows and key.
func (c *Checker) LiveFragment(ctx context.Context, key string, build func(rows []views.LiveRow, options views.LiveOptions) ([]byte, error)) ([]byte, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	snap.fragMu.Lock()
	b, ok := snap.fragments[key]
	snap.fragMu.Unlock()
	if ok {
		return b, nil
	}
	if b, err = build(snap.live, snap.liveOptions); err != nil {
		return nil, err
	}
	snap.fragMu.Lock()
	if snap.fragments == nil {
		snap.fragments = map[string][]byte{}
	}
	if len(snap.fragments) < maxFragments {
		snap.fragments[key] = b
	}
	snap.fragMu.Unlock()
	return b, nil
}

// load reads only subsampleID, for a single check that should not wait for
// the whole snapshot.
func (c *Checker) load(ctx context.Context, subsampleID int64) (*snapshot, error) {
	d, err := c.Store.CheckData(ctx, subsampleID)
	if err != nil {
		return nil, err
	}
	parents, err := c.Store.CategoryParents(ctx)
	if err != nil {
		return nil, err
	}
	snap := &snapshot{version: d.Version, rows: d.Rows, quotas: d.Quotas, rules: d.Rules, links: d.Links, parents: parents}
	snap.reports = make([]SubsampleReport, len(snap.rows))
	snap.byID = make(map[int64]int, len(snap.rows))
	snap.byEvent = make(map[int64][]int)
	for i, row := range snap.rows {
		snap.reports[i] = snap.report(row)
		snap.byID[row.SubsampleID] = i
		snap.byEvent[row.EventID] = append(snap.byEvent[row.EventID], i)
	}
	snap.prepareTargets()
	return snap, nil
}

// cachedAt returns the cached snapshot if it is of version, else nil.
func (c *Checker) cachedAt(version int64) *snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cached != nil && c.cached.version == version {
		return c.cached
	}
	return nil
}

// cachedOr returns the cached snapshot when its version is still the
// store's, else what read returns (without caching it).
func (c *Checker) cachedOr(ctx context.Context, read func() (*snapshot, error)) (*snapshot, error) {
	version, err := c.Store.SnapshotVersion(ctx)
	if err != nil {
		return nil, err
	}
	if snap := c.cachedAt(version); snap != nil {
		return snap, nil
	}
	return read()
}

// current returns the whole snapshot, from memory when its version is still
// the store's.
func (c *Checker) current(ctx context.Context) (*snapshot, error) {
	return c.cachedOr(ctx, func() (*snapshot, error) {
		// Requests that miss together wait for one read instead of each
		// making their own.
		c.loading.Lock()
		defer c.loading.Unlock()
		if version, err := c.Store.SnapshotVersion(ctx); err == nil {
			if snap := c.cachedAt(version); snap != nil {
				return snap, nil
			}
		}
		return c.readWhole(ctx)
	})
}

// readWhole reads the whole snapshot and keeps it when nothing was written
// while it was read.
func (c *Checker) readWhole(ctx context.Context) (*snapshot, error) {
	snap, err := c.load(ctx, 0)
	if err != nil {
		return nil, err
	}
	rows, err := c.Store.LiveRows(ctx)
	if err != nil {
		return nil, err
	}
	if snap.libraryLocales, err = c.Store.LibraryLocales(ctx); err != nil {
		return nil, err
	}
	// The live list's rows take the verdicts just decided for the reports.
	snap.live = make([]views.LiveRow, len(rows))
	for i, r := range rows {
		row := views.LiveRow{LiveRow: r, Verdict: rules.Verdict{State: rules.Unknown, Reasons: []string{"The data changed while it was read; reload the page."}}}
		if j, ok := snap.byID[r.SubsampleID]; ok {
			row.Verdict, row.EPC = snap.reports[j].Verdict, snap.reports[j].EPC
		}
		snap.live[i] = row
	}
	snap.liveOptions = liveOptions(snap.live)
	// Keep it only when nothing was written while it was read: the parts
	// come from separate reads.
	if after, err := c.Store.SnapshotVersion(ctx); err == nil && after == snap.version {
		c.mu.Lock()
		c.cached = snap
		c.mu.Unlock()
	}
	return snap, nil
}

// LiveRows returns the live subsamples with their sendability verdicts,
// and the choices of the live list's filters. The caller must not modify
// them.
func (c *Checker) LiveRows(ctx context.Context) ([]views.LiveRow, views.LiveOptions, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return nil, views.LiveOptions{}, err
	}
	return snap.live, snap.liveOptions, nil
}

// SubsampleParts is one subsample as the current snapshot holds it, with
// its verdict. Quotas and Rules are the snapshot's: read-only.
type SubsampleParts struct {
	SubsampleReport
	Quotas   []domain.Quota
	Rules    domain.EligibilityRules
	Siblings []SubsampleReport // the other subsamples of its event
	// LibraryLocales are the locales whose question library is stored,
	// lowercase, with when each was read.
	LibraryLocales map[string]time.Time
}

// Subsample returns one subsample of the current snapshot, or an error
// wrapping store.ErrNotFound.
func (c *Checker) Subsample(ctx context.Context, subsampleID int64) (SubsampleParts, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return SubsampleParts{}, err
	}
	i, ok := snap.byID[subsampleID]
	if !ok {
		return SubsampleParts{}, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
	}
	p := SubsampleParts{SubsampleReport: snap.reports[i], Quotas: snap.quotas[subsampleID], Rules: snap.rules[subsampleID], LibraryLocales: snap.libraryLocales}
	for _, j := range snap.byEvent[snap.rows[i].EventID] {
		if j != i {
			p.Siblings = append(p.Siblings, snap.reports[j])
		}
	}
	return p, nil
}

// facts gathers what sendability is decided on for one subsample.
func facts(row store.SubsampleRow, quotas []domain.Quota) rules.SubsampleFacts {
	f := rules.SubsampleFacts{
		Status:        row.Status,
		APICompatible: row.APICompatible,
		Currency:      row.Currency,
		Quotas:        quotas,
		QuotasLoaded:  row.QuotasOK != nil && *row.QuotasOK,
		QuotasError:   row.QuotasError,
	}
	if row.CPI != nil {
		f.CPI = *row.CPI
	}
	if !row.Live {
		f.Unlisted, f.QuotasLoaded = true, false
	} else if row.QuotasOK == nil {
		f.QuotasError = "not read yet"
	}
	return f
}

// report builds one subsample's report, its entry links prepared for no
// panelist in particular.
func (snap *snapshot) report(row store.SubsampleRow) SubsampleReport {
	quotas := snap.quotas[row.SubsampleID]
	r := SubsampleReport{SubsampleRow: row, Verdict: rules.Sendability(facts(row, quotas))}
	r.Links = snap.entryLinks(row, "")
	if row.Live && row.CPI != nil {
		r.EPC = rules.ExpectedEarnings(*row.CPI, row.Currency, rules.FieldConversion(quotas), row.ExpectedIR)
	}
	return r
}

// withPanelist fills the empty trailing id of prepared links with
// panelistID, query-escaped, as rules.EntryLink would, without parsing
// each link again. A link that does not end in an empty id (it has a
// fragment) is prepared again by slow().
func withPanelist(links []EntryLinks, panelistID string, slow func() []EntryLinks) []EntryLinks {
	id := url.QueryEscape(panelistID)
	out := make([]EntryLinks, len(links))
	for i, l := range links {
		if l.Problem != "" || !strings.HasSuffix(l.Live, "id=") || l.Testing != "" && !strings.HasSuffix(l.Testing, "id=") {
			return slow()
		}
		out[i] = EntryLinks{Locale: l.Locale, Live: l.Live + id}
		if l.Testing != "" {
			out[i].Testing = l.Testing + id
		}
	}
	return out
}

// entryLinks prepares a subsample's entry links, filled for panelistID
// when it is not empty.
func (snap *snapshot) entryLinks(row store.SubsampleRow, panelistID string) []EntryLinks {
	var out []EntryLinks
	for _, l := range snap.links[row.SubsampleID] {
		links := EntryLinks{Locale: l.Name}
		var errLive, errTesting error
		links.Live, errLive = rules.EntryLink(l.LiveEntryLink, row.APICompatible, panelistID)
		links.Testing, errTesting = rules.EntryLink(l.TestingEntryLink, row.APICompatible, panelistID)
		if err := errors.Join(errLive, errTesting); err != nil {
			links.Problem = err.Error()
		}
		out = append(out, links)
	}
	return out
}

// SubsampleFilter narrows Subsamples; empty fields match everything.
type SubsampleFilter struct {
	Status      string
	Sendability rules.State
	Country     string // country code, any case
}

// Subsamples returns every subsample of the current snapshot that passes
// filter, with its verdict.
func (c *Checker) Subsamples(ctx context.Context, filter SubsampleFilter) ([]SubsampleReport, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SubsampleReport, 0, len(snap.rows))
	for i, row := range snap.rows {
		if filter.Status != "" && domain.NormalizeStatus(filter.Status) != row.Status {
			continue
		}
		if filter.Country != "" && !strings.EqualFold(filter.Country, row.CountryCode) {
			continue
		}
		r := snap.reports[i]
		if filter.Sendability != "" && r.Verdict.State != filter.Sendability {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// PanelistCheck is whether one panelist may enter one subsample now.
type PanelistCheck struct {
	*SubsampleReport // the snapshot's, shared: read-only
	Eligibility      rules.EligibilityResult
	// RulesUnread is set when the subsample's eligibility rules could not
	// be read: the panelist is then not eligible, since nothing confirms it.
	RulesUnread string
	// Quota is the panelist's quota verdict: do they fit an open cell?
	Quota rules.QuotaVerdict
	// QuotaWhy explains a quota verdict other than fits, a sentence per
	// table; filled by PanelistSurveys and Eligibility, not by the JSON
	// writer.
	QuotaWhy []string
	// PanelistLinks are the entry links filled for the panelist; set only
	// when the panelist may enter.
	PanelistLinks []EntryLinks
}

// Eligible reports whether no rule excludes the panelist and the rules
// were read.
func (p PanelistCheck) Eligible() bool { return p.RulesUnread == "" && p.Eligibility.Eligible }

// MayEnter reports whether the panelist may be sent in now (rules.MayEnter).
func (p PanelistCheck) MayEnter() bool { return rules.MayEnter(p.Verdict.State, p.Eligible(), p.Quota) }

// Send reports whether the panelist belongs on the send list (rules.Send).
func (p PanelistCheck) Send() bool { return rules.Send(p.Verdict.State, p.Eligible(), p.Quota) }

// Eligibility checks one panelist against one live subsample, reading only
// that subsample.
func (c *Checker) Eligibility(ctx context.Context, panelistID string, subsampleID int64) (PanelistCheck, error) {
	snap, err := c.load(ctx, subsampleID)
	if err != nil {
		return PanelistCheck{}, err
	}
	if len(snap.rows) == 0 {
		return PanelistCheck{}, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
	}
	checks, err := c.checks(ctx, panelistID, snap)
	if err != nil {
		return PanelistCheck{}, err
	}
	if len(checks) == 0 {
		return PanelistCheck{}, fmt.Errorf("subsample %d: %w", subsampleID, ErrNotLive)
	}
	return checks[0], nil
}

// PanelistSurveys checks one panelist against every live subsample, with
// entry links filled for the panelist where they may enter.
func (c *Checker) PanelistSurveys(ctx context.Context, panelistID string) ([]PanelistCheck, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	return c.checks(ctx, panelistID, snap)
}

// checks collects eachCheck's answers, with entry links filled for the
// panelist where they may enter and the quota verdicts explained.
func (c *Checker) checks(ctx context.Context, panelistID string, snap *snapshot) ([]PanelistCheck, error) {
	out := make([]PanelistCheck, 0, len(snap.targets))
	err := c.eachCheck(ctx, panelistID, snap, func(t *liveTarget, profile domain.Profile, pc PanelistCheck) {
		if pc.MayEnter() {
			pc.PanelistLinks = withPanelist(pc.Links, panelistID, func() []EntryLinks { return snap.entryLinks(pc.SubsampleRow, panelistID) })
		}
		if pc.Quota != rules.QuotaFits {
			pc.QuotaWhy = t.explainQuota(profile, c.now())
		}
		out = append(out, pc)
	})
	return out, err
}

// now is the time of a check in the provider's time zone.
func (c *Checker) now() time.Time {
	if c.ProviderLocation == nil {
		return c.Now().UTC()
	}
	return c.Now().In(c.ProviderLocation)
}

// eachCheck decides, for every live subsample of snap in rank order,
// whether the panelist may enter it, and hands each answer to fn. The
// panelist's history is read once and checked by the snapshot's rule book.
func (c *Checker) eachCheck(ctx context.Context, panelistID string, snap *snapshot, fn func(*liveTarget, domain.Profile, PanelistCheck)) error {
	history, err := c.Store.HistoryOf(ctx, panelistID)
	if err != nil {
		return err
	}
	profile, err := c.Store.ProfileOf(ctx, panelistID)
	if err != nil {
		return err
	}
	now := c.now()
	snap.book.Check(history, now, func(i int, r rules.EligibilityResult) {
		t := &snap.targets[i]
		fn(t, profile, PanelistCheck{SubsampleReport: t.report, RulesUnread: t.unread, Eligibility: r, Quota: t.quotaVerdict(profile, now)})
	})
	return nil
}
