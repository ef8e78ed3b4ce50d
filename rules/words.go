package rules

import (
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// QuestionText is a library question in the words of its locale: its
// translation, else its text; "" when it has neither. The profiling
// ranking, the mapping and the quota conditions of a subsample's page all
// read a question through it.
func QuestionText(q domain.Question) string {
	if t := strings.TrimSpace(q.Translation); t != "" {
		return t
	}
	return strings.TrimSpace(q.Text)
}

// AnswerText is a library answer in the words of its locale: its
// translation, else its text; "" when it has neither.
func AnswerText(a domain.Answer) string {
	if t := strings.TrimSpace(a.Translation); t != "" {
		return t
	}
	return strings.TrimSpace(a.Text)
}

// TimeLayout is how the dashboard writes an instant for a coordinator:
// "22 Nov 2026 14:05 UTC". Pages write it in their time zone
// (views.Page.Timestamp); a sentence decided here, kept and shown
// anywhere, in UTC (FormatTime).
const TimeLayout = "2 Jan 2006 15:04 MST"

// FormatTime writes t in a sentence, in UTC: "22 Nov 2026 14:05 UTC".
func FormatTime(t time.Time) string {
	return t.UTC().Format(TimeLayout)
}

// QuestionLabel names a library question for a coordinator: its name with
// its words in the locale in brackets ("GENDER (Are you...?)"), the one
// of them it has, or "" when it has neither.
func QuestionLabel(q domain.Question) string {
	name, text := strings.TrimSpace(q.Name), QuestionText(q)
	switch {
	case name == "":
		return text
	case text == "" || strings.EqualFold(text, name):
		return name
	}
	return name + " (" + text + ")"
}

// AnswerLabel names a library answer for a coordinator: its words in the
// locale (AnswerText), else its name; "" when it has neither.
func AnswerLabel(a domain.Answer) string {
	if s := AnswerText(a); s != "" {
		return s
	}
	return strings.TrimSpace(a.Name)
}

// QuotaWords are the words of one locale's question library that the
// sentences of a quota verdict name questions and answers by
// (QuotaCells.Explain): questions by id, answers by question and answer
// id. What they lack is named by its id; a nil *QuotaWords names all so.
type QuotaWords struct {
	Questions map[int64]domain.Question
	Answers   map[int64]map[int64]domain.Answer
}

// question is the label of question id, "" when w does not know it.
func (w *QuotaWords) question(id int64) string {
	if w == nil {
		return ""
	}
	q, ok := w.Questions[id]
	if !ok {
		return ""
	}
	return QuestionLabel(q)
}

// answer is the label of answer a of question q, "answer a" when w does
// not know it.
func (w *QuotaWords) answer(q, a int64) string {
	if w != nil {
		if s := AnswerLabel(w.Answers[q][a]); s != "" {
			return s
		}
	}
	return "answer " + strconv.FormatInt(a, 10)
}
