package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// ProfileOf returns one panelist's profile. A panelist without a profile
// has an empty one (no answers, no birth date), which is not an error.
func (s *Store) ProfileOf(ctx context.Context, panelistID string) (domain.Profile, error) {
	p := domain.Profile{Answers: map[int64][]int64{}}
	var blob []byte
	err := s.hot.profileOf.GetContext(ctx, &blob, panelistID)
	if errors.Is(err, sql.ErrNoRows) {
		return p, nil
	}
	if err == nil {
		_, err = decodeProfile(blob, &p, nil)
	}
	if err != nil {
		return domain.Profile{}, fmt.Errorf("profile of panelist %q: %w", panelistID, err)
	}
	return p, nil
}

// CountProfiles returns how many panelists have a profile.
func (s *Store) CountProfiles(ctx context.Context) (int64, error) {
	var n int64
	if err := s.reader.GetContext(ctx, &n, `SELECT COUNT(*) FROM profiles`); err != nil {
		return 0, fmt.Errorf("count profiles: %w", err)
	}
	return n, nil
}

// LibraryQuestionIDs returns the ids of the questions of the stored
// library, in any locale: the questions a profile file is expected to
// answer. The age question (-1) is there when the provider lists it; the
// profile import knows it regardless.
func (s *Store) LibraryQuestionIDs(ctx context.Context) (map[int64]bool, error) {
	var ids []int64
	if err := s.reader.SelectContext(ctx, &ids, `SELECT DISTINCT question_id FROM questions`); err != nil {
		return nil, fmt.Errorf("library question ids: %w", err)
	}
	known := make(map[int64]bool, len(ids))
	for _, id := range ids {
		known[id] = true
	}
	return known, nil
}

// KnownQuestions returns the test a profile import counts unknown
// questions with: in the stored library, in any locale. It is nil (every
// question known) while no library is stored, before the first refresh.
func (s *Store) KnownQuestions(ctx context.Context) (func(questionID int64) bool, error) {
	library, err := s.LibraryQuestionIDs(ctx)
	if err != nil || len(library) == 0 {
		return nil, err
	}
	return func(id int64) bool { return library[id] }, nil
}

// profileScanChunk is how many panelists ScanProfiles and ScanPanelists
// read per query.
const profileScanChunk = 1000

// ScanProfiles calls fn for every panelist with a profile, in panelist id
// order (byte order of the ids). An error from fn stops the scan and is
// returned as is.
//
// fn must not keep p.Answers or its answer lists after it returns: they
// are reused for the next panelist, so that a scan allocates next to
// nothing per panelist. What must outlive the call is to be copied (or
// read again with ProfileOf).
//
// The profiles are read inside one read transaction on the reader pool,
// so every row comes from the same snapshot, and a bounded number of
// rows at a time: on SQLite in chunks of profileScanChunk panelists, each
// one query for the next range of the key, fn called between queries,
// never while one is open; on PostgreSQL through one cursor, fn called as
// each fetch's rows arrive (dialect.scanProfiles). fn runs inside the
// read transaction: a slow fn delays WAL checkpoints (or PostgreSQL's
// vacuum), never a writer.
func (s *Store) ScanProfiles(ctx context.Context, fn func(panelistID string, p domain.Profile) error) error {
	return s.scanProfiles(ctx, "scan profiles", false, nil, func(id string, _ domain.PanelMember, p domain.Profile) error {
		return fn(id, p)
	})
}

// ScanPanelists is ScanProfiles giving each profiled panelist's row of
// the panel too: their country and locale, or a PanelMember with only
// PanelistID set when none is on file. Panelists of the panel without a
// profile are not visited.
//
// The panel rows come in the same read transaction, with no lookup per
// panelist: on SQLite by one more query per chunk for the chunk's range of
// the key (readPanel), on PostgreSQL in the cursor's query.
func (s *Store) ScanPanelists(ctx context.Context, fn func(panelistID string, m domain.PanelMember, p domain.Profile) error) error {
	return s.scanProfiles(ctx, "scan panelists", true, nil, fn)
}

// scanProfiles is ScanProfiles, and with withPanel ScanPanelists; what
// names the scan in errors. With unprofiled (and withPanel) it counts
// there the panel's rows without a profile, by country and locale, in
// the same read transaction (ScanWholePanel). The rows are read the
// dialect's way (dialect.scanProfiles), on a connection of the reader
// pool held for the scan, and decoded here.
func (s *Store) scanProfiles(ctx context.Context, what string, withPanel bool, unprofiled map[PanelPlace]int64, fn func(panelistID string, m domain.PanelMember, p domain.Profile) error) error {
	return s.readProfiles(ctx, what, fn, func(conn *sqlx.Conn, tx *sqlx.Tx, visit profileVisit) error {
		return s.dialect.scanProfiles(ctx, conn, tx, withPanel, unprofiled, visit)
	})
}

