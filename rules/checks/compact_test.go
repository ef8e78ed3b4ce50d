package checks

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"fieldboard/rules/domain"
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
