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
	err := s.hot.panelOf.QueryRowContext(ctx, panelistID).Scan(&m.PanelistID, &m.Country, &m.Locale)
	if err != nil {
		return domain.PanelMember{}, fmt.Errorf("panel row of panelist %q: %w", panelistID, notFound(err))
	}
	return m, nil
}

// CountPanel returns how many panelists have a row in the panel.
func (s *Store) CountPanel(ctx context.Context) (int64, error) {
	var n int64
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM panel`); err != nil {
		return 0, fmt.Errorf("count panel: %w", err)
	}
	return n, nil
}
