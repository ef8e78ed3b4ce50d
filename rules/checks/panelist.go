package checks

import (
	"context"
	"errors"
	"fmt"
	"net/url"
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
}

// Eligible reports whether the panelist's country and language fit, the
// rules were read and none excludes the panelist.
func (p PanelistCheck) Eligible() bool {
	return p.Panel.Fits && p.RulesUnread == "" && p.Eligibility.Eligible
}

// MayEnter reports whether the panelist may be sent in now (rules.MayEnter).
func (p PanelistCheck) MayEnter() bool { return rules.MayEnter(p.Verdict.State, p.Eligible(), p.Quota) }

// Send reports whether the panelist belongs on the send list (rules.Send).
func (p PanelistCheck) Send() bool { return rules.Send(p.Verdict.State, p.Eligible(), p.Quota) }

// Eligibility checks one panelist against one live subsample, reading only
// that subsample.
func (s *Service) Eligibility(ctx context.Context, panelistID string, subsampleID int64) (PanelistCheck, error) {
	d, err := s.load(ctx, subsampleID)
	if err == nil {
		d, err = s.withStaleness(ctx, d, false)
	}
	if err != nil {
		return PanelistCheck{}, err
	}
	if len(d.reports) == 0 {
		return PanelistCheck{}, fmt.Errorf("subsample %d: %w", subsampleID, store.ErrNotFound)
	}
	checks, err := s.checks(ctx, d, panelistID)
	if err != nil {
		return PanelistCheck{}, err
	}
	if len(checks) == 0 {
		return PanelistCheck{}, fmt.Errorf("subsample %d: %w", subsampleID, ErrNotLive)
	}
	return checks[0], nil
}

// PanelistSurveys checks one panelist against every live subsample, in
// rank order (rank), with entry links filled for the panelist where they
// may enter and quota verdicts other than fits explained.
func (s *Service) PanelistSurveys(ctx context.Context, panelistID string) ([]PanelistCheck, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return nil, err
	}
	return s.checks(ctx, d, panelistID)
}

// checks collects EachLive's answers, with entry links filled for the
// panelist where they may enter and the quota verdicts explained.
func (s *Service) checks(ctx context.Context, d *Decisions, panelistID string) ([]PanelistCheck, error) {
	out := make([]PanelistCheck, 0, len(d.targets))
	err := s.eachLive(ctx, d, panelistID, func(i int, profile domain.Profile, now time.Time, pc PanelistCheck) {
		if pc.MayEnter() {
			pc.PanelistLinks = d.PanelistLinks(pc.SubsampleReport, pc.Panel.Locale, panelistID)
		}
		if pc.Quota != rules.QuotaFits {
			pc.QuotaWhy = d.targets[i].explainQuota(profile, now)
		}
		out = append(out, pc)
	})
	return out, err
}

// EachLive decides, for every live subsample of d in rank order (rank),
// whether the panelist may enter it, and hands each answer to fn with the
// subsample's place in that order, which is the same for every panelist
// of d's version. The panelist's history, profile and panel row are read
// once and the history checked by d's rule book. It fills neither QuotaWhy nor
// PanelistLinks: it is the fast path of a panelist's surveys.
func (s *Service) EachLive(ctx context.Context, d *Decisions, panelistID string, fn func(i int, pc PanelistCheck)) error {
	return s.eachLive(ctx, d, panelistID, func(i int, _ domain.Profile, _ time.Time, pc PanelistCheck) { fn(i, pc) })
}

// eachLive is EachLive, handing fn the panelist's profile and the time of
// the check too.
func (s *Service) eachLive(ctx context.Context, d *Decisions, panelistID string, fn func(i int, profile domain.Profile, now time.Time, pc PanelistCheck)) error {
	history, err := s.Store.HistoryOf(ctx, panelistID)
	if err != nil {
		return fmt.Errorf("check the panelist against the live subsamples: %w", err)
	}
	profile, err := s.Store.ProfileOf(ctx, panelistID)
	if err != nil {
		return fmt.Errorf("check the panelist against the live subsamples: %w", err)
	}
	member, err := s.panelOf(ctx, panelistID)
	if err != nil {
		return err
	}
	now := s.now()
	held := rules.QualityHold(history, s.QualityHold, now)
	d.book.Check(rules.WithTopics(history, d.topics), now, func(i int, r rules.EligibilityResult) {
		fn(i, profile, now, d.check(i, member, profile, now, rules.WithQualityHold(r, held)))
	})
	return nil
}

// panelOf is the panelist's row of the panel, or one with no country
// when none is on file.
func (s *Service) panelOf(ctx context.Context, panelistID string) (domain.PanelMember, error) {
	m, err := s.Store.PanelOf(ctx, panelistID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return domain.PanelMember{PanelistID: panelistID}, nil
	case err != nil:
		return m, fmt.Errorf("check the panelist: %w", err)
	}
	return m, nil
}

// LiveCount is how many live subsamples d holds: the places EachLive hands
// out run from 0 to LiveCount()-1.
func (d *Decisions) LiveCount() int { return len(d.targets) }

// LiveReport is the live subsample at place i of EachLive's order.
func (d *Decisions) LiveReport(i int) *SubsampleReport { return d.targets[i].report }

// withPanelist fills the empty trailing id of prepared links with
// panelistID, query-escaped, as rules.EntryLink would, without parsing
// each link again. A link that does not end in an empty id (it has a
// fragment) is prepared again by slow().
func withPanelist(links []EntryLinks, panelistID string, slow func() []EntryLinks) []EntryLinks {
	id := url.QueryEscape(panelistID)
	out := make([]EntryLinks, len(links))
	for i, l := range links {
		if l.Problem() != "" || !strings.HasSuffix(l.Live, "id=") || l.Testing != "" && !strings.HasSuffix(l.Testing, "id=") {
			return slow()
		}
		out[i] = EntryLinks{Locale: l.Locale, Live: l.Live + id}
		if l.Testing != "" {
			out[i].Testing = l.Testing + id
		}
	}
	return out
}

// HeldForQuality says why a panelist of this history (every record of
// theirs, or at least every one of rules.ReversalStatuses) is held for
// quality now under the service's policy, "" when not: the reason every
// decision adds (rules.QualityHold).
func (s *Service) HeldForQuality(history []domain.HistoryRecord) string {
	return rules.QualityHold(history, s.QualityHold, s.now())
}
