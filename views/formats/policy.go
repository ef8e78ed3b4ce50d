package formats

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// PolicyRuleJSON is one of the supplier's own rules in force, as the API
// and `fieldboard policy list` give it: its fields, the words that write
// it (Words, as a rule is posted), and what it does in words (Subject,
// Value).
type PolicyRuleJSON struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	Scope    string    `json:"scope"`
	Target   string    `json:"target"`
	Amount   float64   `json:"amount"`
	Currency string    `json:"currency"`
	Unit     string    `json:"unit"`
	Per      string    `json:"per"`
	Words    string    `json:"words"`
	Subject  string    `json:"subject"`
	Value    string    `json:"value"`
	SetBy    string    `json:"setBy"`
	SetAt    time.Time `json:"setAt"`
	Why      string    `json:"why"`
}

// PanelistHoldJSON is the latest hand's word on a panelist: kind "hold"
// (until Until, for good when null) or "release".
type PanelistHoldJSON struct {
	PanelistID string     `json:"panelistId"`
	Kind       string     `json:"kind"`
	Until      *time.Time `json:"until"`
	SetBy      string     `json:"setBy"`
	SetAt      time.Time  `json:"setAt"`
	Why        string     `json:"why"`
}

// PolicyJSON is the supplier's own rules in force and the hands' words on
// panelists, by panelist id.
type PolicyJSON struct {
	Rules []PolicyRuleJSON   `json:"rules"`
	Holds []PanelistHoldJSON `json:"holds"`
}

// PolicyChangeJSON is one row of the audit of our rules, holds and
// releases. SubsampleID is 0 and PanelistID empty when the change is not
// about one.
type PolicyChangeJSON struct {
	ID          int64     `json:"id"`
	At          time.Time `json:"at"`
	By          string    `json:"by"`
	Action      string    `json:"action"`
	Subject     string    `json:"subject"`
	RuleKind    string    `json:"ruleKind"`
	PanelistID  string    `json:"panelistId"`
	SubsampleID int64     `json:"subsampleId"`
	Before      string    `json:"before"`
	After       string    `json:"after"`
	Why         string    `json:"why"`
}

// PolicyRule shapes one rule for the API.
func PolicyRule(r domain.PolicyRule) PolicyRuleJSON {
	return PolicyRuleJSON{ID: r.ID, Kind: string(r.Kind), Scope: r.Scope, Target: r.Target, Amount: r.Amount, Currency: r.Currency,
		Unit: r.Unit, Per: r.Per, Words: rules.PolicyWords(r), Subject: rules.PolicySubject(r), Value: rules.PolicyValue(r),
		SetBy: r.SetBy, SetAt: r.SetAt.UTC(), Why: r.Why}
}

// Policy shapes the rules in force, in their order, and the holds, by
// panelist id.
func Policy(p domain.Policy) PolicyJSON {
	out := PolicyJSON{Rules: make([]PolicyRuleJSON, len(p.Rules)), Holds: make([]PanelistHoldJSON, 0, len(p.Holds))}
	for i, r := range p.Rules {
		out.Rules[i] = PolicyRule(r)
	}
	for _, id := range slices.Sorted(maps.Keys(p.Holds)) {
		h := p.Holds[id]
		var until *time.Time
		if h.Until != nil {
			u := h.Until.UTC()
			until = &u
		}
		out.Holds = append(out.Holds, PanelistHoldJSON{PanelistID: id, Kind: cmp.Or(h.Kind, domain.HoldByHand), Until: until, SetBy: h.SetBy, SetAt: h.SetAt.UTC(), Why: h.Why})
	}
	return out
}

// PolicyChangesPage is the audit as the API gives it, newest first.
type PolicyChangesPage struct {
	Changes []PolicyChangeJSON `json:"changes"`
}

// PolicyChange shapes one audit row for the API.
func PolicyChange(c domain.PolicyChange) PolicyChangeJSON {
	return PolicyChangeJSON{ID: c.ID, At: c.At.UTC(), By: c.By, Action: c.Action, Subject: c.Subject, RuleKind: c.RuleKind,
		PanelistID: c.PanelistID, SubsampleID: c.SubsampleID, Before: c.Before, After: c.After, Why: c.Why}
}

// PolicyChanges shapes the audit, in its order.
func PolicyChanges(changes []domain.PolicyChange) []PolicyChangeJSON {
	out := make([]PolicyChangeJSON, len(changes))
	for i, c := range changes {
		out[i] = PolicyChange(c)
	}
	return out
}

// WritePolicyCSV writes the rules in force, times as formatTime writes
// them.
func WritePolicyCSV(w *Writer, rs []domain.PolicyRule, formatTime func(*time.Time) string) error {
	if err := w.Write("id", "kind", "scope", "target", "amount", "currency", "unit", "per", "words", "subject", "value", "setBy", "setAt", "why"); err != nil {
		return err
	}
	for _, r := range rs {
		if err := w.Write(Int(r.ID), string(r.Kind), r.Scope, r.Target, strconv.FormatFloat(r.Amount, 'f', -1, 64), r.Currency, r.Unit, r.Per,
			rules.PolicyWords(r), rules.PolicySubject(r), rules.PolicyValue(r), r.SetBy, formatTime(&r.SetAt), r.Why); err != nil {
			return err
		}
	}
	return nil
}

// WritePolicyChangesCSV writes the audit, times as formatTime writes
// them; subsampleId is empty when the change is not about one.
func WritePolicyChangesCSV(w *Writer, changes []domain.PolicyChange, formatTime func(*time.Time) string) error {
	if err := w.Write("id", "at", "by", "action", "subject", "ruleKind", "panelistId", "subsampleId", "before", "after", "why"); err != nil {
		return err
	}
	for _, c := range changes {
		if err := w.Write(Int(c.ID), formatTime(&c.At), c.By, c.Action, c.Subject, c.RuleKind, c.PanelistID, idOrEmpty(c.SubsampleID), c.Before, c.After, c.Why); err != nil {
			return err
		}
	}
	return nil
}
