package rules

import (
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
