package rules

import (
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// benchRules is a typical rule set: two earlier waves, a research type, a
// generic category, the event itself, and a placeholder.
func benchRules() domain.EligibilityRules {
	return domain.EligibilityRules{
		Surveys: []domain.SurveyRule{{ID: id64(150001), NumDays: 90, ReturnCodes: []int64{3, 82}},
			{ID: id64(150002), NumDays: 0, ReturnCodes: []int64{3}}, {ID: id64(0), ReturnCodes: []int64{0}}},
		ResearchTypes: []domain.ResearchTypeRule{{ID: id64(6), NumDays: 90, ReturnCodes: []int64{3}}},
		Categories:    []domain.CategoryRule{{GenericCategoryID: id64(13), NumDays: 30, ReturnCodes: []int64{3, 82, 83}}},
		Events:        []domain.EventRule{{ID: id64(424242), NumDays: 0, ReturnCodes: []int64{3, 82, 83, 92}}},
	}
}

// benchHistory is 30 records of one panelist, none of which excludes from benchRules.
func benchHistory() []domain.HistoryRecord {
	h := make([]domain.HistoryRecord, 30)
	for i := range h {
		h[i] = domain.HistoryRecord{PanelistID: "P1", SubsampleID: int64(100000 + i), StatusID: []int64{3, 82, 83, 92}[i%4],
			RegisteredAt: now.Add(-time.Duration(i) * 36 * time.Hour), EventID: int64(20000 + i), CategoryID: 55, ResearchTypeID: 1}
	}
	return h
}

func BenchmarkSendability(b *testing.B) {
	quotas := []domain.Quota{total(40, 10)}
	for i := range 12 {
		quotas = append(quotas, quota(int64(i+2), int64(i%3), 0))
	}
	f := liveFacts(quotas...)
	b.ReportAllocs()
	for b.Loop() {
		if Sendability(f).State != Sendable {
			b.Fatal("want sendable")
		}
	}
}

// BenchmarkEligibility checks one panelist with a 30-record history against
// 2,000 subsamples; one op is the whole loop.
func BenchmarkEligibility(b *testing.B) {
	rules, history := benchRules(), benchHistory()
	b.ReportAllocs()
	for b.Loop() {
		for s := range int64(2000) {
			Eligibility(Target{SubsampleID: 300000 + s, EventID: 400000 + s}, rules, history, parents, now)
		}
	}
}

// BenchmarkRuleBook is BenchmarkEligibility through a RuleBook, with a
// history that excludes from every subsample (one research type record):
// the book decides the shared entry once.
func BenchmarkRuleBook(b *testing.B) {
	rules, history := benchRules(), benchHistory()
	history[0].ResearchTypeID, history[0].RegisteredAt = 6, now.Add(-time.Hour)
	targets := make([]Target, 2000)
	ruleSets := make([]domain.EligibilityRules, len(targets))
	for s := range targets {
		targets[s] = Target{SubsampleID: 300000 + int64(s), EventID: 400000 + int64(s)}
		ruleSets[s] = rules
	}
	book := NewRuleBook(targets, ruleSets, parents)
	b.ReportAllocs()
	for b.Loop() {
		excluded := 0
		book.Check(history, now, func(_ int, r EligibilityResult) {
			if !r.Eligible {
				excluded++
			}
		})
		if excluded != len(targets) {
			b.Fatalf("%d excluded, want all %d", excluded, len(targets))
		}
	}
}

func BenchmarkEntryLink(b *testing.B) {
	const raw = "https://entry.example.com/survey/start?p=Qm9vbXRva2VuMTIzNDU2Nzg5MA%2B%2Fxyz&rType=2&id="
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EntryLink(raw, true, "panelist-000123"); err != nil {
			b.Fatal(err)
		}
	}
}
