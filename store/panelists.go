package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"fieldboard/rules/domain"
)

// PanelistFacts is what the store holds of one panelist besides their
// history: their row of the panel and their profile, each zero when none
// is on file.
type PanelistFacts struct {
	Panel   domain.PanelMember
	Profile domain.Profile
}

// PanelistsOf returns the panel rows and profiles of the panelists of ids
// that have either, by panelist id; the others are absent. One query, the
// ids passed as one JSON array rather than a parameter each: the caller
// passes a chunk (a bulk check's 500), not a whole file.
func (s *Store) PanelistsOf(ctx context.Context, ids []string) (map[string]PanelistFacts, error) {
	out := make(map[string]PanelistFacts, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("panelists: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `
		SELECT j.value, p.country, p.locale, pr.answers
		FROM `+s.dialect.textList()+` AS j
		LEFT JOIN panel p ON p.panelist_id = j.value
		LEFT JOIN profiles pr ON pr.panelist_id = j.value`, string(list))
	if err != nil {
		return nil, fmt.Errorf("panel rows and profiles of %d panelists: %w", len(ids), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var country, locale sql.NullString
		var blob []byte
		if err := rows.Scan(&id, &country, &locale, &blob); err != nil {
			return nil, fmt.Errorf("panel rows and profiles of %d panelists: %w", len(ids), err)
		}
		if !country.Valid && blob == nil {
			continue
		}
		var f PanelistFacts
		if country.Valid {
			f.Panel = domain.PanelMember{PanelistID: id, Country: country.String, Locale: locale.String}
		}
		if blob != nil {
			if f.Profile, err = DecodeProfile(blob); err != nil {
				return nil, fmt.Errorf("profile of panelist %q: %w", id, err)
			}
		}
		out[id] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("panel rows and profiles of %d panelists: %w", len(ids), err)
	}
	return out, nil
}
