package rules

import (
	"strings"

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
