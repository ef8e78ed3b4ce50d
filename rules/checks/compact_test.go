package checks

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestCompactQuotasKeepsEveryCellsQuestions: quotas whose questions differ
// in any one field (an id, an operator, a locale, an answer, a range's
// start or end, one answer or question more) keep their own questions
// when compactQuotas holds equal lists once. Two cells sharing the wrong
// list would match a panelist to another cell's conditions: a wrong send.
func TestCompactQuotasKeepsEveryCellsQuestions(t *testing.T) {
	s := func(v string) *string { return &v }
	n := func(v int64) *int64 { return &v }
	base := func() []domain.QuotaQuestion {
		return []domain.QuotaQuestion{
			{ID: 42, Operator: "OR", Locale: s("fr-fr"), Answers: []domain.QuotaAnswer{{ID: n(1)}, {ID: n(2)}}},
			{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{RangeStart: s("18"), RangeEnd: s("34")}}},
		}
	}
	variants := []struct {
		name   string
		change func(q []domain.QuotaQuestion) []domain.QuotaQuestion
	}{
		{"the same", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { return q }},
		{"a question id", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[0].ID = 44; return q }},
		{"an operator", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[0].Operator = "AND"; return q }},
		{"no locale", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[0].Locale = nil; return q }},
		{"another locale", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[0].Locale = s("de-de"); return q }},
		{"an answer id", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[0].Answers[1].ID = n(3); return q }},
		{"an answer without id", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[0].Answers[1].ID = nil; return q }},
		{"a range's start", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[1].Answers[0].RangeStart = s("35"); return q }},
		{"a range's end", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[1].Answers[0].RangeEnd = s("54"); return q }},
		{"a range without end", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { q[1].Answers[0].RangeEnd = nil; return q }},
		{"one answer more", func(q []domain.QuotaQuestion) []domain.QuotaQuestion {
			q[0].Answers = append(q[0].Answers, domain.QuotaAnswer{ID: n(4)})
			return q
		}},
		{"one question less", func(q []domain.QuotaQuestion) []domain.QuotaQuestion { return q[:1] }},
		{"the answers moved to the other question", func(q []domain.QuotaQuestion) []domain.QuotaQuestion {
			q[0].Answers, q[1].Answers = q[0].Answers[:1], append(q[0].Answers[1:], q[1].Answers...)
			return q
		}},
	}
	quotas := map[int64][]domain.Quota{}
	want := map[int64][]domain.Quota{}
	for i, v := range variants {
		for _, subsample := range []int64{100, 200} { // each variant in two subsamples, to be shared
			q := domain.Quota{QuotaID: int64(1000*subsample) + int64(i), QuotaType: "hard", Questions: v.change(base())}
			quotas[subsample] = append(quotas[subsample], q)
			want[subsample] = append(want[subsample], deepCopy(t, q))
		}
	}
	got := compactQuotas(quotas)
	for _, subsample := range []int64{100, 200} {
		for i := range want[subsample] {
			if !reflect.DeepEqual(got[subsample][i], want[subsample][i]) {
				t.Errorf("%s, subsample %d: after compactQuotas %s, want %s", variants[i].name, subsample, show(got[subsample][i].Questions), show(want[subsample][i].Questions))
			}
		}
	}
	if &got[100][0].Questions[0] != &got[200][0].Questions[0] {
		t.Error("two subsamples' equal questions are held twice")
	}
}

