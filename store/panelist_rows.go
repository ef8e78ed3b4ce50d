package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// PanelistRows are what a check of one panelist reads (PanelistRowsOf):
// their row of the panel, profile and history, and the snapshot version
// they were read at.
type PanelistRows struct {
	// Member is the panelist's row of the panel; OnPanel is false (and
	// Member holds only the id) when none is on file.
	Member  domain.PanelMember
	OnPanel bool
	// Profile is empty (no answers, no birth date) for a panelist without
	// one, as ProfileOf's.
	Profile domain.Profile
	// History is every record of the panelist, newest first, as
	// HistoryOf's.
	History []domain.HistoryRecord
	// Version is SnapshotVersion's, read by the same statement: the rows
	// are those of that version.
	Version int64
	// Keys hold the routing key PanelistRowsWithKey asked for, when it is
	// valid at the time given (as InvitationKeys would list it); none
	// otherwise.
	Keys []domain.SigningKey
	// LastSend is the panelist's newest send since the time
	// PanelistRowsWithSend was given (LastSend's: its id, time, chosen
	// subsample, cells, hop, the send it followed, its return's status),
	// nil for none or when not asked.
	LastSend *domain.RoutingDecision
}

// panelistRowsQuery reads one panelist's history records, panel row and
// profile, and the snapshot version, in one statement: a row of each, the
// kind first (the kinds below). The history's branch comes first, so
// that registered_at keeps its declared type (DATETIME on SQLite, read as
// a time as HistoryOf reads it); the other branches leave it NULL. Its
// other columns are cast to their types: PostgreSQL types a chain of
// UNIONs pair by pair, and would take a bare NULL for text. The rows may
// come in any order.
const panelistRowsQuery = `
SELECT 2, subsample_id, status_id, registered_at, event_id, category_id, research_type_id, CAST('' AS TEXT), CAST('' AS TEXT), CAST(NULL AS BYTEA)
FROM history WHERE panelist_id = ?
UNION ALL
SELECT 0, 0, 0, NULL, 0, 0, 0, country, locale, NULL FROM panel WHERE panelist_id = ?
UNION ALL
SELECT 1, 0, 0, NULL, 0, 0, 0, '', '', answers FROM profiles WHERE panelist_id = ?
UNION ALL
SELECT 3, version, 0, NULL, 0, 0, 0, '', '', NULL FROM snapshot_version WHERE id = 1`

// panelistRowsWithKeyQuery is panelistRowsQuery and, in a row of its own,
// one routing key if it is valid at a time (routingKeysQuery's test).
const panelistRowsWithKeyQuery = panelistRowsQuery + `
UNION ALL
SELECT 4, key_id, 0, NULL, 0, 0, 0, '', '', secret FROM routing_keys WHERE key_id = ? AND (expires_at IS NULL OR expires_at > ?)`

// panelistRowsWithSendQuery is panelistRowsQuery and, in a row of its
// own, the panelist's newest send since a time (lastSendQuery's).
const panelistRowsWithSendQuery = panelistRowsQuery + `
UNION ALL
SELECT 5, decision_id, chosen_subsample, at, hop, return_status, after_decision, cells, outcome, NULL FROM (
	SELECT decision_id, chosen_subsample, at, hop, COALESCE(return_status, 0) AS return_status, COALESCE(after_decision, 0) AS after_decision,
		cells, outcome FROM routing_decisions
	` + lastSendOf + `) last_send`

// The kinds of row panelistRowsQuery returns.
const (
	kindPanel = iota
	kindProfile
	kindHistory
	kindVersion
	kindKey
	kindSend
)

// PanelistRowsOf reads what a check of one panelist needs, with one
// statement: their row of the panel, their profile and their history
// (the same as PanelOf, ProfileOf and HistoryOf give), and the snapshot
// version, all as of one moment. A panelist with none of them is not an
// error: OnPanel is false, the profile empty, the history empty.
func (s *Store) PanelistRowsOf(ctx context.Context, panelistID string) (PanelistRows, error) {
	rows, err := s.hot.panelistRows.QueryContext(ctx, panelistID, panelistID, panelistID)
	return scanPanelistRows(panelistID, rows, err)
}

// PanelistRowsWithKey is PanelistRowsOf, and in the same statement the
// routing key keyID when it is valid at now (Keys): what a click on an
// invitation link reads, the key its token names (invite.Peek) to open it
// with.
func (s *Store) PanelistRowsWithKey(ctx context.Context, panelistID string, keyID int64, now time.Time) (PanelistRows, error) {
	rows, err := s.hot.panelistRowsWithKey.QueryContext(ctx, panelistID, panelistID, panelistID, keyID, now)
	return scanPanelistRows(panelistID, rows, err)
}

