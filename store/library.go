package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// LocaleLibrary is the question library of one locale as one refresh read
// it. When Err is set the locale's earlier library is kept and the failure
// recorded.
type LocaleLibrary struct {
	Locale    string
	FetchedAt time.Time
	Questions []domain.Question
	Answers   map[int64][]domain.Answer // by question id
	Err       error
}

// SaveLibrary writes the libraries of the locales one refresh read, in one
// transaction: each locale that was read replaces its earlier library.
func (s *Store) SaveLibrary(ctx context.Context, run Run, libs []LocaleLibrary) error {
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		runID, err := insertRun(ctx, tx, run, true, "", "")
		if err != nil {
			return err
		}
		stmts, err := prepareAll(ctx, tx,
			`INSERT INTO questions (locale, question_id, position, type, name, text, translation)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (locale, question_id) DO UPDATE SET position = excluded.position, type = excluded.type,
				name = excluded.name, text = excluded.text, translation = excluded.translation`,
			`INSERT INTO answers (locale, question_id, answer_id, position, type, name, text, translation, is_exclusive)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (locale, question_id, answer_id) DO UPDATE SET position = excluded.position, type = excluded.type,
				name = excluded.name, text = excluded.text, translation = excluded.translation, is_exclusive = excluded.is_exclusive`,
			`INSERT INTO library_fetches (locale, fetched_at, ok, error) VALUES (?, ?, ?, ?)
			ON CONFLICT (locale) DO UPDATE SET ok = excluded.ok, error = excluded.error,
				fetched_at = CASE WHEN excluded.ok THEN excluded.fetched_at ELSE library_fetches.fetched_at END`,
		)
		if err != nil {
			return err
		}
		defer closeAll(stmts)
		insQuestion, insAnswer, upsertFetch := stmts[0], stmts[1], stmts[2]
		for _, lib := range libs {
			if _, err := upsertFetch.ExecContext(ctx, lib.Locale, lib.FetchedAt, lib.Err == nil, errText(lib.Err)); err != nil {
				return fmt.Errorf("library of %s: %w", lib.Locale, err)
			}
			if lib.Err != nil {
				continue
			}
			for _, table := range []string{"questions", "answers"} {
				if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE locale = ?`, lib.Locale); err != nil {
					return fmt.Errorf("library of %s: %w", lib.Locale, err)
				}
			}
			for i, q := range lib.Questions {
				if _, err := insQuestion.ExecContext(ctx, lib.Locale, q.ID, i, q.Type, q.Name, q.Text, q.Translation); err != nil {
					return fmt.Errorf("question %d of %s: %w", q.ID, lib.Locale, err)
				}
				for j, a := range lib.Answers[q.ID] {
					if _, err := insAnswer.ExecContext(ctx, lib.Locale, q.ID, a.ID, j, a.Type, a.Name, a.Text, a.Translation, a.IsExclusive); err != nil {
						return fmt.Errorf("answer %d of question %d of %s: %w", a.ID, q.ID, lib.Locale, err)
					}
				}
			}
		}
		return markCurrent(ctx, tx, run.Dataset, runID, run.FinishedAt)
	})
	if err != nil {
		return fmt.Errorf("save question library: %w", err)
	}
	return nil
}

// Questions returns the standard questions of a locale in the provider's order.
func (s *Store) Questions(ctx context.Context, locale string) ([]domain.Question, error) {
	var out []domain.Question
	err := s.reader.SelectContext(ctx, &out, `
		SELECT question_id AS id, type, name, text, translation FROM questions WHERE locale = ? ORDER BY position`, locale)
	if err != nil {
		return nil, fmt.Errorf("questions of %s: %w", locale, err)
	}
	return out, nil
}

// Answers returns the answers of one question of a locale's library.
func (s *Store) Answers(ctx context.Context, locale string, questionID int64) ([]domain.Answer, error) {
	var out []domain.Answer
	err := s.reader.SelectContext(ctx, &out, `
		SELECT answer_id AS id, type, name, text, translation, is_exclusive AS isexclusive
		FROM answers WHERE locale = ? AND question_id = ? ORDER BY position`, locale, questionID)
	if err != nil {
		return nil, fmt.Errorf("answers of question %d of %s: %w", questionID, locale, err)
	}
	return out, nil
}

// LibraryLocales returns the locales whose library was asked for at least
// once, whatever the outcome, with when it was last read successfully (the
// zero time for one never read). The refresher asks for a locale not in
// this list at the next refresh, and for every locale when the library is
// due.
func (s *Store) LibraryLocales(ctx context.Context) (map[string]time.Time, error) {
	var rows []struct {
		Locale    string    `db:"locale"`
		FetchedAt time.Time `db:"fetched_at"`
		Read      bool      `db:"read"`
	}
	if err := s.reader.SelectContext(ctx, &rows, `
		SELECT locale, fetched_at, ok OR locale IN (SELECT locale FROM questions) AS read FROM library_fetches`); err != nil {
		return nil, fmt.Errorf("library locales: %w", err)
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		if !r.Read {
			r.FetchedAt = time.Time{}
		}
		out[r.Locale] = r.FetchedAt
	}
	return out, nil
}
