package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

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

// maxCaseLetters bounds the ids SameIDsOnFile looks up: every spelling of
// an id in other letter cases while it has at most this many letters (64
// spellings), else only its upper-case, lower-case and capitalised forms.
const maxCaseLetters = 6

// SameIDsOnFile returns the ids on file (a row of the panel, a profile or
// a history record) that equal id up to the case of its ASCII letters,
// id itself among them when it is on file, in byte order. It looks up a
// small set of spellings by the tables' keys, never a scan, so it is as
// cheap on a panel of millions as on one of ten.
func (s *Store) SameIDsOnFile(ctx context.Context, id string) ([]string, error) {
	list, err := json.Marshal(caseVariants(id))
	if err != nil {
		return nil, fmt.Errorf("ids like %q: %w", id, err)
	}
	// A union of one EXISTS a table, not one EXISTS OR another: an OR of
	// subqueries is planned by PostgreSQL as hashed subplans, each reading
	// its whole table; a single EXISTS is a semi-join, a key lookup each.
	out := []string{}
	err = s.reader.SelectContext(ctx, &out, `
		SELECT j.value FROM `+s.dialect.textList()+` AS j WHERE EXISTS (SELECT 1 FROM panel p WHERE p.panelist_id = j.value)
		UNION SELECT j.value FROM `+s.dialect.textList()+` AS j WHERE EXISTS (SELECT 1 FROM profiles p WHERE p.panelist_id = j.value)
		UNION SELECT j.value FROM `+s.dialect.textList()+` AS j WHERE EXISTS (SELECT 1 FROM history h WHERE h.panelist_id = j.value)`,
		string(list), string(list), string(list))
	if err != nil {
		return nil, fmt.Errorf("ids like %q: %w", id, err)
	}
	slices.Sort(out)
	return out, nil
}

// caseVariants are the spellings of id SameIDsOnFile looks up: id, and
// it with its ASCII letters in every combination of cases while there are
// at most maxCaseLetters, else its upper-case, lower-case and
// capitalised forms.
func caseVariants(id string) []string {
	var letters []int
	for i := 0; i < len(id); i++ {
		if c := id[i] | 0x20; c >= 'a' && c <= 'z' {
			letters = append(letters, i)
		}
	}
	if len(letters) > maxCaseLetters {
		lower := asciiLower(id)
		capital := []byte(lower)
		capital[letters[0]] -= 0x20
		out := []string{id}
		for _, v := range []string{asciiUpper(id), lower, string(capital)} {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		return out
	}
	out := make([]string, 0, 1<<len(letters))
	b := []byte(id)
	for mask := 0; mask < 1<<len(letters); mask++ {
		for bit, i := range letters {
			if mask&(1<<bit) != 0 {
				b[i] &^= 0x20 // upper
			} else {
				b[i] |= 0x20 // lower
			}
		}
		out = append(out, string(b))
	}
	return out
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c | 0x20
		}
	}
	return string(b)
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c &^ 0x20
		}
	}
	return string(b)
}
