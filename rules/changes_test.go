package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestChanges: "Every refresh compares the new snapshot with the previous
// one and records each change as an event" (issue 16), one case per kind
// and the cases that must say nothing.
func TestChanges(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	cpi := func(v float64) *float64 { return &v }
	end := func(d time.Duration) *time.Time { e := at.Add(d); return &e }
	live := func(sendability string) domain.SubsampleState {
		return domain.SubsampleState{Status: domain.StatusLive, Sendability: sendability, EventID: 7, Country: "FR", CPI: cpi(2.5), Currency: "EUR",
			FieldEnd: end(72 * time.Hour), QuotasRead: true}
	}
	with := func(s domain.SubsampleState, change func(*domain.SubsampleState)) domain.SubsampleState {
		change(&s)
		return s
	}
	type kindOf struct {
		kind          domain.ChangeKind
		quota         string
		before, after string
	}
	tests := []struct {
		name       string
		prev, next map[int64]domain.SubsampleState
		want       []kindOf
	}{
		{"the first refresh of an empty database is the baseline: it records no new or became sendable change", nil,
			map[int64]domain.SubsampleState{1: live("sendable"), 2: live("unknown"),
				3: with(live("sendable"), func(s *domain.SubsampleState) {
					s.FieldEnd, s.AtRisk, s.ClosedQuotas = end(time.Hour), "38 completes left", []string{"9"}
				})}, nil},
		{"nothing moved", map[int64]domain.SubsampleState{1: live("sendable")}, map[int64]domain.SubsampleState{1: live("sendable")}, nil},
		{"subsample.new, sendable at once", map[int64]domain.SubsampleState{}, map[int64]domain.SubsampleState{1: live("sendable")},
			[]kindOf{{domain.ChangeNew, "", "", "Live, sendable"}, {domain.ChangeSendable, "", "", "sendable"}}},
		{"a new one that cannot be decided is new, not also unknown", map[int64]domain.SubsampleState{}, map[int64]domain.SubsampleState{1: live("unknown")},
			[]kindOf{{domain.ChangeNew, "", "", "Live, unknown"}}},
		{"a new one that arrives paused or closed is new, nothing more", map[int64]domain.SubsampleState{},
			map[int64]domain.SubsampleState{1: live("paused"), 2: {Status: domain.StatusCanceled, Sendability: "not_sendable", EventID: 7, Country: "FR"}},
			[]kindOf{{domain.ChangeNew, "", "", "Live, paused"}, {domain.ChangeNew, "", "", "Canceled, not sendable"}}},
		{"subsample.sendable", map[int64]domain.SubsampleState{1: live("paused")}, map[int64]domain.SubsampleState{1: live("sendable")},
			[]kindOf{{domain.ChangeSendable, "", "paused", "sendable"}}},
		{"subsample.paused", map[int64]domain.SubsampleState{1: live("sendable")}, map[int64]domain.SubsampleState{1: live("paused")},
			[]kindOf{{domain.ChangePaused, "", "sendable", "paused"}}},
		{"subsample.not_sendable", map[int64]domain.SubsampleState{1: live("sendable")}, map[int64]domain.SubsampleState{1: live("not_sendable")},
			[]kindOf{{domain.ChangeNotSendable, "", "sendable", "not sendable"}}},
		{"subsample.unknown", map[int64]domain.SubsampleState{1: live("sendable")}, map[int64]domain.SubsampleState{1: live("unknown")},
			[]kindOf{{domain.ChangeUnknown, "", "sendable", "unknown"}}},
		{"subsample.closed: left Live", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: {Status: domain.StatusComplete, Sendability: "not_sendable", EventID: 7, Country: "FR"}},
			[]kindOf{{domain.ChangeClosed, "", "Live", "Complete"}, {domain.ChangeNotSendable, "", "sendable", "not sendable"}}},
		{"subsample.closed: gone from the event list", map[int64]domain.SubsampleState{1: live("sendable")}, map[int64]domain.SubsampleState{},
			[]kindOf{{domain.ChangeClosed, "", "Live", "gone from the event list"}}},
		{"no status (its elements unreadable) is not news that it closed", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: {Sendability: "unknown"}}, []kindOf{{domain.ChangeUnknown, "", "sendable", "unknown"}}},
		{"subsample.cpi_changed, old and new", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.CPI = cpi(3) })},
			[]kindOf{{domain.ChangeCPI, "", "2.5 EUR", "3 EUR"}}},
		{"a price the provider drops reads unknown, not 0", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.CPI = cpi(0) })},
			[]kindOf{{domain.ChangeCPI, "", "2.5 EUR", "unknown"}}},
		{"a CPI that appears (the subsample went live) is no price change", map[int64]domain.SubsampleState{1: {Status: domain.StatusPending, Sendability: "not_sendable"}},
			map[int64]domain.SubsampleState{1: live("not_sendable")}, nil},
		{"subsample.field_end_near: within 24 hours while sendable", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.FieldEnd = end(23 * time.Hour) })},
			[]kindOf{{domain.ChangeFieldEndNear, "", "", "field ends " + at.Add(23*time.Hour).Format("2 Jan 2006 15:04 MST")}}},
		{"field end near said once", map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.FieldEnd = end(20 * time.Hour) })},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.FieldEnd = end(20 * time.Hour) })}, nil},
		{"field end near but paused: nothing", map[int64]domain.SubsampleState{1: live("paused")},
			map[int64]domain.SubsampleState{1: with(live("paused"), func(s *domain.SubsampleState) { s.FieldEnd = end(time.Hour) })}, nil},
		{"quota.closed and quota.reopened", map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.ClosedQuotas = []string{"q1"} })},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.ClosedQuotas = []string{"q2"} })},
			[]kindOf{{domain.ChangeQuotaClosed, "q2", "open", "closed"}, {domain.ChangeQuotaReopened, "q1", "closed", "open"}}},
		{"quotas not read this time say nothing", map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.ClosedQuotas = []string{"q1"} })},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.QuotasRead = false })}, nil},
		{"subsample.at_risk: its pace became at risk", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.AtRisk = "40 completes left" })},
			[]kindOf{{domain.ChangeAtRisk, "", "not at risk", "40 completes left"}}},
		{"at risk said once", map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.AtRisk = "40 completes left" })},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.AtRisk = "38 completes left" })}, nil},
		{"at risk while paused is news too: the work will not finish", map[int64]domain.SubsampleState{1: live("paused")},
			map[int64]domain.SubsampleState{1: with(live("paused"), func(s *domain.SubsampleState) { s.AtRisk = "40 completes left" })},
			[]kindOf{{domain.ChangeAtRisk, "", "not at risk", "40 completes left"}}},
		{"subsample.back_on_pace: at risk before, clearly on pace now", map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.AtRisk = "40 completes left" })},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.OnPace = "10 completes left" })},
			[]kindOf{{domain.ChangeBackOnPace, "", "at risk", "10 completes left"}}},
		{"no longer at risk but not clearly on pace says nothing", map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.AtRisk = "40 completes left" })},
			map[int64]domain.SubsampleState{1: live("sendable")}, nil},
		{"on pace when it was not at risk says nothing", map[int64]domain.SubsampleState{1: live("sendable")},
			map[int64]domain.SubsampleState{1: with(live("sendable"), func(s *domain.SubsampleState) { s.OnPace = "10 completes left" })}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Changes(tt.prev, tt.next, at)
			var kinds []kindOf
			for _, c := range got {
				kinds = append(kinds, kindOf{c.Kind, c.QuotaID, c.Before, c.After})
				if !c.At.Equal(at) || c.SubsampleID != 1 && c.Kind != domain.ChangeNew || c.EventID != 7 && c.Kind != domain.ChangeUnknown || c.Country != "FR" && c.Kind != domain.ChangeUnknown {
					t.Errorf("%s: %+v, want it at %v on subsample 1 of event 7 in FR", c.Kind, c, at)
				}
			}
			if !slices.Equal(kinds, tt.want) {
				t.Errorf("changes\n got %+v\nwant %+v", kinds, tt.want)
			}
		})
	}
}

