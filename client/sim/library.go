package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// Question and answer types as the provider spells them.
const (
	typeRange       = "Range"
	typeSinglePunch = "Single Punch"
	typeMultiPunch  = "Multiple Punch"
	typeRegional    = "Regional"
	typeText        = "Text"

	answerTypeSinglePunch = "singlePunch"
	nullValue             = "NULL VALUE"
)

// Ids of the core profiling questions. They are the same in every locale,
// like every question id of the library; agerange is -1 as the spec says.
const (
	qAgeRange   int64 = -1
	qGender     int64 = 43
	qRegion     int64 = 96
	qEducation  int64 = 633
	qEmployment int64 = 2189
	qChildren   int64 = 7064
	qIncome     int64 = 14785
)

// answerDef is an answer of the library in English; ids are global.
type answerDef struct {
	id        int64
	text      string
	exclusive bool
	nullValue bool // the provider's "NULL VALUE" entry
}

// questionDef is a question of the library in English. Regional questions
// have no answers of their own: their answers are the regions of the
// locale's country.
type questionDef struct {
	id         int64
	typ        string
	name, text string
	phrase     string // the question as asked, translated per locale; text may differ
	answers    []answerDef
}

// library is the provider's question library: one set of questions whose
// ids and answer ids are shared by all locales, translated per locale, with
// the region answers depending on the locale's country. Bodies are encoded
// once, at New, since the library does not change.
type library struct {
	questions []*questionDef
	byID      map[int64]*questionDef
	regions   map[string][]answerDef // region answers by country code

	questionsBody map[string][]byte           // by locale code
	answersBody   map[string]map[int64][]byte // by locale code, question id
}

// coreQuestion is a core profiling question before its answers get ids.
type coreQuestion struct {
	id         int64
	typ        string
	name, text string
	answers    []string
	exclusive  map[string]bool
	nullValue  bool
}

func coreQuestions() []coreQuestion {
	return []coreQuestion{
		{id: qAgeRange, typ: typeRange, name: "agerange", text: "What is your age?"},
		{id: qGender, typ: typeSinglePunch, name: "GENDER", text: "Are you...?", answers: []string{"Male", "Female"}},
		{id: qRegion, typ: typeRegional, name: "REGION", text: "In which region do you live?"},
		{id: qIncome, typ: typeSinglePunch, name: "STANDARD_HHI_INT", text: "What is your total annual household income before taxes?",
			answers:   []string{"Less than 25,000", "25,000 to 49,999", "50,000 to 74,999", "75,000 to 99,999", "100,000 to 149,999", "150,000 or more", "Prefer not to answer"},
			exclusive: map[string]bool{"Prefer not to answer": true}},
		{id: qEducation, typ: typeSinglePunch, name: "STANDARD_EDUCATION", text: "What is the highest level of education you have completed?",
			answers:   []string{"Less than high school", "High school graduate", "Some college", "Bachelor's degree", "Postgraduate degree"},
			nullValue: true},
		{id: qEmployment, typ: typeSinglePunch, name: "STANDARD_EMPLOYMENT", text: "Which of the following best describes your current employment status?",
			answers: []string{"Employed full-time", "Employed part-time", "Self-employed", "Unemployed", "Student", "Retired", "Homemaker"}},
		{id: qChildren, typ: typeMultiPunch, name: "STANDARD_CHILDREN_IN_HH", text: "Please indicate the age of each child under 18 living in your household.",
			answers:   []string{"Child aged 0-5", "Child aged 6-11", "Child aged 12-17", "No children under 18 in household", "Prefer not to answer"},
			exclusive: map[string]bool{"No children under 18 in household": true, "Prefer not to answer": true}},
	}
}

