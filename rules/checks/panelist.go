package checks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// PanelistCheck is whether one panelist may enter one subsample now.
type PanelistCheck struct {
	*SubsampleReport // the decisions', shared: read-only
	// Panel says whether the panelist's country and language let them be
	// sent, and through which locale's entry link.
	Panel       rules.PanelFit
	Eligibility rules.EligibilityResult
	// RulesUnread is set when the subsample's eligibility rules could not
	// be read: the panelist is then not eligible, since nothing confirms it.
	RulesUnread string
	// Quota is the panelist's quota verdict: do they fit an open cell?
	Quota rules.QuotaVerdict
	// QuotaWhy explains a quota verdict other than fits, a sentence per
	// table; filled by PanelistSurveys and Eligibility, not by EachLive.
	QuotaWhy []string
	// PanelistLinks are the entry links of the panelist's locale
	// (Panel.Locale) filled for them; set by PanelistSurveys and
	// Eligibility only when the panelist may enter.
	PanelistLinks []EntryLinks
	// Capped says which of our caps has no place left for the panelist on
	// the subsample ("" when none): they are not sent there now. Filled by
	// the checks that read the caps (capTaker), not by EachLive.
	Capped string
}

// Eligible reports whether the panelist's country and language fit, the
// rules were read and none excludes the panelist.
func (p PanelistCheck) Eligible() bool {
	return p.Panel.Fits && p.RulesUnread == "" && p.Eligibility.Eligible
}

// MayEnter reports whether the panelist may be sent in now (rules.MayEnter)
// and none of our caps is reached.
func (p PanelistCheck) MayEnter() bool {
	return p.Capped == "" && rules.MayEnter(p.Verdict.State, p.Eligible(), p.Quota)
}

// Send reports whether the panelist belongs on the send list (rules.Send)
// and none of our caps is reached.
func (p PanelistCheck) Send() bool {
	return p.Capped == "" && rules.Send(p.Verdict.State, p.Eligible(), p.Quota)
}

// Eligibility checks one panelist against one live subsample, reading only
// that subsample, with the panelist's rows of the same snapshot version
// (readPanelist's rule).
func (s *Service) Eligibility(ctx context.Context, panelistID string, subsampleID int64) (PanelistCheck, error) {
	for try := 1; ; try++ {
		d, err := s.load(ctx, subsampleID)
		if err != nil {
			return PanelistCheck{}, err
		}
		if len(d.reports) == 0 {
			return PanelistCheck{}, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
		}
		rows, err := s.Store.PanelistRowsOf(ctx, panelistID)
		if err != nil {
			return PanelistCheck{}, fmt.Errorf("check the panelist: %w", err)
		}
		if rows.Version != d.version {
			if try == versionTries {
				return PanelistCheck{}, fmt.Errorf("check the panelist: %w", ErrVersionMoving)
			}
			continue
		}
		if d, err = s.withStaleness(ctx, d, false); err != nil {
			return PanelistCheck{}, err
		}
		checks, err := (&Panelist{s: s, d: d, rows: rows, ctx: ctx}).checks(ctx)
		if err != nil {
			return PanelistCheck{}, err
		}
		if len(checks) == 0 {
			return PanelistCheck{}, fmt.Errorf("subsample %d: %w", subsampleID, ErrNotLive)
		}
		return checks[0], nil
	}
}

// PanelistSurveys checks one panelist against every live subsample, in
// rank order (rank), with entry links filled for the panelist where they
// may enter and quota verdicts other than fits explained.
func (s *Service) PanelistSurveys(ctx context.Context, panelistID string) ([]PanelistCheck, error) {
	p, err := s.ReadPanelist(ctx, panelistID)
	if err != nil {
		return nil, err
	}
	return p.checks(ctx)
}

// checks collects EachLive's answers, with entry links filled for the
// panelist where they may enter and the quota verdicts explained in the
// words of the library of the panelist's country (Service.quotaWords).
// Our caps are read, not taken: a check sends nobody.
func (p *Panelist) checks(ctx context.Context) ([]PanelistCheck, error) {
	d, panelistID := p.d, p.rows.Member.PanelistID
	out := make([]PanelistCheck, 0, len(d.targets))
	type unexplained struct {
		at, target int
		now        time.Time
	}
	var why []unexplained
	p.ctx = ctx
	p.eachLive(func(i int, now time.Time, pc PanelistCheck) {
		if pc.MayEnter() {
			pc.PanelistLinks = d.PanelistLinks(pc.SubsampleReport, pc.Panel.Locale, panelistID)
		}
		if pc.Quota != rules.QuotaFits {
			why = append(why, unexplained{len(out), i, now})
		}
		out = append(out, pc)
	})
	if len(why) == 0 {
		return out, nil
	}
	targets := make([]int, len(why))
	for k, w := range why {
		targets[k] = w.target
	}
	words, err := p.s.quotaWords(ctx, d, p.rows.Member.Country, targets)
	if err != nil {
		return nil, err
	}
	for _, w := range why {
		out[w.at].QuotaWhy = d.targets[w.target].explainQuota(p.rows.Profile, w.now, words)
	}
	return out, nil
}