// PanelistRowsWithSend is PanelistRowsOf, and in the same statement the
// panelist's newest send made at or after since (LastSend): what a return
// reads.
func (s *Store) PanelistRowsWithSend(ctx context.Context, panelistID string, since time.Time) (PanelistRows, error) {
	rows, err := s.hot.panelistRowsWithSend.QueryContext(ctx, panelistID, panelistID, panelistID, panelistID, since.UTC())
	return scanPanelistRows(panelistID, rows, err)
}

// scanPanelistRows reads what panelistRowsQuery, or
// panelistRowsWithKeyQuery, returned.
func scanPanelistRows(panelistID string, rows *sql.Rows, err error) (PanelistRows, error) {
	if err != nil {
		return PanelistRows{}, fmt.Errorf("rows of panelist %q: %w", panelistID, err)
	}
	defer rows.Close()
	out := PanelistRows{Member: domain.PanelMember{PanelistID: panelistID}, Profile: domain.Profile{Answers: map[int64][]int64{}},
		Version: -1}
	// The records gather here and are copied once, at their number: a
	// panelist has a few dozen at most, most far fewer.
	var gathered [32]domain.HistoryRecord
	history := gathered[:0]
	// One value scanned into (its fields escape to the heap through Scan
	// together, not one by one). The numbers and the time are taken as
	// the driver gives them (database/sql converts an integer into an
	// *int64 by reflection, ten times a row) and read by scannedInts.
	var v struct {
		kind, a, b, c, d, e, at any
		country, locale         string
		answers                 sql.RawBytes
	}
	dest := [...]any{&v.kind, &v.a, &v.b, &v.at, &v.c, &v.d, &v.e, &v.country, &v.locale, &v.answers}
	for rows.Next() {
		if err := rows.Scan(dest[:]...); err != nil {
			return PanelistRows{}, fmt.Errorf("rows of panelist %q: %w", panelistID, err)
		}
		ints, ok := scannedInts([...]any{v.kind, v.a, v.b, v.c, v.d, v.e})
		at, okAt := v.at.(time.Time)
		if !ok || !okAt && v.at != nil {
			return PanelistRows{}, fmt.Errorf("rows of panelist %q: a row of %T %T %T %T %T %T %T", panelistID, v.kind, v.a, v.b, v.c, v.d, v.e, v.at)
		}
		kind, a, b, c, d, e, country, locale, answers := ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], v.country, v.locale, v.answers
		switch kind {
		case kindHistory:
			history = append(history, domain.HistoryRecord{PanelistID: panelistID, SubsampleID: a, StatusID: b,
				RegisteredAt: at, EventID: c, CategoryID: d, ResearchTypeID: e})
		case kindPanel:
			out.Member.Country, out.Member.Locale, out.OnPanel = country, locale, true
		case kindProfile:
			// Every answer takes a byte at least: an arena as long as the
			// blob never grows (decodeProfile).
			if _, err := decodeProfile(answers, &out.Profile, make([]int64, 0, len(answers))); err != nil {
				return PanelistRows{}, fmt.Errorf("profile of panelist %q: %w", panelistID, err)
			}
		case kindVersion:
			out.Version = a
		case kindKey:
			out.Keys = append(out.Keys, domain.SigningKey{ID: a, Secret: bytes.Clone(answers)})
		case kindSend:
			out.LastSend = &domain.RoutingDecision{DecisionID: a, At: at, PanelistID: panelistID, Chosen: b, Hop: int(c),
				ReturnStatus: d, After: e, Cells: country, Outcome: domain.RoutingOutcome(locale)}
		}
	}
	if err := rows.Err(); err != nil {
		return PanelistRows{}, fmt.Errorf("rows of panelist %q: %w", panelistID, err)
	}
	if out.Version < 0 {
		return PanelistRows{}, fmt.Errorf("rows of panelist %q: no snapshot version", panelistID)
	}
	out.History = make([]domain.HistoryRecord, len(history))
	copy(out.History, history)
	slices.SortFunc(out.History, newestFirst)
	return out, nil
}

// scannedInts are the integers the driver gave for columns scanned into
// an any (database/sql hands over its driver.Value, an int64 for every
// integer); false when one is not.
func scannedInts(vs [6]any) (ints [6]int64, ok bool) {
	for i, v := range vs {
		if ints[i], ok = v.(int64); !ok {
			return ints, false
		}
	}
	return ints, true
}