func deepCopy(t *testing.T, q domain.Quota) domain.Quota {
	t.Helper()
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	var c domain.Quota
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func show(qs []domain.QuotaQuestion) string {
	b, _ := json.Marshal(qs)
	return string(b)
}

// TestHeldQuotasAreTheQuotas: the quotas a decided snapshot holds
// (holdQuotas) give back every field of every quota as compactQuotas left
// it, the lists of questions still shared, a quota without questions
// still without (nil), one with an empty list still with it. A field
// lost or swapped would show another count or decide on another cell.
func TestHeldQuotasAreTheQuotas(t *testing.T) {
	s := func(v string) *string { return &v }
	n := func(v int64) *int64 { return &v }
	gender := []domain.QuotaQuestion{{ID: 42, Operator: "OR", Locale: s("fr-fr"), Answers: []domain.QuotaAnswer{{ID: n(1)}, {ID: n(2)}}}}
	age := []domain.QuotaQuestion{{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{RangeStart: s("18"), RangeEnd: s("34")}}}}
	quota := func(id int64, questions []domain.QuotaQuestion) domain.Quota {
		f := float64(id)
		return domain.Quota{SubsampleStatus: "Live", ActualClientIncidenceRate: f + 0.1, ActualClientConversionRate: f + 0.2,
			ActualClientAbandonRate: f + 0.3, EstimatedIncidence: f + 0.4, Questions: questions, RemainingExclusive: id + 1,
			RemainingShared: id + 2, ActualClientLOI: f + 0.5, EstimatedLOI: f + 0.6, AchievedInterviews: id + 3, TableID: id + 4,
			TableName: "table " + strconv.FormatInt(id%3, 10), QuotaID: id, QuotaName: "quota " + strconv.FormatInt(id, 10), QuotaType: "hard"}
	}
	read := map[int64][]domain.Quota{
		100: {quota(1, nil), quota(2, gender), quota(3, age), quota(4, []domain.QuotaQuestion{})},
		200: {quota(5, gender), quota(6, slices.Clone(age))},
	}
	compacted := compactQuotas(read)
	want := map[int64][]domain.Quota{}
	for id, qs := range compacted {
		for _, q := range qs {
			want[id] = append(want[id], deepCopy(t, q))
		}
	}
	held := holdQuotas(compacted)
	for id := range want {
		got := held.quotas(id)
		if !reflect.DeepEqual(got, want[id]) {
			t.Errorf("subsample %d: held %+v, want %+v", id, got, want[id])
		}
		for i := range got {
			if (got[i].Questions == nil) != (want[id][i].Questions == nil) {
				t.Errorf("subsample %d, quota %d: questions nil %v, want %v", id, got[i].QuotaID, got[i].Questions == nil, want[id][i].Questions == nil)
			}
		}
	}
	if got := held.quotas(300); got != nil {
		t.Errorf("a subsample without quotas: %v", got)
	}
	if a, b := held.quotas(100)[1].Questions, held.quotas(200)[0].Questions; &a[0] != &b[0] {
		t.Error("two subsamples' equal questions are held twice")
	}
}

// TestHeldDecisionsDecideAlike: a decided snapshot held in less memory
// (hold) decides as it did before: every report, every subsample's
// verdict in full, and, decided again as stale, every report and verdict
// alike. A quota lost in the holding would change a verdict or a reason.
func TestHeldDecisionsDecideAlike(t *testing.T) {
	yes, at, end, cpi := true, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, 20, 9, 0, 0, 0, time.UTC), 2.5
	row := func(id int64) store.SubsampleRow {
		return store.SubsampleRow{SubsampleID: id, EventID: 1, Status: domain.StatusLive, SummaryStatus: domain.StatusLive, LiveStatus: domain.StatusLive,
			Live: true, APICompatible: true, CPI: &cpi, Currency: "USD", QuotasOK: &yes, QuotasAt: &at, FieldEnd: &end, RulesOK: &yes}
	}
	one := int64(1)
	gender := []domain.QuotaQuestion{{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: &one}}}}
	total := func(remaining int64) domain.Quota {
		return domain.Quota{QuotaID: 1, TableID: 1, TableName: "Total Quota", QuotaName: "Total", QuotaType: "counting", RemainingExclusive: remaining, ActualClientConversionRate: 40}
	}
	cell := func(id, remaining int64) domain.Quota {
		return domain.Quota{QuotaID: id, TableID: 2, TableName: "Gender", QuotaName: "Male", QuotaType: "hard", RemainingShared: remaining, Questions: gender}
	}
	snapshot := func() store.Snapshot {
		return store.Snapshot{Rows: []store.SubsampleRow{row(10), row(11), row(12), row(13)}, Quotas: compactQuotas(map[int64][]domain.Quota{
			10: {total(5), cell(2, 3)}, // sendable
			11: {total(5), cell(2, 0)}, // paused: its hard table is full
			12: {cell(2, 3)},           // unknown: no total quota
			13: {total(0), cell(2, 3)}, // paused: the total is full
		})}
	}
	fresh := decide(snapshot(), nil, nil, nil, domain.SubsampleTopics{}, nil, "", time.Time{})
	held := decide(snapshot(), nil, nil, nil, domain.SubsampleTopics{}, nil, "", time.Time{})
	held.hold()
	// The reports count the cells the verdict fills (the API's openQuotas
	// and closedQuotas).
	for i, want := range [][2]int{{1, 0}, {0, 1}, {1, 0}, {1, 0}} {
		if r := held.reports[i]; r.OpenCells != want[0] || r.ClosedCells != want[1] {
			t.Errorf("subsample %d: %d open and %d closed cells, want %d and %d", r.SubsampleID, r.OpenCells, r.ClosedCells, want[0], want[1])
		}
	}
	const why = "The data is too old."
	for _, pair := range [][2]*Decisions{{fresh, held}, {fresh.decidedAt(why, time.Time{}), held.decidedAt(why, time.Time{})}} {
		want, got := pair[0], pair[1]
		if !reflect.DeepEqual(got.reports, want.reports) {
			t.Errorf("reports held %+v, want %+v", got.reports, want.reports)
		}
		for _, r := range want.reports {
			wantV, gotV := want.verdict(r.SubsampleRow, want.quotasOf(r.SubsampleID)), got.verdict(r.SubsampleRow, got.quotasOf(r.SubsampleID))
			if !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("subsample %d (stale %q): verdict held %+v, want %+v", r.SubsampleID, want.staleReason, gotV, wantV)
			}
		}
	}
}

