package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// keepTopics records what the live subsamples just written are about
// (research type, categories), keeping what earlier snapshots saw of the
// others: history records name subsamples long closed.
func keepTopics(ctx context.Context, tx *sqlx.Tx, seenAt time.Time) error {
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO subsample_topics (subsample_id, research_type_id, last_seen_at)
			SELECT subsample_id, COALESCE(research_type_id, 0), ? FROM live_subsamples WHERE true
			ON CONFLICT (subsample_id) DO UPDATE SET research_type_id = excluded.research_type_id, last_seen_at = excluded.last_seen_at`, []any{seenAt}},
		{`DELETE FROM subsample_categories WHERE subsample_id IN (SELECT subsample_id FROM live_subsamples)`, nil},
		{`INSERT INTO subsample_categories (subsample_id, category_id)
			SELECT DISTINCT subsample_id, category_id FROM live_categories WHERE category_id != 0`, nil},
	} {
		if _, err := tx.ExecContext(ctx, stmt.sql, stmt.args...); err != nil {
			return fmt.Errorf("subsample topics: %w", err)
		}
	}
	return nil
}

// SubsampleTopics returns what every subsample any snapshot listed as live
// was about: its research type and its specific categories.
func (s *Store) SubsampleTopics(ctx context.Context) (domain.SubsampleTopics, error) {
	var rows []struct {
		SubsampleID    int64  `db:"subsample_id"`
		ResearchTypeID int64  `db:"research_type_id"`
		CategoryID     *int64 `db:"category_id"`
	}
	err := s.reader.SelectContext(ctx, &rows, `
		SELECT t.subsample_id, t.research_type_id, c.category_id
		FROM subsample_topics t LEFT JOIN subsample_categories c ON c.subsample_id = t.subsample_id
		ORDER BY t.subsample_id, c.category_id`)
	if err != nil {
		return nil, fmt.Errorf("subsample topics: %w", err)
	}
	out := make(domain.SubsampleTopics, len(rows))
	for _, r := range rows {
		t := out[r.SubsampleID]
		t.ResearchTypeID = r.ResearchTypeID
		if r.CategoryID != nil {
			t.CategoryIDs = append(t.CategoryIDs, *r.CategoryID)
		}
		out[r.SubsampleID] = t
	}
	return out, nil
}
