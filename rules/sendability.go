package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// State is the sendability of a subsample: whether real respondents may be
// sent into it now.
type State string

// The sendability states.
const (
	// Sendable: Live, API compatible, priced, the total quota still needs
	// completes, and every quota table that holds a hard quota has a cell
	// that does.
	Sendable State = "sendable"
	// BlockedByUs: sendable by the provider's rules, refused by one of the
	// supplier's own (OurRules.Refusals): the verdict's reasons are ours.
	BlockedByUs State = "blocked_by_us"
	// Paused: the total quota is full (spec rule 3: "sample sending must be
	// paused"), or a quota table that holds a hard quota has no open cell,
	// so nobody can be counted.
	Paused State = "paused"
	// NotSendable: not Live, not API compatible, or not priced (spec rule 1).
	NotSendable State = "not_sendable"
	// Testing: Live for testing; only testers may enter (spec rule 1 keeps
	// it out of live work).
	Testing State = "testing"
	// Unknown: the quotas needed to decide are missing, failed to load or
	// are ambiguous. Never sendable on missing data.
	Unknown State = "unknown"
)

// States are the sendability states, in the order lists, filters and
// counts show them.
var States = []State{Sendable, BlockedByUs, Paused, NotSendable, Testing, Unknown}

// ParseState reads a sendability state as the API, the live list and the
// command line take it ("not_sendable"); anything else is an error that
// lists the states.
func ParseState(raw string) (State, error) {
	s := State(strings.TrimSpace(raw))
	if !slices.Contains(States, s) {
		return "", fmt.Errorf("sendability %q is not one of %s", raw, StateNames())
	}
	return s, nil
}

