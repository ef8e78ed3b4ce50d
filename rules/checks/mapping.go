package checks

import (
	"cmp"
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
	Unmapped []UnmappedGroup
	// Library says whether a question library is stored: a mapping is
	// checked against it, so it cannot be imported before.
	Library bool
}

// UnmappedGroup is one supplier code's answers that no mapping row covers
// in one country ("" for the panelists with none on file, who get only
// the rows of every country), the most carried first, and how many
// answers they are in all (a panelist with two values of a code counts
// twice).
type UnmappedGroup struct {
	Code, Country string
	Values        []store.UnmappedCode
	Answers       int64
}

// MappingCode is one supplier question code and what its rows reach,
// grouped by country and provider question.
type MappingCode struct {
	Code   string
	Groups []MappingGroup
}

// MappingGroup is the rows of one code for one country ("" for every
// country) that reach one provider question, with the question's text in
// Locale ("" when the library holds none). Age marks the age question,
// whose values are birth dates and which has no answers.
type MappingGroup struct {
	Country          string
	QuestionID       int64
	Question, Locale string
	Age              bool
	Answers          []MappingAnswer
}

// MappingAnswer is one value of the code and the provider answer it
// means, with the answer's text in the group's locale.
type MappingAnswer struct {
	Value    string
	AnswerID int64
	Answer   string
}

// Mapping reads the stored mapping, grouped by code, country and
// question, each question and answer in the words of a locale of the
// library (the country's default locale, the one the ranking reads its
// questions in (defaultLocales), else another of its locales; for a row
// of every country, the first English locale whose library has the
// question, else the first other), and the unmapped codes. It is read
// once per snapshot version (Memo): every import, the mapping's and the
// profiles' included, moves the version on, as does a refresh that stores
// a library.
func (s *Service) Mapping(ctx context.Context) (MappingReport, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return MappingReport{}, err
	}
	return Memo(d, "checks.Mapping", func() (MappingReport, error) { return s.mapping(ctx) })
}

// mapping reads the mapping report (Mapping) afresh.
func (s *Service) mapping(ctx context.Context) (MappingReport, error) {
	var rep MappingReport
	rows, err := s.Store.ProfileMapping(ctx)
	if err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
	}
	unmapped, err := s.Store.UnmappedCodes(ctx)
	if err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
	}
	rep.Unmapped = groupUnmapped(unmapped)
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
	defaults, err := s.defaultLocales(ctx)
	if err != nil {
		return rep, fmt.Errorf("mapping: %w", err)
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
	// candidates are the locales a row is read in, best first: for a row
	// of every country, the English ones first.
	notEnglish := func(locale string) int {
		if strings.HasPrefix(locale, "en-") {
			return 0
		}
		return 1
	}
	english := slices.Clone(stored)
	slices.SortStableFunc(english, func(a, b string) int { return cmp.Compare(notEnglish(a), notEnglish(b)) })
	candidates := func(country string) []string {
		if country == "" {
			return english
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
	type groupKey struct {
		code, country string
		question      int64
	}
	groups := map[groupKey]*MappingGroup{}
	for _, r := range rows {
		if n := len(rep.Codes); n == 0 || rep.Codes[n-1].Code != r.Code {
			rep.Codes = append(rep.Codes, MappingCode{Code: r.Code})
		}
		code := &rep.Codes[len(rep.Codes)-1]
		k := groupKey{r.Code, r.Country, r.QuestionID}
		g := groups[k]
		if g == nil {
			code.Groups = append(code.Groups, MappingGroup{Country: r.Country, QuestionID: r.QuestionID, Age: r.QuestionID == domain.AgeRangeQuestionID})
			g = &code.Groups[len(code.Groups)-1]
			groups[k] = g
			for _, locale := range candidates(r.Country) {
				if q, ok := library[locale].questions[r.QuestionID]; ok {
					g.Locale, g.Question = locale, rules.QuestionText(q)
					break
				}
			}
		}
		if !g.Age {
			g.Answers = append(g.Answers, MappingAnswer{Value: r.Value, AnswerID: r.AnswerID,
				Answer: rules.AnswerText(library[g.Locale].answers[r.QuestionID][r.AnswerID])})
		}
	}
	return rep, nil
}

// defaultLocales are each country's default locale (upper-case country,
// lower-case locale) as the ranking reads its questions in: the decided
// snapshot's (Decisions.defaultLocales), kept with its version; before
// there is a snapshot (version 0), the store's list as it is.
func (s *Service) defaultLocales(ctx context.Context) (map[string]string, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return nil, err
	}
	if d.version != 0 {
		return d.defaultLocales, nil
	}
	locales, err := s.Store.Locales(ctx)
	if err != nil {
		return nil, err
	}
	return defaultLocalesOf(locales), nil
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

// groupUnmapped groups the unmapped answers (most carried first) by code
// and country, the groups with the most answers first, then by code and
// country.
func groupUnmapped(list []store.UnmappedCode) []UnmappedGroup {
	var out []UnmappedGroup
	at := map[[2]string]int{}
	for _, u := range list {
		k := [2]string{u.Code, u.Country}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, UnmappedGroup{Code: u.Code, Country: u.Country})
		}
		out[i].Values = append(out[i].Values, u)
		out[i].Answers += u.Panelists
	}
	slices.SortStableFunc(out, func(a, b UnmappedGroup) int {
		return cmp.Or(cmp.Compare(b.Answers, a.Answers), strings.Compare(a.Code, b.Code), strings.Compare(a.Country, b.Country))
	})
	return out
}
