package rules

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
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
	q := rangeCell(id, str(from), str(to), exclusive)
	q.RemainingShared = shared
	return q
}

// rangeCell is a hard cell of the table Age for the range from..to as the
// provider sends it, nil for a null end.
func rangeCell(id int64, from, to *string, remaining int64) domain.Quota {
	return domain.Quota{
		QuotaID: id, TableID: 2, TableName: "Age", QuotaType: domain.QuotaTypeHard,
		Questions: []domain.QuotaQuestion{{ID: domain.AgeRangeQuestionID, Operator: "OR",
			Answers: []domain.QuotaAnswer{{RangeStart: from, RangeEnd: to}}}},
		RemainingExclusive: remaining,
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
		// undecided are the cells per table the panelist may fall in
		// (TableMatch.Undecided); nil to skip
		undecided [][]int64
		reason    string // substring of the first table's reason; "" to skip
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
			quotas: []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "abc", 0, 0)}, profile: aged(40, nil),
			want: QuotaUnknown, cells: [][]int64{nil},
			reason: `Cell quota 11 is not understood: the range "35" to "abc" has an end that is neither a whole number, ` +
				`nor one followed by +, nor empty. The panelist may fall in cell quota 11, which is full.`},
		{name: "a range whose start is after its end is not understood",
			quotas: []domain.Quota{ageCell(10, "34", "18", 5, 0)}, profile: aged(20, nil), want: QuotaUnknown,
			reason: `Cell quota 10 is not understood: the range "34" to "18" starts after it ends.`},

		// Age ranges with an open end.
		{name: `debatable, decided: "65+" without an end means no upper bound: "65+" to "" is 65 or older`,
			quotas: []domain.Quota{ageCell(10, "65+", "", 5, 0)}, profile: aged(104, nil), want: QuotaFits, cells: [][]int64{{10}},
			reason: "Age 104 falls in cell 65 or older, which needs 5 more."},
		{name: `"65+" means no upper bound: "65+" to null is 65 or older, and 65 is in it`,
			quotas: []domain.Quota{rangeCell(10, str("65+"), nil, 5)}, profile: aged(65, nil), want: QuotaFits, cells: [][]int64{{10}}},
		{name: `"65+" means no upper bound: 64 is in no cell`,
			quotas: []domain.Quota{rangeCell(10, str("65+"), nil, 5)}, profile: aged(64, nil), want: QuotaOffTarget,
			reason: "Age 64 falls in no cell of Age (65 or older), which holds hard quotas."},
		{name: `"99+" means no upper bound: "55" to "99+" takes 120`,
			quotas: []domain.Quota{ageCell(10, "55", "99+", 5, 0)}, profile: aged(120, nil), want: QuotaFits,
			reason: "Age 120 falls in cell 55 or older, which needs 5 more."},
		{name: `"65+" as rangeEnd means no upper bound: "65" to "65+" is 65 or older`,
			quotas: []domain.Quota{ageCell(10, "65", "65+", 0, 0)}, profile: aged(80, nil), want: QuotaFull,
			reason: "Age 80 falls in cell 65 or older, which is full."},
		{name: `debatable, decided: an empty rangeEnd means no upper bound (a top band "35" to "", as providers write it)`,
			quotas: []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", " ", 5, 0)}, profile: aged(90, nil),
			want: QuotaFits, cells: [][]int64{{11}}, reason: "Age 90 falls in cell 35 or older, which needs 5 more."},
		{name: "a null rangeEnd means no upper bound",
			quotas: []domain.Quota{rangeCell(10, str("35"), nil, 5)}, profile: aged(90, nil), want: QuotaFits},
		{name: "an empty rangeStart means no lower bound",
			quotas: []domain.Quota{ageCell(10, "", "17", 5, 0), ageCell(11, "18", "34", 5, 0)}, profile: aged(0, nil),
			want: QuotaFits, cells: [][]int64{{10}}, reason: "Age 0 falls in cell 17 or younger, which needs 5 more."},
		{name: "a null rangeStart means no lower bound, and rangeEnd still bounds it",
			quotas: []domain.Quota{rangeCell(10, nil, str("17"), 5)}, profile: aged(18, nil), want: QuotaOffTarget,
			reason: "Age 18 falls in no cell of Age (17 or younger), which holds hard quotas."},
		{name: `an open end is read with spaces trimmed: " 65 + "`,
			quotas: []domain.Quota{ageCell(10, " 65 + ", "", 5, 0)}, profile: aged(70, nil), want: QuotaFits},
		{name: "the text of a cell of several ranges names open ends too",
			quotas: []domain.Quota{func() domain.Quota {
				q := ageCell(10, "18", "24", 5, 0)
				q.Questions = slices.Clone(q.Questions)
				q.Questions[0].Answers = append(slices.Clone(q.Questions[0].Answers),
					domain.QuotaAnswer{RangeStart: str("65"), RangeEnd: nil}, domain.QuotaAnswer{RangeStart: nil, RangeEnd: str("12")})
				return q
			}()}, profile: aged(40, nil), want: QuotaOffTarget,
			reason: "Age 40 falls in no cell of Age (18-24/65 or older/12 or younger), which holds hard quotas."},
		{name: `a truly garbage range is still refused: "abc"`,
			quotas: []domain.Quota{ageCell(10, "abc", "34", 0, 0)}, profile: aged(20, nil), want: QuotaUnknown,
			reason: `Cell quota 10 is not understood: the range "abc" to "34" has an end that is neither a whole number, nor one followed by +, nor empty.`},
		{name: `a truly garbage range is still refused: "65-"`,
			quotas: []domain.Quota{ageCell(10, "18", "65-", 0, 0)}, profile: aged(20, nil), want: QuotaUnknown},
		{name: `a truly garbage range is still refused: a lone "+"`,
			quotas: []domain.Quota{ageCell(10, "+", "", 0, 0)}, profile: aged(20, nil), want: QuotaUnknown},
		{name: "a truly garbage range is still refused: both ends empty",
			quotas: []domain.Quota{ageCell(10, "", "", 0, 0)}, profile: aged(20, nil), want: QuotaUnknown,
			reason: `Cell quota 10 is not understood: the range "" to "" bounds no age.`},
		{name: "a truly garbage range is still refused: an empty and a null end",
			quotas: []domain.Quota{rangeCell(10, str(""), nil, 0)}, profile: aged(20, nil), want: QuotaUnknown,
			reason: `Cell quota 10 is not understood: the range "" to (none) bounds no age.`},
		{name: `a truly garbage range is still refused: "" to "99+" bounds no age`,
			quotas: []domain.Quota{ageCell(10, "", "99+", 0, 0)}, profile: aged(20, nil), want: QuotaUnknown},
		{name: `a truly garbage range is still refused: start after end, "65" to "18+"`,
			quotas: []domain.Quota{ageCell(10, "65", "18+", 0, 0)}, profile: aged(70, nil), want: QuotaUnknown,
			reason: `Cell quota 10 is not understood: the range "65" to "18+" starts after it ends.`},
		{name: `"65+" says no upper bound, so "65+" to "99" is not understood, never guessed`,
			quotas: []domain.Quota{ageCell(10, "65+", "99", 0, 0)}, profile: aged(70, nil), want: QuotaUnknown,
			reason: `Cell quota 10 is not understood: the range "65+" to "99" has no upper bound by its start but one by its end.`},

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
		{name: "a quota type other than hard or counting is not understood: closed, the panelist in it is unknown, not quota_full",
			quotas:  []domain.Quota{softCell(genderCell(20, "Male", 0, 1))},
			profile: aged(30, male), want: QuotaUnknown, undecided: [][]int64{{20}},
			reason: `Cell Male is not understood: its quota type "soft" is neither hard nor counting. The panelist may fall in cell Male, which is full.`},
		{name: "a quota type other than hard or counting may be a hard quota: the panelist who may fall in its open cell is unknown",
			quotas:  []domain.Quota{softCell(genderCell(20, "Male", 5, 1))},
			profile: aged(30, male), want: QuotaUnknown, undecided: [][]int64{{20}},
			reason: `Cell Male is not understood: its quota type "soft" is neither hard nor counting. The panelist may fall in cell Male, ` +
				`or in no cell of Gender, which may hold hard quotas (cell Male has a quota type that is neither hard nor counting).`},
		{name: "a quota type other than hard or counting may be a hard quota: a panelist in none of its cells is unknown, not fits",
			quotas:  []domain.Quota{softCell(genderCell(20, "Male", 0, 1))},
			profile: aged(30, female), want: QuotaUnknown, undecided: [][]int64{nil},
			reason: "Answer 2 to question 12 falls in no cell of Gender (Male), which may hold hard quotas (cell Male has a quota type " +
				"that is neither hard nor counting): whether Gender takes a panelist in none of its cells is not known."},
		{name: "a quota type other than hard or counting beside an open counting cell the panelist surely falls in: fits",
			quotas: []domain.Quota{regionCell(30, 3, 100), func() domain.Quota {
				q := softCell(regionCell(31, 3, 101))
				return q
			}()},
			profile: domain.Profile{Answers: map[int64][]int64{qRegion: {100}}}, want: QuotaFits, cells: [][]int64{{30}}},
		{name: "hard and counting are read in any case",
			quotas:  []domain.Quota{func() domain.Quota { q := genderCell(20, "Male", 5, 1); q.QuotaType = "HARD"; return q }()},
			profile: aged(30, female), want: QuotaOffTarget},
		{name: "beside a hard cell, a cell of another type the panelist surely is not in leaves them off_target",
			quotas:  []domain.Quota{genderCell(20, "Male", 5, 1), softCell(genderCell(21, "Female", 5, 2))},
			profile: domain.Profile{Answers: map[int64][]int64{qGender: {3}}}, want: QuotaOffTarget},
		{name: "beside a hard cell, an open cell of another type the panelist may fall in is unknown, not off_target",
			quotas:  []domain.Quota{genderCell(20, "Male", 5, 1), softCell(genderCell(21, "Female", 5, 2))},
			profile: aged(30, female), want: QuotaUnknown,
			reason: `Cell Female is not understood: its quota type "soft" is neither hard nor counting. ` +
				"The panelist may fall in cell Female, or in no cell of Gender, which holds hard quotas."},
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
		{name: "an open cell the panelist surely falls into still decides, whatever an open cell that is not understood says",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "x", 5, 0)},
			profile: aged(20, nil), want: QuotaFits, cells: [][]int64{{10}}, undecided: [][]int64{{11}},
			reason: "Age 20 falls in cell 18-34, which needs 5 more."},
		{name: "doubt is no send: a closed cell that is not understood blocks a panelist it may hold, even one surely in an open cell",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "x", 0, 0)},
			profile: aged(20, nil), want: QuotaUnknown, cells: [][]int64{{10}}, undecided: [][]int64{{11}},
			reason: `Cell quota 11 is not understood: the range "35" to "x" has an end that is neither a whole number, nor one followed by +, ` +
				"nor empty. The panelist may fall in cell quota 11, which is full; that they fall in cell 18-34, with room, does not settle it: " +
				"cells of one table may overlap, and a full one turns them back."},
		{name: "doubt is no send: an unreadable full cell 17.5-40 beside a readable open one 25-99 blocks age 30",
			quotas:  []domain.Quota{ageCell(10, "17.5", "40", 0, 0), ageCell(11, "25", "99", 5, 0)},
			profile: aged(30, nil), want: QuotaUnknown, cells: [][]int64{{11}}, undecided: [][]int64{{10}},
			reason: `Cell quota 10 is not understood: the range "17.5" to "40" has an end that is neither a whole number, nor one followed by +, ` +
				"nor empty. The panelist may fall in cell quota 10, which is full; that they fall in cell 25-99, with room, does not settle it"},
		{name: "doubt is no send: an unreadable full cell abc-34 beside a readable open one 18-99 blocks age 20",
			quotas:  []domain.Quota{ageCell(10, "abc", "34", 0, 0), ageCell(11, "18", "99", 5, 0)},
			profile: aged(20, nil), want: QuotaUnknown, undecided: [][]int64{{10}},
			reason: `Cell quota 10 is not understood: the range "abc" to "34" has an end that is neither a whole number`},
		{name: "doubt is no send: an unreadable full cell abc-34 beside a readable open one 18-99 blocks age 30",
			quotas:  []domain.Quota{ageCell(10, "abc", "34", 0, 0), ageCell(11, "18", "99", 5, 0)},
			profile: aged(30, nil), want: QuotaUnknown, undecided: [][]int64{{10}}},
		{name: "doubt is no send: a full cell with the operator NOT beside an open OR cell blocks a woman who answered the question",
			quotas:  []domain.Quota{withOperator(genderCell(20, "Not men", 0, 1), "NOT"), genderCell(21, "Women", 5, 2)},
			profile: aged(30, female), want: QuotaUnknown, cells: [][]int64{{21}}, undecided: [][]int64{{20}},
			reason: `Cell Not men is not understood: question 12 has the operator "NOT"; only OR is understood. ` +
				"The panelist may fall in cell Not men, which is full; that they fall in cell Women, with room, does not settle it"},
		{name: "doubt is no send: a full cell with the operator NOT blocks a man too, who answered the question",
			quotas:  []domain.Quota{withOperator(genderCell(20, "Not men", 0, 1), "NOT"), genderCell(21, "Women", 5, 2)},
			profile: aged(30, male), want: QuotaUnknown, undecided: [][]int64{{20}}},
		{name: "doubt is no send: a full soft cell beside an open hard cell blocks the man both may hold",
			quotas:  []domain.Quota{softCell(genderCell(20, "Men (soft)", 0, 1)), genderCell(21, "Men", 5, 1)},
			profile: aged(30, male), want: QuotaUnknown, cells: [][]int64{{21}}, undecided: [][]int64{{20}},
			reason: `Cell Men (soft) is not understood: its quota type "soft" is neither hard nor counting. ` +
				"The panelist may fall in cell Men (soft), which is full; that they fall in cell Men, with room, does not settle it"},
		{name: "a full soft cell beside an open hard cell: a woman in neither is off target, as before",
			quotas:  []domain.Quota{softCell(genderCell(20, "Men (soft)", 0, 1)), genderCell(21, "Men", 5, 1)},
			profile: aged(30, female), want: QuotaOffTarget},
		{name: "a negative remaining beside a positive one is not understood and taken for full: the panelist in it is unknown",
			quotas:  []domain.Quota{ageCell(10, "18", "34", -3, 5), ageCell(11, "35", "54", 5, 0)},
			profile: aged(20, nil), want: QuotaUnknown, undecided: [][]int64{{10}},
			reason: "Cell quota 10 is not understood: its remainingExclusive -3 and remainingShared 5 mix a negative count with a positive one. " +
				"The panelist may fall in cell quota 10, which is full."},
		{name: "a negative remaining beside a positive one changes nothing for a panelist its understood range keeps out",
			quotas:  []domain.Quota{ageCell(10, "18", "34", -3, 5), ageCell(11, "35", "54", 5, 0)},
			profile: aged(40, nil), want: QuotaFits, cells: [][]int64{{11}}},
		{name: "no wrong no: a full cell that is understood and does not hold the panelist leaves them fitting their open cell",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 0, 0), ageCell(11, "35", "54", 5, 0), genderCell(20, "Male", 0, 1), genderCell(21, "Female", 4, 2)},
			profile: aged(40, female), want: QuotaFits, cells: [][]int64{{11}, {21}}},
		{name: "a closed cell that is not understood makes the table unknown when the panelist could fall into it",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), womenOlder(11, 0, "abc")},
			profile: aged(40, female), want: QuotaUnknown, cells: [][]int64{nil}, undecided: [][]int64{{11}},
			reason: `Cell Women older is not understood: the range "35" to "abc" has an end that is neither a whole number, ` +
				"nor one followed by +, nor empty. The panelist may fall in cell Women older, which is full."},
		{name: "a cell that is not understood changes nothing when an understood question of it surely fails: off_target",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), womenOlder(11, 0, "abc")},
			profile: aged(40, male), want: QuotaOffTarget, undecided: [][]int64{nil},
			reason: "Age 40 and answer 1 to question 12 fall in no cell of Age (18-34 or Women older), which holds hard quotas."},
		{name: "a cell that is not understood and whose understood question lacks an answer: the panelist could fall into it",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), womenOlder(11, 0, "abc")},
			profile: aged(40, nil), want: QuotaUnknown, undecided: [][]int64{{11}}},
		{name: "an open cell that is not understood, the panelist in no other cell of a table of hard quotas: unknown, not off_target",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "abc", 5, 0)},
			profile: aged(40, nil), want: QuotaUnknown,
			reason: `Cell quota 11 is not understood: the range "35" to "abc" has an end that is neither a whole number, ` +
				"nor one followed by +, nor empty. The panelist may fall in cell quota 11, or in no cell of Age, which holds hard quotas."},
		{name: "a table of counting cells only: an open cell that is not understood changes nothing",
			quotas:  []domain.Quota{regionCell(30, 3, 100), withOperator(regionCell(31, 3, 101), "AND")},
			profile: domain.Profile{Answers: map[int64][]int64{qRegion: {102}}}, want: QuotaFits, undecided: [][]int64{{31}},
			reason: "Cell quota 31 is not understood, but that changes nothing: it has room and Region holds no hard quota."},
		{name: "a table of counting cells only: a closed cell that is not understood the panelist could fall into is unknown",
			quotas:  []domain.Quota{regionCell(30, 3, 100), withOperator(regionCell(31, 0, 101), "AND")},
			profile: domain.Profile{Answers: map[int64][]int64{qRegion: {102}}}, want: QuotaUnknown,
			reason: `Cell quota 31 is not understood: question 21 has the operator "AND"; only OR is understood. The panelist may fall in cell quota 31, which is full.`},
		{name: "a table of counting cells only: an open cell not understood and a missing answer both change nothing",
			quotas:  []domain.Quota{regionCell(30, 3, 100), withOperator(regionCell(31, 3, 101), "AND")},
			profile: aged(30, nil), want: QuotaFits,
			reason: "No answer to question 21, but that changes nothing: the cells of Region that ask it have room and only count. " +
				"Cell quota 31 is not understood, but that changes nothing: it has room and Region holds no hard quota."},
		{name: "a missing answer to a closed cell still makes the table unknown, and a closed cell not understood is named too",
			quotas:  []domain.Quota{ageCell(10, "18", "34", 0, 0), ageCell(11, "35", "abc", 0, 0)},
			profile: domain.Profile{Answers: male}, want: QuotaUnknown, undecided: [][]int64{{10, 11}},
			reason: `Cell quota 11 is not understood: the range "35" to "abc" has an end that is neither a whole number, ` +
				"nor one followed by +, nor empty. The panelist may fall in cell quota 11, which is full. " +
				"No birth date: cannot tell whether the panelist falls in cell 18-34."},
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

		// One tableId, two table names: which cells form a table is not
		// known, so none of its cells is understood and it sends nobody.
		{name: "a Gender and an Age table both numbered 2: a man in no cell of the Age table is not sent",
			quotas:  []domain.Quota{inTable(2, "Gender", genderCell(20, "Male", 5, 1)), ageCell(10, "18", "34", 5, 0)},
			profile: aged(60, male), want: QuotaUnknown, tables: []QuotaVerdict{QuotaUnknown}, cells: [][]int64{nil},
			reason: `table 2 is named both "Gender" and "Age"`},
		{name: "a Gender and an Age table both numbered 2: a man of 20 fits both, still not sent",
			quotas:  []domain.Quota{inTable(2, "Gender", genderCell(20, "Male", 5, 1)), ageCell(10, "18", "34", 5, 0)},
			profile: aged(20, male), want: QuotaUnknown, tables: []QuotaVerdict{QuotaUnknown}},
		{name: "one table named in two cases, or not named by a cell, is one table",
			quotas: []domain.Quota{inTable(2, "Age", genderCell(20, "Male", 5, 1)), ageCell(10, "18", "34", 5, 0),
				inTable(2, " age", ageCell(11, "35", "54", 5, 0)), inTable(2, "", ageCell(12, "55", "99", 5, 0))},
			profile: aged(60, male), want: QuotaFits, tables: []QuotaVerdict{QuotaFits}, cells: [][]int64{{20, 12}}},
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
			for i, want := range tt.undecided {
				if i >= len(m.Tables) {
					t.Fatalf("no table %d: %+v", i, m.Tables)
				}
				if !slices.Equal(m.Tables[i].Undecided, want) {
					t.Errorf("table %d undecided %v, want %v", i, m.Tables[i].Undecided, want)
				}
			}
			if tt.reason != "" && (len(m.Tables) == 0 || !strings.Contains(m.Tables[0].Reason, tt.reason)) {
				t.Errorf("reason %q, want it to hold %q", reasonOf(m), tt.reason)
			}
			checkExplained(t, &cells, tt.profile, m)
		})
	}
}

