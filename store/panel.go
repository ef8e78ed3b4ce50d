package store

import (
	"context"
	"fmt"

	"fieldboard/rules/domain"
)

// PanelOf returns one panelist's row of the panel: their country and
// locale. The error wraps ErrNotFound when none is on file.
func (s *Store) PanelOf(ctx context.Context, panelistID string) (domain.PanelMember, error) {
	var m domain.PanelMember
	err := s.reader.QueryRowContext(ctx, `SELECT panelist_id, country, locale FROM panel WHERE panelist_id = ?`, panelistID).
		Scan(&m.PanelistID, &m.Country, &m.Locale)
	if err != nil {
		return domain.PanelMember{}, fmt.Errorf("panel row of panelist %q: %w", panelistID, notFound(err))
	}
	return m, nil
}

// PanelsOf returns the panel rows of the panelists of ids that have one,
// by panelist id; the others are absent. One query: the caller passes a
// chunk (a bulk check's 500), not a whole file.
func (s *Store) PanelsOf(ctx context.Context, ids []string) (map[string]domain.PanelMember, error) {
	out := make(map[string]domain.PanelMember, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT panelist_id, country, locale FROM panel WHERE panelist_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("panel rows of %d panelists: %w", len(ids), err)
	}
	defer rows.Close()
	for rows.Next() {
		var m domain.PanelMember
		if err := rows.Scan(&m.PanelistID, &m.Country, &m.Locale); err != nil {
			return nil, fmt.Errorf("panel rows of %d panelists: %w", len(ids), err)
		}
		out[m.PanelistID] = m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("panel rows of %d panelists: %w", len(ids), err)
	}
	return out, nil
}

// CountPanel returns how many panelists have a row in the panel.
func (s *Store) CountPanel(ctx context.Context) (int64, error) {
	var n int64
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM panel`); err != nil {
		return 0, fmt.Errorf("count panel: %w", err)
	}
	return n, nil
}
