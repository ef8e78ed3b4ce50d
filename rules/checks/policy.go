package checks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// ErrBadRule refuses a rule, a hold or a release that is not understood
// or not allowed: its message says why, for the user who typed it.
var ErrBadRule = errors.New("refused")

// maxWhy and maxBy bound the free text kept with a change.
const (
	maxWhy = 500
	maxBy  = 100
)

// checkWords refuses a who or a why that is too long or not text.
func checkWords(by, why string) error {
	switch {
	case strings.TrimSpace(by) == "":
		return fmt.Errorf("%w: say who makes the change", ErrBadRule)
	case len(by) > maxBy || !utf8.ValidString(by):
		return fmt.Errorf("%w: a name is at most %d bytes of text", ErrBadRule, maxBy)
	case len(why) > maxWhy || !utf8.ValidString(why):
		return fmt.Errorf("%w: a reason is at most %d bytes of text", ErrBadRule, maxWhy)
	}
	return nil
}

// Policy is the supplier's own rules in force and the hands' words on
// panelists, as stored now.
func (s *Service) Policy(ctx context.Context) (domain.Policy, error) {
	return s.Store.Policy(ctx)
}

// PolicyChanges is the audit of our rules, pauses, holds and releases,
// newest first, at most limit (all when 0).
func (s *Service) PolicyChanges(ctx context.Context, limit int) ([]domain.PolicyChange, error) {
	return s.Store.PolicyChanges(ctx, limit)
}

// SetRule puts the rule the words write (rules.ParsePolicyRule) in force,
// set by by for why, replacing the rule of the same key; the change is
// audited. A rule not understood is ErrBadRule with the reason.
func (s *Service) SetRule(ctx context.Context, words []string, by, why string) (domain.PolicyRule, error) {
	if err := checkWords(by, why); err != nil {
		return domain.PolicyRule{}, err
	}
	r, err := rules.ParsePolicyRule(words)
	if err != nil {
		return domain.PolicyRule{}, fmt.Errorf("%w: %w", ErrBadRule, err)
	}
	r.SetBy, r.SetAt, r.Why = strings.TrimSpace(by), s.now(), strings.TrimSpace(why)
	return s.Store.SetPolicyRule(ctx, r, func(before *domain.PolicyRule, after domain.PolicyRule) domain.PolicyChange {
		c := policyChange(after, "set", r.SetAt)
		if before != nil {
			c.Before = rules.PolicyValue(*before)
		}
		c.After = rules.PolicyValue(after)
		return c
	})
}

// RemoveRule takes the rule id out of force (a pause removed is a
// resume), by by for why; the change is audited. An id not in force is
// store.ErrNotFound.
func (s *Service) RemoveRule(ctx context.Context, id int64, by, why string) (domain.PolicyRule, error) {
	if err := checkWords(by, why); err != nil {
		return domain.PolicyRule{}, err
	}
	at := s.now()
	return s.Store.RemovePolicyRule(ctx, id, func(before domain.PolicyRule) domain.PolicyChange {
		c := policyChange(before, "remove", at)
		c.By, c.Why = strings.TrimSpace(by), strings.TrimSpace(why)
		c.Before = rules.PolicyValue(before)
		return c
	})
}

// RemoveRuleWords takes out of force the rule of the key the words write
// (as SetRule reads them: "pause subsample 12", "block country DE";
// amounts are not compared), as RemoveRule does. None in force is
// store.ErrNotFound.
func (s *Service) RemoveRuleWords(ctx context.Context, words []string, by, why string) (domain.PolicyRule, error) {
	want, err := rules.ParsePolicyRule(words)
	if err != nil {
		return domain.PolicyRule{}, fmt.Errorf("%w: %w", ErrBadRule, err)
	}
	p, err := s.Store.Policy(ctx)
	if err != nil {
		return domain.PolicyRule{}, err
	}
	for _, r := range p.Rules {
		if r.Kind == want.Kind && r.Scope == want.Scope && r.Target == want.Target && r.Currency == want.Currency && r.Unit == want.Unit && r.Per == want.Per {
			return s.RemoveRule(ctx, r.ID, by, why)
		}
	}
	return domain.PolicyRule{}, fmt.Errorf("%s is not in force: %w", rules.PolicySubject(want), store.ErrNotFound)
}

// policyChange is the audit's change of rule r, without its values.
func policyChange(r domain.PolicyRule, action string, at time.Time) domain.PolicyChange {
	c := domain.PolicyChange{At: at, By: r.SetBy, Action: action, Subject: rules.PolicySubject(r), RuleKind: string(r.Kind), Why: r.Why}
	if r.Scope == "subsample" {
		fmt.Sscan(r.Target, &c.SubsampleID)
	}
	return c
}

// HoldPanelist holds the panelist out of every survey, by hand, until
// until (for good when nil), by by for why; audited.
func (s *Service) HoldPanelist(ctx context.Context, panelistID string, until *time.Time, by, why string) error {
	at := s.now()
	if until != nil && !until.After(at) {
		return fmt.Errorf("%w: a hold must last until a time still to come", ErrBadRule)
	}
	return s.setHold(ctx, domain.PanelistHold{PanelistID: panelistID, Kind: domain.HoldByHand, SetAt: at, Until: until}, by, why)
}

// ReleasePanelist releases the panelist, by hand: from a hold by hand,
// and from a quality hold built on the reversals recorded until now; by
// by for why; audited.
func (s *Service) ReleasePanelist(ctx context.Context, panelistID, by, why string) error {
	return s.setHold(ctx, domain.PanelistHold{PanelistID: panelistID, Kind: domain.ReleaseByHand, SetAt: s.now()}, by, why)
}

// setHold records the hand's word h, by by for why.
func (s *Service) setHold(ctx context.Context, h domain.PanelistHold, by, why string) error {
	if err := checkWords(by, why); err != nil {
		return err
	}
	if id := strings.TrimSpace(h.PanelistID); id == "" || id != h.PanelistID || len(id) > 128 || !utf8.ValidString(id) {
		return fmt.Errorf("%w: %q is not a panelist id", ErrBadRule, h.PanelistID)
	}
	h.SetBy, h.Why = strings.TrimSpace(by), strings.TrimSpace(why)
	return s.Store.SetPanelistHold(ctx, h, func(before *domain.PanelistHold) domain.PolicyChange {
		c := domain.PolicyChange{At: h.SetAt, By: h.SetBy, Action: h.Kind, Subject: "panelist " + h.PanelistID, PanelistID: h.PanelistID, Why: h.Why}
		if before != nil {
			c.Before = holdWords(*before)
		}
		c.After = holdWords(h)
		return c
	})
}

// holdWords says a hand's word on a panelist: "held until 8 Dec 2026
// 09:00 UTC", "held", "released".
func holdWords(h domain.PanelistHold) string {
	if h.Kind != domain.HoldByHand {
		return "released"
	}
	if h.Until != nil {
		return "held until " + rules.FormatTime(*h.Until)
	}
	return "held"
}