// checkExplained checks that Match's tables and Explain say what Verdict
// says: the verdict is the worst table's; every table has a reason of
// whole sentences; Explain gives the reasons of the tables that are not
// fine, in order, and nothing when the verdict is fits (NoProfile alone
// for a panelist without a profile).
func checkExplained(t *testing.T, cells *QuotaCells, p domain.Profile, m QuotaMatch) {
	t.Helper()
	worst := QuotaFits
	var why []string
	for _, tm := range m.Tables {
		if tm.Reason == "" || !strings.HasSuffix(tm.Reason, ".") || strings.Contains(tm.Reason, "  ") {
			t.Errorf("table %d (%s) has no reason of whole sentences: %q", tm.TableID, tm.Verdict, tm.Reason)
		}
		if tm.Verdict.rank() > worst.rank() {
			worst = tm.Verdict
		}
		if tm.Verdict != QuotaFits {
			why = append(why, tm.Reason)
		}
	}
	if worst != m.Verdict {
		t.Errorf("verdict %s, but the worst table says %s", m.Verdict, worst)
	}
	got := cells.Explain(p, checkDay, nil)
	switch {
	case len(p.Answers) == 0 && p.BirthDate.IsZero():
		if !slices.Equal(got, []string{NoProfile}) {
			t.Errorf("Explain of no profile = %q, want the no-profile sentence", got)
		}
	case m.Verdict == QuotaFits && len(got) != 0:
		t.Errorf("verdict fits, but Explain says %q", got)
	case m.Verdict != QuotaFits && len(got) == 0:
		t.Errorf("verdict %s, but Explain says nothing", m.Verdict)
	case !slices.Equal(got, why):
		t.Errorf("Explain = %q, want the reasons of the tables that are not fine, %q", got, why)
	}
}

