package domain

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// mappingNow is the day of the translations below.
var mappingNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// testMapping is a supplier's mapping: gender everywhere, region with a
// French row over the general one, dob the age question, hobby a value
// reaching two answers of a Multiple Punch question, sex a second code of
// the gender question, and pets a value reaching two answers of a question
// that was Multiple Punch when the mapping was checked and is Single Punch
// in the library now.
var testMapping = []MappingRow{
	{Code: "gender", Value: "F", QuestionID: 43, AnswerID: 2},
	{Code: "gender", Value: "female", QuestionID: 43, AnswerID: 2},
	{Code: "gender", Value: "M", QuestionID: 43, AnswerID: 1},
	{Code: "sex", Value: "m", QuestionID: 43, AnswerID: 1},
	{Code: "region", Value: "NW", QuestionID: 96, AnswerID: 10},
	{Code: "region", Value: "NW", QuestionID: 97, AnswerID: 70, Country: "FR"},
	{Code: "dob", QuestionID: AgeRangeQuestionID},
	{Code: "hobby", Value: "outdoor", QuestionID: 120, AnswerID: 5},
	{Code: "hobby", Value: "outdoor", QuestionID: 120, AnswerID: 6},
	{Code: "hobby", Value: "indoor", QuestionID: 120, AnswerID: 7},
	{Code: "pets", Value: "both", QuestionID: 121, AnswerID: 1},
	{Code: "pets", Value: "both", QuestionID: 121, AnswerID: 2},
	{Code: "home", Value: "NW", QuestionID: 97, AnswerID: 70},
	{Code: "home", Value: "NW", QuestionID: 96, AnswerID: 10},
}

// testLibrary is the library of the translations: gender and hobby in
// every locale; FR's regions (97) in fr-fr, GB's (96) in en-gb, and a
// region 96 of other ids in de-de; pets (121) Single Punch in fr-fr.
func testLibrary() MappingLibrary {
	var entries []LibraryEntry
	add := func(locale string, q int64, typ string, answers ...int64) {
		entries = append(entries, LibraryEntry{locale, q, 0, typ})
		for _, a := range answers {
			entries = append(entries, LibraryEntry{locale, q, a, ""})
		}
	}
	for _, locale := range []string{"fr-fr", "en-gb", "de-de"} {
		add(locale, 43, "Single Punch", 1, 2)
		add(locale, 120, "Multiple Punch", 5, 6, 7)
	}
	add("fr-fr", 97, "Single Punch", 70, 71)
	add("fr-fr", 121, "Single Punch", 1, 2)
	add("en-gb", 96, "Single Punch", 10, 11)
	add("de-de", 96, "Single Punch", 20, 21)
	return NewMappingLibrary(entries)
}

