package views

import (
	"testing"

	"fieldboard/rules"
)

// TestGroupNotNowKeepsEveryRowInOrder: rows are grouped by kind in the
// order each kind first appears, each group in the check's order, none
// lost; the summary names the count and what the group shares.
func TestGroupNotNowKeepsEveryRowInOrder(t *testing.T) {
	row := func(id int64, kind string) SurveyCheck { return SurveyCheck{SubsampleID: id, Kind: kind} }
	country := KindPanel + rules.MisfitCountry
	paused := KindState + string(rules.Paused)
	full := KindQuota + string(rules.QuotaFull)
	groups := GroupNotNow([]SurveyCheck{row(1, country), row(2, paused), row(3, country), row(4, full), row(5, country), row(6, paused)})
	want := []struct {
		kind    string
		ids     []int64
		summary string
	}{
		{country, []int64{1, 3, 5}, "3 subsamples in other countries"},
		{paused, []int64{2, 6}, "2 subsamples paused"},
		{full, []int64{4}, "1 subsample whose quota for the panelist is full"},
	}
	if len(groups) != len(want) {
		t.Fatalf("%d groups, want %d: %+v", len(groups), len(want), groups)
	}
	for i, w := range want {
		g := groups[i]
		if g.Kind != w.kind || len(g.Rows) != len(w.ids) || g.Summary() != w.summary {
			t.Errorf("group %d: %s with %d rows, %q; want %s with %d, %q", i, g.Kind, len(g.Rows), g.Summary(), w.kind, len(w.ids), w.summary)
			continue
		}
		for j, id := range w.ids {
			if g.Rows[j].SubsampleID != id {
				t.Errorf("group %d row %d is subsample %d, want %d", i, j, g.Rows[j].SubsampleID, id)
			}
		}
	}
}

// TestNotNowSummaryNamesEveryKind: every kind the handler gives reads as
// its own phrase.
func TestNotNowSummaryNamesEveryKind(t *testing.T) {
	seen := map[string]string{}
	for _, kind := range []string{
		KindPanel + rules.MisfitNoCountry, KindPanel + rules.MisfitNoSubsampleCountry, KindPanel + rules.MisfitCountry,
		KindPanel + rules.MisfitLanguage, KindPanel + rules.MisfitNoLocale, KindPanel + rules.MisfitLink,
		KindState + string(rules.Paused), KindState + string(rules.NotSendable), KindState + string(rules.Testing), KindState + string(rules.Unknown),
		KindRulesUnread, KindExcluded + rules.KindUniqueEvent, KindExcluded + rules.KindQualityHold, KindExcluded + rules.KindSurveys,
		KindQuota + string(rules.QuotaFull), KindQuota + string(rules.QuotaOffTarget),
	} {
		s := NotNowGroup{Kind: kind, Rows: make([]SurveyCheck, 2)}.Summary()
		if other, ok := seen[s]; ok {
			t.Errorf("%s and %s both read %q", other, kind, s)
		}
		seen[s] = kind
	}
}
