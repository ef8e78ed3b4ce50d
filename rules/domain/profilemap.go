package domain

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A supplier keeps its panel's profiles in its own codes ("gender"="F")
// and a mapping from them to the provider's question and answer ids. This
// file compiles the mapping, translates one panelist's own answers with
// it, and checks a mapping file's rows against the question library. When
// in doubt it does not translate: an own answer no row covers, or a birth
// date that is not one, is returned untranslated, never guessed.
//
// It is pure, and lives with the domain types rather than in rules because
// the store translates inside its imports' transactions (a mapping
// imported later applies to the profiles imported before, in the same
// commit), and the store imports nothing of Fieldboard but these types.

// OwnAnswer is one answer of a panelist in the supplier's own codes.
type OwnAnswer struct {
	Code, Value string
}

// ProviderAnswer is one answer in the provider's ids: an answer id of a
// library question, or for the age question (AgeRangeQuestionID)
// the birth date as the integer yyyymmdd (19840302).
type ProviderAnswer struct {
	QuestionID, AnswerID int64
}

// Why an own answer was not translated.
const (
	// UnmappedAnswer: no mapping row covers the (code, value) for the
	// panelist's country, nor a general one.
	UnmappedAnswer = "no mapping row"
	// NotABirthDate: the code is mapped to the age question but the value
	// is not a birth date yyyy-mm-dd from 1900-01-01 to today.
	NotABirthDate = "not a birth date"
	// OtherBirthDate: the panelist has two birth dates; neither is sent.
	OtherBirthDate = "another birth date"
)

// Untranslated is an own answer the mapping did not translate, and why
// (UnmappedAnswer, NotABirthDate or OtherBirthDate).
type Untranslated struct {
	OwnAnswer
	Reason string
}

// Translation is one panelist's own answers in the provider's ids.
type Translation struct {
	// Answers are ascending by question and answer, each once; the age
	// question's, when there is one, comes first.
	Answers      []ProviderAnswer
	Untranslated []Untranslated // in the order the answers were given
}

// ProfileMapping is a compiled mapping: what each (code, value) reaches,
// per country ("" for the general rows).
type ProfileMapping struct {
	values map[mappingKey][]ProviderAnswer
	ages   map[mappingKey]bool // value "": the codes of the age question
}

type mappingKey struct{ country, code, value string }

// CompileMapping compiles rows (checked ones: see MappingValidator) for
// Translate.
func CompileMapping(rows []MappingRow) ProfileMapping {
	m := ProfileMapping{values: map[mappingKey][]ProviderAnswer{}, ages: map[mappingKey]bool{}}
	for _, r := range rows {
		if r.QuestionID == AgeRangeQuestionID {
			m.ages[mappingKey{r.Country, r.Code, ""}] = true
			continue
		}
		k := mappingKey{r.Country, r.Code, r.Value}
		m.values[k] = append(m.values[k], ProviderAnswer{r.QuestionID, r.AnswerID})
	}
	return m
}

// Empty reports whether the mapping has no row.
func (m ProfileMapping) Empty() bool { return len(m.values) == 0 && len(m.ages) == 0 }

// Translate translates a panelist's own answers, given their country ("":
// none on file, so only the general rows apply) and now (a birth date
// after today, where the day is furthest ahead, is not one).
//
// For each (code, value), the rows of the panelist's country win over the
// general rows: the country's rows for the value, else the country's age
// row for the code, else the general rows for the value, else the general
// age row. Every row of the chosen kind applies: a value may reach several
// provider answers. A value of a code mapped to the age question is a
// birth date yyyy-mm-dd; another text is not translated, nor are two
// different birth dates (neither is sent).
func (m ProfileMapping) Translate(country string, answers []OwnAnswer, now time.Time) Translation {
	var t Translation
	latest := LatestBirthDate(now)
	birth, birthAt := int64(0), -1
	var births []int // indexes into answers of the valid birth dates
	for i, a := range answers {
		targets, age, ok := m.lookUp(country, a)
		switch {
		case !ok:
			t.Untranslated = append(t.Untranslated, Untranslated{a, UnmappedAnswer})
		case age:
			d, valid := birthDate(a.Value, latest)
			if !valid {
				t.Untranslated = append(t.Untranslated, Untranslated{a, NotABirthDate})
				continue
			}
			births = append(births, i)
			if birthAt < 0 {
				birth, birthAt = d, i
			} else if d != birth {
				birthAt = -2 // two different dates: none is sent
			}
		default:
			t.Answers = append(t.Answers, targets...)
		}
	}
	if birthAt == -2 {
		for _, i := range births {
			t.Untranslated = append(t.Untranslated, Untranslated{answers[i], OtherBirthDate})
		}
	} else if birthAt >= 0 {
		t.Answers = append(t.Answers, ProviderAnswer{AgeRangeQuestionID, birth})
	}
	slices.SortFunc(t.Answers, func(a, b ProviderAnswer) int {
		if c := cmp.Compare(a.QuestionID, b.QuestionID); c != 0 {
			return c
		}
		return cmp.Compare(a.AnswerID, b.AnswerID)
	})
	t.Answers = slices.Compact(t.Answers)
	return t
}

