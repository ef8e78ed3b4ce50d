package rules

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// checkDay is the day of the quota checks, in the provider's time zone.
var checkDay = time.Date(2026, 6, 15, 9, 30, 0, 0, time.UTC)

// Question ids of the library used below.
const (
	qGender = 12
	qRegion = 21
)

// ageCell is a hard cell of the table Age for the range from..to.
func ageCell(id int64, from, to string, exclusive, shared int64) domain.Quota {
	return domain.Quota{
		QuotaID: id, TableID: 2, TableName: "Age", QuotaType: domain.QuotaTypeHard,
		Questions: []domain.QuotaQuestion{{ID: domain.AgeRangeQuestionID, Operator: "OR",
			Answers: []domain.QuotaAnswer{{RangeStart: str(from), RangeEnd: str(to)}}}},
		RemainingExclusive: exclusive, RemainingShared: shared,
	}
}

// genderCell is a hard cell of the table Gender listing the answer ids.
func genderCell(id int64, name string, remaining int64, answers ...int64) domain.Quota {
	return answerCell(id, 3, "Gender", domain.QuotaTypeHard, name, qGender, remaining, answers...)
}

// regionCell is a counting cell of the table Region listing the answer ids.
func regionCell(id int64, remaining int64, answers ...int64) domain.Quota {
	return answerCell(id, 4, "Region", domain.QuotaTypeCounting, "", qRegion, remaining, answers...)
}

func answerCell(id, table int64, tableName, kind, name string, question, remaining int64, answers ...int64) domain.Quota {
	q := domain.Quota{
		QuotaID: id, TableID: table, TableName: tableName, QuotaName: name, QuotaType: kind,
		Questions:          []domain.QuotaQuestion{{ID: question, Operator: "OR"}},
		RemainingExclusive: remaining,
	}
	for _, a := range answers {
		q.Questions[0].Answers = append(q.Questions[0].Answers, domain.QuotaAnswer{ID: id64(a)})
	}
	return q
}

// withOperator returns q with the operator of its first question replaced.
func withOperator(q domain.Quota, op string) domain.Quota {
	q.Questions = slices.Clone(q.Questions)
	q.Questions[0].Operator = op
	return q
}

// aged is a profile with a birth date that makes the panelist years old on
// checkDay, and the given answers.
func aged(years int, answers map[int64][]int64) domain.Profile {
	return domain.Profile{BirthDate: checkDay.AddDate(-years, 0, -1), Answers: answers}
}

