package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// HoldCandidate is a panelist who may be held (HoldCandidates): their
// country on the panel ("" when none is on file) and their records of
// the statuses asked, newest first.
type HoldCandidate struct {
	PanelistID string
	Country    string
	Records    []domain.HistoryRecord
}

// HoldCandidates reads, in one statement, the panelists who have a
// record of a status in verdicts registered at or after since, and those
// of also (the panelists held by hand), each with their country and
// every record of theirs of a status in statuses (the complete and the
// verdicts on it, rules.ReversalStatuses), in panelist id order. A
// panelist of also with no such record comes with none.
//
// The panelists with a verdict are found on history_by_time, whose
// entries hold the whole key (registered_at, subsample_id, then
// panelist_id and status_id): a range of the window, not the whole
// history; their records are then read on the key, panelist by panelist.
func (s *Store) HoldCandidates(ctx context.Context, verdicts, statuses []int64, since time.Time, also []string) ([]HoldCandidate, error) {
	if also == nil {
		also = []string{}
	}
	list, err := json.Marshal(also)
	if err != nil {
		return nil, fmt.Errorf("panelists who may be held: %w", err)
	}
	found := "1 = 0" // the quality hold off: only those named
	if len(verdicts) > 0 {
		found = "status_id IN (" + idList(verdicts) + ")"
	}
	q := `
		SELECT ids.panelist_id, COALESCE(p.country, ''), h.subsample_id, h.status_id, h.registered_at, h.event_id, h.category_id, h.research_type_id
		FROM (
			SELECT panelist_id FROM history WHERE registered_at >= ? AND ` + found + `
			UNION
			SELECT value FROM ` + s.dialect.textList() + ` listed
		) ids
		LEFT JOIN panel p ON p.panelist_id = ids.panelist_id
		LEFT JOIN history h ON h.panelist_id = ids.panelist_id AND h.status_id IN (` + idList(statuses) + `)
		ORDER BY ids.panelist_id`
	rows, err := s.reader.QueryContext(ctx, q, since.UTC(), string(list))
	if err != nil {
		return nil, fmt.Errorf("panelists who may be held: %w", err)
	}
	defer rows.Close()
	var out []HoldCandidate
	for rows.Next() {
		var id, country string
		var subsample, status, event, category, researchType sql.NullInt64
		var at sql.NullTime
		if err := rows.Scan(&id, &country, &subsample, &status, &at, &event, &category, &researchType); err != nil {
			return nil, fmt.Errorf("panelists who may be held: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].PanelistID != id {
			out = append(out, HoldCandidate{PanelistID: id, Country: country})
		}
		if status.Valid {
			c := &out[len(out)-1]
			c.Records = append(c.Records, domain.HistoryRecord{PanelistID: id, SubsampleID: subsample.Int64, StatusID: status.Int64,
				RegisteredAt: at.Time, EventID: event.Int64, CategoryID: category.Int64, ResearchTypeID: researchType.Int64})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("panelists who may be held: %w", err)
	}
	for _, c := range out {
		slices.SortFunc(c.Records, newestFirst)
	}
	return out, nil
}

// HoldChanges lists the audit of every panelist's holds and releases by
// hand, newest first.
func (s *Store) HoldChanges(ctx context.Context) ([]domain.PolicyChange, error) {
	out := []domain.PolicyChange{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT `+policyChangeColumns+` FROM policy_changes WHERE panelist_id != '' ORDER BY change_id DESC`); err != nil {
		return nil, fmt.Errorf("holds and releases by hand: %w", err)
	}
	return out, nil
}
