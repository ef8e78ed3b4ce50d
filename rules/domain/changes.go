package domain

import "time"

// SubsampleState is what one events refresh decided of a subsample, kept
// until the next so that the change feed can say what moved.
type SubsampleState struct {
	Status      string `db:"status"`
	Sendability string `db:"sendability"`
	EventID     int64  `db:"event_id"`
	Country     string `db:"country"`
	// CPI and Currency are live-details' targetedCPI and currency; nil
	// when the subsample is not live.
	CPI      *float64   `db:"cpi"`
	Currency string     `db:"currency"`
	FieldEnd *time.Time `db:"field_end"`
	// QuotasRead says whether the quotas are known: read by this refresh
	// or, when it could not read them, carried from the last one that did
	// (rules.CarryUnread). ClosedQuotas are then the ids of the quotas with
	// nothing remaining, sorted.
	QuotasRead   bool     `db:"quotas_read"`
	ClosedQuotas []string `db:"-"`
	// AtRisk says, in a sentence, why the total quota's pace would not
	// fill it before the field end; "" when it is not at risk. As a
	// refresh decides it, it is rules.Pace's at that refresh; as kept
	// (rules.Detect), a pace between at risk and OnPace, or none (too
	// little history, no field end, quotas unread), keeps the last one.
	AtRisk string `db:"at_risk"`
	// OnPace says, in a sentence, why the total quota's pace is clearly
	// on pace (rules.Pacing.OnPace at this refresh): what an at-risk
	// subsample must reach to be back on pace. Not kept: only the
	// comparison of the refresh that decided it reads it.
	OnPace string `db:"-"`
}

// Change is one event of the change feed: what a refresh found had moved
// on a subsample since the refresh before.
type Change struct {
	ChangeID    int64      `db:"change_id"`
	At          time.Time  `db:"at"`
	Kind        ChangeKind `db:"kind"`
	SubsampleID int64      `db:"subsample_id"`
	EventID     int64      `db:"event_id"`
	Country     string     `db:"country"`
	// QuotaID names the quota of a quota.closed, quota.reopened,
	// quota.closed_by_field or quota.field_closure_lifted; "" for the
	// others.
	QuotaID string `db:"quota_id"`
	Before  string `db:"before_value"` // the value before, as a coordinator reads it; "" for a new subsample
	After   string `db:"after_value"`
	// SubsampleName and EventName are the names the current snapshot
	// gives the subsample and its event when the feed is read (not kept
	// with the change): "" when the subsample or event is no longer in
	// the snapshot. An event is named as /events names it: after its live
	// details, or after its first subsample when nothing of it is live.
	SubsampleName string `db:"subsample_name"`
	EventName     string `db:"event_name"`
}

// ChangeKind is what moved.
type ChangeKind string

// The kinds of change, in the order pages list them.
const (
	ChangeNew           ChangeKind = "subsample.new"
	ChangeSendable      ChangeKind = "subsample.sendable"
	ChangePaused        ChangeKind = "subsample.paused"
	ChangeClosed        ChangeKind = "subsample.closed"
	ChangeNotSendable   ChangeKind = "subsample.not_sendable"
	ChangeUnknown       ChangeKind = "subsample.unknown"
	ChangeCPI           ChangeKind = "subsample.cpi_changed"
	ChangeFieldEndNear  ChangeKind = "subsample.field_end_near"
	ChangeQuotaClosed   ChangeKind = "quota.closed"
	ChangeQuotaReopened ChangeKind = "quota.reopened"
	ChangeAtRisk        ChangeKind = "subsample.at_risk"
	ChangeBackOnPace    ChangeKind = "subsample.back_on_pace"
	// ChangeQuotaClosedByField: a quota full came back from the field for
	// a cell the provider still showed open, which is closed for routing
	// (FieldClosure); ChangeFieldClosureLifted: such a closure ended, the
	// provider's counts having moved or its time being up.
	ChangeQuotaClosedByField ChangeKind = "quota.closed_by_field"
	ChangeFieldClosureLifted ChangeKind = "quota.field_closure_lifted"
	// ChangeLinkSuspect: a subsample's returns kept coming back without a
	// complete where its conversion says one should have come: its survey
	// link may be broken (rules.LinkSuspect). Once a run; a complete ends
	// the run.
	ChangeLinkSuspect ChangeKind = "subsample.link_suspect"
	// ChangePolicy: one of the supplier's own rules was set, changed or
	// removed, or a subsample paused or resumed on our side
	// (PolicyChange); ChangePanelistHold: a panelist was held or released
	// by hand. Before and After say it in words.
	ChangePolicy       ChangeKind = "policy.changed"
	ChangePanelistHold ChangeKind = "panelist.hold_changed"
)

// ChangeKinds are every kind, in the order pages list them.
var ChangeKinds = []ChangeKind{ChangeNew, ChangeSendable, ChangePaused, ChangeClosed, ChangeNotSendable, ChangeUnknown,
	ChangeCPI, ChangeFieldEndNear, ChangeQuotaClosed, ChangeQuotaReopened, ChangeAtRisk, ChangeBackOnPace,
	ChangeQuotaClosedByField, ChangeFieldClosureLifted, ChangeLinkSuspect, ChangePolicy, ChangePanelistHold}

// WebhookTest is the kind of the event `fieldboard webhook test` sends: no
// change, only a check that a subscription's address answers.
const WebhookTest = "webhook.test"
