package checks_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestMappingReport: the stored mapping reads one group per code, country
// and question, in the country's default locale's words (a row of every
// country in an English locale's), the unmapped answers grouped by code
// and country, the most carried first; and the ranking's code of a
// question in a country is every code reaching it there or everywhere.
func TestMappingReport(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	run := store.Run{StartedAt: at, FinishedAt: at.Add(time.Second)}
	ref := run
	ref.Dataset = store.DatasetReference
	if err := st.SaveReference(ctx, store.Reference{Run: ref, Locales: []domain.Locale{
		{ID: 1, Locale: "fr-fr", CountryCode: "FR", CountryDefault: true}, {ID: 2, Locale: "en-gb", CountryCode: "GB", CountryDefault: true}}}); err != nil {
		t.Fatal(err)
	}
	lib := run
	lib.Dataset = store.DatasetLibrary
	gender := func(text, translation string) domain.Question {
		return domain.Question{ID: 43, Type: "Single Punch", Name: "GENDER", Text: text, Translation: translation}
	}
	if err := st.SaveLibrary(ctx, lib, []store.LocaleLibrary{
		{Locale: "fr-fr", FetchedAt: at, Questions: []domain.Question{gender("Gender?", "Vous êtes ?"), {ID: 97, Type: "Single Punch", Name: "REGION_FR", Text: "Region?", Translation: "Région ?"}},
			Answers: map[int64][]domain.Answer{43: {{ID: 1, Text: "Male", Translation: "Homme"}, {ID: 2, Text: "Female", Translation: "Femme"}},
				97: {{ID: 70, Text: "North West", Translation: "Nord-Ouest"}}}},
		{Locale: "en-gb", FetchedAt: at, Questions: []domain.Question{gender("Gender?", "Are you...?")},
			Answers: map[int64][]domain.Answer{43: {{ID: 1, Text: "Male"}, {ID: 2, Text: "Female"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanelCSV(ctx, strings.NewReader("panelistId,country,locale\nP1,FR,fr-fr\nP2,FR,fr-fr\nP3,GB,en-gb\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportMappingCSV(ctx, strings.NewReader(store.MappingHeader+"\nsex,M,43,1,\nsex,F,43,2,\nreg,NW,97,70,FR\ndob,,-1,,\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportOwnProfilesCSV(ctx, strings.NewReader(store.OwnProfileHeader+
		"\nP1,sex,F\nP1,reg,SE\nP2,reg,SE\nP2,reg,NE\nP3,reg,NW\nP4,sex,X\n")); err != nil {
		t.Fatal(err)
	}
	s := &checks.Service{Store: st, Now: func() time.Time { return at }}
	rep, err := s.Mapping(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []checks.MappingCode{
		{Code: "dob", Groups: []checks.MappingGroup{{QuestionID: -1, Age: true}}},
		{Code: "reg", Groups: []checks.MappingGroup{{Country: "FR", QuestionID: 97, Question: "Région ?", Locale: "fr-fr",
			Answers: []checks.MappingAnswer{{Value: "NW", AnswerID: 70, Answer: "Nord-Ouest"}}}}},
		{Code: "sex", Groups: []checks.MappingGroup{{QuestionID: 43, Question: "Are you...?", Locale: "en-gb",
			Answers: []checks.MappingAnswer{{Value: "F", AnswerID: 2, Answer: "Female"}, {Value: "M", AnswerID: 1, Answer: "Male"}}}}},
	}
	if !rep.Library || !reflect.DeepEqual(rep.Codes, want) {
		t.Errorf("mapping:\n%+v\nwant\n%+v", rep.Codes, want)
	}
	wantUnmapped := []checks.UnmappedGroup{
		{Code: "reg", Country: "FR", Values: []store.UnmappedCode{{Code: "reg", Value: "SE", Country: "FR", Panelists: 2}, {Code: "reg", Value: "NE", Country: "FR", Panelists: 1}}, Answers: 3},
		{Code: "reg", Country: "GB", Values: []store.UnmappedCode{{Code: "reg", Value: "NW", Country: "GB", Panelists: 1}}, Answers: 1},
		{Code: "sex", Country: "", Values: []store.UnmappedCode{{Code: "sex", Value: "X", Panelists: 1}}, Answers: 1},
	}
	if !reflect.DeepEqual(rep.Unmapped, wantUnmapped) {
		t.Errorf("unmapped:\n%+v\nwant\n%+v", rep.Unmapped, wantUnmapped)
	}
	codes, err := checks.ProfilingCodesOf(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		question int64
		country  string
		want     string
	}{{43, "FR", "sex"}, {97, "FR", "reg"}, {97, "GB", ""}, {-1, "GB", "dob"}, {14785, "FR", ""}} {
		if got := codes(tt.question, tt.country); got != tt.want {
			t.Errorf("code of %d in %s = %q, want %q", tt.question, tt.country, got, tt.want)
		}
	}
}

// TestMappingReadsTheRankingsLocale: the mapping reads a country's
// question in the default locale of the decided snapshot, the one the
// ranking reads it in, so /profiling names it alike in both, however the
// provider's locales list writes it (es-US for the library's es-us).
func TestMappingReadsTheRankingsLocale(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := checkstest.ReadAt.Add(-time.Hour)
	ref := store.Run{Dataset: store.DatasetReference, StartedAt: at, FinishedAt: at.Add(time.Second)}
	if err := st.SaveReference(ctx, store.Reference{Run: ref, Locales: []domain.Locale{
		{ID: 1, Locale: "en-us", CountryCode: "US"}, {ID: 2, Locale: "es-US", CountryCode: "US", CountryDefault: true}}}); err != nil {
		t.Fatal(err)
	}
	lib := store.Run{Dataset: store.DatasetLibrary, StartedAt: at, FinishedAt: at.Add(time.Second)}
	gender := func(text string) domain.Question {
		return domain.Question{ID: checkstest.GenderQuestion, Type: "Single Punch", Name: "GENDER", Text: text}
	}
	answers := map[int64][]domain.Answer{checkstest.GenderQuestion: {{ID: 1, Text: "Male"}, {ID: 2, Text: "Female"}}}
	if err := st.SaveLibrary(ctx, lib, []store.LocaleLibrary{
		{Locale: "en-us", FetchedAt: at, Questions: []domain.Question{gender("Are you...?")}, Answers: answers},
		{Locale: "es-us", FetchedAt: at, Questions: []domain.Question{gender("¿Es usted...?")}, Answers: answers},
	}); err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st)
	if _, err := st.ImportMappingCSV(ctx, strings.NewReader(store.MappingHeader+"\nsex,M,43,1,US\n")); err != nil {
		t.Fatal(err)
	}
	now := checkstest.ReadAt.Add(time.Minute)
	s := &checks.Service{Store: st, Now: func() time.Time { return now }, StaleAfter: checkstest.StaleAfter}
	rep, err := s.Profiling(ctx)
	if err != nil || len(rep.Questions) != 1 || rep.Questions[0].Question != "¿Es usted...?" {
		t.Fatalf("ranking: %+v, %v; want question 43 in es-us's words", rep.Questions, err)
	}
	m, err := s.Mapping(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Codes) != 1 || len(m.Codes[0].Groups) != 1 {
		t.Fatalf("mapping: %+v", m.Codes)
	}
	if g := m.Codes[0].Groups[0]; g.Locale != "es-us" || g.Question != rep.Questions[0].Question {
		t.Errorf("the mapping reads question 43 in %s (%q), the ranking in es-us (%q)", g.Locale, g.Question, rep.Questions[0].Question)
	}
}
