package store

import (
	"fmt"
	"strings"

	"fieldboard/rules/domain"
)

// parseProfileFields validates the fields of one record, in ProfileHeader's
// order; latest is the latest birth date accepted (yyyymmdd). It returns
// the answer and the panelist, or the reasons the record is bad.
func parseProfileFields(f *[3]string, latest int32) (profileAnswer, string, string) {
	var a profileAnswer
	var reasons []string
	fail := func(format string, args ...any) { reasons = append(reasons, fmt.Sprintf(format, args...)) }

	panelistID, err := domain.ParsePanelistID(f[0])
	if err != nil {
		fail("panelistId %v", err)
	}
	var ok bool
	if a.question, ok = parseID(f[1], domain.AgeRangeQuestionID); !ok || a.question == 0 {
		fail("questionId must be -1 (the age question) or a positive integer, not %s", domain.QuoteField(f[1]))
		ok = false
	}
	switch {
	case !ok:
		// The value cannot be judged without its question.
	case a.question == domain.AgeRangeQuestionID:
		birth, ok := domain.ParseBirthDate(strings.TrimSpace(f[2]))
		switch {
		case !ok:
			fail("value must be a birth date like 1985-03-17 for question -1 (agerange), not %s", domain.QuoteField(f[2]))
		case birth < domain.MinBirthDate:
			fail("birth date %s is before 1900-01-01", domain.FormatBirthDate(birth))
		case birth > latest:
			fail("birth date %s is in the future", domain.FormatBirthDate(birth))
		}
		a.answer = int64(birth)
	default:
		if a.answer, ok = parseID(f[2], 1); !ok {
			fail("value must be an answer id (a positive integer) for question %d, not %s", a.question, domain.QuoteField(f[2]))
		}
	}
	if reasons != nil {
		return profileAnswer{}, "", strings.Join(reasons, "; ")
	}
	return a, panelistID, ""
}

// jsonProfileRecord is one element of a JSON profile file.
type jsonProfileRecord struct {
	PanelistID jsonScalar `json:"panelistId"`
	QuestionID jsonScalar `json:"questionId"`
	Value      jsonScalar `json:"value"`
}

// texts makes jsonProfileRecord a jsonRecord.
func (e *jsonProfileRecord) texts(record []string) string {
	return jsonTexts(record, profileFields[:], e.PanelistID, e.QuestionID, e.Value)
}
