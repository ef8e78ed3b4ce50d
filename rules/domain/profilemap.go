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
// in doubt it does not translate: an own answer no row covers for the
// panelist's country, a birth date that is not one, answers that disagree
// with each other, or a question the panelist has answers to in the
// provider's ids, is returned untranslated, never guessed.
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
	// UnknownInCountry: rows cover the (code, value), but none of the
	// answers they reach is known in the library of the panelist's
	// country's locales (a general row checked against another country's
	// library), where the same id may mean something else.
	UnknownInCountry = "no answer known in the panelist's country"
	// NotABirthDate: the code is mapped to the age question but the value
	// is not a birth date yyyy-mm-dd from 1900-01-01 to today.
	NotABirthDate = "not a birth date"
	// OtherBirthDate: the panelist has two birth dates; neither is sent.
	OtherBirthDate = "another birth date"
	// Disagreeing: the panelist's own answers reach different answers of a
	// question that is not Multiple Punch; none of them is sent.
	Disagreeing = "answers that disagree"
	// ProviderAnswered: the panelist has answers imported in the provider's
	// ids to the question (a birth date, for the age question): those win,
	// and a translation never adds to them.
	ProviderAnswered = "answered in the provider's ids"
)

// Untranslated is an own answer the mapping did not translate, and why
// (one of the reasons above).
type Untranslated struct {
	OwnAnswer
	Reason string
}

// Covered reports whether a mapping row covers the own answer for the
// panelist's country, which was not applied for another reason (a birth
// date that is not one, answers that disagree, answers in the provider's
// ids), rather than none (UnmappedAnswer, UnknownInCountry): what is not
// covered is what the supplier has to map.
func (u Untranslated) Covered() bool {
	return u.Reason != UnmappedAnswer && u.Reason != UnknownInCountry
}

// Translation is one panelist's own answers in the provider's ids.
type Translation struct {
	// Answers are ascending by question and answer, each once; the age
	// question's, when there is one, comes first.
	Answers      []ProviderAnswer
	Untranslated []Untranslated // in the order the answers were given
}

// ProfileMapping is a compiled mapping: what each (code, value) reaches,
// per country ("" for the general rows), and the library that says which
// answers a country knows.
type ProfileMapping struct {
	values map[mappingKey][]ProviderAnswer
	ages   map[mappingKey]bool // value "": the codes of the age question
	lib    MappingLibrary
}

type mappingKey struct{ country, code, value string }