// TestDetectCarriesWhatAFailedReadCouldNotSay: a refresh that could not
// read a subsample's quotas says nothing of them, so the next one that
// reads them is compared with the last that did: a quota that closed in
// between is news once, an at-risk pace is not news again.
func TestDetectCarriesWhatAFailedReadCouldNotSay(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	state := func(read bool, atRisk string, closed ...string) map[int64]domain.SubsampleState {
		return map[int64]domain.SubsampleState{1: {Status: domain.StatusLive, Sendability: "sendable", EventID: 7, Country: "FR",
			QuotasRead: read, ClosedQuotas: closed, AtRisk: atRisk}}
	}
	var kinds []domain.ChangeKind
	kept := state(true, "40 completes left", "q1")
	for i, next := range []map[int64]domain.SubsampleState{
		state(false, ""), // the quotas call failed
		state(true, "39 completes left", "q1", "q2"), // read again: q2 closed meanwhile
	} {
		var changes []domain.Change
		kept, changes = Detect(kept, next, at.Add(time.Duration(i)*3*time.Minute))
		for _, c := range changes {
			kinds = append(kinds, c.Kind)
			if c.Kind == domain.ChangeQuotaClosed && c.QuotaID != "q2" {
				t.Errorf("quota.closed of %q, want q2", c.QuotaID)
			}
		}
		if i == 0 && (!kept[1].QuotasRead || !slices.Equal(kept[1].ClosedQuotas, []string{"q1"}) || kept[1].AtRisk == "") {
			t.Errorf("after the failed read, kept %+v; want the last read's quotas and pace", kept[1])
		}
	}
	if !slices.Equal(kinds, []domain.ChangeKind{domain.ChangeQuotaClosed}) {
		t.Errorf("changes %v; want quota.closed of q2 only", kinds)
	}
	// A closed subsample carries nothing: its quotas are gone.
	if kept, _ := Detect(state(true, "", "q1"), map[int64]domain.SubsampleState{1: {Status: domain.StatusComplete}}, at); kept[1].QuotasRead {
		t.Errorf("a closed subsample kept %+v", kept[1])
	}
}

