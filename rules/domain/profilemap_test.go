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
// French row over the general one, dob the age question, and hobby a
// value reaching two answers.
var testMapping = []MappingRow{
	{Code: "gender", Value: "F", QuestionID: 43, AnswerID: 2},
	{Code: "gender", Value: "M", QuestionID: 43, AnswerID: 1},
	{Code: "region", Value: "NW", QuestionID: 96, AnswerID: 10},
	{Code: "region", Value: "NW", QuestionID: 97, AnswerID: 70, Country: "FR"},
	{Code: "dob", QuestionID: AgeRangeQuestionID},
	{Code: "hobby", Value: "outdoor", QuestionID: 120, AnswerID: 5},
	{Code: "hobby", Value: "outdoor", QuestionID: 120, AnswerID: 6},
}

func TestTranslate(t *testing.T) {
	m := CompileMapping(testMapping)
	own := func(pairs ...string) []OwnAnswer {
		var out []OwnAnswer
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, OwnAnswer{pairs[i], pairs[i+1]})
		}
		return out
	}
	cases := []struct {
		name         string
		country      string
		answers      []OwnAnswer
		want         []ProviderAnswer
		untranslated []Untranslated
	}{
		{"a country's row wins over the general one", "FR", own("region", "NW"),
			[]ProviderAnswer{{97, 70}}, nil},
		{"the general row holds in a country without its own", "DE", own("region", "NW"),
			[]ProviderAnswer{{96, 10}}, nil},
		{"a panelist with no country on file gets only general rows", "", own("region", "NW"),
			[]ProviderAnswer{{96, 10}}, nil},
		{"dates for the age range: a birth date is the age question's answer", "FR", own("dob", "1984-03-02", "gender", "F"),
			[]ProviderAnswer{{AgeRangeQuestionID, 19840302}, {43, 2}}, nil},
		{"a value that is not a date is kept untranslated, never guessed", "FR", own("dob", "02/03/1984"),
			nil, []Untranslated{{OwnAnswer{"dob", "02/03/1984"}, NotABirthDate}}},
		{"a birth date in the future is not one", "FR", own("dob", "2030-01-01"),
			nil, []Untranslated{{OwnAnswer{"dob", "2030-01-01"}, NotABirthDate}}},
		{"two different birth dates: neither is sent", "FR", own("dob", "1984-03-02", "dob", "1985-03-02"),
			nil, []Untranslated{{OwnAnswer{"dob", "1984-03-02"}, OtherBirthDate}, {OwnAnswer{"dob", "1985-03-02"}, OtherBirthDate}}},
		{"several rows for one value reach several answers", "FR", own("hobby", "outdoor"),
			[]ProviderAnswer{{120, 5}, {120, 6}}, nil},
		{"an unmapped code is kept and counted", "FR", own("income", "high", "gender", "X", "gender", "M"),
			[]ProviderAnswer{{43, 1}}, []Untranslated{{OwnAnswer{"income", "high"}, UnmappedAnswer}, {OwnAnswer{"gender", "X"}, UnmappedAnswer}}},
		{"an answer reached twice is given once", "FR", own("gender", "F", "gender", "F"),
			[]ProviderAnswer{{43, 2}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := m.Translate(c.country, c.answers, mappingNow)
			if !reflect.DeepEqual(got.Answers, c.want) || !reflect.DeepEqual(got.Untranslated, c.untranslated) {
				t.Errorf("Translate(%q, %v) = %+v, %+v; want %+v, %+v", c.country, c.answers, got.Answers, got.Untranslated, c.want, c.untranslated)
			}
		})
	}
}

func TestTranslateCountryAgeRow(t *testing.T) {
	// A country's age row for a code wins over the general rows of the
	// code's values.
	m := CompileMapping([]MappingRow{
		{Code: "born", Value: "1984-03-02", QuestionID: 7, AnswerID: 1},
		{Code: "born", QuestionID: AgeRangeQuestionID, Country: "FR"},
	})
	got := m.Translate("FR", []OwnAnswer{{"born", "1984-03-02"}}, mappingNow)
	if want := []ProviderAnswer{{AgeRangeQuestionID, 19840302}}; !reflect.DeepEqual(got.Answers, want) {
		t.Errorf("FR: %+v, want %+v", got.Answers, want)
	}
	got = m.Translate("DE", []OwnAnswer{{"born", "1984-03-02"}}, mappingNow)
	if want := []ProviderAnswer{{7, 1}}; !reflect.DeepEqual(got.Answers, want) {
		t.Errorf("DE: %+v, want %+v", got.Answers, want)
	}
}

func TestMappingValidator(t *testing.T) {
	lib := NewMappingLibrary([]LibraryEntry{
		{"fr-fr", 43, 0}, {"fr-fr", 43, 1}, {"fr-fr", 43, 2},
		{"fr-fr", 97, 0}, {"fr-fr", 97, 70},
		{"en-gb", 43, 0}, {"en-gb", 43, 1}, {"en-gb", 43, 2},
		{"en-gb", 96, 0}, {"en-gb", 96, 10},
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
		{"a general row known in one locale only", [5]string{"region", "NW", "96", "10", ""}, MappingRow{Code: "region", Value: "NW", QuestionID: 96, AnswerID: 10}, ""},
		{"unknown ids refused: a question not in the country's locales", [5]string{"region", "NW", "96", "10", "FR"}, MappingRow{}, "question 96 is not in the library of FR's locales (fr-fr)"},
		{"unknown ids refused: an answer not of its question", [5]string{"gender", "F", "43", "7", "FR"}, MappingRow{}, "answer 7 is not an answer of question 43 in the library of FR's locales (fr-fr)"},
		{"unknown ids refused: a question of no locale", [5]string{"income", "hi", "42", "1", ""}, MappingRow{}, "question 42 is not in the library of any locale"},
		{"unknown ids refused: a country without locales", [5]string{"gender", "F", "43", "2", "DE"}, MappingRow{}, "the library has no locale of DE"},
		{"empty code", [5]string{"", "F", "43", "2", ""}, MappingRow{}, "code is empty"},
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
	lib := NewMappingLibrary([]LibraryEntry{{"fr-fr", 43, 0}, {"fr-fr", 43, 1}, {"fr-fr", 43, 2}})
	cases := []struct {
		name   string
		lines  [][5]string
		reason string // of the last line
	}{
		{"a duplicate row", [][5]string{{"gender", "F", "43", "2", ""}, {"gender", " F", "43", "2", ""}}, "the same row as line 2"},
		{"several rows for one value are fine", [][5]string{{"gender", "F", "43", "2", ""}, {"gender", "F", "43", "1", ""}}, ""},
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