// softCell is q with a quotaType that is neither hard nor counting.
func softCell(q domain.Quota) domain.Quota {
	q.QuotaType = "soft"
	return q
}

// womenOlder is a hard cell of the table Age for women of 35 to end.
func womenOlder(id, remaining int64, end string) domain.Quota {
	q := ageCell(id, "35", end, remaining, 0)
	q.QuotaName = "Women older"
	q.Questions = append(slices.Clone(q.Questions), domain.QuotaQuestion{ID: qGender, Operator: "OR",
		Answers: []domain.QuotaAnswer{{ID: id64(2)}}})
	return q
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
	if got := cells.Explain(aged(40, nil), checkDay, nil); !reflect.DeepEqual(got, []string{"Age 40 falls in cell 35-54, which is full."}) {
		t.Errorf("Explain of a panelist in a full cell = %q", got)
	}
	if got := cells.Explain(domain.Profile{}, checkDay, nil); !reflect.DeepEqual(got, []string{NoProfile}) {
		t.Errorf("Explain of a panelist without a profile = %q, want the one no-profile sentence", got)
	}

	// A cell that is not understood: explained only where it decides.
	cells = CompileQuotas([]domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "abc", 5, 0),
		genderCell(20, "Male", 5, 1), genderCell(21, "Female", 5, 2)})
	if got := cells.Explain(aged(20, map[int64][]int64{qGender: {2}}), checkDay, nil); len(got) != 0 {
		t.Errorf("Explain of a panelist surely in an open cell beside an open cell not understood = %q, want nothing: they fit", got)
	}
	cells = CompileQuotas([]domain.Quota{ageCell(10, "18", "34", 5, 0), ageCell(11, "35", "abc", 0, 0),
		genderCell(20, "Male", 5, 1), genderCell(21, "Female", 5, 2)})
	want := []string{`Cell quota 11 is not understood: the range "35" to "abc" has an end that is neither a whole number, ` +
		"nor one followed by +, nor empty. The panelist may fall in cell quota 11, which is full."}
	if got := cells.Explain(aged(40, map[int64][]int64{qGender: {2}}), checkDay, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Explain of a panelist who may fall in a closed cell not understood = %q, want %q", got, want)
	}
	want = append(want, "Answer 3 to question 12 falls in no cell of Gender (Male or Female), which holds hard quotas.")
	if got := cells.Explain(aged(40, map[int64][]int64{qGender: {3}}), checkDay, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Explain of an unknown table and an off-target one = %q, want both, in table order: %q", got, want)
	}
}

