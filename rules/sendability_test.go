package rules

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

func TestSendability(t *testing.T) {
	threeOpen := []domain.Quota{total(40, 10), quota(2, 5, 0), quota(3, 0, 0), quota(4, 0, 3)}
	tests := []struct {
		name    string
		facts   SubsampleFacts
		state   State
		reasons []string
		// outcomes of status, api compatibility, cpi, total quota, other quotas
		outcomes []Outcome
	}{
		{
			name: "Live, API compatible, CPI above 0 and quotas open is sendable", facts: liveFacts(threeOpen...), state: Sendable,
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name: "only a total quota: the total alone decides", facts: liveFacts(total(1, 0)), state: Sendable,
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "live-details lists only subsamples open to the supplier: a Live one it leaves out is not sendable",
			facts: SubsampleFacts{Status: domain.StatusLive, Unlisted: true},
			state: NotSendable, reasons: []string{"Not listed by live-details: no allocation is open to the supplier."},
			outcomes: []Outcome{Pass, Skipped, Skipped, Skipped, Skipped},
		},
		{
			name:  "a Complete subsample of the event list is not sendable for its status alone",
			facts: SubsampleFacts{Status: domain.StatusComplete, Unlisted: true},
			state: NotSendable, reasons: []string{"Status is Complete, not Live."},
			outcomes: []Outcome{Fail, Skipped, Skipped, Skipped, Skipped},
		},
		{
			name:  "consider only subsamples whose subsampleStatus is Live",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.Status = domain.StatusComplete; return f }(),
			state: NotSendable, reasons: []string{"Status is Complete, not Live."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name:  "Live for testing is its own state",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.Status = domain.StatusLiveForTesting; return f }(),
			state: Testing, reasons: []string{"Status is Live for testing, not Live: only testers may enter."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name:  "Live for testing stays testing when API and CPI also fail; those are still reasons",
			facts: SubsampleFacts{Status: domain.StatusLiveForTesting, CPI: 0, Currency: "EUR"},
			state: Testing,
			reasons: []string{"Status is Live for testing, not Live: only testers may enter.", "Not API compatible.",
				"CPI is 0.00 EUR; it must be greater than 0."},
			outcomes: []Outcome{Fail, Fail, Fail, Skipped, Skipped},
		},
		{
			name:  "only subsamples with surveyAPIcompatibility true",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.APICompatible = false; return f }(),
			state: NotSendable, reasons: []string{"Not API compatible."},
			outcomes: []Outcome{Pass, Fail, Pass, Skipped, Skipped},
		},
		{
			name:  "CPI 0 is not sendable",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.CPI = 0; return f }(),
			state: NotSendable, reasons: []string{"CPI is 0.00 USD; it must be greater than 0."},
			outcomes: []Outcome{Pass, Pass, Fail, Skipped, Skipped},
		},
		{
			name:  "negative CPI is not greater than 0",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.CPI = -2; f.Currency = ""; return f }(),
			state: NotSendable, reasons: []string{"CPI is -2.00; it must be greater than 0."},
			outcomes: []Outcome{Pass, Pass, Fail, Skipped, Skipped},
		},
		{
			name:     "every failing condition is listed",
			facts:    SubsampleFacts{Status: domain.StatusPending, CPI: 0, Currency: "USD"},
			state:    NotSendable,
			reasons:  []string{"Status is Pending, not Live.", "Not API compatible.", "CPI is 0.00 USD; it must be greater than 0."},
			outcomes: []Outcome{Fail, Fail, Fail, Skipped, Skipped},
		},
		{
			name:  "no status reported is not Live",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.Status = ""; return f }(),
			state: NotSendable, reasons: []string{"No status was reported; only Live subsamples take respondents."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name:  "live-details lists it, event/all does not: the sources disagree (spec: event/all returns every subsample with an allocation)",
			facts: func() SubsampleFacts { f := liveFacts(threeOpen...); f.NotInEventAll = true; return f }(),
			state: NotSendable, reasons: []string{"The sources disagree on the subsample: live-details says Live, but event/all, which lists " +
				"every subsample with an allocation, does not list it; a subsample counts as Live only when all sources say so."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name:  "debatable, decided: the clock ends a field: a Live subsample whose field period ended a minute ago is not sendable, whenever the data was read",
			facts: withField(liveFacts(threeOpen...), "2026-11-20T18:00:00Z", "2026-11-20T18:01:00Z"),
			state: NotSendable, reasons: []string{"The provider says Live, but the field period ended " +
				"20 Nov 2026 18:00 (it is now 20 Nov 2026 18:01); nobody is sent until the provider closes it or moves its field end."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name:  "a field period that ends at this very moment has not ended: still sendable",
			facts: withField(liveFacts(threeOpen...), "2026-11-20T18:00:00Z", "2026-11-20T18:00:00Z"), state: Sendable,
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "a field period that ends after now: still sendable (no wrong no)",
			facts: withField(liveFacts(threeOpen...), "2026-11-20T18:01:00Z", "2026-11-20T18:00:00Z"), state: Sendable,
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "a Gender table and an Age table both numbered 2 are not understood: nobody can surely fall in an open cell of it",
			facts: liveFacts(total(10, 0), inTable(2, "Gender", genderCell(20, "Male", 5, 1)), ageCell(10, "18", "34", 5, 0)),
			state: Unknown, reasons: []string{"Table Gender (2) has no cell that both has room and is understood, and it holds hard quotas: " +
				"nobody can surely be counted in it, so nobody can be sent. Cell Male is not understood: table 2 is named both \"Gender\" and \"Age\", " +
				"so it may be two tables under one number and which cells form one is not known."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Unread},
		},
		{
			name: "spec rule 5: \"eventId is returned for each subsample by both\" event/all and live-details: two events are a disagreement, not sendable",
			facts: func() SubsampleFacts {
				f := liveFacts(threeOpen...)
				f.Said = []Said{{Field: "event", EventAll: "501", LiveDetails: "502"}, {Field: "country", EventAll: "FR", LiveDetails: "FR"}}
				return f
			}(),
			state: NotSendable, reasons: []string{"The sources disagree on the event: event/all says 501, live-details says 502; nobody is sent until they agree."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name: "every field that disagrees is a reason, the status's too, in one failing status check",
			facts: func() SubsampleFacts {
				f := liveFacts(threeOpen...)
				f.Reported = []ReportedStatus{{"event/all", "Live"}, {"live-details", "Complete"}}
				f.Said = []Said{{Field: "country", EventAll: "FR", LiveDetails: "DE"}, {Field: "field end", EventAll: "1 Dec 2026 00:00:00 UTC", LiveDetails: "2 Dec 2026 00:00:00 UTC"}}
				return f
			}(),
			state: NotSendable, reasons: []string{"The sources disagree on the status: event/all says Live, live-details says Complete; a subsample counts as Live only when all say so.",
				"The sources disagree on the country: event/all says FR, live-details says DE; nobody is sent until they agree.",
				"The sources disagree on the field end: event/all says 1 Dec 2026 00:00:00 UTC, live-details says 2 Dec 2026 00:00:00 UTC; nobody is sent until they agree."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name: "a field one source says nothing of is no disagreement",
			facts: func() SubsampleFacts {
				f := liveFacts(threeOpen...)
				f.Said = []Said{{Field: "field end", EventAll: "", LiveDetails: "2 Dec 2026 00:00:00 UTC"}}
				return f
			}(),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name: "a field period that ends before it starts is not understood: not sendable",
			facts: func() SubsampleFacts {
				f := withField(liveFacts(threeOpen...), "2026-11-20T18:00:00Z", "2026-11-20T09:00:00Z")
				start := f.FieldEnd.Add(time.Hour)
				f.FieldStart = &start
				return f
			}(),
			state: NotSendable, reasons: []string{"The field period ends 20 Nov 2026 18:00, before it starts (20 Nov 2026 19:00): the dates are not understood, and nobody is sent until the provider corrects them."},
			outcomes: []Outcome{Fail, Pass, Pass, Skipped, Skipped},
		},
		{
			name: "a field period that ends when it starts is understood",
			facts: func() SubsampleFacts {
				f := withField(liveFacts(threeOpen...), "2026-11-20T18:00:00Z", "2026-11-20T09:00:00Z")
				f.FieldStart = f.FieldEnd
				return f
			}(),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "a field period whose end is not known decides nothing",
			facts: withField(liveFacts(threeOpen...), "", "2026-11-20T18:00:00Z"), state: Sendable,
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name: "total full pauses: when the total quota sum is 0, sample sending must be paused", facts: liveFacts(total(0, 0), quota(2, 5, 5)),
			state: Paused, reasons: []string{"Total quota is full (0 remaining): sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Fail, Skipped},
		},
		{
			name: "negative remaining counts as 0 and pauses", facts: liveFacts(total(-3, 2), quota(2, 5, 5)),
			state: Paused, reasons: []string{"Total quota is full (0 remaining): sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Fail, Skipped},
		},
		{
			name: "remainingExclusive + remainingShared: shared alone keeps the total open", facts: liveFacts(total(0, 4), quota(2, 0, 1)),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name: "all cells full pauses", facts: liveFacts(total(10, 0), quota(2, 0, 0), quota(3, 0, 0), quota(4, 0, 0), quota(5, -1, 0), quota(6, 0, 0)),
			state: Paused, reasons: []string{"Every cell of table Age (2) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name: "a table that holds a hard quota and has no open cell pauses: nobody can be counted, whatever other tables say",
			facts: liveFacts(total(10, 0), genderCell(20, "Male", 0, 1), ageCell(10, "18", "34", 5, 0), genderCell(21, "Female", -2, 2),
				ageCell(11, "35", "54", 5, 0)),
			state: Paused, reasons: []string{"Every cell of table Gender (3) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name: "the reason names the table by tableName and tableId",
			facts: liveFacts(total(10, 0), inTable(7, "Gender x Age", genderCell(20, "Men 18-34", 0, 1)),
				inTable(7, "Gender x Age", genderCell(21, "Women 18-34", 0, 2))),
			state: Paused, reasons: []string{"Every cell of table Gender x Age (7) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name: "the reason names every full table that holds a hard quota, in the provider's order; a table without a name by its id",
			facts: liveFacts(total(10, 0), inTable(9, " ", genderCell(22, "", 0, 3)), genderCell(20, "Male", 0, 1),
				regionCell(30, 0, 100), ageCell(10, "18", "34", 0, 0), genderCell(21, "Female", 0, 2)),
			state: Paused, reasons: []string{"Every cell of tables 9, Gender (3) and Age (2) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name:  "a table grouped by tableId pauses whatever the provider's order of its cells",
			facts: liveFacts(genderCell(20, "Male", 0, 1), ageCell(10, "18", "34", 5, 0), total(10, 0), genderCell(21, "Female", 0, 2)),
			state: Paused, reasons: []string{"Every cell of table Gender (3) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name:  "one open cell keeps a table of hard quotas open",
			facts: liveFacts(total(10, 0), genderCell(20, "Male", 0, 1), genderCell(21, "Female", 1, 2)),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "a closed cell of a table of counting cells only never pauses",
			facts: liveFacts(total(10, 0), regionCell(30, 0, 100), regionCell(31, 0, 101), ageCell(10, "18", "34", 5, 0)),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "a closed cell of a table of counting cells only never pauses, even when no cell is open at all",
			facts: liveFacts(total(10, 0), regionCell(30, 0, 100), regionCell(31, -1, 101)),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "hard is read in any case",
			facts: liveFacts(total(10, 0), withType(genderCell(20, "Male", 0, 1), "HARD"), withType(genderCell(21, "Female", 0, 2), "Counting")),
			state: Paused, reasons: []string{"Every cell of table Gender (3) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name: "a table that holds a hard quota pauses even when its cells are not understood: their conditions do not matter",
			facts: liveFacts(total(10, 0), ageCell(10, "18", "abc", 0, 0), withOperator(ageCell(11, "35", "54", 0, 0), "AND"),
				regionCell(30, 5, 100)),
			state: Paused, reasons: []string{"Every cell of table Age (2) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name:  "nobody to send: a table of hard quotas whose only open cell is not understood is unknown, not sendable",
			facts: liveFacts(total(10, 0), ageCell(10, "18", "34", 0, 0), ageCell(11, "35", "abc", 5, 0)),
			state: Unknown, reasons: []string{"Table Age (2) has no cell that both has room and is understood, and it holds hard quotas: " +
				"nobody can surely be counted in it, so nobody can be sent. Cell quota 11 is not understood: the range \"35\" to \"abc\" " +
				"has an end that is neither a whole number, nor one followed by +, nor empty."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Unread},
		},
		{
			name:  "an open cell that is not understood beside an open understood one keeps its table sendable",
			facts: liveFacts(total(10, 0), ageCell(10, "18", "34", 3, 0), ageCell(11, "35", "abc", 5, 0)),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "nobody to send: every cell full but of a quota type neither hard nor counting is unknown, not sendable",
			facts: liveFacts(total(10, 0), softCell(genderCell(20, "Male", 0, 1)), softCell(genderCell(21, "Female", 0, 2))),
			state: Unknown, reasons: []string{"Table Gender (3) has no cell that both has room and is understood, and it may hold hard quotas " +
				"(Male, Female: a quota type that is neither hard nor counting): nobody can surely be counted in it, so nobody can be sent. " +
				"Cell Male is not understood: its quota type \"soft\" is neither hard nor counting."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Unread},
		},
		{
			name: "nobody to send: an open Total Quota beside a full second empty counting quota named Total is unknown, not sendable",
			facts: liveFacts(total(10, 0), domain.Quota{QuotaID: 7, TableID: 5, TableName: "Total", QuotaName: "Total",
				QuotaType: domain.QuotaTypeCounting, Questions: []domain.QuotaQuestion{}}),
			state: Unknown, reasons: []string{"Cell Total of table Total (5) is full and not understood: it has no conditions. " +
				"Any panelist may fall in it and be turned back, so nobody can be sent."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Unread},
		},
		{
			name:  "nobody to send: a full cell whose only question has an operator other than OR (NOT) may hold anyone",
			facts: liveFacts(total(10, 0), withOperator(genderCell(20, "Not men", 0, 1), "NOT"), genderCell(21, "Women", 5, 2)),
			state: Unknown, reasons: []string{"Cell Not men of table Gender (3) is full and not understood: question 12 has the operator \"NOT\"; " +
				"only OR is understood. Any panelist may fall in it and be turned back, so nobody can be sent."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Unread},
		},
		{
			name:  "a full cell not understood but with an understood question keeps the others sendable: it holds only some",
			facts: liveFacts(total(10, 0), ageCell(10, "18", "99", 5, 0), womenOlder(11, 0, "abc")),
			state: Sendable, outcomes: []Outcome{Pass, Pass, Pass, Pass, Pass},
		},
		{
			name:  "a negative remaining beside a positive one in the total quota is not understood: unknown, not summed",
			facts: liveFacts(total(-3, 5), ageCell(10, "18", "99", 5, 0)),
			state: Unknown, reasons: []string{"The total quota is not understood: its remainingExclusive -3 and remainingShared 5 mix a negative count with a positive one."},
			outcomes: []Outcome{Pass, Pass, Pass, Unread, Skipped},
		},
		{
			name:  "a negative remaining beside a positive one in the only cell of a hard table: not open, so the table pauses",
			facts: liveFacts(total(10, 0), ageCell(10, "18", "99", -3, 5)),
			state: Paused, reasons: []string{"Every cell of table Age (2) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name:  "a hard cell beside cells of another quotaType pauses its table when no cell of it is open",
			facts: liveFacts(total(10, 0), genderCell(20, "Male", 0, 1), softCell(genderCell(21, "Female", 0, 2))),
			state: Paused, reasons: []string{"Every cell of table Gender (3) is full: nobody can be counted, sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Fail},
		},
		{
			name:  "nobody to send: a hard cell beside an open cell of another quotaType is unknown, not sendable, as the open cell is not understood",
			facts: liveFacts(total(10, 0), genderCell(20, "Male", 0, 1), softCell(genderCell(21, "Female", 4, 2))),
			state: Unknown, reasons: []string{"Table Gender (3) has no cell that both has room and is understood, and it holds hard quotas: " +
				"nobody can surely be counted in it, so nobody can be sent. Cell Female is not understood: its quota type \"soft\" is neither hard nor counting."},
			outcomes: []Outcome{Pass, Pass, Pass, Pass, Unread},
		},
		{
			name:  "the total quota's remaining is 0: paused by the total first, whatever the tables say",
			facts: liveFacts(total(0, 0), genderCell(20, "Male", 0, 1)),
			state: Paused, reasons: []string{"Total quota is full (0 remaining): sending is paused."},
			outcomes: []Outcome{Pass, Pass, Pass, Fail, Skipped},
		},
		{
			name:  "missing total quota is unknown",
			facts: liveFacts(quota(2, 1, 0), quota(3, 1, 0), quota(4, 1, 0), quota(5, 1, 0), quota(6, 1, 0), quota(7, 1, 0), quota(8, 1, 0)),
			state: Unknown, reasons: []string{"No total quota among the 7 quotas."},
			outcomes: []Outcome{Pass, Pass, Pass, Unread, Skipped},
		},
		{
			name: "no quotas at all is unknown", facts: liveFacts(),
			state: Unknown, reasons: []string{"No total quota: the provider sent no quotas."},
			outcomes: []Outcome{Pass, Pass, Pass, Unread, Skipped},
		},
		{
			name: "failed quota read is unknown, never sendable",
			facts: func() SubsampleFacts {
				f := liveFacts(threeOpen...)
				f.QuotasLoaded = false
				f.QuotasError = "timeout after 10s"
				return f
			}(),
			state: Unknown, reasons: []string{"Quotas could not be read: timeout after 10s."},
			outcomes: []Outcome{Pass, Pass, Pass, Unread, Skipped},
		},
		{
			name:  "quotas never read is unknown",
			facts: func() SubsampleFacts { f := liveFacts(); f.QuotasLoaded = false; return f }(),
			state: Unknown, reasons: []string{"Quotas have not been read yet."},
			outcomes: []Outcome{Pass, Pass, Pass, Unread, Skipped},
		},
		{
			name: "more than one total quota is unknown", facts: liveFacts(total(5, 0), quota(2, 1, 0), total(0, 0)),
			state: Unknown, reasons: []string{"The provider sent 2 total quotas; which one counts is unclear."},
			outcomes: []Outcome{Pass, Pass, Pass, Unread, Skipped},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Sendability(tt.facts)
			if v.State != tt.state {
				t.Errorf("state = %q, want %q (reasons %q)", v.State, tt.state, v.Reasons)
			}
			if !slices.Equal(v.Reasons, tt.reasons) {
				t.Errorf("reasons = %q, want %q", v.Reasons, tt.reasons)
			}
			var outcomes []Outcome
			var rules []string
			for _, c := range v.Checks {
				outcomes = append(outcomes, c.Outcome)
				rules = append(rules, c.Rule)
				if c.Detail == "" || !strings.HasSuffix(c.Detail, ".") {
					t.Errorf("check %q detail %q is not a sentence", c.Rule, c.Detail)
				}
			}
			if !slices.Equal(outcomes, tt.outcomes) {
				t.Errorf("outcomes = %q, want %q", outcomes, tt.outcomes)
			}
			if want := []string{RuleStatus, RuleAPI, RuleCPI, RuleTotalQuota, RuleOtherQuotas}; !slices.Equal(rules, want) {
				t.Errorf("rules = %q, want %q", rules, want)
			}
			if v.State == Sendable && len(v.Reasons) != 0 {
				t.Errorf("sendable with reasons %q", v.Reasons)
			}
		})
	}
}

func TestSendabilityQuotaFill(t *testing.T) {
	v := Sendability(liveFacts(quota(2, 5, 0), total(40, 10), quota(3, 0, 0), quota(4, 0, 3), quota(5, 2, -7)))
	if v.State != Sendable {
		t.Fatalf("state = %q, want sendable (%q)", v.State, v.Reasons)
	}
	wantTotal := &QuotaFill{QuotaID: 1, TableID: 1, TableName: "Total Quota", QuotaName: "Total", QuotaType: "counting",
		Achieved: 10, RemainingExclusive: 40, RemainingShared: 10, Remaining: 50, Open: true}
	if !reflect.DeepEqual(v.Total, wantTotal) {
		t.Errorf("total = %+v, want %+v", v.Total, wantTotal)
	}
	ids := func(fills []QuotaFill) (out []int64) {
		for _, f := range fills {
			out = append(out, f.QuotaID)
		}
		return out
	}
	if got := ids(v.Open); !slices.Equal(got, []int64{2, 4}) {
		t.Errorf("open = %v, want [2 4] in the provider's order", got)
	}
	if got := ids(v.Closed); !slices.Equal(got, []int64{3, 5}) {
		t.Errorf("closed = %v, want [3 5] in the provider's order", got)
	}
	if c := v.Closed[1]; c.Remaining != 0 || c.RemainingExclusive != 2 || c.RemainingShared != -7 {
		t.Errorf("negative remaining: %+v, want Remaining 0 with the raw parts kept", c)
	}
	if d := v.Checks[4].Detail; d != "2 of 4 quota cells open." {
		t.Errorf("other quotas detail = %q", d)
	}
}

func TestSendabilityOtherQuotasDetail(t *testing.T) {
	tests := []struct {
		name   string
		quotas []domain.Quota
		detail string
	}{
		{"an open table: how many cells are open",
			[]domain.Quota{total(5, 0), genderCell(20, "Male", 0, 1), genderCell(21, "Female", 3, 2)}, "1 of 2 quota cells open."},
		{"a closed cell of a table of counting cells only never pauses, and the detail says why",
			[]domain.Quota{total(5, 0), regionCell(30, 0, 100), regionCell(31, 0, 101)},
			"0 of 2 quota cells open, but none of their tables holds a hard quota: a respondent in none of their cells is still taken."},
		{"a paused table is named in the other quotas check",
			[]domain.Quota{total(5, 0), genderCell(20, "Male", 0, 1)},
			"Every cell of table Gender (3) is full: nobody can be counted, sending is paused."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Sendability(liveFacts(tt.quotas...))
			if d := v.Checks[4].Detail; d != tt.detail {
				t.Errorf("other quotas detail = %q, want %q", d, tt.detail)
			}
		})
	}
}

// TestPausingAgreesWithMatching: a subsample is paused by a table exactly
// when that table leaves no panelist a fit. For every sendability case
// above that gets to the other quotas, every profile of a spread is
// matched: when a table pauses the subsample, no profile fits it; when
// none does, some profile fits or may fit (unknown).
func TestPausingAgreesWithMatching(t *testing.T) {
	profiles := []domain.Profile{{}, aged(20, nil), aged(40, nil), aged(70, nil)}
	for _, g := range []int64{1, 2, 3} {
		for _, r := range []int64{100, 101, 102} {
			for _, age := range []int{20, 40} {
				profiles = append(profiles, aged(age, map[int64][]int64{qGender: {g}, qRegion: {r}}))
			}
		}
	}
	quotaSets := [][]domain.Quota{
		{genderCell(20, "Male", 0, 1), genderCell(21, "Female", 0, 2), ageCell(10, "18", "99", 5, 0)},
		{genderCell(20, "Male", 0, 1), softCell(genderCell(21, "Female", 0, 2))},
		{softCell(genderCell(20, "Male", 0, 1)), softCell(genderCell(21, "Female", 0, 2))},
		{regionCell(30, 0, 100), regionCell(31, 0, 101)},
		{ageCell(10, "18", "abc", 0, 0), ageCell(11, "35", "54", 0, 0)},
		{ageCell(10, "18", "34", 0, 0), ageCell(11, "35", "abc", 5, 0)},
		{inTable(7, "Gender x Age", genderCell(20, "Men", 0, 1)), regionCell(30, 4, 100)},
	}
	for i, qs := range quotaSets {
		v := Sendability(liveFacts(append([]domain.Quota{total(5, 0)}, qs...)...))
		cells := CompileQuotas(qs)
		fits, mayFit := 0, 0
		for _, p := range profiles {
			m := cells.Match(p, checkDay)
			switch m.Verdict {
			case QuotaFits:
				fits++
			case QuotaUnknown:
				mayFit++
			}
			for _, tm := range m.Tables {
				paused := strings.Contains(v.Checks[4].Detail, "("+strconv.FormatInt(tm.TableID, 10)+")")
				if paused && tm.Verdict == QuotaFits {
					t.Errorf("set %d: table %d pauses the subsample, but a panelist fits it: %s", i, tm.TableID, tm.Reason)
				}
			}
		}
		if v.State == Paused && fits > 0 {
			t.Errorf("set %d: paused (%q), but %d profiles fit", i, v.Reasons, fits)
		}
		if v.State == Sendable && fits+mayFit == 0 {
			t.Errorf("set %d: sendable, but no profile of the spread fits or may fit", i)
		}
	}
}

func TestSendabilityFillsQuotasWhenDecidedEarlier(t *testing.T) {
	f := liveFacts(total(0, 0), quota(2, 1, 0))
	f.Status = domain.StatusComplete
	v := Sendability(f)
	if v.State != NotSendable || v.Total == nil || len(v.Open) != 1 {
		t.Errorf("got state %q total %v open %v: loaded quotas are shown whatever decides", v.State, v.Total, v.Open)
	}
	f.QuotasLoaded = false
	if v := Sendability(f); v.Total != nil || v.Open != nil || v.Closed != nil {
		t.Errorf("quotas not loaded must not be shown: %+v", v)
	}
}

func TestStateLabel(t *testing.T) {
	for s, want := range map[State]string{Sendable: "Sendable", Paused: "Paused", NotSendable: "Not sendable",
		Testing: "Live for testing", Unknown: "Unknown", State("odd"): "Unknown"} {
		if got := s.Label(); got != want {
			t.Errorf("%q.Label() = %q, want %q", s, got, want)
		}
	}
}

// inTable returns q moved into the table id, name.
func inTable(id int64, name string, q domain.Quota) domain.Quota {
	q.TableID, q.TableName = id, name
	return q
}

// withType returns q with the quotaType kind.
func withType(q domain.Quota, kind string) domain.Quota {
	q.QuotaType = kind
	return q
}

func TestStaleAndDisagreeingData(t *testing.T) {
	read := time.Date(2026, 11, 23, 9, 15, 0, 0, time.UTC)
	failed := time.Date(2026, 11, 23, 10, 2, 0, 0, time.UTC)
	now := read.Add(47 * time.Minute)
	if got := Staleness(read, &failed, "event/all: 503 Service Unavailable.", now, 15*time.Minute); got != "Data is 47 minutes old: the last refresh that read the events failed at 10:02 UTC (event/all: 503 Service Unavailable). Nothing is sendable until a refresh succeeds." {
		t.Errorf("Staleness = %q", got)
	}
	if got := Staleness(read, nil, "", now, 15*time.Minute); !strings.Contains(got, "no refresh has read the events since 09:15 UTC") {
		t.Errorf("Staleness without a failure = %q", got)
	}
	for _, fresh := range []struct {
		name  string
		age   time.Duration
		after time.Duration
	}{{"data exactly as old as the limit is fresh", 15 * time.Minute, 15 * time.Minute}, {"a limit of 0 sets none", 48 * time.Hour, 0}} {
		if got := Staleness(read, &failed, "", read.Add(fresh.age), fresh.after); got != "" {
			t.Errorf("%s: %q", fresh.name, got)
		}
	}

	live := liveFacts(total(40, 10), quota(2, 5, 0))
	if v := Sendability(live); v.State != Sendable {
		t.Fatalf("the facts are not sendable to begin with: %+v", v)
	}
	stale := live
	stale.Stale = "Data is 47 minutes old."
	if v := Sendability(stale); v.State != Unknown || v.Reasons[0] != stale.Stale {
		t.Errorf("never decide on data that is too old: %s %q", v.State, v.Reasons)
	}
	// Spec, event/all and live-details: one malformed element "is dropped,
	// its subsample (when its id can be read) is unknown with the reason".
	malformed := live
	malformed.Malformed = "The provider's live-details answer for this subsample could not be read (element 2: targetedCPI is a string, not a number)."
	if v := Sendability(malformed); v.State != Unknown || v.Reasons[0] != malformed.Malformed {
		t.Errorf("never decide on an element that could not be read: %s %q", v.State, v.Reasons)
	}
	malformedUnlisted := SubsampleFacts{Status: domain.StatusLive, Unlisted: true, Malformed: malformed.Malformed}
	if v := Sendability(malformedUnlisted); v.State != Unknown || v.Reasons[0] != malformed.Malformed || strings.Contains(strings.Join(v.Reasons, " "), "Not listed by live-details") {
		t.Errorf("a subsample known only by its malformed element: %s %q", v.State, v.Reasons)
	}
	both := malformed
	both.Stale = stale.Stale
	if v := Sendability(both); v.State != Unknown || v.Reasons[0] != both.Stale || v.Reasons[1] != both.Malformed {
		t.Errorf("stale data and a malformed element give both reasons, staleness first: %s %q", v.State, v.Reasons)
	}
	agree := live
	agree.Reported = []ReportedStatus{{"event/all", "Live"}, {"live-details", "Live"}, {"quotas", "Live"}}
	if v := Sendability(agree); v.State != Sendable {
		t.Errorf("sources that agree: %s %q", v.State, v.Reasons)
	}
	disagreeing := live
	disagreeing.Reported = []ReportedStatus{{"event/all", "Complete"}, {"live-details", "Live"}, {"quotas", "Live"}}
	v := Sendability(disagreeing)
	if v.State != NotSendable || !strings.Contains(strings.Join(v.Reasons, " "), "event/all says Complete, live-details says Live, quotas says Live") {
		t.Errorf("a Live subsample counts as Live only when every source says so: %s %q", v.State, v.Reasons)
	}
}

// withField gives f a field end and the clock (RFC 3339; "" for none).
func withField(f SubsampleFacts, end, now string) SubsampleFacts {
	at := func(s string) *time.Time {
		if s == "" {
			return nil
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return &t
	}
	f.FieldEnd = at(end)
	if t := at(now); t != nil {
		f.Now = *t
	}
	return f
}