func TestAgeOn(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*60*60)
	tests := []struct {
		name       string
		birth, now time.Time
		want       int
	}{
		{"a birthday today: turns 40 today, age 40",
			date(1986, 6, 15), date(2026, 6, 15), 40},
		{"the day before the birthday: still 39",
			date(1986, 6, 15), date(2026, 6, 14), 39},
		{"the day after the birthday",
			date(1986, 6, 15), date(2026, 6, 16), 40},
		{"Feb 29 birthday in a common year: not yet on Feb 28",
			date(2008, 2, 29), date(2026, 2, 28), 17},
		{"Feb 29 birthday in a common year: counted on Mar 1",
			date(2008, 2, 29), date(2026, 3, 1), 18},
		{"Feb 29 birthday in a leap year: counted on the day",
			date(2008, 2, 29), date(2028, 2, 29), 20},
		{"the day of the check is now's day in its own zone",
			date(1986, 6, 15), time.Date(2026, 6, 14, 23, 30, 0, 0, time.UTC).In(tokyo), 40},
		{"born today is 0", date(2026, 6, 15), date(2026, 6, 15), 0},
		{"no birth date is -1", time.Time{}, date(2026, 6, 15), -1},
		{"a birth date after the check is -1", date(2026, 6, 16), date(2026, 6, 15), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AgeOn(tt.birth, tt.now); got != tt.want {
				t.Errorf("AgeOn(%s, %s) = %d, want %d", tt.birth.Format(time.DateOnly), tt.now, got, tt.want)
			}
		})
	}
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestMatchQuotas(t *testing.T) {
	ages := []domain.Quota{total(40, 10), ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "54", 5, 0)}
	male, female := map[int64][]int64{qGender: {1}}, map[int64][]int64{qGender: {2}}
	tests := []struct {
		name    string
		quotas  []domain.Quota
		profile domain.Profile
		want    QuotaVerdict
		tables  []QuotaVerdict // per table, in order
		cells   [][]int64      // cells matched per table; nil to skip
		reason  string         // substring of the first table's reason; "" to skip
	}{
		{name: "range ends are included: age == rangeStart matches",
			quotas: ages, profile: aged(35, nil), want: QuotaFits, tables: []QuotaVerdict{QuotaFits}, cells: [][]int64{{11}},
			reason: "Age 35 falls in cell 35-54, which needs 5 more."},
		{name: "range ends are included: age == rangeEnd matches",
			quotas: ages, profile: aged(54, nil), want: QuotaFits, cells: [][]int64{{11}}},
		{name: "one year past the last rangeEnd matches no cell",
			quotas: ages, profile: aged(55, nil), want: QuotaOffTarget, cells: [][]int64{nil}},
		{name: "one year before the first rangeStart matches no cell",
			quotas: ages, profile: aged(17, nil), want: QuotaOffTarget, cells: [][]int64{nil},
			reason: "Age 17 falls in no cell of Age (18-34 or 35-54), which holds hard quotas."},
		{name: "a birthday today: turns 35 today, age 35, in 35-54",
			quotas: ages, profile: domain.Profile{BirthDate: date(1991, 6, 15)}, want: QuotaFits, cells: [][]int64{{11}}},
		{name: "the day before the 35th birthday: 34, in 18-34",
			quotas: ages, profile: domain.Profile{BirthDate: date(1991, 6, 16)}, want: QuotaFits, cells: [][]int64{{10}}},
		{name: "range bounds are parsed with spaces trimmed",
			quotas: []domain.Quota{ageCell(10, " 18 ", "34 ", 5, 0)}, profile: aged(18, nil), want: QuotaFits},
		{name: "an unparsable range makes the cell not understood",
			quotas: []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "54+", 5, 0)}, profile: aged(20, nil),
			want: QuotaUnknown, cells: [][]int64{{10}},
			reason: `Cell quota 11 is not understood: the range "35" to "54+" is not two whole numbers, lowest first.`},
		{name: "a range whose start is after its end is not understood",
			quotas: []domain.Quota{ageCell(10, "34", "18", 5, 0)}, profile: aged(20, nil), want: QuotaUnknown},

		{name: "multi-punch: any one listed id matches",
			quotas:  []domain.Quota{answerCell(20, 5, "Pets", domain.QuotaTypeHard, "", 30, 4, 7, 8)},
			profile: domain.Profile{Answers: map[int64][]int64{30: {3, 8, 9}}}, want: QuotaFits, cells: [][]int64{{20}},
			reason: "Answer 8 to question 30 falls in cell answers 7/8, which needs 4 more."},
		{name: "multi-punch: none of the panelist's ids listed matches no cell",
			quotas:  []domain.Quota{answerCell(20, 5, "Pets", domain.QuotaTypeHard, "", 30, 4, 7, 8)},
			profile: domain.Profile{Answers: map[int64][]int64{30: {3, 9}}}, want: QuotaOffTarget,
			reason: "Answers 3, 9 to question 30 fall in no cell of Pets (answers 7/8), which holds hard quotas."},
		{name: "a missing answer cannot be decided: unknown, not off_target",
			quotas: []domain.Quota{genderCell(20, "Male", 5, 1), genderCell(21, "Female", 5, 2)}, profile: domain.Profile{},
			want: QuotaUnknown, tables: []QuotaVerdict{QuotaUnknown},
			reason: "No answer to question 12: cannot tell whether the panelist falls in cells Male or Female."},
		{name: "an answer present with no ids is missing",
			quotas:  []domain.Quota{genderCell(20, "Male", 5, 1)},
			profile: domain.Profile{Answers: map[int64][]int64{qGender: {}}}, want: QuotaUnknown},
		{name: "no birth date cannot be decided for an age cell",
			quotas: ages, profile: domain.Profile{}, want: QuotaUnknown,
			reason: "No birth date: cannot tell whether the panelist falls in cells 18-34 or 35-54."},
		{name: "a table of counting cells only: matching none is fine",
			quotas:  []domain.Quota{total(5, 0), regionCell(30, 3, 100), regionCell(31, 3, 101)},
			profile: domain.Profile{Answers: map[int64][]int64{qRegion: {102}}}, want: QuotaFits, cells: [][]int64{nil},
			reason: "Answer 102 to question 21 falls in no cell of Region, which is fine: its cells only count."},
		{name: "a table of counting cells only: a missing answer that could only lead into open cells changes nothing",
			quotas:  []domain.Quota{regionCell(30, 3, 100), regionCell(31, 3, 101)},
			profile: domain.Profile{}, want: QuotaFits,
			reason: "No answer to question 21, but that changes nothing: the cells of Region that ask it have room and only count."},
		{name: "a table of counting cells only: a missing answer that could lead into a full cell is unknown",
			quotas:  []domain.Quota{regionCell(30, 3, 100), regionCell(31, 0, 101)},
			profile: domain.Profile{}, want: QuotaUnknown},
		{name: "a counting cell that is full still turns the panelist back",
			quotas:  []domain.Quota{regionCell(30, 3, 100), regionCell(31, 0, 101)},
			profile: domain.Profile{Answers: map[int64][]int64{qRegion: {101}}}, want: QuotaFull},
		{name: "a hard table matched by none is off_target",
			quotas: []domain.Quota{genderCell(20, "Male", 5, 1)}, profile: aged(30, female), want: QuotaOffTarget},
		{name: "a matched closed cell is quota_full",
			quotas:  []domain.Quota{total(9, 0), ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "54", 0, 0)},
			profile: aged(40, nil), want: QuotaFull, cells: [][]int64{{11}},
			reason: "Age 40 falls in cell 35-54, which is full."},
		{name: "remaining is exclusive + shared: exclusive 0, shared 3 is open",
			quotas: []domain.Quota{ageCell(11, "35", "54", 0, 3)}, profile: aged(40, nil), want: QuotaFits,
			reason: "Age 40 falls in cell 35-54, which needs 3 more."},
		{name: "a negative remaining counts as full",
			quotas: []domain.Quota{ageCell(11, "35", "54", 2, -5)}, profile: aged(40, nil), want: QuotaFull},
		{name: "cells are named by quotaName when set",
			quotas: []domain.Quota{genderCell(21, "Female", 0, 2)}, profile: aged(30, female), want: QuotaFull,
			reason: "Answer 2 to question 12 falls in cell Female, which is full."},
		{name: "overlapping cells: falling in an open and a full one is quota_full",
			quotas:  []domain.Quota{ageCell(10, "18", "99", 5, 0), ageCell(11, "35", "54", 0, 0), ageCell(12, "40", "44", 0, 0)},
			profile: aged(40, nil), want: QuotaFull, cells: [][]int64{{11, 12, 10}},
			reason: "Age 40 falls in cells 35-54 and 40-44, which are full."},

		{name: "an operator other than OR is not understood, never guessed",
			quotas:  []domain.Quota{withOperator(genderCell(20, "Male", 5, 1), "AND")},
			profile: aged(30, male), want: QuotaUnknown,
			reason: `Cell Male is not understood: question 12 has the operator "AND"; only OR is understood.`},
		{name: "an empty operator is not understood",
			quotas: []domain.Quota{withOperator(genderCell(20, "Male", 5, 1), "")}, profile: aged(30, male), want: QuotaUnknown},
		{name: "OR in any case is OR",
			quotas: []domain.Quota{withOperator(genderCell(20, "Male", 5, 1), "or")}, profile: aged(30, male), want: QuotaFits},
		{name: "a quota type other than hard or counting is not understood",
			quotas:  []domain.Quota{func() domain.Quota { q := genderCell(20, "Male", 5, 1); q.QuotaType = "soft"; return q }()},
			profile: aged(30, male), want: QuotaUnknown},
		{name: "a cell other than the total with no questions is not understood",
			quotas:  []domain.Quota{func() domain.Quota { q := genderCell(20, "Male", 5, 1); q.Questions = nil; return q }()},
			profile: aged(30, male), want: QuotaUnknown, reason: "Cell Male is not understood: it has no conditions."},
		{name: "a range on a question other than age is not understood",
			quotas: []domain.Quota{func() domain.Quota {
				q := ageCell(10, "1", "5", 5, 0)
				q.Questions = slices.Clone(q.Questions)
				q.Questions[0].ID = 40
				return q
			}()},
			profile: domain.Profile{Answers: map[int64][]int64{40: {3}}}, want: QuotaUnknown},
		{name: "only the total quota: fits",
			quotas: []domain.Quota{total(10, 0)}, profile: domain.Profile{}, want: QuotaFits, tables: []QuotaVerdict{}},
		{name: "the total quota is skipped even when full: sendability covers it",
			quotas: []domain.Quota{total(0, 0), ageCell(10, "18", "34", 5, 0)}, profile: aged(20, nil), want: QuotaFits},
		{name: "no quotas at all: fits", quotas: nil, profile: domain.Profile{}, want: QuotaFits},

		// Precedence inside one table.
		{name: "a decided full match is quota_full even when another cell is undecidable",
			quotas: []domain.Quota{ageCell(10, "18", "34", 0, 0), func() domain.Quota {
				q := genderCell(11, "Women 35+", 5, 2)
				q.TableID, q.TableName = 2, "Age"
				return q
			}()},
			profile: aged(20, nil), want: QuotaFull, cells: [][]int64{{10}}},
		{name: "a decided full match is quota_full even when another cell is not understood",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 0, 0), ageCell(11, "35", "x", 5, 0)},
			profile: aged(20, nil), want: QuotaFull},
		{name: "a not-understood cell makes the table unknown even when an open cell matched",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "x", 5, 0)},
			profile: aged(20, nil), want: QuotaUnknown, cells: [][]int64{{10}}},
		{name: "an undecidable full cell makes the table unknown even when an open cell matched",
			quotas: []domain.Quota{ageCell(10, "18", "34", 5, 0), func() domain.Quota {
				q := genderCell(11, "Women", 0, 2)
				q.TableID, q.TableName = 2, "Age"
				return q
			}()},
			profile: aged(20, nil), want: QuotaUnknown, cells: [][]int64{{10}},
			reason: "No answer to question 12: cannot tell whether the panelist falls in cell Women."},
		{name: "an undecidable open cell does not matter once an open cell matched",
			quotas: []domain.Quota{ageCell(10, "18", "34", 5, 0), func() domain.Quota {
				q := genderCell(11, "Women", 5, 2)
				q.TableID, q.TableName = 2, "Age"
				return q
			}()},
			profile: aged(20, nil), want: QuotaFits, cells: [][]int64{{10}}},
		{name: "a cell with one failing condition is decided even when another lacks an answer",
			quotas: []domain.Quota{func() domain.Quota {
				q := ageCell(10, "35", "54", 0, 0)
				q.QuotaName = "Women 35-54"
				q.Questions = append(slices.Clone(q.Questions), domain.QuotaQuestion{ID: qGender, Operator: "OR",
					Answers: []domain.QuotaAnswer{{ID: id64(2)}}})
				return q
			}(), ageCell(11, "18", "34", 5, 0)},
			profile: aged(20, nil), want: QuotaFits, cells: [][]int64{{11}}},
		{name: "every condition of a cell must hold",
			quotas: []domain.Quota{func() domain.Quota {
				q := ageCell(10, "35", "54", 0, 0)
				q.Questions = append(slices.Clone(q.Questions), domain.QuotaQuestion{ID: qGender, Operator: "OR",
					Answers: []domain.QuotaAnswer{{ID: id64(2)}}})
				return q
			}()},
			profile: aged(40, female), want: QuotaFull,
			reason: "Age 40 and answer 2 to question 12 fall in cell 35-54 & answer 2, which is full."},

		// Precedence across tables.
		{name: "quota_full beats off_target",
			quotas:  []domain.Quota{genderCell(20, "Male", 5, 1), ageCell(10, "35", "54", 0, 0)},
			profile: aged(40, female), want: QuotaFull, tables: []QuotaVerdict{QuotaOffTarget, QuotaFull}},
		{name: "off_target beats unknown",
			quotas:  []domain.Quota{genderCell(20, "Male", 5, 1), ageCell(10, "35", "54", 5, 0)},
			profile: domain.Profile{Answers: female}, want: QuotaOffTarget, tables: []QuotaVerdict{QuotaOffTarget, QuotaUnknown}},
		{name: "unknown beats fits",
			quotas:  []domain.Quota{genderCell(20, "Male", 5, 1), ageCell(10, "35", "54", 5, 0)},
			profile: domain.Profile{Answers: male}, want: QuotaUnknown, tables: []QuotaVerdict{QuotaFits, QuotaUnknown}},
		{name: "tables are grouped by tableId whatever the provider's order",
			quotas: []domain.Quota{genderCell(20, "Male", 5, 1), ageCell(10, "18", "34", 5, 0), genderCell(21, "Female", 0, 2),
				ageCell(11, "35", "54", 5, 0), total(3, 0)},
			profile: aged(40, male), want: QuotaFits, tables: []QuotaVerdict{QuotaFits, QuotaFits}, cells: [][]int64{{20}, {11}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := matchQuotas(tt.profile, tt.quotas)
			if m.Verdict != tt.want {
				t.Errorf("verdict %s, want %s; tables %+v", m.Verdict, tt.want, m.Tables)
			}
			cells := CompileQuotas(tt.quotas)
			if v := cells.Verdict(tt.profile, checkDay); v != m.Verdict {
				t.Errorf("Verdict %s, Match %s: they must agree", v, m.Verdict)
			}
			if tt.tables != nil {
				got := make([]QuotaVerdict, 0, len(m.Tables))
				for _, tm := range m.Tables {
					got = append(got, tm.Verdict)
				}
				if !slices.Equal(got, tt.tables) {
					t.Errorf("table verdicts %v, want %v", got, tt.tables)
				}
			}
			for i, want := range tt.cells {
				if i >= len(m.Tables) {
					t.Fatalf("no table %d: %+v", i, m.Tables)
				}
				if !slices.Equal(m.Tables[i].Cells, want) {
					t.Errorf("table %d cells %v, want %v", i, m.Tables[i].Cells, want)
				}
			}
			if tt.reason != "" && (len(m.Tables) == 0 || !strings.Contains(m.Tables[0].Reason, tt.reason)) {
				t.Errorf("reason %q, want it to hold %q", reasonOf(m), tt.reason)
			}
			for _, tm := range m.Tables {
				if tm.Reason == "" {
					t.Errorf("table %d (%s) has no reason", tm.TableID, tm.Verdict)
				}
			}
		})
	}
}