// TestDecisionsFillEveryLinkForAPanelist: a decided snapshot keeps the
// links as read only of the subsamples whose prepared links have a
// problem, yet every subsample's links for a panelist (PanelistLinks) are
// those rules.EntryLink prepares from the links as read, the problems
// named, fresh and decided again as stale; and decided again, every
// report keeps its prepared links.
func TestDecisionsFillEveryLinkForAPanelist(t *testing.T) {
	const panelist = "P 1/x"
	links := map[int64][]domain.SubsampleLocale{
		10: {{Name: "en-us", LiveEntryLink: "https://e.test/s?p=1&id=", TestingEntryLink: "https://e.test/t?p=1&id="}},
		11: {{Name: "en-us", LiveEntryLink: "https://e.test/s?p=2&id=", TestingEntryLink: "not a link"}},
		12: {{Name: "en-us", LiveEntryLink: "https://e.test/s?p=3"}},
		13: {{Name: "en-us", LiveEntryLink: "https://e.test/s?p=4&id=#top"}, {Name: "fr-fr", LiveEntryLink: ""}},
	}
	snapshot := func() store.Snapshot {
		var rows []store.SubsampleRow
		for _, id := range []int64{10, 11, 12, 13, 14} {
			rows = append(rows, store.SubsampleRow{SubsampleID: id, EventID: 1, Status: domain.StatusLive, Live: true, APICompatible: id%2 == 0})
		}
		return store.Snapshot{Rows: rows, Links: maps.Clone(links)}
	}
	prepared := func(raw string, apiCompatible bool) (string, string) {
		link, err := rules.EntryLink(raw, apiCompatible, panelist)
		if err != nil {
			return "", err.Error()
		}
		return link, ""
	}
	d := decide(snapshot(), nil, nil, nil, domain.SubsampleTopics{}, nil, "", time.Time{})
	if len(d.links) != 3 {
		t.Errorf("links as read kept for %d subsamples, want 3 (11, 12 and 13, whose links have a problem)", len(d.links))
	}
	for _, d := range []*Decisions{d, d.decidedAt("The data is too old.", time.Time{})} {
		for i := range d.reports {
			r := &d.reports[i]
			for _, raw := range links[r.SubsampleID] {
				want := EntryLinks{Locale: raw.Name}
				want.Live, want.LiveProblem = prepared(raw.LiveEntryLink, r.APICompatible)
				want.Testing, want.TestingProblem = prepared(raw.TestingEntryLink, r.APICompatible)
				if got := d.PanelistLinks(r, raw.Name, panelist); !reflect.DeepEqual(got, []EntryLinks{want}) {
					t.Errorf("subsample %d %s (stale %q): links for the panelist %+v, want %+v", r.SubsampleID, raw.Name, d.staleReason, got, want)
				}
			}
			if got := d.PanelistLinks(r, "de-de", panelist); got != nil {
				t.Errorf("subsample %d: links of a locale it has not: %+v", r.SubsampleID, got)
			}
			if n := len(r.Links); n != len(links[r.SubsampleID]) {
				t.Errorf("subsample %d (stale %q): %d prepared links, want %d", r.SubsampleID, d.staleReason, n, len(links[r.SubsampleID]))
			}
		}
	}
}
