package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// FieldEndNear is how close a sendable subsample's field end must be for
// the change feed to say so.
const FieldEndNear = 24 * time.Hour

// Changes compares the states one events refresh decided (next) with
// those of the refresh before (previous) and returns what moved, each
// change once, stamped at, ordered by subsample then kind:
//
//   - subsample.new: a subsample the previous refresh did not have;
//   - subsample.sendable, .paused, .not_sendable, .unknown: its
//     sendability became that state; of a new subsample only sendable is
//     news (one that arrives closed or paused was never sent to);
//   - subsample.closed: it left Live or Live for testing, or the event
//     list (no status at all, its elements unreadable, is not news that it
//     closed);
//   - subsample.cpi_changed: live-details' CPI moved (old and new);
//   - subsample.field_end_near: sendable and its field end within
//     FieldEndNear of at, when the previous refresh did not find it so;
//   - quota.closed, quota.reopened: a quota's remaining completes reached
//     nothing, or came back, between two refreshes that both read the
//     subsample's quotas (a failed read says nothing);
//   - subsample.at_risk: its total quota's pace became at risk (the
//     state's AtRisk, from Pace at that refresh), the sentence saying why
//     after; not when the refresh before found it at risk already (Detect
//     keeps that over a refresh that could not read the quotas, or whose
//     pace is between the two lines of PaceBackOnPaceShare). Any live
//     subsample, as the live list's at-risk filter: one paused by a full
//     cell is work that will not finish either;
//   - subsample.back_on_pace: at risk at the refresh before, and now
//     clearly on pace (the state's OnPace, the sentence saying why
//     after); a pace merely no longer at risk is not news.
//
// previous nil means there was no refresh before: this one is the
// baseline, and records nothing (every subsample would be "new" and every
// sendable one "became sendable", which says nothing). An empty, non-nil
// previous is a refresh that found no subsamples.
func Changes(previous, next map[int64]domain.SubsampleState, at time.Time) []domain.Change {
	if previous == nil {
		return nil
	}
	var out []domain.Change
	add := func(id int64, s domain.SubsampleState, kind domain.ChangeKind, quota, before, after string) {
		out = append(out, domain.Change{At: at, Kind: kind, SubsampleID: id, EventID: s.EventID, Country: s.Country,
			QuotaID: quota, Before: before, After: after})
	}
	for id, now := range next {
		was, known := previous[id]
		if !known {
			add(id, now, domain.ChangeNew, "", "", describe(now))
		}
		if kind := sendabilityChange(now.Sendability); kind != "" && (known && now.Sendability != was.Sendability || !known && kind == domain.ChangeSendable) {
			add(id, now, kind, "", stateWords(was.Sendability), stateWords(now.Sendability))
		}
		if known && open(was.Status) && !open(now.Status) && now.Status != "" {
			add(id, now, domain.ChangeClosed, "", was.Status, now.Status)
		}
		if known && was.CPI != nil && now.CPI != nil && (*was.CPI != *now.CPI || was.Currency != now.Currency) {
			add(id, now, domain.ChangeCPI, "", money(*was.CPI, was.Currency), money(*now.CPI, now.Currency))
		}
		if nearEnd(now, at) && !(known && nearEnd(was, at)) {
			add(id, now, domain.ChangeFieldEndNear, "", "", "field ends "+FormatTime(*now.FieldEnd))
		}
		if known && was.QuotasRead && now.QuotasRead {
			for _, q := range now.ClosedQuotas {
				if !slices.Contains(was.ClosedQuotas, q) {
					add(id, now, domain.ChangeQuotaClosed, q, "open", "closed")
				}
			}
			for _, q := range was.ClosedQuotas {
				if !slices.Contains(now.ClosedQuotas, q) {
					add(id, now, domain.ChangeQuotaReopened, q, "closed", "open")
				}
			}
		}
		if now.AtRisk != "" && !(known && was.AtRisk != "") {
			add(id, now, domain.ChangeAtRisk, "", "not at risk", now.AtRisk)
		}
		if known && was.AtRisk != "" && now.AtRisk == "" && now.OnPace != "" {
			add(id, now, domain.ChangeBackOnPace, "", "at risk", now.OnPace)
		}
	}
	for id, was := range previous {
		if _, still := next[id]; !still && open(was.Status) {
			add(id, was, domain.ChangeClosed, "", was.Status, "gone from the event list")
		}
	}
	slices.SortFunc(out, func(a, b domain.Change) int {
		return cmp.Or(cmp.Compare(a.SubsampleID, b.SubsampleID), cmp.Compare(slices.Index(domain.ChangeKinds, a.Kind), slices.Index(domain.ChangeKinds, b.Kind)),
			cmp.Compare(a.QuotaID, b.QuotaID))
	})
	return out
}

