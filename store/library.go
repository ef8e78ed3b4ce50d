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
// transaction: each locale that was read replaces its earlier library,
// its rows deleted and its new ones written as a snapshot's replaced
// tables are (newFreshRows): batchRows to a statement on SQLite, one
// COPY per locale and table on PostgreSQL. A library is about 60,000
// rows, and the refresh adds the time of their write to its requests'
// in full, as the library is written after its last answer is read. A
// question listed twice in a locale, or an answer twice in a question,
// is written once, as its last listing says (a COPY may not write a key
// twice, nor one statement).
func (s *Store) SaveLibrary(ctx context.Context, run Run, libs []LocaleLibrary) error {
	err := s.writeConnTx(ctx, func(conn *sqlx.Conn, tx *sqlx.Tx) error {
		// Library writes take turns across instances: each replaces the
		// rows of its locales (newFreshRows).
		if err := s.dialect.serialize(ctx, tx, "library"); err != nil {
			return err
		}
		runID, err := insertRun(ctx, tx, run, true, "", "")
		if err != nil {
			return err
		}
		insQuestion := newFreshRows(s.dialect, conn, tx, "questions", `locale, question_id, position, type, name, text, translation`,
			`(?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (locale, question_id) DO UPDATE SET position = excluded.position, type = excluded.type,
				name = excluded.name, text = excluded.text, translation = excluded.translation`, 0)
		insAnswer := newFreshRows(s.dialect, conn, tx, "answers", `locale, question_id, answer_id, position, type, name, text, translation, is_exclusive`,
			`(?, ?, ?, ?, ?, ?, ?, ?, ?)`, `ON CONFLICT (locale, question_id, answer_id) DO UPDATE SET position = excluded.position, type = excluded.type,
				name = excluded.name, text = excluded.text, translation = excluded.translation, is_exclusive = excluded.is_exclusive`, 0)
		defer closeInserters(insQuestion, insAnswer)
		upsertFetch, err := tx.PreparexContext(ctx, `INSERT INTO library_fetches (locale, fetched_at, ok, error) VALUES (?, ?, ?, ?)
			ON CONFLICT (locale) DO UPDATE SET ok = excluded.ok, error = excluded.error,
				fetched_at = CASE WHEN excluded.ok THEN excluded.fetched_at ELSE library_fetches.fetched_at END`)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer upsertFetch.Close()
		for _, lib := range libs {
			if _, err := upsertFetch.ExecContext(ctx, lib.Locale, lib.FetchedAt, lib.Err == nil, errText(lib.Err)); err != nil {
				return fmt.Errorf("library of %s: %w", lib.Locale, err)
			}
			if lib.Err != nil {
				continue
			}
			// The rows of the locale go before its new ones are written.
			if err := flushAll(ctx, insQuestion, insAnswer); err != nil {
				return fmt.Errorf("library: %w", err)
			}
			for _, table := range []string{"questions", "answers"} {
				if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE locale = ?`, lib.Locale); err != nil {
					return fmt.Errorf("library of %s: %w", lib.Locale, err)
				}
			}
			lastQuestion := lastListings(lib.Questions, func(q domain.Question) int64 { return q.ID })
			for i, q := range lib.Questions {
				if lastQuestion[q.ID] != i {
					continue
				}
				if err := insQuestion.add(ctx, lib.Locale, q.ID, i, q.Type, q.Name, q.Text, q.Translation); err != nil {
					return fmt.Errorf("library of %s: %w", lib.Locale, err)
				}
				answers := lib.Answers[q.ID]
				lastAnswer := lastListings(answers, func(a domain.Answer) int64 { return a.ID })
				for j, a := range answers {
					if lastAnswer[a.ID] != j {
						continue
					}
					if err := insAnswer.add(ctx, lib.Locale, q.ID, a.ID, j, a.Type, a.Name, a.Text, a.Translation, a.IsExclusive); err != nil {
						return fmt.Errorf("library of %s: %w", lib.Locale, err)
					}
				}
			}
		}
		if err := flushAll(ctx, insQuestion, insAnswer); err != nil {
			return fmt.Errorf("library: %w", err)
		}
		return markCurrent(ctx, tx, run.Dataset, runID, run.FinishedAt)
	})
	if err != nil {
		return fmt.Errorf("save question library: %w", err)
	}
	return nil
}

// lastListings gives, for each id of list, the place of its last listing.
func lastListings[T any](list []T, id func(T) int64) map[int64]int {
	last := make(map[int64]int, len(list))
	for i, v := range list {
		last[id(v)] = i
	}
	return last
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
