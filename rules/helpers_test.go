package rules

import (
	"strconv"
	"testing"

	"fieldboard/rules/domain"
)

// quota builds a hard quota of the table "Age" with the given remaining
// counts, for the ages id*10 to id*10+9.
func quota(id, exclusive, shared int64) domain.Quota {
	from, to := strconv.FormatInt(id*10, 10), strconv.FormatInt(id*10+9, 10)
	return domain.Quota{
		QuotaID: id, TableID: 2, TableName: "Age", QuotaName: "Cell " + string(rune('A'+id%26)), QuotaType: domain.QuotaTypeHard,
		Questions: []domain.QuotaQuestion{{ID: domain.AgeRangeQuestionID, Operator: "OR",
			Answers: []domain.QuotaAnswer{{RangeStart: &from, RangeEnd: &to}}}},
		RemainingExclusive: exclusive, RemainingShared: shared,
	}
}

// total builds the total quota (counting, Total Quota, no questions).
func total(exclusive, shared int64) domain.Quota {
	return domain.Quota{
		QuotaID: 1, TableID: 1, TableName: "Total Quota", QuotaName: "Total", QuotaType: domain.QuotaTypeCounting,
		RemainingExclusive: exclusive, RemainingShared: shared, AchievedInterviews: 10,
	}
}

// liveFacts is a Live, API-compatible, priced subsample with the given quotas loaded.
func liveFacts(quotas ...domain.Quota) SubsampleFacts {
	return SubsampleFacts{Status: domain.StatusLive, APICompatible: true, CPI: 1.5, Currency: "USD", Quotas: quotas, QuotasLoaded: true}
}

func id64(v int64) *int64 { return &v }

func str(s string) *string { return &s }

// mustLink calls EntryLink and fails the test on error.
func mustLink(t *testing.T, raw string, api bool, panelist string) string {
	t.Helper()
	got, err := EntryLink(raw, api, panelist)
	if err != nil {
		t.Fatalf("EntryLink(%q): %v", raw, err)
	}
	return got
}
