package checks

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestUnreadable: issue 13, "an element ... with a wrong type or a missing
// required field is dropped, its subsample (when its id can be read) is
// unknown with the reason"; one whose id cannot be read leaves unknown
// every subsample it may have been.
func TestUnreadable(t *testing.T) {
	summaries := []domain.SubsampleSummary{
		{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive},
		{SubsampleID: 2, EventID: 10, SubsampleStatus: domain.StatusLive},
		{SubsampleID: 3, EventID: 10, SubsampleStatus: domain.StatusComplete},
		{SubsampleID: 4, EventID: 10, SubsampleStatus: domain.StatusLiveForTesting},
	}
	live := []domain.LiveSubsample{
		{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive},
		{SubsampleID: 5, EventID: 11, SubsampleStatus: domain.StatusLive},
	}
	named := func(list string, id int64) domain.MalformedElement {
		return domain.MalformedElement{List: list, Index: 3, SubsampleID: id, Reason: "targetedCPI is a string, not a number"}
	}
	unnamed := func(list string) domain.MalformedElement {
		return domain.MalformedElement{List: list, Index: 7, Reason: "subsampleId is missing"}
	}
	tests := []struct {
		name      string
		malformed []domain.MalformedElement
		want      map[int64][]string // each reason must hold these
	}{
		{"nothing dropped", nil, map[int64][]string{}},
		{"a named element costs its subsample", []domain.MalformedElement{named(domain.ListLiveDetails, 2)},
			map[int64][]string{2: {"live-details answer for this subsample could not be read (element 4: targetedCPI is a string"}}},
		{"both lists name it: both reasons", []domain.MalformedElement{named(domain.ListEventAll, 1), named(domain.ListLiveDetails, 1)},
			map[int64][]string{1: {"event/all answer", "live-details answer"}}},
		{"event/all drops one it cannot name: live-details' subsamples it does not list", []domain.MalformedElement{unnamed(domain.ListEventAll)},
			map[int64][]string{5: {"event/all answer held 1 element(s)", "may be one of them"}}},
		{"live-details drops one it cannot name: event/all's Live ones it does not list", []domain.MalformedElement{unnamed(domain.ListLiveDetails)},
			map[int64][]string{2: {"live-details answer held 1 element(s)"}, 4: {"Live in event/all but not readably in live-details"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unreadable(summaries, live, tt.malformed)
			if len(got) != len(tt.want) {
				t.Fatalf("Unreadable = %v; want reasons for %v", got, tt.want)
			}
			for id, parts := range tt.want {
				for _, part := range parts {
					if !strings.Contains(got[id], part) {
						t.Errorf("subsample %d: %q; want it to hold %q", id, got[id], part)
					}
				}
			}
			// The refresher's States and the checks decide them alike: unknown.
			states := States(store.EventsSnapshot{Summaries: summaries, Live: live, Unreadable: got}, nil)
			for id := range tt.want {
				if states[id].Sendability != string(rules.Unknown) {
					t.Errorf("subsample %d is %s in States, want unknown", id, states[id].Sendability)
				}
			}
		})
	}
}

// TestLiveDetailsAloneIsADisagreement: the spec says event/all "returns
// every subsample, ... in which the supplier had or has a valid
// allocation": a Live subsample that live-details lists and event/all
// does not is a disagreement, not sendable with what each said, as the
// reverse (event/all alone) already is; both in States and in Facts.
func TestLiveDetailsAloneIsADisagreement(t *testing.T) {
	quotas := []domain.Quota{{QuotaID: 8, QuotaType: domain.QuotaTypeCounting, TableName: "Total Quota", RemainingExclusive: 50}}
	live := func(id int64) domain.LiveSubsample {
		return domain.LiveSubsample{SubsampleID: id, EventID: 10, SubsampleStatus: domain.StatusLive, SurveyAPICompatibility: true, TargetedCPI: 2}
	}
	snap := store.EventsSnapshot{
		Summaries: []domain.SubsampleSummary{{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive}},
		Live:      []domain.LiveSubsample{live(1), live(5)},
		Details:   map[int64]store.SubsampleDetail{1: {Quotas: quotas}, 5: {Quotas: quotas}},
	}
	states := States(snap, nil)
	if states[1].Sendability != string(rules.Sendable) || states[5].Sendability != string(rules.NotSendable) {
		t.Errorf("listed by both: %s; by live-details alone: %s; want sendable and not_sendable", states[1].Sendability, states[5].Sendability)
	}
	read, cpi := true, 2.0
	row := store.SubsampleRow{SubsampleID: 5, Status: domain.StatusLive, LiveStatus: domain.StatusLive, Live: true, APICompatible: true, CPI: &cpi, QuotasOK: &read}
	v := rules.Sendability(Facts(row, quotas, time.Time{}))
	want := "The sources disagree on the subsample: live-details says Live, but event/all, which lists every subsample with an allocation, does not list it"
	if v.State != rules.NotSendable || len(v.Reasons) != 1 || !strings.HasPrefix(v.Reasons[0], want) {
		t.Errorf("a row live-details alone lists: %s %q, want not_sendable saying %q", v.State, v.Reasons, want)
	}
	row.SummaryStatus = domain.StatusLive
	if v := rules.Sendability(Facts(row, quotas, time.Time{})); v.State != rules.Sendable {
		t.Errorf("the same row listed by event/all too: %s %q, want sendable", v.State, v.Reasons)
	}
}

// TestStatesPaceTheTotalQuota: subsample.at_risk comes from the pace the
// live list will show once the snapshot is written (issue 16, "at risk
// when, at the lower bound of that rate, the remaining completes are not
// reached before the field end"): the stored history of the total quota
// and the count this snapshot read.
func TestStatesPaceTheTotalQuota(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	total := func(achieved, remaining int64) []domain.Quota {
		return []domain.Quota{{QuotaID: 9, QuotaType: domain.QuotaTypeCounting, TableName: "Total Quota",
			AchievedInterviews: achieved, RemainingExclusive: remaining}}
	}
	track := func(points ...store.QuotaPoint) store.QuotaTrack {
		return store.QuotaTrack{QuotaID: 9, ReadAt: points[len(points)-1].At, Points: points}
	}
	at := func(hoursAgo float64, achieved int64) store.QuotaPoint {
		return store.QuotaPoint{At: now.Add(-time.Duration(hoursAgo * float64(time.Hour))), Achieved: achieved}
	}
	tests := []struct {
		name       string
		track      store.QuotaTrack
		quotas     []domain.Quota
		quotasErr  error
		fieldEnd   time.Duration
		wantAtRisk bool
		wantOnPace bool
	}{
		{"2 an hour with 100 left and 5 hours to go: at risk", track(at(4, 0), at(3, 2), at(2, 4), at(1, 6)), total(8, 100), nil, 5 * time.Hour, true, false},
		{"2 an hour with 4 left and 5 hours to go: not at risk", track(at(4, 0), at(3, 2), at(2, 4), at(1, 6)), total(8, 4), nil, 5 * time.Hour, false, false},
		{"2 an hour with 1 left and 5 hours to go: clearly on pace", track(at(4, 0), at(3, 2), at(2, 4), at(1, 6)), total(8, 1), nil, 5 * time.Hour, false, true},
		// Stalled in the store since 2 hours ago; this read saw 20 more:
		// paced without it, nothing moved and 5 would be at risk.
		{"the count this snapshot read counts", track(at(2, 0)), total(20, 5), nil, time.Hour, false, true},
		{"no history: too little to say", store.QuotaTrack{}, total(8, 100), nil, time.Hour, false, false},
		{"quotas not read: not paced", track(at(4, 0), at(3, 2), at(2, 4), at(1, 6)), nil, errors.New("timeout"), 5 * time.Hour, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			end := domain.LocalTime{Time: now.Add(tt.fieldEnd)}
			snap := store.EventsSnapshot{
				Summaries: []domain.SubsampleSummary{{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive, FieldEndDate: end}},
				Live:      []domain.LiveSubsample{{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive, FieldEndDate: end, TargetedCPI: 2}},
				Details:   map[int64]store.SubsampleDetail{1: {FetchedAt: now, Quotas: tt.quotas, QuotasErr: tt.quotasErr}},
			}
			st := States(snap, map[int64]store.QuotaTrack{1: tt.track})[1]
			got := st.AtRisk
			if (got != "") != tt.wantAtRisk {
				t.Fatalf("AtRisk = %q, want at risk %v", got, tt.wantAtRisk)
			}
			if (st.OnPace != "") != tt.wantOnPace {
				t.Errorf("OnPace = %q, want clearly on pace %v", st.OnPace, tt.wantOnPace)
			}
			if tt.wantAtRisk && (!strings.Contains(got, "100 completes left") || !strings.Contains(got, rules.FormatTime(now.Add(tt.fieldEnd)))) {
				t.Errorf("AtRisk = %q, want what is left and the field end", got)
			}
		})
	}
}