// readProfiles runs read in a read transaction on a connection of the
// reader pool held for it, and calls fn with each profile read gives
// visit, decoded here into a profile reused from one to the next; what
// names the read in errors. An error from fn is returned as it is.
func (s *Store) readProfiles(ctx context.Context, what string, fn func(panelistID string, m domain.PanelMember, p domain.Profile) error, read func(conn *sqlx.Conn, tx *sqlx.Tx, visit profileVisit) error) error {
	conn, err := s.reader.Connx(ctx)
	if err != nil {
		return fmt.Errorf("%s: connect: %w", what, err)
	}
	defer conn.Close()
	tx, err := conn.BeginTxx(ctx, s.dialect.snapshotTx())
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, err)
	}
	defer tx.Rollback()
	p := domain.Profile{Answers: make(map[int64][]int64, 16)}
	var arena []int64
	var fnErr error // fn's own, returned as it is
	err = read(conn, tx, func(m domain.PanelMember, blob []byte) error {
		clear(p.Answers)
		p.BirthDate = time.Time{}
		var err error
		if arena, err = decodeProfile(blob, &p, arena[:0]); err != nil {
			return fmt.Errorf("panelist %q: %w", m.PanelistID, err)
		}
		fnErr = fn(m.PanelistID, m, p)
		return fnErr
	})
	switch {
	case err == nil:
		return nil
	case err == fnErr:
		return err
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// profileVisit is given each profile a scan reads: the panelist, with
// their country and locale when the scan reads the panel ("" when not on
// file), and the packed profile, valid until it returns.
type profileVisit func(m domain.PanelMember, blob []byte) error

// scanInChunks reads the profiles of a scan in chunks of profileScanChunk
// panelists, each one query for the next range of the key, in tx; with
// withPanel each chunk's panel rows are read by one more query for the
// same range (readPanel), and with unprofiled the panel rows without a
// profile are counted as they pass and after the last (countUnprofiledAfter).
// Memory is bounded by one chunk, and visit is called between queries,
// never while one is open: on SQLite a statement left open would hold its
// connection's read of the file while visit reads another.
func scanInChunks(ctx context.Context, tx *sqlx.Tx, withPanel bool, unprofiled map[PanelPlace]int64, visit profileVisit) error {
	first, err := tx.PrepareContext(ctx, `SELECT panelist_id, answers FROM profiles ORDER BY panelist_id LIMIT ?`)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer first.Close()
	after, err := tx.PrepareContext(ctx, `SELECT panelist_id, answers FROM profiles WHERE panelist_id > ? ORDER BY panelist_id LIMIT ?`)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer after.Close()
	var panel *sql.Stmt
	if withPanel {
		panel, err = tx.PrepareContext(ctx, panelRangeQuery)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		defer panel.Close()
	}

	c := profileChunk{unprofiled: unprofiled}
	previous := "" // the last panelist of the chunk before: "" comes before every id
	for {
		if len(c.ids) == 0 {
			err = c.read(ctx, first, profileScanChunk)
		} else {
			previous = c.ids[len(c.ids)-1]
			err = c.read(ctx, after, previous, profileScanChunk)
		}
		if err == nil && panel != nil {
			err = c.readPanel(ctx, panel, previous)
		}
		if err != nil {
			return err
		}
		for i, id := range c.ids {
			m := domain.PanelMember{PanelistID: id}
			if panel != nil {
				m.Country, m.Locale = c.countries[i], c.locales[i]
			}
			if err := visit(m, c.blob(i)); err != nil {
				return err
			}
		}
		if len(c.ids) < profileScanChunk {
			if panel != nil && unprofiled != nil {
				if len(c.ids) > 0 {
					previous = c.ids[len(c.ids)-1]
				}
				return countUnprofiledAfter(ctx, tx, previous, unprofiled)
			}
			return nil
		}
	}
}

// profileChunk is one chunk of a profile scan: the panelist ids and their
// packed profiles back to back and, for ScanPanelists, their countries and
// locales ("" when not on file).
type profileChunk struct {
	ids   []string
	blobs []byte
	ends  []int

	countries, locales []string
	// codes holds each country and locale text once, so that a chunk's
	// panel rows allocate nothing but for a code not seen before.
	codes textCodes
	// unprofiled, when not nil, counts the panel rows readPanel reads that
	// are no panelist of the chunk: those without a profile.
	unprofiled map[PanelPlace]int64
}

func (c *profileChunk) blob(i int) []byte {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.blobs[start:c.ends[i]]
}

// read runs one chunk's query, replacing the chunk.
func (c *profileChunk) read(ctx context.Context, stmt *sql.Stmt, args ...any) error {
	c.ids, c.blobs, c.ends = c.ids[:0], c.blobs[:0], c.ends[:0]
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var blob sql.RawBytes // the driver's bytes, copied below
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		c.ids = append(c.ids, id)
		c.blobs = append(c.blobs, blob...)
		c.ends = append(c.ends, len(c.blobs))
	}
	return rows.Err()
}

