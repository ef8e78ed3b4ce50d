package domain

import "time"

// PolicyKind is what one of the supplier's own rules does (PolicyRule).
type PolicyKind string

// The kinds of the supplier's own rules.
const (
	// PolicyMinCPI: no send below Amount per interview in Currency.
	PolicyMinCPI PolicyKind = "min-cpi"
	// PolicyMinEPC: no send below Amount expected per entrant in Currency.
	PolicyMinEPC PolicyKind = "min-epc"
	// PolicyMaxLOI: no send into a survey longer than Amount minutes.
	PolicyMaxLOI PolicyKind = "max-loi"
	// PolicyMinIncidence: no send into a survey whose expected incidence
	// is below Amount percent.
	PolicyMinIncidence PolicyKind = "min-incidence"
	// PolicyDevices: the devices the panel answers on (Target, a
	// comma-separated list of desktop, mobile, tablet): no send into a
	// survey that allows none of them.
	PolicyDevices PolicyKind = "devices"
	// PolicyBlock: no send into what Scope and Target name (a subsample,
	// an event, a research type, a category, a country, a billing entity).
	PolicyBlock PolicyKind = "block"
	// PolicyCap: at most Amount Unit (sends, entrants, completes) per Per
	// (hour, day) into the subsample Target (Scope subsample), or sends per
	// panelist per day (Scope panelist, no Target).
	PolicyCap PolicyKind = "cap"
	// PolicyPriority: the router ranks the subsample or event (Scope,
	// Target) Amount places of priority higher (or lower, when negative)
	// than its expected earnings alone would.
	PolicyPriority PolicyKind = "priority"
	// PolicyPause: our own pause of the subsample Target, whatever the
	// provider says of it.
	PolicyPause PolicyKind = "pause"
)

// PolicyRule is one of the supplier's own rules in force, with who set it,
// when and why. Which fields matter depends on Kind (see the kinds).
type PolicyRule struct {
	ID       int64      `db:"rule_id"`
	Kind     PolicyKind `db:"kind"`
	Scope    string     `db:"scope"`
	Target   string     `db:"target"`
	Amount   float64    `db:"amount"`
	Currency string     `db:"currency"`
	Unit     string     `db:"unit"`
	Per      string     `db:"per"`
	SetBy    string     `db:"set_by"`
	SetAt    time.Time  `db:"set_at"`
	Why      string     `db:"why"`
}

// The kinds of a hand's word on a panelist (PanelistHold).
const (
	HoldByHand    = "hold"
	ReleaseByHand = "release"
)

// PanelistHold is the latest hand's word on a panelist: held (Kind
// HoldByHand) out of every survey until Until (for good when nil), or
// released (ReleaseByHand) from a quality hold built on the reversals
// recorded before SetAt.
type PanelistHold struct {
	PanelistID string     `db:"panelist_id"`
	Kind       string     `db:"kind"`
	SetBy      string     `db:"set_by"`
	SetAt      time.Time  `db:"set_at"`
	Until      *time.Time `db:"held_until"`
	Why        string     `db:"why"`
}

// Policy is the supplier's own rules in force and the hands' words on
// panelists, as one snapshot version holds them.
type Policy struct {
	Rules []PolicyRule
	// Holds are by panelist id.
	Holds map[string]PanelistHold
}

// PolicyChange is one change of the supplier's own rules, a pause, a hold
// or a release, as the audit keeps it.
type PolicyChange struct {
	ID     int64     `db:"change_id"`
	At     time.Time `db:"at"`
	By     string    `db:"by_name"`
	Action string    `db:"action"` // set, remove, hold, release
	// Subject is what changed in words ("our maximum LOI", "panelist
	// P0000005"); RuleKind the rule's kind ("" for a panelist's).
	Subject     string `db:"subject"`
	RuleKind    string `db:"rule_kind"`
	PanelistID  string `db:"panelist_id"`
	SubsampleID int64  `db:"subsample_id"`
	Before      string `db:"before_value"` // "" when there was none
	After       string `db:"after_value"`  // "" when removed
	Why         string `db:"why"`
}