// StateNames lists States as filters take them: "sendable, paused, ...".
func StateNames() string {
	names := make([]string, len(States))
	for i, s := range States {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Label is the state as a coordinator reads it.
func (s State) Label() string {
	switch s {
	case Sendable:
		return "Sendable"
	case Paused:
		return "Paused"
	case NotSendable:
		return "Not sendable"
	case Testing:
		return "Live for testing"
	case BlockedByUs:
		return "Blocked by our rules"
	}
	return "Unknown"
}

// SubsampleFacts is what sendability is decided on.
type SubsampleFacts struct {
	Status        string // subsampleStatus, canonical spelling (domain.NormalizeStatus already applied)
	APICompatible bool
	CPI           float64
	Currency      string
	// Quotas are the subsample's stored quotas. QuotasLoaded is false when
	// they were never read or the last read failed (QuotasError says why);
	// then they must not be trusted.
	Quotas       []domain.Quota
	QuotasLoaded bool
	QuotasError  string
	// Unlisted is set for a subsample of the event list that live-details
	// does not list: it has no allocation open to the supplier (spec,
	// endpoint 2), and its properties are not known, so it is not sendable
	// whatever its status says.
	Unlisted bool
	// NotInEventAll is set for a subsample live-details lists that
	// event/all does not list (or lists with no status): event/all lists
	// every subsample the supplier has an allocation in (spec, endpoint 1),
	// so the two disagree, as they do on a subsample event/all says is Live
	// that live-details does not list (Unlisted), and it is not sendable.
	NotInEventAll bool
	// Reported are the statuses each source of the snapshot gave the
	// subsample (event/all, live-details, each quota's subsampleStatus),
	// empty ones left out: it counts as Live only when all of them say so.
	Reported []ReportedStatus
	// Stale says why the snapshot is too old to decide on (Staleness); ""
	// when it is not. Every subsample is then unknown.
	Stale string
	// Said are what event/all and live-details each said of the other
	// fields that decide (the event, the country, the field end): a Live
	// subsample counts only when no two of them disagree.
	Said []Said
	// FieldStart and FieldEnd are the field period (live-details', else
	// event/all's); nil when not known. A Live subsample whose field ends
	// before it starts is not understood, and one whose field ended
	// before Now is not sendable.
	FieldStart, FieldEnd *time.Time
	// Now is the time of the decision: the clock, not the time the data
	// was read, says whether the field has ended.
	Now time.Time
	// Malformed says why the provider's element for the subsample in
	// event/all or live-details was dropped as unreadable; "" when it was
	// not. The subsample is then unknown: what was dropped may be what
	// decides.
	Malformed string
}

// Said is what event/all and live-details each said of one field that
// decides a subsample's sendability, as a coordinator reads it; "" when
// the source said nothing of it. They disagree when both said something
// and not the same.
type Said struct {
	Field                 string // "event", "country", "field end"
	EventAll, LiveDetails string
}

// ReportedStatus is the status one source gave a subsample.
type ReportedStatus struct {
	Source string // "event/all", "live-details" or "quotas"
	Status string
}

// Outcome is the result of one sendability rule.
type Outcome string

// The outcomes of a Check.
const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"
	Unread  Outcome = "unknown" // the data the rule needs is missing
	Skipped Outcome = "skipped" // an earlier rule already decided
)

// Names of the sendability rules, in the order the spec applies them.
const (
	RuleStatus        = "status"
	RuleAPI           = "api compatibility"
	RuleCPI           = "cpi"
	RuleTotalQuota    = "total quota"
	RuleOtherQuotas   = "other quotas"
	sendabilityChecks = 5
)

// Check is one rule's outcome, in the order the spec applies them.
type Check struct {
	Rule    string // RuleStatus, RuleAPI, RuleCPI, RuleTotalQuota or RuleOtherQuotas
	Outcome Outcome
	Detail  string // a sentence
}

// QuotaFill is one quota with what it still needs. Remaining is
// RemainingExclusive + RemainingShared, never below 0; the quota is Open
// when Remaining > 0.
type QuotaFill struct {
	QuotaID, TableID                int64
	TableName, QuotaName, QuotaType string
	Achieved, RemainingExclusive    int64
	RemainingShared, Remaining      int64
	Open                            bool
}

// Verdict is the sendability of one subsample with the reasons for it.
type Verdict struct {
	State   State
	Reasons []string // sentences, every failing condition (empty when sendable)
	Checks  []Check  // always all five rules, in order; later ones Skipped when an earlier rule already decided
	// Total is the total quota, nil when there is none, when the quotas are
	// not loaded, or when the provider sent more than one.
	Total *QuotaFill
	// Open and Closed are the other quotas (not the total), in the
	// provider's order. They are filled whenever the quotas are loaded,
	// even when an earlier rule decided the state, so pages can show them.
	Open, Closed []QuotaFill
}

// Sendability applies the spec's sending rule (rule 1) and quota sending
// rule (rule 3) to one subsample. On a stale snapshot every subsample is
// Unknown, the staleness its first reason, whatever the rules say of the
// old data (kept in Checks, for the pages).
//
// Status, API compatibility and CPI are always all evaluated, so every
// failing one is a reason. A Live-for-testing subsample is Testing even when
// API or CPI also fail. Only a Live, API-compatible, priced subsample goes
// on to the quotas: unread, failed or ambiguous quotas (none or several
// total quotas) make it Unknown; a full total quota makes it Paused.
//
// With the total open, the other quotas are grouped into tables by
// tableId, as quota matching groups them (groupTables), and a table that
// holds a hard quota and has no open cell makes the subsample Paused, the
// reason naming the table: every respondent would be in a full cell of
// it, and turned back, or in none, and off target, so no panelist's quota
// verdict can be fits. A table holds a hard quota when one of its cells
// has the quotaType hard (any case, kindOf), whether or not its
// conditions are understood. A closed cell of a table of counting cells
// only never pauses: a respondent in none of its cells is still taken.
// Nor does a table whose cells have a quotaType that is neither hard nor
// counting pause by itself: what such a cell would turn back is not
// known, and quota matching does not count it as hard either (a hard cell
// beside it still pauses its table when no cell of the table is open).
//
// A subsample whose provider element was dropped as malformed, or any
// subsample of a stale snapshot, is Unknown whatever else holds, with that
// reason first.
func Sendability(f SubsampleFacts) Verdict {
	v := sendability(f)
	for _, why := range []string{f.Malformed, f.Stale} {
		if why != "" {
			v.State = Unknown
			v.Reasons = append([]string{why}, v.Reasons...)
		}
	}
	return v
}

func sendability(f SubsampleFacts) Verdict {
	v := Verdict{Checks: make([]Check, 0, sendabilityChecks)}

	testing := f.Status == domain.StatusLiveForTesting
	var doubts []string
	if f.Status == domain.StatusLive {
		doubts = liveDoubts(&f)
	}
	switch {
	case len(doubts) > 0:
		v.failAll(RuleStatus, doubts)
	case f.Status == domain.StatusLive:
		v.pass(RuleStatus, "Status is Live.")
	case testing:
		v.fail(RuleStatus, "Status is Live for testing, not Live: only testers may enter.")
	case strings.TrimSpace(f.Status) == "":
		v.fail(RuleStatus, "No status was reported; only Live subsamples take respondents.")
	default:
		v.fail(RuleStatus, "Status is "+f.Status+", not Live.")
	}
	if f.Unlisted {
		// A subsample whose element could not be read may well be listed:
		// the reason is that element, which Sendability puts first.
		notKnown := "Not known: live-details does not list the subsample."
		switch {
		case f.Malformed != "":
			notKnown = "Not known: the subsample's elements could not be read."
		case f.Status == domain.StatusLive || testing:
			v.Reasons = append(v.Reasons, "Not listed by live-details: no allocation is open to the supplier.")
		}
		v.State = NotSendable
		v.skip(RuleAPI, notKnown)
		v.skip(RuleCPI, notKnown)
		v.skip(RuleTotalQuota, "Not read: only listed live subsamples have their quotas read.")
		v.skip(RuleOtherQuotas, "Not read: only listed live subsamples have their quotas read.")
		return v
	}
	if f.APICompatible {
		v.pass(RuleAPI, "API compatible.")
	} else {
		v.fail(RuleAPI, "Not API compatible.")
	}
	price := formatCPI(f.CPI, f.Currency)
	if f.CPI > 0 { // false for NaN too
		v.pass(RuleCPI, "CPI is "+price+".")
	} else {
		v.fail(RuleCPI, "CPI is "+price+"; it must be greater than 0.")
	}

	// Fill the quotas whenever they can be trusted, whatever decides.
	totals := 0
	if f.QuotasLoaded {
		totals = v.fillQuotas(f.Quotas)
	}

	switch {
	case testing:
		v.State = Testing
	case len(v.Reasons) > 0:
		v.State = NotSendable
	}
	if v.State != "" {
		v.skip(RuleTotalQuota, "Not checked: the subsample is "+strings.ToLower(v.State.Label())+" already.")
		v.skip(RuleOtherQuotas, "Not checked: the subsample is "+strings.ToLower(v.State.Label())+" already.")
		return v
	}

	// Rule 3: the total quota first.
	switch {
	case !f.QuotasLoaded:
		msg := "Quotas have not been read yet."
		if e := strings.TrimSpace(f.QuotasError); e != "" {
			msg = "Quotas could not be read: " + strings.TrimRight(e, ". ") + "."
		}
		return v.undecided(msg)
	case totals == 0 && len(f.Quotas) == 0:
		return v.undecided("No total quota: the provider sent no quotas.")
	case totals == 0:
		return v.undecided("No total quota among the " + countOf(len(f.Quotas), "quota", "quotas") + ".")
	case totals > 1:
		return v.undecided("The provider sent " + strconv.Itoa(totals) + " total quotas; which one counts is unclear.")
	}
	if why := totalNotUnderstood(f.Quotas); why != "" {
		return v.undecided(why)
	}
	if !v.Total.Open {
		v.State = Paused
		v.fail(RuleTotalQuota, "Total quota is full (0 remaining): sending is paused.")
		v.skip(RuleOtherQuotas, "Not checked: the total quota is full.")
		return v
	}
	v.pass(RuleTotalQuota, "Total quota needs "+strconv.FormatInt(v.Total.Remaining, 10)+
		" more ("+strconv.FormatInt(v.Total.Achieved, 10)+" achieved).")

	// Then every other quota, table by table.
	others := len(v.Open) + len(v.Closed)
	if others == 0 {
		v.pass(RuleOtherQuotas, "No other quotas: the total quota alone decides.")
		v.State = Sendable
		return v
	}
	if full := fullHardTables(f.Quotas); full != "" {
		v.State = Paused
		v.fail(RuleOtherQuotas, "Every cell of "+full+" is full: nobody can be counted, sending is paused.")
		return v
	}
	cells := CompileQuotas(f.Quotas)
	if why := cells.nobodyFits(); why != "" {
		v.State = Unknown
		v.Checks = append(v.Checks, Check{Rule: RuleOtherQuotas, Outcome: Unread, Detail: why})
		v.Reasons = append(v.Reasons, why)
		return v
	}
	detail := strconv.Itoa(len(v.Open)) + " of " + countOf(others, "quota cell", "quota cells") + " open."
	if len(v.Open) == 0 {
		detail = "0 of " + countOf(others, "quota cell", "quota cells") +
			" open, but none of their tables holds a hard quota: a respondent in none of their cells is still taken."
	}
	v.pass(RuleOtherQuotas, detail)
	v.State = Sendable
	return v
}

// liveDoubts says why a subsample the provider says is Live does not
// count as Live: the sources disagree on it, on its status or on another
// field that decides (Said), its field ends before it starts, or its field
// has ended by the clock. One sentence each; none when it counts as Live.
func liveDoubts(f *SubsampleFacts) []string {
	var doubts []string
	if f.NotInEventAll && f.Malformed == "" {
		doubts = append(doubts, "The sources disagree on the subsample: live-details says "+f.Status+
			", but event/all, which lists every subsample with an allocation, does not list it; a subsample counts as Live only when all sources say so.")
	}
	if fieldEnded(f.FieldEnd, f.Now) {
		doubts = append(doubts, "The provider says Live, but the field period ended "+f.FieldEnd.Format(fieldTimeLayout)+
			" (it is now "+f.Now.In(f.FieldEnd.Location()).Format(fieldTimeLayout)+"); nobody is sent until the provider closes it or moves its field end.")
	}
	if disagree(f.Reported, domain.StatusLive) {
		doubts = append(doubts, "The sources disagree on the status: "+reportedStatuses(f.Reported)+"; a subsample counts as Live only when all say so.")
	}
	for _, s := range f.Said {
		if s.EventAll != "" && s.LiveDetails != "" && s.EventAll != s.LiveDetails {
			doubts = append(doubts, "The sources disagree on the "+s.Field+": event/all says "+s.EventAll+", live-details says "+
				s.LiveDetails+"; nobody is sent until they agree.")
		}
	}
	if f.FieldStart != nil && f.FieldEnd != nil && f.FieldEnd.Before(*f.FieldStart) {
		doubts = append(doubts, "The field period ends "+f.FieldEnd.Format(fieldTimeLayout)+", before it starts ("+
			f.FieldStart.In(f.FieldEnd.Location()).Format(fieldTimeLayout)+"): the dates are not understood, and nobody is sent until the provider corrects them.")
	}
	return doubts
}

// fieldTimeLayout is how a reason writes a field end and the clock.
const fieldTimeLayout = "2 Jan 2006 15:04"

// fieldEnded reports whether the field period has ended at now: end
// strictly before now (a field that ends at this very moment has not ended
// yet). An unknown end, or no clock: not ended.
func fieldEnded(end *time.Time, now time.Time) bool {
	return end != nil && !end.IsZero() && !now.IsZero() && now.After(*end)
}

// fullHardTables names the quota tables that hold a hard quota and have
// no open cell, in the provider's order: "table Gender x Age (2)",
// "tables Gender (3) and Age (2)"; "" when there is none.
func fullHardTables(quotas []domain.Quota) string {
	var names []string
	var h cellsHeld
	for _, t := range groupTables(quotas, &h) {
		if t.hard && !t.open {
			name := strconv.FormatInt(t.id, 10)
			if t.name != 0 {
				name = h.text(t.name) + " (" + name + ")"
			}
			names = append(names, name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "table " + names[0]
	}
	return "tables " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// disagree reports whether some source reported another status than want.
func disagree(reported []ReportedStatus, want string) bool {
	for _, r := range reported {
		if r.Status != want {
			return true
		}
	}
	return false
}

// reportedStatuses lists what each source said: "event/all says Complete,
// live-details says Live".
func reportedStatuses(reported []ReportedStatus) string {
	parts := make([]string, len(reported))
	for i, r := range reported {
		parts[i] = r.Source + " says " + r.Status
	}
	return strings.Join(parts, ", ")
}

func (v *Verdict) pass(rule, detail string) {
	v.Checks = append(v.Checks, Check{Rule: rule, Outcome: Pass, Detail: detail})
}

// failAll records a rule that fails for every one of whys: one check,
// saying all of them, and each a reason.
func (v *Verdict) failAll(rule string, whys []string) {
	v.Checks = append(v.Checks, Check{Rule: rule, Outcome: Fail, Detail: strings.Join(whys, " ")})
	v.Reasons = append(v.Reasons, whys...)
}

// fail records a failing rule; its detail is also a reason.
func (v *Verdict) fail(rule, detail string) {
	v.Checks = append(v.Checks, Check{Rule: rule, Outcome: Fail, Detail: detail})
	v.Reasons = append(v.Reasons, detail)
}

func (v *Verdict) skip(rule, detail string) {
	v.Checks = append(v.Checks, Check{Rule: rule, Outcome: Skipped, Detail: detail})
}

// undecided makes the verdict Unknown because the total quota cannot be
// read from the data.
func (v *Verdict) undecided(reason string) Verdict {
	v.State = Unknown
	v.Checks = append(v.Checks, Check{Rule: RuleTotalQuota, Outcome: Unread, Detail: reason})
	v.Reasons = append(v.Reasons, reason)
	v.skip(RuleOtherQuotas, "Not checked: the total quota is unknown.")
	return *v
}

// fillQuotas sorts the quotas into Total, Open and Closed and returns how
// many total quotas there are. With more than one, Total stays nil and
// none of them is listed.
func (v *Verdict) fillQuotas(quotas []domain.Quota) int {
	// Open and Closed exactly as long as they will be: a snapshot's
	// verdicts are held for as long as it is current.
	open, closed := 0, 0
	for i := range quotas {
		switch q := &quotas[i]; {
		case q.IsTotal():
		case fillOf(q).Open:
			open++
		default:
			closed++
		}
	}
	if open > 0 {
		v.Open = make([]QuotaFill, 0, open)
	}
	if closed > 0 {
		v.Closed = make([]QuotaFill, 0, closed)
	}
	totals := 0
	for i := range quotas {
		q := &quotas[i]
		if q.IsTotal() {
			totals++
			if totals == 1 {
				t := fillOf(q)
				v.Total = &t
			} else {
				v.Total = nil
			}
			continue
		}
		if fill := fillOf(q); fill.Open {
			v.Open = append(v.Open, fill)
		} else {
			v.Closed = append(v.Closed, fill)
		}
	}
	return totals
}

// totalNotUnderstood says why the total quota's remaining counts are not
// understood (negativePart), "" when they are.
func totalNotUnderstood(quotas []domain.Quota) string {
	for i := range quotas {
		if quotas[i].IsTotal() {
			if why := negativePart(&quotas[i]); why != "" {
				return "The total quota is not understood: " + why + "."
			}
		}
	}
	return ""
}

// fillOf is the fill of one quota: a negative remaining counts as 0, and
// so does a positive sum of a negative and a positive count (roomOf).
func fillOf(q *domain.Quota) QuotaFill {
	remaining := roomOf(q)
	return QuotaFill{
		QuotaID: q.QuotaID, TableID: q.TableID,
		TableName: q.TableName, QuotaName: q.QuotaName, QuotaType: q.QuotaType,
		Achieved:           q.AchievedInterviews,
		RemainingExclusive: q.RemainingExclusive, RemainingShared: q.RemainingShared,
		Remaining: remaining, Open: remaining > 0,
	}
}

// formatCPI writes a price as "1.50 USD", or "1.50" without a currency.
func formatCPI(cpi float64, currency string) string {
	s := strconv.FormatFloat(cpi, 'f', 2, 64)
	if c := strings.TrimSpace(currency); c != "" {
		s += " " + c
	}
	return s
}

// countOf writes "1 quota" or "7 quotas".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