// newLibrary generates the library: the core questions, then filler
// questions up to perLocale (the core questions exist even when perLocale
// is smaller), each non-text filler with answersPer answers plus, on some,
// a NULL VALUE entry; text questions have no answers. It is encoded for
// the locales ls, the ones with a library.
func newLibrary(rng *rand.Rand, cs []*country, ls []*locale, perLocale, answersPer int, formulaNames bool) *library {
	lib := &library{
		byID:    make(map[int64]*questionDef),
		regions: make(map[string][]answerDef, len(cs)),
	}
	nextAnswer := int64(100)
	newAnswer := func(text string, exclusive bool) answerDef {
		nextAnswer += 1 + rng.Int64N(3)
		return answerDef{id: nextAnswer, text: text, exclusive: exclusive}
	}
	nullAnswer := func() answerDef {
		a := newAnswer(nullValue, false)
		a.nullValue = true
		return a
	}

	for _, cq := range coreQuestions() {
		q := &questionDef{id: cq.id, typ: cq.typ, name: cq.name, text: cq.text, phrase: cq.text}
		for _, t := range cq.answers {
			q.answers = append(q.answers, newAnswer(t, cq.exclusive[t]))
		}
		if cq.nullValue {
			q.answers = append(q.answers, nullAnswer())
		}
		lib.add(q)
	}
	for _, c := range cs {
		as := make([]answerDef, 0, len(c.regions))
		for _, r := range c.regions {
			as = append(as, newAnswer(r, false))
		}
		lib.regions[c.Code] = as
	}

	topics, variants := fillerTopics(), questionVariants()
	names := make(map[string]int)
	nextQuestion := int64(20000)
	core := len(lib.questions)
	for i := core; i < perLocale; i++ {
		tp := topics[(i-core)%len(topics)]
		v := pickVariant(rng, variants)
		name := "STANDARD_" + tp.key + "_" + v.key
		if n := names[name]; n > 0 {
			names[name]++
			name = fmt.Sprintf("%s_%d", name, n+1)
		} else {
			names[name] = 1
		}
		nextQuestion += 1 + rng.Int64N(40)
		phrase := fmt.Sprintf(v.text, tp.noun)
		q := &questionDef{id: nextQuestion, typ: v.typ, name: name, text: phrase, phrase: phrase}
		if rng.IntN(8) == 0 {
			q.text = name // the provider's quirk: text equal to the name
		}
		if v.typ != typeText {
			for k := range answersPer - 1 {
				item := "Other"
				if k < len(tp.items) {
					item = tp.items[k]
				} else if k > len(tp.items) {
					item = fmt.Sprintf("Other (%d)", k-len(tp.items)+1)
				}
				q.answers = append(q.answers, newAnswer(item, false))
			}
			if v.typ == typeMultiPunch {
				q.answers = append(q.answers, newAnswer("None of the above", true))
			} else {
				q.answers = append(q.answers, newAnswer("Don't know", false))
			}
			if rng.IntN(6) == 0 {
				q.answers = append(q.answers, nullAnswer())
			}
		}
		lib.add(q)
	}
	lib.encode(rng, ls, formulaNames)
	return lib
}

// pickVariant chooses how a filler question is asked: multiple and single
// punch alike, open text questions rarely.
func pickVariant(rng *rand.Rand, vs []questionVariant) questionVariant {
	for {
		v := vs[rng.IntN(len(vs))]
		if v.typ != typeText || rng.IntN(3) == 0 {
			return v
		}
	}
}

func (lib *library) add(q *questionDef) {
	lib.questions = append(lib.questions, q)
	lib.byID[q.id] = q
}

// answersOf returns the answers of question id as seen in country cc.
func (lib *library) answersOf(id int64, cc string) []answerDef {
	if id == qRegion {
		return lib.regions[cc]
	}
	if q := lib.byID[id]; q != nil {
		return q.answers
	}
	return nil
}

// wireQuestion and wireAnswer are the library's resources as sent.
type wireQuestion struct {
	Type        string `json:"type"`
	Translation string `json:"translation"`
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Text        string `json:"text"`
}

type wireAnswer struct {
	Type        string `json:"type"`
	Translation string `json:"translation"`
	IsExclusive bool   `json:"isExclusive"`
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Text        string `json:"text"`
}

// encode renders the questions and answers of every locale with a library.
// Translations are missing now and then, as they are at the provider.
// With formulaNames, the text of every second question and of every second
// answer begins with a formula (formulaPrefixes), as FormulaNames says.
func (lib *library) encode(rng *rand.Rand, ls []*locale, formulaNames bool) {
	dict := newDictionary()
	lib.questionsBody = make(map[string][]byte, len(ls))
	lib.answersBody = make(map[string]map[int64][]byte, len(ls))
	for _, l := range ls {
		lang := l.language()
		qs := make([]wireQuestion, 0, len(lib.questions))
		bodies := make(map[int64][]byte, len(lib.questions))
		for _, q := range lib.questions {
			tr := dict.translate(q.phrase, lang)
			if rng.IntN(25) == 0 {
				tr = ""
			}
			qs = append(qs, wireQuestion{Type: q.typ, Translation: tr, ID: q.id, Name: q.name, Text: formulaText(formulaNames, len(qs), q.text)})

			defs := lib.answersOf(q.id, l.country.Code)
			as := make([]wireAnswer, 0, len(defs))
			for _, a := range defs {
				tr := dict.translate(a.text, lang)
				if a.nullValue || rng.IntN(40) == 0 {
					tr = ""
				}
				as = append(as, wireAnswer{Type: answerTypeSinglePunch, Translation: tr, IsExclusive: a.exclusive,
					ID: a.id, Name: answerName(a), Text: formulaText(formulaNames, len(as), a.text)})
			}
			bodies[q.id] = mustJSON(as)
		}
		lib.questionsBody[l.Locale] = mustJSON(qs)
		lib.answersBody[l.Locale] = bodies
	}
}

// answerName is the answer's name: its English text, upper-cased for the
// NULL VALUE entry.
func answerName(a answerDef) string {
	if a.nullValue {
		return nullValue
	}
	return a.text
}

// mustJSON encodes v, which is one of the simulator's own wire types and
// cannot fail to encode. Like the provider, it leaves &, < and > unescaped.
func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("sim: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// formulaText is text, after a formula (formulaPrefixes) when on and i,
// its place in its list, is odd: Options.FormulaNames for the library.
func formulaText(on bool, i int, text string) string {
	if !on || i%2 == 0 {
		return text
	}
	return formulaPrefixes[i/2%len(formulaPrefixes)] + text
}