// matchQuotas compiles quotas and matches p on checkDay.
func matchQuotas(p domain.Profile, quotas []domain.Quota) QuotaMatch {
	cells := CompileQuotas(quotas)
	return cells.Match(p, checkDay)
}

// TestQuotaVerdictAgreesOnRandomQuotas matches random profiles against
// random quotas, open-ended and garbage ranges, cells not understood and
// quota types of every kind among them: Verdict and Match agree, Explain
// says what they say (checkExplained), and a subsample that sendability
// pauses for a full table of hard quotas, or calls unknown for a table that
// takes nobody, has no panelist who fits. AppendCells gives Match's cells,
// table by table, after what it is handed.
func TestQuotaVerdictAgreesOnRandomQuotas(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2026))
	pick := func(n int) int { return rng.IntN(n) }
	types := []string{domain.QuotaTypeHard, domain.QuotaTypeCounting, "HARD", "soft"}
	ranges := [][2]*string{{str("18"), str("34")}, {str("35"), str("")}, {str("65+"), nil}, {nil, str("17")},
		{str("55"), str("99+")}, {str("abc"), str("3")}, {str(""), str("")}, {str("65+"), str("99")}, {str("30"), str("50")}}
	remaining := []int64{0, 0, 3, -1, 8}
	for round := range 3000 {
		var quotas []domain.Quota
		for table := range 1 + pick(3) {
			for cell := range 1 + pick(4) {
				q := domain.Quota{QuotaID: int64(100*table + cell), TableID: int64(table + 2), TableName: "T" + strconv.Itoa(table),
					QuotaType: types[pick(len(types))], RemainingExclusive: remaining[pick(len(remaining))]}
				questions := 1 + pick(2)
				if pick(10) == 0 {
					questions = 0
				}
				for range questions {
					qq := domain.QuotaQuestion{ID: []int64{qGender, domain.AgeRangeQuestionID, qRegion}[pick(3)], Operator: "OR"}
					if pick(10) == 0 {
						qq.Operator = "AND"
					}
					answers := 1 + pick(2)
					if pick(10) == 0 {
						answers = 0
					}
					for range answers {
						if qq.ID == domain.AgeRangeQuestionID {
							r := ranges[pick(len(ranges))]
							qq.Answers = append(qq.Answers, domain.QuotaAnswer{RangeStart: r[0], RangeEnd: r[1]})
						} else {
							qq.Answers = append(qq.Answers, domain.QuotaAnswer{ID: id64(int64(1 + pick(3)))})
						}
					}
					q.Questions = append(q.Questions, qq)
				}
				quotas = append(quotas, q)
			}
		}
		cells := CompileQuotas(quotas)
		verdict := Sendability(liveFacts(append([]domain.Quota{total(5, 0)}, quotas...)...))
		paused := verdict.State == Paused
		// Nobody to send: sendability says unknown on the other quotas.
		nobody := verdict.State == Unknown && verdict.Checks[len(verdict.Checks)-1].Outcome == Unread
		for range 8 {
			p := domain.Profile{Answers: map[int64][]int64{}}
			if pick(4) > 0 {
				p = aged(10+pick(90), p.Answers)
			}
			for _, q := range []int64{qGender, qRegion} {
				for range pick(3) {
					p.Answers[q] = append(p.Answers[q], int64(1+pick(3)))
				}
			}
			m := cells.Match(p, checkDay)
			if v := cells.Verdict(p, checkDay); v != m.Verdict {
				t.Fatalf("round %d: Verdict %s, Match %s for %+v on %+v", round, v, m.Verdict, p, quotas)
			}
			var matched []int64
			for _, tm := range m.Tables {
				matched = append(matched, tm.Cells...)
			}
			if got := cells.AppendCells([]int64{-1}, p, checkDay); !slices.Equal(got, append([]int64{-1}, matched...)) {
				t.Fatalf("round %d: AppendCells %v, want -1 and Match's cells %v for %+v on %+v", round, got, matched, p, quotas)
			}
			checkExplained(t, &cells, p, m)
			if paused && m.Verdict == QuotaFits {
				t.Fatalf("round %d: sendability pauses, but %+v fits %+v: %+v", round, p, quotas, m.Tables)
			}
			if nobody && m.Verdict == QuotaFits {
				t.Fatalf("round %d: sendability says nobody can be sent (%q), but %+v fits %+v: %+v", round, verdict.Reasons, p, quotas, m.Tables)
			}
			if t.Failed() {
				t.Fatalf("round %d: quotas %+v, profile %+v", round, quotas, p)
			}
		}
	}
}