// lookUp finds what (code, value) reaches for country: the provider
// answers, or age when the code is a birth date's.
func (m ProfileMapping) lookUp(country string, a OwnAnswer) (targets []ProviderAnswer, age, ok bool) {
	scopes := []string{country, ""}
	if country == "" {
		scopes = scopes[1:]
	}
	for _, c := range scopes {
		if targets := m.values[mappingKey{c, a.Code, a.Value}]; len(targets) > 0 {
			return targets, false, true
		}
		if m.ages[mappingKey{c, a.Code, ""}] {
			return nil, true, true
		}
	}
	return nil, false, false
}

// birthDate reads a birth date yyyy-mm-dd from 1900-01-01 to latest
// (yyyymmdd) as yyyymmdd.
func birthDate(s string, latest int32) (int64, bool) {
	d, ok := ParseBirthDate(strings.TrimSpace(s))
	return int64(d), ok && d >= MinBirthDate && d <= latest
}

// LibraryEntry is one question of a locale's library (AnswerID 0) or one
// answer of it.
type LibraryEntry struct {
	Locale               string
	QuestionID, AnswerID int64
}

// MappingLibrary is what a mapping row is checked against: per country,
// its locales and the questions and answers known in them.
type MappingLibrary struct {
	countries map[string]*countryLibrary
	all       *countryLibrary // every locale: for the general rows
}

type countryLibrary struct {
	locales   []string
	questions map[int64]map[int64]bool // question -> its answers
}

func (c *countryLibrary) add(e LibraryEntry) {
	if !slices.Contains(c.locales, e.Locale) {
		c.locales = append(c.locales, e.Locale)
	}
	answers := c.questions[e.QuestionID]
	if answers == nil {
		answers = map[int64]bool{}
		c.questions[e.QuestionID] = answers
	}
	if e.AnswerID != 0 {
		answers[e.AnswerID] = true
	}
}

// NewMappingLibrary groups a library's entries by the country of their
// locale (LocaleCountry: fr-fr is FR's).
func NewMappingLibrary(entries []LibraryEntry) MappingLibrary {
	newCountry := func() *countryLibrary { return &countryLibrary{questions: map[int64]map[int64]bool{}} }
	lib := MappingLibrary{countries: map[string]*countryLibrary{}, all: newCountry()}
	for _, e := range entries {
		country := LocaleCountry(e.Locale)
		c := lib.countries[country]
		if c == nil {
			c = newCountry()
			lib.countries[country] = c
		}
		c.add(e)
		lib.all.add(e)
	}
	for _, c := range lib.countries {
		slices.Sort(c.locales)
	}
	slices.Sort(lib.all.locales)
	return lib
}

// Empty reports whether the library has no entry.
func (l MappingLibrary) Empty() bool { return len(l.all.questions) == 0 }

// maxCodeBytes bounds a code or a value of a mapping or an own profile.
const maxCodeBytes = 128

// ParseOwnCode checks a supplier's question or answer code (what names the
// field in the reason: "code", "value"): spaces around dropped, not empty,
// at most 128 bytes of UTF-8 without control characters, as a panelist id.
func ParseOwnCode(what, raw string) (string, string) {
	s, err := parseText(raw, maxCodeBytes)
	if err != nil {
		return "", what + " " + err.Error()
	}
	return s, ""
}

// MappingValidator checks the rows of one mapping file in order: each
// alone against the library, and each against the rows before it
// (duplicates; a code mapped both to the age question and to answers).
type MappingValidator struct {
	lib        MappingLibrary
	seen       map[MappingRow]int // line of each row
	ageCode    map[string]int     // a code's first age row
	answerCode map[string]int     // a code's first answer row
}

// NewMappingValidator checks rows against lib.
func NewMappingValidator(lib MappingLibrary) *MappingValidator {
	return &MappingValidator{lib: lib, seen: map[MappingRow]int{}, ageCode: map[string]int{}, answerCode: map[string]int{}}
}