// TestDetectSaysEachRealPaceMoveOnce: "one subsample was flagged seven
// times, each 'not at risk -> at risk', with no 'back on pace' between"
// (issue 40). Readings of one subsample's pace, paced by Pace as a
// refresh paces them, hover at the at-risk line; the feed says at risk
// when it first crosses it, back on pace only once it is clearly on pace,
// and at risk again only after that.
func TestDetectSaysEachRealPaceMoveOnce(t *testing.T) {
	end := hoursFromNow(6)
	// steady's low end is about 17.6 an hour; 6 hours fill about 105 at
	// it, and 80% of them (PaceBackOnPaceShare) about 84.
	const atRisk, between, onPace = "at risk", "between", "on pace"
	readings := []struct {
		remaining int64
		is        string
	}{
		{100, between}, {110, atRisk}, {100, between}, {108, atRisk}, {95, between}, {107, atRisk},
		{90, between}, {80, onPace}, {95, between}, {100, between}, {110, atRisk}, {112, atRisk},
	}
	state := func(remaining int64) domain.SubsampleState {
		p := Pace(steady(), remaining, paceNow, end)
		return domain.SubsampleState{Status: domain.StatusLive, Sendability: "sendable", EventID: 7, Country: "FR", FieldEnd: end,
			QuotasRead: true, AtRisk: p.Risk(end), OnPace: p.OnPace(end)}
	}
	kept := map[int64]domain.SubsampleState{1: state(readings[0].remaining)}
	var got []string
	for i, r := range readings[1:] {
		next := state(r.remaining)
		is := between
		switch {
		case next.AtRisk != "":
			is = atRisk
		case next.OnPace != "":
			is = onPace
		}
		if is != r.is {
			t.Fatalf("reading %d, %d to go, is %s; the case wants %s", i+1, r.remaining, is, r.is)
		}
		var changes []domain.Change
		kept, changes = Detect(kept, map[int64]domain.SubsampleState{1: next}, paceNow.Add(time.Duration(i)*3*time.Minute))
		for _, c := range changes {
			got = append(got, fmt.Sprintf("%d: %s %s -> %s", i+1, c.Kind, c.Before, strings.SplitN(c.After, " ", 2)[0]))
		}
	}
	want := []string{
		"1: subsample.at_risk not at risk -> 110",
		"7: subsample.back_on_pace at risk -> 80",
		"10: subsample.at_risk not at risk -> 110",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the feed said\n%s\nwant one entry per real move:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHoldAtRiskDropsAClosedSubsample: a subsample that left Live is not
// kept at risk (its closing is the news), so a pace after it reopens is
// said afresh; one whose pace cannot be said (too little history) is.
func TestHoldAtRiskDropsAClosedSubsample(t *testing.T) {
	was := map[int64]domain.SubsampleState{1: {Status: domain.StatusLive, QuotasRead: true, AtRisk: "40 completes left"}}
	if kept := HoldAtRisk(was, map[int64]domain.SubsampleState{1: {Status: domain.StatusComplete}}); kept[1].AtRisk != "" {
		t.Errorf("a closed subsample kept at risk: %+v", kept[1])
	}
	if kept := HoldAtRisk(was, map[int64]domain.SubsampleState{1: {Status: domain.StatusLive, QuotasRead: true}}); kept[1].AtRisk != "40 completes left" {
		t.Errorf("a live one without a pace to say was not kept at risk: %+v", kept[1])
	}
}