// TestCellCompilerIsCompileQuotas checks that cells compiled by one
// CellCompiler for many subsamples, whose quotas share their lists of
// questions, are exactly CompileQuotas' cells, the reasons of cells not
// understood included, whichever quota met a list first.
func TestCellCompilerIsCompileQuotas(t *testing.T) {
	gender := []domain.QuotaQuestion{{ID: 43, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: id64(103)}}}}
	band := []domain.QuotaQuestion{{ID: domain.AgeRangeQuestionID, Operator: "or ", Answers: []domain.QuotaAnswer{{RangeStart: str("18"), RangeEnd: str("24")}}}}
	both := []domain.QuotaQuestion{gender[0], band[0]}
	and := []domain.QuotaQuestion{{ID: 44, Operator: "AND", Answers: []domain.QuotaAnswer{{ID: id64(7)}, {ID: id64(8)}}}}
	empty := []domain.QuotaQuestion{{ID: 45, Operator: "OR"}}
	wrongRange := []domain.QuotaQuestion{{ID: 46, Operator: "OR", Answers: []domain.QuotaAnswer{{RangeStart: str("1"), RangeEnd: str("2")}}}, gender[0]}
	lists := [][]domain.QuotaQuestion{gender, band, both, and, empty, wrongRange, nil}
	rng := rand.New(rand.NewPCG(3, 4))
	var cc CellCompiler
	for s := range 40 {
		quotas := []domain.Quota{total(100, 0)}
		for i := range 1 + rng.IntN(6) {
			q := quota(int64(i+2), rng.Int64N(3)-1, rng.Int64N(2))
			q.TableID = int64(1 + rng.IntN(3))
			q.Questions = lists[rng.IntN(len(lists))]
			q.QuotaType = []string{domain.QuotaTypeHard, domain.QuotaTypeCounting, "soft"}[rng.IntN(3)]
			quotas = append(quotas, q)
		}
		got, want := cellsAsCompiled(cc.Compile(quotas)), cellsAsCompiled(CompileQuotas(quotas))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("subsample %d: the compiler's cells\n %+v\nCompileQuotas'\n %+v", s, got, want)
		}
	}
	if len(cc.compiled) != len(lists)-1 {
		t.Errorf("%d lists of questions held, want %d: the compiler shares nothing", len(cc.compiled), len(lists)-1)
	}
}

