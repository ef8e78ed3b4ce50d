package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// policyRuleColumns are the columns of a domain.PolicyRule.
const policyRuleColumns = `rule_id, kind, scope, target, amount, currency, unit, per, set_by, set_at, why`

// panelistHoldColumns are the columns of a domain.PanelistHold.
const panelistHoldColumns = `panelist_id, kind, set_by, set_at, held_until, why`

// policyChangeColumns are the columns of a domain.PolicyChange.
const policyChangeColumns = `change_id, at, by_name, action, subject, rule_kind, panelist_id, subsample_id, before_value, after_value, why`

// SetPolicyRule puts r in force, replacing the rule of the same key (kind,
// scope, target, currency, unit, per) when there is one, and returns it as
// stored. audit writes the change in words from the rule replaced (nil
// when none) and the new one: it is kept in the audit and goes to the
// change feed (domain.ChangePolicy), in the same transaction. The snapshot
// version moves on, so that every instance decides on the rule at its
// next check.
func (s *Store) SetPolicyRule(ctx context.Context, r domain.PolicyRule, audit func(before *domain.PolicyRule, after domain.PolicyRule) domain.PolicyChange) (domain.PolicyRule, error) {
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var found []domain.PolicyRule
		if err := tx.SelectContext(ctx, &found, `SELECT `+policyRuleColumns+` FROM policy_rules
			WHERE kind = ? AND scope = ? AND target = ? AND currency = ? AND unit = ? AND per = ?`,
			r.Kind, r.Scope, r.Target, r.Currency, r.Unit, r.Per); err != nil {
			return fmt.Errorf("rule in force: %w", err)
		}
		var before *domain.PolicyRule
		if len(found) > 0 {
			before = &found[0]
			r.ID = before.ID
			if _, err := tx.ExecContext(ctx, `UPDATE policy_rules SET amount = ?, set_by = ?, set_at = ?, why = ? WHERE rule_id = ?`,
				r.Amount, r.SetBy, r.SetAt.UTC(), r.Why, r.ID); err != nil {
				return fmt.Errorf("replace rule %d: %w", r.ID, err)
			}
		} else if err := tx.GetContext(ctx, &r.ID, `INSERT INTO policy_rules (kind, scope, target, amount, currency, unit, per, set_by, set_at, why)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING rule_id`,
			r.Kind, r.Scope, r.Target, r.Amount, r.Currency, r.Unit, r.Per, r.SetBy, r.SetAt.UTC(), r.Why); err != nil {
			return fmt.Errorf("add rule: %w", err)
		}
		return s.recordPolicyChange(ctx, tx, audit(before, r))
	})
	if err != nil {
		return domain.PolicyRule{}, fmt.Errorf("set our rule: %w", err)
	}
	return r, nil
}