// CompileMapping compiles rows (checked ones: see MappingValidator) for
// Translate, with the library of the translations: an answer a row
// reaches is given only to the panelists of the countries whose locales
// know it.
func CompileMapping(rows []MappingRow, lib MappingLibrary) ProfileMapping {
	m := ProfileMapping{values: map[mappingKey][]ProviderAnswer{}, ages: map[mappingKey]bool{}, lib: lib}
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
// none on file, so only the general rows apply), the answers they have
// imported in the provider's ids, by question (the age question's a birth
// date yyyymmdd), and now (a birth date after today, where the day is
// furthest ahead, is not one).
//
// For each (code, value), the rows of the panelist's country win over the
// general rows: the country's rows for the value, else the country's age
// row for the code, else the general rows for the value, else the general
// age row. Every row of the chosen kind applies: a value may reach several
// provider answers. An answer reaches the panelist only if the library of
// their country's locales knows it (with no country on file, any locale's):
// the same id may mean something else elsewhere; a value none of whose
// answers is known there is not translated, as if no row covered it.
//
// A value of a code mapped to the age question is a birth date yyyy-mm-dd;
// another text is not translated, nor are two different birth dates
// (neither is sent). Likewise different answers of a question that is not
// Multiple Punch, from different codes or values: none is sent. Answers
// imported in the provider's ids win: a question that has some (the birth
// date, for the age question) gets no translated answer.
func (m ProfileMapping) Translate(country string, answers []OwnAnswer, provider map[int64][]int64, now time.Time) Translation {
	var t Translation
	lib := m.lib.of(country)
	held := func(q int64) bool { return len(provider[q]) > 0 }
	latest := LatestBirthDate(now)
	reasons := make([]string, len(answers)) // "" once translated
	pending := make([]bool, len(answers))   // reaches answers still to decide
	type reach struct {
		own    int
		answer ProviderAnswer
	}
	var reaches []reach
	var births []int  // indexes of the valid birth dates
	var dates []int32 // and the dates
	for i, a := range answers {
		targets, age, ok := m.lookUp(country, a)
		switch {
		case !ok:
			reasons[i] = UnmappedAnswer
		case age:
			d, valid := ParseBirthDate(strings.TrimSpace(a.Value))
			switch {
			case !valid || d < MinBirthDate || d > latest:
				reasons[i] = NotABirthDate
			case held(AgeRangeQuestionID):
				reasons[i] = ProviderAnswered
			default:
				births, dates = append(births, i), append(dates, d)
			}
		default:
			reasons[i] = UnknownInCountry
			for _, target := range targets {
				switch {
				case !lib.knows(target):
				case held(target.QuestionID):
					if reasons[i] == UnknownInCountry {
						reasons[i] = ProviderAnswered
					}
				default:
					reaches = append(reaches, reach{i, target})
					pending[i] = true
				}
			}
		}
	}
	if len(births) > 0 {
		if slices.ContainsFunc(dates, func(d int32) bool { return d != dates[0] }) {
			for _, i := range births {
				reasons[i] = OtherBirthDate // two different dates: none is sent
			}
		} else {
			t.Answers = append(t.Answers, ProviderAnswer{AgeRangeQuestionID, int64(dates[0])})
		}
	}
	// A question that is not Multiple Punch and is reached with different
	// answers gets none.
	slices.SortFunc(reaches, func(a, b reach) int {
		if c := cmp.Compare(a.answer.QuestionID, b.answer.QuestionID); c != 0 {
			return c
		}
		return cmp.Compare(a.answer.AnswerID, b.answer.AnswerID)
	})
	for from := 0; from < len(reaches); {
		q := reaches[from].answer.QuestionID
		to := from + 1
		for to < len(reaches) && reaches[to].answer.QuestionID == q {
			to++
		}
		group := reaches[from:to]
		if group[0].answer.AnswerID == group[len(group)-1].answer.AnswerID || lib.isMultiple(q) {
			for _, r := range group {
				t.Answers = append(t.Answers, r.answer)
				reasons[r.own], pending[r.own] = "", false
			}
		}
		from = to
	}
	for i, a := range answers {
		if pending[i] && reasons[i] == UnknownInCountry {
			reasons[i] = Disagreeing
		}
		if reasons[i] != "" {
			t.Untranslated = append(t.Untranslated, Untranslated{a, reasons[i]})
		}
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

// LibraryEntry is one question of a locale's library (AnswerID 0, Type
// the question's type) or one answer of it.
type LibraryEntry struct {
	Locale               string
	QuestionID, AnswerID int64
	Type                 string
}

// MultiplePunch is the type of a library question that takes several
// answers; the others (Single Punch, Text, Regional, Range) take one.
const MultiplePunch = "Multiple Punch"

// MappingLibrary is what a mapping row is checked against, and what says
// which answers a translation may give a panelist: per country, its
// locales and the questions and answers known in them.
type MappingLibrary struct {
	countries map[string]*countryLibrary
	all       *countryLibrary // every locale: for the general rows
}

type countryLibrary struct {
	locales   []string
	questions map[int64]map[int64]bool // question -> its answers
	// multiple: the questions whose type is Multiple Punch in every locale
	// that has them (false: another type in one of them).
	multiple map[int64]bool
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
		return
	}
	multiple, seen := c.multiple[e.QuestionID]
	c.multiple[e.QuestionID] = strings.EqualFold(strings.TrimSpace(e.Type), MultiplePunch) && (multiple || !seen)
}

// knows reports whether the library knows the answer (the age question's
// birth dates always); a nil library knows none.
func (c *countryLibrary) knows(a ProviderAnswer) bool {
	if a.QuestionID == AgeRangeQuestionID {
		return true
	}
	return c != nil && c.questions[a.QuestionID][a.AnswerID]
}

// isMultiple reports whether question q takes several answers: Multiple
// Punch in every locale of the library that has it.
func (c *countryLibrary) isMultiple(q int64) bool { return c != nil && c.multiple[q] }

// NewMappingLibrary groups a library's entries by the country of their
// locale (LocaleCountry: fr-fr is FR's).
func NewMappingLibrary(entries []LibraryEntry) MappingLibrary {
	newCountry := func() *countryLibrary {
		return &countryLibrary{questions: map[int64]map[int64]bool{}, multiple: map[int64]bool{}}
	}
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
func (l MappingLibrary) Empty() bool { return l.all == nil || len(l.all.questions) == 0 }

// of is the library of a country's locales, of every locale for "" (a
// general row, a panelist with no country on file); nil for a country
// without locales.
func (l MappingLibrary) of(country string) *countryLibrary {
	if country == "" {
		return l.all
	}
	return l.countries[country]
}

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
	// reached: the first row (line, answer) of each (code, value, country,
	// question).
	reached map[MappingRow][2]int64
}

// NewMappingValidator checks rows against lib.
func NewMappingValidator(lib MappingLibrary) *MappingValidator {
	return &MappingValidator{lib: lib, seen: map[MappingRow]int{}, ageCode: map[string]int{}, answerCode: map[string]int{},
		reached: map[MappingRow][2]int64{}}
}

// Check reads one line of a mapping file (its fields in the order of the
// header code,value,questionId,answerId,country) and returns its row, or
// the reasons it is bad, joined by "; ". A line is bad when its code is
// empty; its value is empty (it must be, for the age question -1); its
// questionId is not -1 or a positive integer; its answerId is not a
// positive integer (it must be empty for the age question); its country
// is neither empty nor two letters; it repeats an earlier line; its code
// is mapped to the age question and to answers; it maps a value to a
// second answer of a question that is not Multiple Punch (for the same
// country); or when its question, or its answer of that question, is not
// in the library of its country's locales (of any locale, for a general
// row: a translation gives its answer only to the panelists of the
// countries whose locales know it). The age question is always known.
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
		key := MappingRow{Code: row.Code, Value: row.Value, Country: row.Country, QuestionID: row.QuestionID}
		if first, ok := v.reached[key]; !ok {
			v.reached[key] = [2]int64{int64(line), row.AnswerID}
		} else if !v.lib.of(row.Country).isMultiple(row.QuestionID) {
			return MappingRow{}, fmt.Sprintf("value %s of code %s reaches answer %d of question %d on line %d, and answer %d here: question %d is not %s, so a value reaches one answer of it",
				QuoteField(row.Value), QuoteField(row.Code), first[1], row.QuestionID, first[0], row.AnswerID, row.QuestionID, MultiplePunch)
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
