package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// ScanPanelistsWithHistory streams the profiled panelists of countries
// (as ScanPanelistsIn), or of the whole panel with whole (as
// ScanPanelists), in panelist id order, each with their panel row and
// profile to keep; for each panelist keep accepts, fn is then called, in
// the same order, with the panelist's panel row and their records that
// match filter, newest first (as ScanHistory gives them). keep must not
// keep p's answers; fn may keep the records. An error from fn is
// returned as it is, and stops the scan.
//
// On PostgreSQL a scan of countries is one query (the dialect's
// scanCountriesHistory): the countries' panel rows, their profiles and
// their records that match filter (of AnyOf only those HeldBy names:
// HistoryFilter.panelistRecords), joined by history's primary key and
// sorted by panelist, which PostgreSQL reads in parallel workers; keep
// decides here whose records count. Otherwise (SQLite, a filter that
// matches nothing, the whole panel) the profiles are scanned and the
// history of the panelists keep accepts is read historyChunk at a time
// (ScanHistory), from inside the scan: a scan holds two reader
// connections then.
func (s *Store) ScanPanelistsWithHistory(ctx context.Context, countries []string, whole bool, filter HistoryFilter,
	keep func(panelistID string, m domain.PanelMember, p domain.Profile) bool,
	fn func(panelistID string, m domain.PanelMember, records []domain.HistoryRecord) error) error {
	if cond, _ := filter.where(); !whole && cond != "" && len(countries) > 0 {
		join, columns, joinArgs := filter.panelistRecords("p.panelist_id")
		done, err := s.scanCountriesHistory(ctx, countries, join, columns, joinArgs, keep, fn)
		if done {
			return err
		}
	}
	type kept struct {
		id string
		m  domain.PanelMember
	}
	var chunk []kept
	ids := make([]string, 0, historyChunk)
	flush := func() error {
		ids = ids[:0]
		for _, k := range chunk {
			ids = append(ids, k.id)
		}
		i := 0
		err := s.ScanHistory(ctx, slices.Values(ids), filter, func(id string, records []domain.HistoryRecord) error {
			m := chunk[i].m
			i++
			return fn(id, m, records)
		})
		chunk = chunk[:0]
		return err
	}
	visit := func(id string, m domain.PanelMember, p domain.Profile) error {
		if keep(id, m, p) {
			chunk = append(chunk, kept{id, m})
		}
		if len(chunk) == historyChunk {
			return flush()
		}
		return nil
	}
	var err error
	if whole {
		err = s.ScanPanelists(ctx, visit)
	} else {
		err = s.ScanPanelistsIn(ctx, countries, visit)
	}
	if err == nil && len(chunk) > 0 {
		err = flush()
	}
	return err
}

// historyChunk is how many kept panelists ScanPanelistsWithHistory reads
// the history of at once where it reads it apart from the profiles.
const historyChunk = 500

// scanCountriesHistory is ScanPanelistsWithHistory of countries by the
// dialect's one query, in a read transaction on a connection held for
// it; done is false when the dialect has no such query (SQLite), and
// nothing was read.
func (s *Store) scanCountriesHistory(ctx context.Context, countries []string, join, columns string, joinArgs []any,
	keep func(panelistID string, m domain.PanelMember, p domain.Profile) bool,
	fn func(panelistID string, m domain.PanelMember, records []domain.HistoryRecord) error) (done bool, err error) {
	if !s.dialect.joinsHistory() {
		return false, nil
	}
	what := "scan the panelists of " + fmt.Sprint(countries) + " with their history"
	conn, err := s.reader.Connx(ctx)
	if err != nil {
		return true, fmt.Errorf("%s: connect: %w", what, err)
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(ctx, s.dialect.snapshotTx())
	if err != nil {
		return true, fmt.Errorf("%s: begin: %w", what, err)
	}
	defer tx.Rollback()
	p := domain.Profile{Answers: make(map[int64][]int64, 16)}
	var arena []int64
	var fnErr error // fn's own, returned as it is
	err = s.dialect.scanCountriesHistory(ctx, conn, tx, countries, join, columns, joinArgs, func(m domain.PanelMember, blob []byte) (bool, error) {
		clear(p.Answers)
		p.BirthDate = time.Time{}
		var err error
		if arena, err = decodeProfile(blob, &p, arena[:0]); err != nil {
			return false, fmt.Errorf("panelist %q: %w", m.PanelistID, err)
		}
		return keep(m.PanelistID, m, p), nil
	}, func(m domain.PanelMember, records []domain.HistoryRecord) error {
		slices.SortFunc(records, newestFirst)
		fnErr = fn(m.PanelistID, m, records)
		return fnErr
	})
	switch {
	case err == nil:
		return true, nil
	case err == fnErr:
		return true, err
	default:
		return true, fmt.Errorf("%s: %w", what, err)
	}
}
