package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// keepTopics records what the live subsamples are about (research type,
// categories), keeping what earlier snapshots saw of the others: history
// records name subsamples long closed. It writes those of the live
// subsamples whose live details were just written (written, writeLive):
// those of the others are as the last write left them. Their last_seen_at
// is when they were last written, and for a subsample no longer live
// (left) when a snapshot last listed it (lastSeen, the one replaced).
func keepTopics(ctx context.Context, tx *sqlx.Tx, written, left []int64, seenAt time.Time, lastSeen *time.Time) error {
	err := inChunks(written, func(ids []any, in string) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO subsample_topics (subsample_id, research_type_id, last_seen_at)
			SELECT subsample_id, COALESCE(research_type_id, 0), ? FROM live_subsamples WHERE subsample_id IN (`+in+`)
			ON CONFLICT (subsample_id) DO UPDATE SET research_type_id = excluded.research_type_id, last_seen_at = excluded.last_seen_at`,
			append([]any{seenAt}, ids...)...)
		return err
	})
	if err == nil {
		err = deleteOf(ctx, tx, "subsample_categories", written)
	}
	if err == nil {
		err = inChunks(written, func(ids []any, in string) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO subsample_categories (subsample_id, category_id)
				SELECT DISTINCT subsample_id, category_id FROM live_categories
				WHERE category_id != 0 AND subsample_id IN (`+in+`)`, ids...)
			return err
		})
	}
	if err == nil && lastSeen != nil {
		err = inChunks(left, func(ids []any, in string) error {
			_, err := tx.ExecContext(ctx, `UPDATE subsample_topics SET last_seen_at = ? WHERE subsample_id IN (`+in+`)`,
				append([]any{*lastSeen}, ids...)...)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("subsample topics: %w", err)
	}
	return nil
}

// inChunks calls do with the ids, 500 at a time, as arguments and the
// placeholders of a list of them.
func inChunks(ids []int64, do func(args []any, in string) error) error {
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		if err := do(appendIDs(nil, ids[:n]), placeholders(n)); err != nil {
			return err
		}
		ids = ids[n:]
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
		return domain.SubsampleTopics{}, fmt.Errorf("subsample topics: %w", err)
	}
	out := make(map[int64]domain.Topics, len(rows))
	for _, r := range rows {
		t := out[r.SubsampleID]
		t.ResearchTypeID = r.ResearchTypeID
		if r.CategoryID != nil {
			t.CategoryIDs = append(t.CategoryIDs, *r.CategoryID)
		}
		out[r.SubsampleID] = t
	}
	return domain.TopicsOf(out), nil
}