func TestTranslate(t *testing.T) {
	m := CompileMapping(testMapping, testLibrary())
	own := func(pairs ...string) []OwnAnswer {
		var out []OwnAnswer
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, OwnAnswer{pairs[i], pairs[i+1]})
		}
		return out
	}
	un := func(code, value, reason string) Untranslated { return Untranslated{OwnAnswer{code, value}, reason} }
	cases := []struct {
		name         string
		country      string
		answers      []OwnAnswer
		provider     map[int64][]int64
		want         []ProviderAnswer
		untranslated []Untranslated
	}{
		{"a country's row wins over the general one", "FR", own("region", "NW"), nil,
			[]ProviderAnswer{{97, 70}}, nil},
		{"the general row holds in a country without its own", "GB", own("region", "NW"), nil,
			[]ProviderAnswer{{96, 10}}, nil},
		{"a panelist with no country on file gets only general rows, known in any locale", "", own("region", "NW"), nil,
			[]ProviderAnswer{{96, 10}}, nil},
		{"a general row's answer unknown in the panelist's country is not given: not covered there", "DE", own("region", "NW"), nil,
			nil, []Untranslated{un("region", "NW", UnknownInCountry)}},
		{"a country without locales knows no answer", "IT", own("gender", "F"), nil,
			nil, []Untranslated{un("gender", "F", UnknownInCountry)}},
		{"of a value's answers, those known in the country are given", "GB", own("home", "NW"), nil,
			[]ProviderAnswer{{96, 10}}, nil},
		{"dates for the age range: a birth date is the age question's answer, in any country", "IT", own("dob", "1984-03-02"), nil,
			[]ProviderAnswer{{AgeRangeQuestionID, 19840302}}, nil},
		{"dates for the age range beside an answer", "FR", own("dob", "1984-03-02", "gender", "F"), nil,
			[]ProviderAnswer{{AgeRangeQuestionID, 19840302}, {43, 2}}, nil},
		{"a value that is not a date is kept untranslated, never guessed", "FR", own("dob", "02/03/1984"), nil,
			nil, []Untranslated{un("dob", "02/03/1984", NotABirthDate)}},
		{"a birth date in the future is not one", "FR", own("dob", "2030-01-01"), nil,
			nil, []Untranslated{un("dob", "2030-01-01", NotABirthDate)}},
		{"a birth date before 1900 is not one", "FR", own("dob", "1899-12-31"), nil,
			nil, []Untranslated{un("dob", "1899-12-31", NotABirthDate)}},
		{"two different birth dates: neither is sent", "FR", own("dob", "1984-03-02", "dob", "1985-03-02"), nil,
			nil, []Untranslated{un("dob", "1984-03-02", OtherBirthDate), un("dob", "1985-03-02", OtherBirthDate)}},
		{"several rows for one value reach several answers of a Multiple Punch question", "FR", own("hobby", "outdoor"), nil,
			[]ProviderAnswer{{120, 5}, {120, 6}}, nil},
		{"values of a Multiple Punch question add up", "FR", own("hobby", "outdoor", "hobby", "indoor"), nil,
			[]ProviderAnswer{{120, 5}, {120, 6}, {120, 7}}, nil},
		{"two codes reaching different answers of a Single Punch question: none is sent", "FR", own("gender", "F", "sex", "m", "hobby", "indoor"), nil,
			[]ProviderAnswer{{120, 7}}, []Untranslated{un("gender", "F", Disagreeing), un("sex", "m", Disagreeing)}},
		{"two values of a code reaching different answers of a Single Punch question: none is sent", "FR", own("gender", "F", "gender", "M"), nil,
			nil, []Untranslated{un("gender", "F", Disagreeing), un("gender", "M", Disagreeing)}},
		{"one value reaching two answers of a question that is not Multiple Punch: none is sent", "FR", own("pets", "both"), nil,
			nil, []Untranslated{un("pets", "both", Disagreeing)}},
		{"two values reaching the same answer agree", "FR", own("gender", "F", "gender", "female"), nil,
			[]ProviderAnswer{{43, 2}}, nil},
		{"an unmapped code is kept and counted", "FR", own("income", "high", "gender", "X", "gender", "M"), nil,
			[]ProviderAnswer{{43, 1}}, []Untranslated{un("income", "high", UnmappedAnswer), un("gender", "X", UnmappedAnswer)}},
		{"an answer reached twice is given once", "FR", own("gender", "F", "gender", "F"), nil,
			[]ProviderAnswer{{43, 2}}, nil},
		{"answers in the provider's ids win: a question that has some gets no translated answer", "FR", own("gender", "F", "region", "NW"), map[int64][]int64{43: {1}},
			[]ProviderAnswer{{97, 70}}, []Untranslated{un("gender", "F", ProviderAnswered)}},
		{"answers in the provider's ids win even where they agree", "FR", own("gender", "M"), map[int64][]int64{43: {1}},
			nil, []Untranslated{un("gender", "M", ProviderAnswered)}},
		{"a birth date in the provider's ids wins over a translated one", "FR", own("dob", "1984-03-02", "gender", "F"), map[int64][]int64{AgeRangeQuestionID: {19800101}},
			[]ProviderAnswer{{43, 2}}, []Untranslated{un("dob", "1984-03-02", ProviderAnswered)}},
		{"a question the provider's ids left empty is not answered", "FR", own("gender", "F"), map[int64][]int64{43: {}},
			[]ProviderAnswer{{43, 2}}, nil},
		{"a value whose known answers are all of questions answered in the provider's ids is not applied", "FR", own("home", "NW"), map[int64][]int64{97: {71}},
			nil, []Untranslated{un("home", "NW", ProviderAnswered)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := m.Translate(c.country, c.answers, c.provider, mappingNow)
			if !reflect.DeepEqual(got.Answers, c.want) || !reflect.DeepEqual(got.Untranslated, c.untranslated) {
				t.Errorf("Translate(%q, %v, %v) = %+v, %+v; want %+v, %+v", c.country, c.answers, c.provider, got.Answers, got.Untranslated, c.want, c.untranslated)
			}
		})
	}
}