// TestChangesFromSnapshotPairs: issue 16's change detection "from
// snapshot pairs", end to end in what the refresher runs: each snapshot's
// states decided by States as it is about to be written, then
// rules.Detect against the states kept from the one before.
func TestChangesFromSnapshotPairs(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	type sub struct {
		status      string
		cpi         float64
		cell        int64 // the hard cell's remaining completes
		quotasErr   error
		liveEnd     time.Duration // 0: live-details gives no field end
		summaryEnd  time.Duration
		notInEvents bool
	}
	snapshot := func(s sub) store.EventsSnapshot {
		var snap store.EventsSnapshot
		if s.notInEvents {
			return snap
		}
		end := func(d time.Duration) domain.LocalTime {
			if d == 0 {
				return domain.LocalTime{}
			}
			return domain.LocalTime{Time: now.Add(d)}
		}
		snap.Summaries = []domain.SubsampleSummary{{SubsampleID: 1, EventID: 10, SubsampleStatus: s.status, Country: domain.Country{Code: "FR"},
			FieldEndDate: end(s.summaryEnd)}}
		if s.status != domain.StatusLive {
			return snap
		}
		snap.Live = []domain.LiveSubsample{{SubsampleID: 1, EventID: 10, SubsampleStatus: s.status, SurveyAPICompatibility: true,
			TargetedCPI: s.cpi, TargetedCurrency: "EUR", FieldEndDate: end(s.liveEnd), Countries: []domain.Country{{Code: "FR"}}}}
		snap.Details = map[int64]store.SubsampleDetail{1: {FetchedAt: now, QuotasErr: s.quotasErr, Quotas: []domain.Quota{
			{QuotaID: 8, QuotaType: domain.QuotaTypeCounting, TableName: "Total Quota", RemainingExclusive: 50},
			{QuotaID: 9, QuotaType: domain.QuotaTypeHard, TableName: "Age", QuotaName: "18-34", RemainingExclusive: s.cell,
				Questions: []domain.QuotaQuestion{{ID: 42, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: new(int64)}}}}},
		}}}
		return snap
	}
	live := sub{status: domain.StatusLive, cpi: 2, cell: 5, liveEnd: 72 * time.Hour, summaryEnd: 72 * time.Hour}
	with := func(s sub, change func(*sub)) sub { change(&s); return s }
	tests := []struct {
		name  string
		snaps []sub
		want  []string // kind, or kind:quota, of the changes after the first snapshot
	}{
		{"nothing moved", []sub{live, live}, nil},
		{"the CPI moved", []sub{live, with(live, func(s *sub) { s.cpi = 3 })}, []string{"subsample.cpi_changed"}},
		// The cell is the subsample's only one: closed, it pauses it.
		{"a cell's remaining completes reached 0", []sub{live, with(live, func(s *sub) { s.cell = 0 })}, []string{"subsample.paused", "quota.closed:9"}},
		{"and came back", []sub{with(live, func(s *sub) { s.cell = 0 }), live}, []string{"subsample.sendable", "quota.reopened:9"}},
		{"a cell closed while the quotas could not be read: said once, at the next read", []sub{live,
			with(live, func(s *sub) { s.quotasErr = errors.New("timeout") }), with(live, func(s *sub) { s.cell = 0 })},
			[]string{"subsample.unknown", "subsample.paused", "quota.closed:9"}},
		{"it left Live", []sub{live, with(live, func(s *sub) { s.status = domain.StatusComplete })},
			[]string{"subsample.closed", "subsample.not_sendable"}},
		{"it left the event list", []sub{live, {notInEvents: true}}, []string{"subsample.closed"}},
		{"field end near, from event/all when live-details gives none", []sub{live,
			with(live, func(s *sub) { s.liveEnd, s.summaryEnd = 0, 20*time.Hour })}, []string{"subsample.field_end_near"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kept map[int64]store.SubsampleState
			var got []string
			for i, s := range tt.snaps {
				states := States(snapshot(s), nil)
				if i == 0 && states[1].Sendability != "sendable" && s.cell > 0 {
					t.Fatalf("the first snapshot's subsample is %s, want sendable", states[1].Sendability)
				}
				var changes []domain.Change
				kept, changes = rules.Detect(kept, states, now)
				for _, c := range changes {
					if i == 0 {
						continue
					}
					if c.QuotaID != "" {
						got = append(got, string(c.Kind)+":"+c.QuotaID)
					} else {
						got = append(got, string(c.Kind))
					}
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("changes %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStatesAgreeOnALiveSubsampleWhoseFieldEnded: the refresher's states
// (the change feed) decide a Live subsample at the end of the refresh's
// read, as the checks would at that moment: one whose field ended before
// it is not sendable, one whose field ends at that very moment still is.
// (Between two refreshes the checks decide at the clock, and the feed
// records the field's end at the next refresh: docs/rules.md.)
func TestStatesAgreeOnALiveSubsampleWhoseFieldEnded(t *testing.T) {
	readAt := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	quotas := []domain.Quota{{QuotaID: 8, QuotaType: domain.QuotaTypeCounting, TableName: "Total Quota", RemainingExclusive: 50}}
	live := func(id int64, end time.Time) domain.LiveSubsample {
		l := domain.LiveSubsample{SubsampleID: id, EventID: 10, SubsampleStatus: domain.StatusLive, SurveyAPICompatibility: true, TargetedCPI: 2}
		l.FieldEndDate.Time = end
		return l
	}
	snap := store.EventsSnapshot{
		Summaries: []domain.SubsampleSummary{{SubsampleID: 1, EventID: 10, SubsampleStatus: domain.StatusLive}, {SubsampleID: 2, EventID: 10, SubsampleStatus: domain.StatusLive}},
		Live:      []domain.LiveSubsample{live(1, readAt.Add(-time.Minute)), live(2, readAt)},
		Details:   map[int64]store.SubsampleDetail{1: {FetchedAt: readAt.Add(-time.Hour), Quotas: quotas}, 2: {FetchedAt: readAt.Add(-time.Hour), Quotas: quotas}},
	}
	snap.FinishedAt = readAt
	states := States(snap, nil)
	if states[1].Sendability != string(rules.NotSendable) || states[2].Sendability != string(rules.Sendable) {
		t.Errorf("field ended a minute before the refresh's end: %s; at its end: %s; want not_sendable and sendable", states[1].Sendability, states[2].Sendability)
	}
}