// Detect is what an events refresh records: the states to keep for the
// next comparison (next, with what it could not read carried from
// previous, CarryUnread, and an at-risk pace held until it is clearly on
// pace, HoldAtRisk) and the changes since previous (Changes; none when
// previous is nil, the baseline).
func Detect(previous, next map[int64]domain.SubsampleState, at time.Time) (map[int64]domain.SubsampleState, []domain.Change) {
	kept := HoldAtRisk(previous, CarryUnread(previous, next))
	return kept, Changes(previous, kept, at)
}

// HoldAtRisk returns next with each open subsample that previous found at
// risk kept at risk (its last sentence) unless next finds it at risk
// again or clearly on pace (OnPace): a pace between the two lines
// (PaceBackOnPaceShare), or none (too little history, no field end), is
// no move, so a pace that hovers at the line is at risk once and back on
// pace once, not at risk at every other refresh. A subsample that is no
// longer open drops it: its closing is the news, and a pace after it
// reopens is new. next is not changed.
func HoldAtRisk(previous, next map[int64]domain.SubsampleState) map[int64]domain.SubsampleState {
	kept := make(map[int64]domain.SubsampleState, len(next))
	for id, now := range next {
		if was, known := previous[id]; known && was.AtRisk != "" && now.AtRisk == "" && now.OnPace == "" && open(now.Status) {
			now.AtRisk = was.AtRisk
		}
		kept[id] = now
	}
	return kept
}

// CarryUnread returns next with, for each open subsample whose quotas
// this refresh could not read (a failed or late call), the closed quotas
// and the pace of the last refresh that read them: a failed read says
// nothing of the quotas, so the next successful read is compared with the
// last one (a quota that closed meanwhile is still news, once) and an
// at-risk pace is not news again. next is not changed.
func CarryUnread(previous, next map[int64]domain.SubsampleState) map[int64]domain.SubsampleState {
	kept := make(map[int64]domain.SubsampleState, len(next))
	for id, now := range next {
		if was, known := previous[id]; known && !now.QuotasRead && was.QuotasRead && open(now.Status) {
			now.QuotasRead, now.ClosedQuotas, now.AtRisk = true, was.ClosedQuotas, was.AtRisk
		}
		kept[id] = now
	}
	return kept
}

// stateWords is a sendability state as the change feed says it ("not
// sendable"); "" for none (a subsample new to the feed).
func stateWords(state string) string {
	if state == "" {
		return ""
	}
	return strings.ToLower(State(state).Label())
}

// sendabilityChange is the kind of change a subsample's sendability
// becoming state makes; "" for a state the feed does not report.
func sendabilityChange(state string) domain.ChangeKind {
	switch State(state) {
	case Sendable:
		return domain.ChangeSendable
	case Paused:
		return domain.ChangePaused
	case NotSendable:
		return domain.ChangeNotSendable
	case Unknown:
		return domain.ChangeUnknown
	}
	return ""
}

func open(status string) bool {
	return status == domain.StatusLive || status == domain.StatusLiveForTesting
}

// nearEnd says whether s is sendable with its field end within
// FieldEndNear of at (and not past).
func nearEnd(s domain.SubsampleState, at time.Time) bool {
	return State(s.Sendability) == Sendable && s.FieldEnd != nil && !s.FieldEnd.Before(at) && s.FieldEnd.Sub(at) <= FieldEndNear
}

// describe is a new subsample's state in a few words.
func describe(s domain.SubsampleState) string {
	if s.Sendability == "" {
		return s.Status
	}
	return s.Status + ", " + stateWords(s.Sendability)
}

// money writes a price with its currency, "2.5 USD", or "unknown" when
// the provider gave none (PriceKnown).
func money(v float64, currency string) string {
	if !PriceKnown(v, currency) {
		return "unknown"
	}
	return fmt.Sprintf("%s %s", strconv.FormatFloat(v, 'f', -1, 64), currency)
}