func TestUntranslatedCovered(t *testing.T) {
	for reason, covered := range map[string]bool{UnmappedAnswer: false, UnknownInCountry: false,
		NotABirthDate: true, OtherBirthDate: true, Disagreeing: true, ProviderAnswered: true} {
		if got := (Untranslated{Reason: reason}).Covered(); got != covered {
			t.Errorf("%q covered: %v, want %v", reason, got, covered)
		}
	}
}

func TestTranslateCountryAgeRow(t *testing.T) {
	// A country's age row for a code wins over the general rows of the
	// code's values.
	m := CompileMapping([]MappingRow{
		{Code: "born", Value: "1984-03-02", QuestionID: 7, AnswerID: 1},
		{Code: "born", QuestionID: AgeRangeQuestionID, Country: "FR"},
	}, NewMappingLibrary([]LibraryEntry{{"de-de", 7, 0, "Single Punch"}, {"de-de", 7, 1, ""}}))
	got := m.Translate("FR", []OwnAnswer{{"born", "1984-03-02"}}, nil, mappingNow)
	if want := []ProviderAnswer{{AgeRangeQuestionID, 19840302}}; !reflect.DeepEqual(got.Answers, want) {
		t.Errorf("FR: %+v, want %+v", got.Answers, want)
	}
	got = m.Translate("DE", []OwnAnswer{{"born", "1984-03-02"}}, nil, mappingNow)
	if want := []ProviderAnswer{{7, 1}}; !reflect.DeepEqual(got.Answers, want) {
		t.Errorf("DE: %+v, want %+v", got.Answers, want)
	}
}

func TestMappingValidator(t *testing.T) {
	lib := NewMappingLibrary([]LibraryEntry{
		{"fr-fr", 43, 0, "Single Punch"}, {"fr-fr", 43, 1, ""}, {"fr-fr", 43, 2, ""},
		{"fr-fr", 97, 0, "Single Punch"}, {"fr-fr", 97, 70, ""},
		{"en-gb", 43, 0, "Single Punch"}, {"en-gb", 43, 1, ""}, {"en-gb", 43, 2, ""},
		{"en-gb", 96, 0, "Single Punch"}, {"en-gb", 96, 10, ""},
	})
	cases := []struct {
		name   string
		fields [5]string
		want   MappingRow
		reason string // a part of the reason; "" for a good row
	}{
		{"a general row", [5]string{"gender", "F", "43", "2", ""}, MappingRow{Code: "gender", Value: "F", QuestionID: 43, AnswerID: 2}, ""},
		{"a country's row, country in any case", [5]string{" region ", " NW ", "97", "70", "fr"}, MappingRow{Code: "region", Value: "NW", QuestionID: 97, AnswerID: 70, Country: "FR"}, ""},
		{"the age question has no value and no answer", [5]string{"dob", "", "-1", "", ""}, MappingRow{Code: "dob", QuestionID: -1}, ""},
		// A general row is checked against every locale; a translation gives
		// its answer only where the panelist's country knows it.
		{"a general row known in one locale only", [5]string{"region", "NW", "96", "10", ""}, MappingRow{Code: "region", Value: "NW", QuestionID: 96, AnswerID: 10}, ""},
		{"unknown ids refused: a question not in the country's locales", [5]string{"region", "NW", "96", "10", "FR"}, MappingRow{}, "question 96 is not in the library of FR's locales (fr-fr)"},
		{"unknown ids refused: an answer not of its question", [5]string{"gender", "F", "43", "7", "FR"}, MappingRow{}, "answer 7 is not an answer of question 43 in the library of FR's locales (fr-fr)"},
		{"unknown ids refused: a question of no locale", [5]string{"income", "hi", "42", "1", ""}, MappingRow{}, "question 42 is not in the library of any locale"},
		{"unknown ids refused: a country without locales", [5]string{"gender", "F", "43", "2", "DE"}, MappingRow{}, "the library has no locale of DE"},
		{"empty code", [5]string{"", "F", "43", "2", ""}, MappingRow{}, "code is empty"},
		{"a control character, C1 too", [5]string{"gen\u0085der", "F", "43", "2", ""}, MappingRow{}, "code holds control characters"},
		{"a value too long", [5]string{"gender", strings.Repeat("F", 129), "43", "2", ""}, MappingRow{}, "value is 129 bytes long; at most 128"},
		{"empty value", [5]string{"gender", "", "43", "2", ""}, MappingRow{}, "value is empty"},
		{"non-numeric question", [5]string{"gender", "F", "q43", "2", ""}, MappingRow{}, `questionId must be -1 (the age question) or a positive integer, not "q43"`},
		{"non-numeric answer", [5]string{"gender", "F", "43", "two", ""}, MappingRow{}, `answerId must be a positive integer (an answer of question 43), not "two"`},
		{"a missing answer", [5]string{"gender", "F", "43", "", ""}, MappingRow{}, "answerId must be a positive integer"},
		{"an answer on the age question", [5]string{"dob", "", "-1", "3", ""}, MappingRow{}, "answerId must be empty for the age question"},
		{"a value on the age question", [5]string{"dob", "x", "-1", "", ""}, MappingRow{}, "value must be empty for the age question"},
		{"bad country", [5]string{"gender", "F", "43", "2", "France"}, MappingRow{}, "country \"France\" is not a two-letter country code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, reason := NewMappingValidator(lib).Check(2, c.fields)
			if got != c.want || (c.reason == "") != (reason == "") || !strings.Contains(reason, c.reason) {
				t.Errorf("Check(%q) = %+v, %q; want %+v, %q", c.fields, got, reason, c.want, c.reason)
			}
		})
	}
}