// RemovePolicyRule takes the rule id out of force and returns it, or an
// error wrapping ErrNotFound. audit writes the change in words, as
// SetPolicyRule's does.
func (s *Store) RemovePolicyRule(ctx context.Context, id int64, audit func(before domain.PolicyRule) domain.PolicyChange) (domain.PolicyRule, error) {
	var removed domain.PolicyRule
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &removed, `SELECT `+policyRuleColumns+` FROM policy_rules WHERE rule_id = ?`, id); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("rule %d: %w", id, ErrNotFound)
		} else if err != nil {
			return fmt.Errorf("rule %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM policy_rules WHERE rule_id = ?`, id); err != nil {
			return fmt.Errorf("remove rule %d: %w", id, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM policy_cap_counts WHERE rule_id = ?`, id); err != nil {
			return fmt.Errorf("counts of rule %d: %w", id, err)
		}
		return s.recordPolicyChange(ctx, tx, audit(removed))
	})
	if err != nil {
		return domain.PolicyRule{}, fmt.Errorf("remove our rule: %w", err)
	}
	return removed, nil
}

// SetPanelistHold records a hand's word on a panelist (a hold or a
// release), replacing the one before, which audit is handed (nil when
// none) to write the change in words: kept in the audit and sent to the
// change feed (domain.ChangePanelistHold). The snapshot version moves on.
func (s *Store) SetPanelistHold(ctx context.Context, h domain.PanelistHold, audit func(before *domain.PanelistHold) domain.PolicyChange) error {
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		var found []domain.PanelistHold
		if err := tx.SelectContext(ctx, &found, `SELECT `+panelistHoldColumns+` FROM panelist_holds WHERE panelist_id = ?`, h.PanelistID); err != nil {
			return fmt.Errorf("hold of %q: %w", h.PanelistID, err)
		}
		var before *domain.PanelistHold
		if len(found) > 0 {
			before = &found[0]
		}
		var until *time.Time
		if h.Until != nil {
			u := h.Until.UTC()
			until = &u
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM panelist_holds WHERE panelist_id = ?`, h.PanelistID); err != nil {
			return fmt.Errorf("hold of %q: %w", h.PanelistID, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO panelist_holds (`+panelistHoldColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
			h.PanelistID, h.Kind, h.SetBy, h.SetAt.UTC(), until, h.Why); err != nil {
			return fmt.Errorf("hold of %q: %w", h.PanelistID, err)
		}
		return s.recordPolicyChange(ctx, tx, audit(before))
	})
	if err != nil {
		return fmt.Errorf("%s panelist %q: %w", h.Kind, h.PanelistID, err)
	}
	return nil
}

// recordPolicyChange keeps c in the audit, adds it to the change feed
// (a panelist's as domain.ChangePanelistHold, any other as
// domain.ChangePolicy) and moves the snapshot version on.
func (s *Store) recordPolicyChange(ctx context.Context, tx *sqlx.Tx, c domain.PolicyChange) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO policy_changes (at, by_name, action, subject, rule_kind, panelist_id, subsample_id, before_value, after_value, why)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.At.UTC(), c.By, c.Action, c.Subject, c.RuleKind, c.PanelistID, c.SubsampleID, c.Before, c.After, c.Why); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	kind := domain.ChangePolicy
	if c.PanelistID != "" {
		kind = domain.ChangePanelistHold
	}
	before, after := c.Subject+": "+orNone(c.Before), c.Subject+": "+orNone(c.After)
	if c.Why != "" {
		after += " (" + c.Why + ")"
	}
	after += ", by " + c.By
	if err := appendFieldChanges(ctx, tx, s.dialect, 0, []domain.Change{{At: c.At, Kind: kind, SubsampleID: c.SubsampleID, Before: before, After: after}}); err != nil {
		return err
	}
	return bumpVersion(ctx, tx)
}

// orNone is v, or "none" when it is empty.
func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// Policy reads the rules in force and the hands' words on panelists.
func (s *Store) Policy(ctx context.Context) (domain.Policy, error) {
	tx, err := s.reader.BeginTxx(ctx, s.dialect.snapshotTx())
	if err != nil {
		return domain.Policy{}, fmt.Errorf("read our rules: %w", err)
	}
	defer tx.Rollback()
	return readPolicy(ctx, tx)
}

// readPolicy reads the rules in force, by id, and the hands' words on
// panelists.
func readPolicy(ctx context.Context, tx *sqlx.Tx) (domain.Policy, error) {
	p := domain.Policy{Rules: []domain.PolicyRule{}}
	if err := tx.SelectContext(ctx, &p.Rules, `SELECT `+policyRuleColumns+` FROM policy_rules ORDER BY rule_id`); err != nil {
		return p, fmt.Errorf("our rules: %w", err)
	}
	var holds []domain.PanelistHold
	if err := tx.SelectContext(ctx, &holds, `SELECT `+panelistHoldColumns+` FROM panelist_holds ORDER BY panelist_id`); err != nil {
		return p, fmt.Errorf("panelists held by hand: %w", err)
	}
	p.Holds = make(map[string]domain.PanelistHold, len(holds))
	for _, h := range holds {
		p.Holds[h.PanelistID] = h
	}
	return p, nil
}

// PolicyChanges lists the audit of the supplier's own rules and the hands'
// words on panelists, newest first, at most limit of them (all when 0).
func (s *Store) PolicyChanges(ctx context.Context, limit int) ([]domain.PolicyChange, error) {
	out := []domain.PolicyChange{}
	q := `SELECT ` + policyChangeColumns + ` FROM policy_changes ORDER BY change_id DESC`
	args := []any{}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	if err := s.reader.SelectContext(ctx, &out, q, args...); err != nil {
		return nil, fmt.Errorf("changes of our rules: %w", err)
	}
	return out, nil
}

// PanelistPolicyChanges lists the audit of one panelist's holds and
// releases by hand, newest first.
func (s *Store) PanelistPolicyChanges(ctx context.Context, panelistID string) ([]domain.PolicyChange, error) {
	out := []domain.PolicyChange{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT `+policyChangeColumns+` FROM policy_changes WHERE panelist_id = ? ORDER BY change_id DESC`, panelistID); err != nil {
		return nil, fmt.Errorf("holds of %q: %w", panelistID, err)
	}
	return out, nil
}

// TakeCapPlaces takes up to want places under the cap rule ruleID in
// window (a key such as "2026-12-06T14"), as many as fewer than limit
// counted there leave, and returns how many it took (0 when the cap is
// reached): counted and taken in one transaction, serialized across
// instances, so two instances never both take the last place. A window's
// count is kept until the rule is removed.
func (s *Store) TakeCapPlaces(ctx context.Context, ruleID int64, window string, limit, want int) (int, error) {
	if limit <= 0 || want <= 0 {
		return 0, nil
	}
	var granted int
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		if err := s.dialect.serialize(ctx, tx, "caps"); err != nil {
			return err
		}
		var taken []int
		if err := tx.SelectContext(ctx, &taken, `SELECT taken FROM policy_cap_counts WHERE rule_id = ? AND window_key = ?`, ruleID, window); err != nil {
			return err
		}
		now := 0
		if len(taken) > 0 {
			now = taken[0]
		}
		granted = max(0, min(want, limit-now))
		if granted == 0 {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO policy_cap_counts (rule_id, window_key, taken) VALUES (?, ?, ?)
			ON CONFLICT (rule_id, window_key) DO UPDATE SET taken = policy_cap_counts.taken + excluded.taken`, ruleID, window, granted)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("take places of cap %d: %w", ruleID, err)
	}
	return granted, nil
}

// CapTaken is how many sends were counted against the cap rule ruleID in
// window.
func (s *Store) CapTaken(ctx context.Context, ruleID int64, window string) (int, error) {
	var n int
	err := s.reader.GetContext(ctx, &n, `SELECT COALESCE(MAX(taken), 0) FROM policy_cap_counts WHERE rule_id = ? AND window_key = ?`, ruleID, window)
	if err != nil {
		return 0, fmt.Errorf("count of cap %d: %w", ruleID, err)
	}
	return n, nil
}

// ReturnsSince counts the returns recorded for sends into subsampleID
// since since: every one (the entrants), or the completes alone.
func (s *Store) ReturnsSince(ctx context.Context, subsampleID int64, since time.Time, completesOnly bool) (int, error) {
	q := `SELECT COUNT(*) FROM routing_decisions WHERE chosen_subsample = ? AND returned_at >= ?`
	args := []any{subsampleID, since.UTC()}
	if completesOnly {
		q += ` AND return_status = ?`
		args = append(args, domain.ReturnComplete)
	}
	var n int
	if err := s.reader.GetContext(ctx, &n, q, args...); err != nil {
		return 0, fmt.Errorf("returns of subsample %d: %w", subsampleID, err)
	}
	return n, nil
}