// maxScanCodes bounds textCodes: past it, codes are allocated.
const maxScanCodes = 4096

// panelRangeQuery reads panel rows after a panelist id, up to another
// one and at most a number of them, as their count and one text: rows
// apart by the record separator (30), and in each row the panelist id, the
// country and the locale apart by the unit separator (31). No panelist id
// holds a control character (domain.ParsePanelistID), nor does a country
// or a locale. One value per query rather than three per panelist: the
// driver's cost per column read is most of what a row costs. Over
// 1,000,000 profiled panelists this adds about 0.25 s to the scan, where
// reading the rows one by one added 0.6 s and a LEFT JOIN of the profiles
// query 0.75 s. Its parameters: the two separators (both dialects bind
// them alike, where their functions for a character differ), the
// panelist after which to start, the last one and the limit.
const panelRangeQuery = `SELECT COUNT(*), COALESCE(string_agg(panelist_id || ? || country || ? || locale, ?), '')
	FROM (SELECT panelist_id, country, locale FROM panel WHERE panelist_id > ? AND panelist_id <= ? ORDER BY panelist_id LIMIT ?) AS range_rows`

// panelRangeRows is how many panel rows one panelRangeQuery reads at most,
// so that the text stays small even when the panel holds many panelists
// without a profile between two profiled ones.
const panelRangeRows = 4 * profileScanChunk

// readPanel reads the panel rows after the panelist previous up to the
// chunk's last (panelRangeQuery, as many times as it takes) and gives
// each of the chunk's panelists theirs, found by a binary search of the
// chunk's ids (in key order): the rows of one text may come in any order,
// which spares the databases a sort.
func (c *profileChunk) readPanel(ctx context.Context, stmt *sql.Stmt, previous string) error {
	n := len(c.ids)
	c.countries, c.locales = slices.Grow(c.countries[:0], n)[:n], slices.Grow(c.locales[:0], n)[:n]
	clear(c.countries)
	clear(c.locales)
	if n == 0 {
		return nil
	}
	if c.codes == nil {
		c.codes = textCodes{}
	}
	for {
		var count int
		var all string
		if err := stmt.QueryRowContext(ctx, "\x1f", "\x1f", "\x1e", previous, c.ids[n-1], panelRangeRows).Scan(&count, &all); err != nil {
			return fmt.Errorf("panel: %w", err)
		}
		last := previous
		for row := range strings.SplitSeq(all, "\x1e") {
			id, rest, ok := strings.Cut(row, "\x1f")
			if !ok {
				continue // no rows: all is empty
			}
			country, locale, _ := strings.Cut(rest, "\x1f")
			if i, found := slices.BinarySearch(c.ids, id); found {
				c.countries[i], c.locales[i] = c.codes.of(country), c.codes.of(locale)
			} else if c.unprofiled != nil {
				c.unprofiled[PanelPlace{c.codes.of(country), c.codes.of(locale)}]++
			}
			last = max(last, id)
		}
		if count < panelRangeRows {
			return nil
		}
		previous = strings.Clone(last) // not a part of all
	}
}

// textCodes holds each country and locale text a scan reads once, so
// that its panel rows allocate nothing but for a text not seen before.
type textCodes map[string]string

// of returns b as a string of its own, held once in c.
func (c textCodes) of(b string) string {
	if b == "" {
		return ""
	}
	if s, ok := c[b]; ok {
		return s
	}
	s := strings.Clone(b)
	if len(c) < maxScanCodes {
		c[s] = s
	}
	return s
}

// ofBytes is of for bytes a driver lent.
func (c textCodes) ofBytes(b []byte) string {
	if s, ok := c[string(b)]; ok { // no allocation to look up
		return s
	}
	return c.of(string(b))
}