func TestMappingValidatorAcrossRows(t *testing.T) {
	lib := NewMappingLibrary([]LibraryEntry{{"fr-fr", 43, 0, "Single Punch"}, {"fr-fr", 43, 1, ""}, {"fr-fr", 43, 2, ""},
		{"fr-fr", 120, 0, "Multiple Punch"}, {"fr-fr", 120, 5, ""}, {"fr-fr", 120, 6, ""},
		{"en-gb", 121, 0, "Multiple Punch"}, {"en-gb", 121, 1, ""}, {"en-gb", 121, 2, ""},
		{"fr-fr", 121, 0, "Single Punch"}, {"fr-fr", 121, 1, ""}, {"fr-fr", 121, 2, ""}})
	cases := []struct {
		name   string
		lines  [][5]string
		reason string // of the last line
	}{
		{"a duplicate row", [][5]string{{"gender", "F", "43", "2", ""}, {"gender", " F", "43", "2", ""}}, "the same row as line 2"},
		{"a value reaches two answers of a Multiple Punch question", [][5]string{{"hobby", "out", "120", "5", ""}, {"hobby", "out", "120", "6", ""}}, ""},
		{"a value reaches one answer of a Single Punch question",
			[][5]string{{"gender", "F", "43", "2", ""}, {"gender", "F", "43", "1", ""}},
			`value "F" of code "gender" reaches answer 2 of question 43 on line 2, and answer 1 here: question 43 is not Multiple Punch, so a value reaches one answer of it`},
		{"a country's rows are checked alike", [][5]string{{"gender", "F", "43", "2", "FR"}, {"gender", "F", "43", "1", "FR"}}, "reaches answer 2 of question 43 on line 2, and answer 1 here"},
		{"a country's row beside a general row of another answer is fine", [][5]string{{"gender", "F", "43", "2", ""}, {"gender", "F", "43", "1", "FR"}}, ""},
		{"other values, or other codes, may reach other answers", [][5]string{{"gender", "F", "43", "2", ""}, {"gender", "M", "43", "1", ""}, {"sex", "F", "43", "1", ""}}, ""},
		{"a value may reach answers of several questions", [][5]string{{"gender", "F", "43", "2", ""}, {"gender", "F", "120", "5", ""}}, ""},
		{"a question Multiple Punch in one locale only is not, for a general row",
			[][5]string{{"pets", "both", "121", "1", ""}, {"pets", "both", "121", "2", ""}}, "question 121 is not Multiple Punch"},
		{"a question Multiple Punch in a country's locales is, for its rows",
			[][5]string{{"pets", "both", "121", "1", "GB"}, {"pets", "both", "121", "2", "GB"}}, ""},
		{"a code of the age question mapped to answers", [][5]string{{"dob", "", "-1", "", ""}, {"dob", "F", "43", "2", ""}}, "code \"dob\" is mapped to the age question (-1) on line 2"},
		{"a code of answers mapped to the age question", [][5]string{{"dob", "F", "43", "2", ""}, {"dob", "", "-1", "", "FR"}}, "code \"dob\" is mapped to answers on line 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewMappingValidator(lib)
			var reason string
			for i, f := range c.lines {
				_, reason = v.Check(i+2, f)
			}
			if (c.reason == "") != (reason == "") || !strings.Contains(reason, c.reason) {
				t.Errorf("last line: %q, want %q", reason, c.reason)
			}
		})
	}
}