// quotaWords are the words of the questions the quotas of the targets
// at places ask, in the stored library of the default locale of country;
// nil (ids in the sentences) when the country has no default locale. What
// the stored library lacks (all of it, when that locale's is not stored)
// the sentences name by its id.
func (s *Service) quotaWords(ctx context.Context, d *Decisions, country string, places []int) (*rules.QuotaWords, error) {
	locale := d.defaultLocales[strings.ToUpper(strings.TrimSpace(country))]
	if locale == "" {
		return nil, nil
	}
	var ids []int64
	for _, i := range places {
		for _, q := range d.quotasOf(d.targets[i].report.SubsampleID) {
			for _, cond := range q.Questions {
				if !slices.Contains(ids, cond.ID) {
					ids = append(ids, cond.ID)
				}
			}
		}
	}
	questions, answers, err := s.Store.Library(ctx, locale, ids)
	if err != nil {
		return nil, fmt.Errorf("the words of the quota questions in %s: %w", locale, err)
	}
	return &rules.QuotaWords{Questions: questions, Answers: answers}, nil
}

// Panelist is one panelist's rows (panel row, profile, history) with the
// decisions of the snapshot version they were read at (ReadPanelist):
// what a check of the panelist against the live subsamples decides on,
// with nothing more to read.
type Panelist struct {
	s    *Service
	d    *Decisions
	rows store.PanelistRows
	// ctx is the request's that read the panelist, for the reads of our
	// caps its checks make (capped); caps holds what they read.
	ctx  context.Context
	caps *capTaker
	// cappedOf are the caps read, by subsample id ("" when it has room);
	// panelistCapped the panelist's own, once read.
	cappedOf       map[int64]string
	panelistCapped *string
}

// capped says which of our caps has no place left for the panelist on
// pc's subsample now ("" when none, or when they may not enter it
// anyway), read once per subsample and panelist: a check reads the caps,
// never takes a place (only a send does: capTaker).
func (p *Panelist) capped(pc PanelistCheck) string {
	d := p.d
	if !d.ours.HasCaps() || !pc.MayEnter() {
		return ""
	}
	if p.caps == nil {
		p.caps = &capTaker{s: p.s, ctx: cmp.Or(p.ctx, context.Background()), ours: d.ours, now: p.s.now()}
		p.cappedOf = map[int64]string{}
	}
	if p.panelistCapped == nil {
		why := p.caps.panelist(p.rows.Member.PanelistID, false)
		p.panelistCapped = &why
	}
	if *p.panelistCapped != "" {
		return *p.panelistCapped
	}
	why, ok := p.cappedOf[pc.SubsampleID]
	if !ok {
		why = p.caps.subsample(pc.SubsampleID, false)
		p.cappedOf[pc.SubsampleID] = why
	}
	return why
}

// ReadPanelist reads the panelist's panel row, profile and history, and
// the snapshot version, with one statement (store.PanelistRowsOf), and
// returns them with the current decisions of that version (Current's):
// the cached ones while the version is theirs, so a check reads nothing
// else. When a write moved the version on, the decisions are read again
// and the panelist too, until both are of one version (readPanelist).
func (s *Service) ReadPanelist(ctx context.Context, panelistID string) (*Panelist, error) {
	read := func() (store.PanelistRows, error) { return s.Store.PanelistRowsOf(ctx, panelistID) }
	rows, err := read()
	if err != nil {
		return nil, fmt.Errorf("check the panelist: %w", err)
	}
	return s.readPanelist(ctx, rows, read)
}

// versionTries is how many times a check reads a panelist and the
// decisions again when a write moved the version on between the two;
// past it the check is refused (ErrVersionMoving) rather than decided on
// rows and decisions of different versions.
const versionTries = 5

// ErrVersionMoving refuses a check whose panelist and decisions could not
// be read at one snapshot version (snapshots written faster than a check
// reads them): nothing is wrong with the request, and the same request a
// moment later is answered; the server answers it 503 with Retry-After.
var ErrVersionMoving = errors.New("the data changed while the panelist was being checked; try again in a moment")