// compiledCells are QuotaCells with each cell's conditions and words in
// place of where they are held, to compare cells compiled apart.
type compiledCells struct {
	tables   []compiledTable
	cells    []compiledCell
	needsAge bool
}

type compiledTable struct {
	table           quotaTable
	name, otherName string
}

type compiledCell struct {
	quotaID, remaining int64
	kind               quotaKind
	name, broken       string
	conds              []cellCond
}

func cellsAsCompiled(c QuotaCells) compiledCells {
	out := compiledCells{needsAge: c.needsAge}
	for _, t := range c.tables {
		k := compiledTable{table: t, name: c.held.text(t.name), otherName: c.held.text(t.otherName)}
		k.table.name, k.table.otherName = 0, 0
		out.tables = append(out.tables, k)
	}
	for i := range c.cells {
		cell := &c.cells[i]
		k := compiledCell{quotaID: cell.quotaID, remaining: cell.remaining, kind: cell.kind,
			name: c.held.text(cell.name), broken: c.held.text(cell.broken), conds: c.held.condsOf(cell)}
		if len(k.conds) == 0 {
			k.conds = nil
		}
		out.cells = append(out.cells, k)
	}
	return out
}

// TestQuotaSentencesNameTheLibrarysWords: with the words of a library, a
// quota sentence names the question and the answers as the library does
// ("GENDER (Are you...?): Female falls"); what the library lacks is named
// by its id, and without a library every question and answer is.
func TestQuotaSentencesNameTheLibrarysWords(t *testing.T) {
	full := CompileQuotas([]domain.Quota{genderCell(20, "Male", 5, 1), genderCell(21, "Female", 0, 2)})
	words := &QuotaWords{
		Questions: map[int64]domain.Question{qGender: {ID: qGender, Name: "GENDER", Text: "Are you...?"}, qRegion: {ID: qRegion, Name: "REGION"}},
		Answers:   map[int64]map[int64]domain.Answer{qGender: {2: {ID: 2, Name: "female", Text: "Female"}}},
	}
	for _, tt := range []struct {
		name  string
		cells QuotaCells
		p     domain.Profile
		words *QuotaWords
		want  string
	}{
		{"the library's words", full, aged(40, map[int64][]int64{qGender: {2}}), words,
			"GENDER (Are you...?): Female falls in cell Female, which is full."},
		{"an answer the library lacks, by its id", full, aged(40, map[int64][]int64{qGender: {3}}), words,
			"GENDER (Are you...?): answer 3 falls in no cell of Gender (Male or Female), which holds hard quotas."},
		{"a question the library lacks, by its ids", full, aged(40, map[int64][]int64{qGender: {2}}), &QuotaWords{},
			"Answer 2 to question 12 falls in cell Female, which is full."},
		{"no library, by the ids", full, aged(40, map[int64][]int64{qGender: {2}}), nil,
			"Answer 2 to question 12 falls in cell Female, which is full."},
		{"a missing answer in words", full, aged(40, map[int64][]int64{qRegion: {7}}), words,
			"No answer to GENDER (Are you...?): cannot tell whether the panelist falls in cells Male or Female."},
	} {
		got := tt.cells.Explain(tt.p, checkDay, tt.words)
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
