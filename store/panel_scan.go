package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// PanelPlace is a country (upper case) and a locale (lower case) of the
// panel, each "" when not on file.
type PanelPlace struct{ Country, Locale string }

// ScanWholePanel is ScanPanelists that also returns, per country and
// locale, how many panelists of the panel have no profile: ScanPanelists
// visits only the profiled ones, and the profiling advice counts the
// others too (no answers, no birth date). Places whose panelists all have
// a profile are absent.
//
// Both come from the scan's one read transaction, so an import that
// commits meanwhile counts no panelist twice nor leaves one out. On
// SQLite the panel rows between two chunks' profiled panelists are read
// by the scan already (readPanel): those it finds no profile for are
// counted as they pass; the rows after the last profiled panelist are
// counted by one query at the end (countUnprofiledAfter). On PostgreSQL
// one query counts them all (countUnprofiled). No lookup per panel row.
func (s *Store) ScanWholePanel(ctx context.Context, fn func(panelistID string, m domain.PanelMember, p domain.Profile) error) (map[PanelPlace]int64, error) {
	unprofiled := map[PanelPlace]int64{}
	if err := s.scanProfiles(ctx, "scan the panel", true, unprofiled, fn); err != nil {
		return nil, err
	}
	return unprofiled, nil
}

// countUnprofiledAfter adds to unprofiled the panel rows after the
// panelist previous ("" for every row), per country and locale: the rows
// after the last profiled panelist, who have no profile.
func countUnprofiledAfter(ctx context.Context, q sqlx.QueryerContext, previous string, unprofiled map[PanelPlace]int64) error {
	var rows []struct {
		Country string `db:"country"`
		Locale  string `db:"locale"`
		N       int64  `db:"n"`
	}
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT country, locale, COUNT(*) AS n FROM panel WHERE panelist_id > ? GROUP BY country, locale`, previous); err != nil {
		return fmt.Errorf("count the panelists without a profile: %w", err)
	}
	for _, r := range rows {
		unprofiled[PanelPlace{r.Country, r.Locale}] += r.N
	}
	return nil
}

// countUnprofiled adds to unprofiled the panel rows of panelists without
// a profile, per country and locale: the panel's rows less profiled, the
// rows of the panelists with a profile (a scan counts them as it reads
// them), per country and locale. Counting the panel by country and locale
// reads it once, where asking PostgreSQL for the rows without a profile
// joined it to the profiles again (0.8 s over 1,000,000 panelists).
func countUnprofiled(ctx context.Context, q sqlx.QueryerContext, profiled, unprofiled map[PanelPlace]int64) error {
	var rows []struct {
		Country string `db:"country"`
		Locale  string `db:"locale"`
		N       int64  `db:"n"`
	}
	if err := sqlx.SelectContext(ctx, q, &rows, `SELECT country, locale, COUNT(*) AS n FROM panel GROUP BY country, locale`); err != nil {
		return fmt.Errorf("count the panelists without a profile: %w", err)
	}
	for _, r := range rows {
		place := PanelPlace{r.Country, r.Locale}
		if n := r.N - profiled[place]; n > 0 {
			unprofiled[place] += n
		}
	}
	return nil
}