func reasonOf(m QuotaMatch) string {
	if len(m.Tables) == 0 {
		return ""
	}
	return m.Tables[0].Reason
}

func TestQuotaMatchNamesTables(t *testing.T) {
	m := matchQuotas(aged(40, nil), []domain.Quota{ageCell(10, "35", "54", 0, 0)})
	want := []TableMatch{{TableID: 2, TableName: "Age", Verdict: QuotaFull, Cells: []int64{10},
		Reason: "Age 40 falls in cell 35-54, which is full."}}
	if !reflect.DeepEqual(m.Tables, want) || m.Verdict != QuotaFull {
		t.Errorf("match %s with tables %+v, want quota_full with %+v", m.Verdict, m.Tables, want)
	}
}

func TestQuotaCellsVerdictAllocatesNothing(t *testing.T) {
	cells := CompileQuotas(benchQuotas(0))
	p := benchProfile()
	if allocs := testing.AllocsPerRun(100, func() { cells.Verdict(p, checkDay) }); allocs != 0 {
		t.Errorf("Verdict allocates %v times per call, want 0", allocs)
	}
}

func TestQuotaVerdictLabel(t *testing.T) {
	for v, want := range map[QuotaVerdict]string{QuotaFits: "Fits", QuotaFull: "Quota full", QuotaOffTarget: "Off target",
		QuotaUnknown: "Unknown", "": "Unknown"} {
		if got := v.Label(); got != want {
			t.Errorf("%q.Label() = %q, want %q", v, got, want)
		}
	}
}

func TestQuotaCellsExplain(t *testing.T) {
	cells := CompileQuotas([]domain.Quota{ageCell(10, "35", "54", 0, 0)})
	if got := cells.Explain(aged(40, nil), checkDay); !reflect.DeepEqual(got, []string{"Age 40 falls in cell 35-54, which is full."}) {
		t.Errorf("Explain of a panelist in a full cell = %q", got)
	}
	if got := cells.Explain(domain.Profile{}, checkDay); !reflect.DeepEqual(got, []string{NoProfile}) {
		t.Errorf("Explain of a panelist without a profile = %q, want the one no-profile sentence", got)
	}
}

// matchQuotas compiles quotas and matches p on checkDay.
func matchQuotas(p domain.Profile, quotas []domain.Quota) QuotaMatch {
	cells := CompileQuotas(quotas)
	return cells.Match(p, checkDay)
}