// Check reads one line of a mapping file (its fields in the order of the
// header code,value,questionId,answerId,country) and returns its row, or
// the reasons it is bad, joined by "; ". A line is bad when its code is
// empty; its value is empty (it must be, for the age question -1); its
// questionId is not -1 or a positive integer; its answerId is not a
// positive integer (it must be empty for the age question); its country
// is neither empty nor two letters; it repeats an earlier line; its code
// is mapped to the age question and to answers; or when its question, or
// its answer of that question, is not in the library of its country's
// locales (of any locale, for a general row). The age question is always
// known.
func (v *MappingValidator) Check(line int, f [5]string) (MappingRow, string) {
	var row MappingRow
	var reasons []string
	fail := func(format string, args ...any) { reasons = append(reasons, fmt.Sprintf(format, args...)) }

	var reason string
	if row.Code, reason = ParseOwnCode("code", f[0]); reason != "" {
		reasons = append(reasons, reason)
	}
	q, err := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64)
	questionOK := err == nil && (q > 0 || q == AgeRangeQuestionID)
	if !questionOK {
		fail("questionId must be -1 (the age question) or a positive integer, not %s", QuoteField(f[2]))
	}
	row.QuestionID = q
	answerOK := true
	switch {
	case !questionOK:
	case q == AgeRangeQuestionID:
		if strings.TrimSpace(f[1]) != "" {
			fail("value must be empty for the age question (-1): the code's values are birth dates yyyy-mm-dd")
		}
		if strings.TrimSpace(f[3]) != "" {
			fail("answerId must be empty for the age question (-1), not %s", QuoteField(f[3]))
		}
	default:
		if row.Value, reason = ParseOwnCode("value", f[1]); reason != "" {
			reasons = append(reasons, reason)
		}
		a, err := strconv.ParseInt(strings.TrimSpace(f[3]), 10, 64)
		if answerOK = err == nil && a > 0; !answerOK {
			fail("answerId must be a positive integer (an answer of question %d), not %s", q, QuoteField(f[3]))
		}
		row.AnswerID = a
	}
	if strings.TrimSpace(f[4]) != "" {
		c, err := ParseCountry(f[4])
		if err != nil {
			fail("country %v", err)
		}
		row.Country = c
	}
	if reasons != nil {
		return MappingRow{}, strings.Join(reasons, "; ")
	}
	if reason := v.known(row); reason != "" {
		return MappingRow{}, reason
	}
	if at, ok := v.seen[row]; ok {
		return MappingRow{}, fmt.Sprintf("the same row as line %d", at)
	}
	if row.QuestionID == AgeRangeQuestionID {
		if at, ok := v.answerCode[row.Code]; ok {
			return MappingRow{}, fmt.Sprintf("code %s is mapped to answers on line %d: a code of the age question (-1) has birth dates for values, no answers", QuoteField(row.Code), at)
		}
		if _, ok := v.ageCode[row.Code]; !ok {
			v.ageCode[row.Code] = line
		}
	} else {
		if at, ok := v.ageCode[row.Code]; ok {
			return MappingRow{}, fmt.Sprintf("code %s is mapped to the age question (-1) on line %d: its values are birth dates, not answers", QuoteField(row.Code), at)
		}
		if _, ok := v.answerCode[row.Code]; !ok {
			v.answerCode[row.Code] = line
		}
	}
	v.seen[row] = line
	return row, ""
}

// known says why row's question or answer is not in the library of its
// country's locales, or "".
func (v *MappingValidator) known(row MappingRow) string {
	if row.QuestionID == AgeRangeQuestionID {
		return ""
	}
	lib, where := v.lib.all, "the library of any locale"
	if row.Country != "" {
		lib = v.lib.countries[row.Country]
		if lib == nil {
			return fmt.Sprintf("question %d is not in the library of %s's locales (the library has no locale of %s)", row.QuestionID, row.Country, row.Country)
		}
		where = fmt.Sprintf("the library of %s's locales (%s)", row.Country, strings.Join(lib.locales, ", "))
	}
	answers, ok := lib.questions[row.QuestionID]
	switch {
	case !ok:
		return fmt.Sprintf("question %d is not in %s", row.QuestionID, where)
	case !answers[row.AnswerID]:
		return fmt.Sprintf("answer %d is not an answer of question %d in %s", row.AnswerID, row.QuestionID, where)
	}
	return ""
}