// readPanelist returns the panelist's rows, first read as rows and read
// again by read, with the decisions of the same snapshot version: never
// rows of one version decided on the decisions of another (a quota closed
// or a rule changed in between would be missed).
func (s *Service) readPanelist(ctx context.Context, rows store.PanelistRows, read func() (store.PanelistRows, error)) (*Panelist, error) {
	for try := 1; ; try++ {
		d := s.cachedAt(rows.Version)
		if d == nil {
			var err error
			if d, err = s.current(ctx); err != nil {
				return nil, err
			}
		}
		if d.version == rows.Version {
			d, err := s.withStaleness(ctx, d, true)
			if err != nil {
				return nil, err
			}
			return &Panelist{s: s, d: d, rows: rows, ctx: ctx}, nil
		}
		if try == versionTries {
			return nil, fmt.Errorf("check the panelist: %w", ErrVersionMoving)
		}
		var err error
		if rows, err = read(); err != nil {
			return nil, fmt.Errorf("check the panelist: %w", err)
		}
	}
}

// Decisions are the decisions the panelist is decided on: shared,
// read-only.
func (p *Panelist) Decisions() *Decisions { return p.d }

// EachLive decides, for every live subsample of the decisions in rank
// order (rank), whether the panelist may enter it, and hands each answer
// to fn with the subsample's place in that order, which is the same for
// every panelist of the version. The panelist's history is checked by the
// decisions' rule book. It fills neither QuotaWhy nor PanelistLinks: it is
// the fast path of a panelist's surveys.
func (p *Panelist) EachLive(fn func(i int, pc PanelistCheck)) {
	p.eachLive(func(i int, _ time.Time, pc PanelistCheck) { fn(i, pc) })
}

// eachLive is EachLive, handing fn the time of the check too.
func (p *Panelist) eachLive(fn func(i int, now time.Time, pc PanelistCheck)) {
	d, member, profile, history := p.d, p.rows.Member, p.rows.Profile, p.rows.History
	now := p.s.now()
	held := p.heldWhy(now)
	fits := d.fitsOf(member)
	d.book.Check(rules.WithTopics(history, d.topics), now, func(i int, r rules.EligibilityResult) {
		var pc PanelistCheck
		if fits != nil {
			pc = d.checkFit(i, fits.fit(i), profile, now, rules.WithQualityHold(r, held))
		} else {
			pc = d.check(i, member, profile, now, rules.WithQualityHold(r, held))
		}
		pc.Capped = p.capped(pc)
		fn(i, now, pc)
	})
}

// LiveCount is how many live subsamples d holds: the places EachLive hands
// out run from 0 to LiveCount()-1.
func (d *Decisions) LiveCount() int { return len(d.targets) }

// LiveReport is the live subsample at place i of EachLive's order.
func (d *Decisions) LiveReport(i int) *SubsampleReport { return d.targets[i].report }

// withPanelist fills the empty id of prepared links with panelistID
// (rules.FillEntryLink: into the query, never into a fragment), without
// parsing each link again. Links with a problem, or not prepared by
// rules.EntryLink for nobody, are prepared again by slow().
func withPanelist(links []EntryLinks, panelistID string, slow func() []EntryLinks) []EntryLinks {
	out := make([]EntryLinks, len(links))
	for i, l := range links {
		if l.Problem() != "" {
			return slow()
		}
		live, ok := rules.FillEntryLink(l.Live, panelistID)
		if !ok {
			return slow()
		}
		out[i] = EntryLinks{Locale: l.Locale, Live: live}
		if l.Testing != "" {
			if out[i].Testing, ok = rules.FillEntryLink(l.Testing, panelistID); !ok {
				return slow()
			}
		}
	}
	return out
}

// heldWhy says why the panelist is held now, "" when not: by hand, or
// for quality (rules.OurRules.HeldWhy): the reason every check of theirs
// adds.
func (p *Panelist) heldWhy(now time.Time) string {
	return p.d.ours.HeldWhy(p.rows.Member.PanelistID, p.rows.History, p.s.QualityHold, now)
}

// HeldWhy says why the panelist of this history (every record of
// theirs, or at least every one of rules.ReversalStatuses) is held now,
// "" when not: by hand, or for quality under the service's policy after
// their last release by hand, in the current decisions: the reason every
// decision adds (rules.OurRules.HeldWhy).
func (s *Service) HeldWhy(ctx context.Context, panelistID string, history []domain.HistoryRecord) (string, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return "", err
	}
	return d.ours.HeldWhy(panelistID, history, s.QualityHold, s.now()), nil
}
