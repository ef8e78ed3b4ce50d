package formats

import (
	"strconv"

	"fieldboard/rules/domain"
)

// WriteQuestionsCSV writes the question library's CSV (/library.csv): one
// line per question, each naming the locale it was read in.
func WriteQuestionsCSV(w *Writer, locale string, questions []domain.Question) error {
	if err := w.Write("locale", "id", "type", "name", "text", "translation"); err != nil {
		return err
	}
	for _, q := range questions {
		if err := w.Write(locale, Int(q.ID), q.Type, q.Name, q.Text, q.Translation); err != nil {
			return err
		}
	}
	return nil
}

// WriteAnswersCSV writes the answers of one question of a locale's
// library (/library/{locale}/questions/{id}/answers.csv), each line naming
// the locale and the question so that files of several questions can be
// joined.
func WriteAnswersCSV(w *Writer, locale string, questionID int64, answers []domain.Answer) error {
	if err := w.Write("locale", "questionId", "id", "name", "text", "translation", "exclusive", "nullValue"); err != nil {
		return err
	}
	for _, a := range answers {
		if err := w.Write(locale, Int(questionID), Int(a.ID), a.Name, a.Text, a.Translation,
			strconv.FormatBool(a.IsExclusive), strconv.FormatBool(a.IsNullValue())); err != nil {
			return err
		}
	}
	return nil
}
