package checks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// MappingReport is the supplier's mapping from its own profile codes to
// the provider's ids, in the library's words, and the codes of its
// profiles that no mapping row covers.
type MappingReport struct {
	Codes    []MappingCode
	Unmapped []store.UnmappedCode
	// Library says whether a question library is stored: a mapping is
	// checked against it, so it cannot be imported before.
	Library bool
}

// MappingCode is one supplier question code and the rows that map it.
type MappingCode struct {
	Code string
	Rows []MappingTarget
}

// MappingTarget is one mapping row in the library's words: the text of
// its question and answer in Locale ("" when the library holds neither).
// Country is "" for a row of every country; Age marks the age question,
// whose values are birth dates.
type MappingTarget struct {
	Value, Country   string
	QuestionID       int64
	AnswerID         int64
	Question, Answer string
	Locale           string
	Age              bool
}

// Mapping reads the stored mapping, each row's question and answer in
// the words of a locale of the library (the country's default locale,
// else another of its locales; for a general row, the first locale whose
// library has the question), and the unmapped codes.
func (s *Service) Mapping(ctx context.Context) (MappingReport, error) {
	var rep MappingReport
	rows, err := s.Store.ProfileMapping(ctx)
	if err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
	}
	if rep.Unmapped, err = s.Store.UnmappedCodes(ctx); err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
	}
	fetched, err := s.Store.LibraryLocales(ctx)
	if err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
	}
	var stored []string // locales with a library, in order
	for locale, at := range fetched {
		if !at.IsZero() {
			stored = append(stored, locale)
		}
	}
	slices.Sort(stored)
	rep.Library = len(stored) > 0
	if len(rows) == 0 {
		return rep, nil
	}
	locales, err := s.Store.Locales(ctx)
	if err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
	}
	defaults := map[string]string{}
	for _, l := range locales {
		if l.CountryDefault {
			defaults[domain.LocaleCountry(l.Locale)] = l.Locale
		}
	}
	var questionIDs []int64
	for _, r := range rows {
		if r.QuestionID != domain.AgeRangeQuestionID && !slices.Contains(questionIDs, r.QuestionID) {
			questionIDs = append(questionIDs, r.QuestionID)
		}
	}
	type words struct {
		questions map[int64]domain.Question
		answers   map[int64]map[int64]domain.Answer
	}
	library := map[string]words{}
	for _, locale := range stored {
		qs, as, err := s.Store.Library(ctx, locale, questionIDs)
		if err != nil {
			return rep, fmt.Errorf("mapping: %w", err)
		}
		library[locale] = words{qs, as}
	}
	// candidates are the locales a row is read in, best first.
	candidates := func(country string) []string {
		if country == "" {
			return stored
		}
		var out []string
		if d := defaults[country]; d != "" && slices.Contains(stored, d) {
			out = append(out, d)
		}
		for _, l := range stored {
			if domain.LocaleCountry(l) == country && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
		return out
	}
	for _, r := range rows {
		t := MappingTarget{Value: r.Value, Country: r.Country, QuestionID: r.QuestionID, AnswerID: r.AnswerID,
			Age: r.QuestionID == domain.AgeRangeQuestionID}
		for _, locale := range candidates(r.Country) {
			q, ok := library[locale].questions[r.QuestionID]
			if !ok {
				continue
			}
			t.Locale, t.Question = locale, questionText(q)
			t.Answer = answerText(library[locale].answers[r.QuestionID][r.AnswerID])
			break
		}
		if n := len(rep.Codes); n == 0 || rep.Codes[n-1].Code != r.Code {
			rep.Codes = append(rep.Codes, MappingCode{Code: r.Code})
		}
		last := &rep.Codes[len(rep.Codes)-1]
		last.Rows = append(last.Rows, t)
	}
	return rep, nil
}

// profilingCodes names the supplier's own code of each question in each
// country, for the ranking: the codes of the mapping rows of that country
// and of the general rows that reach the question, sorted and apart by
// spaces; "" when none does.
func (s *Service) profilingCodes(ctx context.Context) (rules.ProfilingCodes, error) {
	rows, err := s.Store.ProfileMapping(ctx)
	if err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	type key struct {
		question int64
		country  string
	}
	codes := map[key][]string{}
	for _, r := range rows {
		k := key{r.QuestionID, r.Country}
		if !slices.Contains(codes[k], r.Code) {
			codes[k] = append(codes[k], r.Code)
		}
	}
	return func(questionID int64, country string) string {
		list := slices.Concat(codes[key{questionID, country}], codes[key{questionID, ""}])
		slices.Sort(list)
		return strings.Join(slices.Compact(list), " ")
	}, nil
}

// answerText is a library answer in words: its translation in the
// locale, else its text.
func answerText(a domain.Answer) string {
	if t := strings.TrimSpace(a.Translation); t != "" {
		return t
	}
	return strings.TrimSpace(a.Text)
}
