package store

import (
	"context"
	"fmt"
)

// UnprofiledPanel returns, per country (upper case, as the panel holds
// it), how many panelists of the panel have no profile: ScanPanelists
// visits only the profiled ones, and the profiling advice counts the
// others too (no answers, no birth date). Countries whose panelists all
// have a profile are absent. Both keys are the tables' primary keys, so
// the NOT EXISTS is one index lookup per panel row on either dialect.
func (s *Store) UnprofiledPanel(ctx context.Context) (map[string]int64, error) {
	var rows []struct {
		Country string `db:"country"`
		N       int64  `db:"n"`
	}
	err := s.reader.SelectContext(ctx, &rows, `SELECT country, COUNT(*) AS n FROM panel
		WHERE NOT EXISTS (SELECT 1 FROM profiles WHERE profiles.panelist_id = panel.panelist_id)
		GROUP BY country`)
	if err != nil {
		return nil, fmt.Errorf("count the panelists without a profile: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Country] = r.N
	}
	return out, nil
}
