package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// ScanPanelistsIn is ScanPanelists for the panelists whose panel row's
// country is one of countries, byte for byte: the profiled panelists of
// the panel living there, with their row, in panelist id order (byte
// order of the ids). Panelists without a panel row or a profile are not
// visited. With no country, nobody is.
//
// It reads those countries' rows of the panel by the index on its
// country (migration 019), and only their profiles: a send list of one
// country of a panel of many reads a small part of the panel and the
// profiles, where ScanPanelists reads every row of both. The caller
// chooses the countries, every form a country may be stored as that it
// wants: the panel import stores two letters in upper case
// (domain.ParseCountry), and rules.PanelTarget.CountryForms gives every
// form FitPanel accepts.
//
// The rows are read in one read transaction as ScanPanelists reads them,
// fn called as it is, and fn must not keep p's answers either.
func (s *Store) ScanPanelistsIn(ctx context.Context, countries []string, fn func(panelistID string, m domain.PanelMember, p domain.Profile) error) error {
	if len(countries) == 0 {
		return nil
	}
	return s.readProfiles(ctx, "scan the panelists of "+fmt.Sprint(countries), fn, func(conn *sqlx.Conn, tx *sqlx.Tx, visit profileVisit) error {
		return s.dialect.scanCountries(ctx, conn, tx, countries, visit)
	})
}

// countryScanQuery reads, for one country, the next panel rows after a
// panelist id that have a profile, with the profile, in panelist id
// order, at most a number of them: a range of the panel's index on
// (country, panelist_id, locale), each row's profile then looked up by its
// key.
const countryScanQuery = `SELECT p.panelist_id, p.locale, pr.answers
	FROM panel p JOIN profiles pr ON pr.panelist_id = p.panelist_id
	WHERE p.country = ? AND p.panelist_id > ? ORDER BY p.panelist_id LIMIT ?`

// scanCountriesInChunks reads the profiled panelists of countries in tx,
// in chunks of profileScanChunk per country (countryScanQuery), and
// merges the countries' chunks in panelist id order: a chunk is read
// again once each of its rows was visited. Memory is bounded by a chunk
// per country, and visit is called between queries, never while one is
// open (scanInChunks says why).
func scanCountriesInChunks(ctx context.Context, tx *sqlx.Tx, countries []string, visit profileVisit) error {
	stmt, err := tx.PrepareContext(ctx, countryScanQuery)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	codes := textCodes{}
	chunks := make([]*countryChunk, len(countries))
	for i, country := range countries {
		chunks[i] = &countryChunk{country: country}
		if err := chunks[i].read(ctx, stmt, codes); err != nil {
			return err
		}
	}
	for {
		var next *countryChunk // the chunk whose panelist comes first
		for _, c := range chunks {
			if c.next < len(c.ids) && (next == nil || c.ids[c.next] < next.ids[next.next]) {
				next = c
			}
		}
		if next == nil {
			return nil
		}
		i := next.next
		if err := visit(domain.PanelMember{PanelistID: next.ids[i], Country: next.country, Locale: next.locales[i]}, next.blob(i)); err != nil {
			return err
		}
		if next.next++; next.next == len(next.ids) && !next.done {
			if err := next.read(ctx, stmt, codes); err != nil {
				return err
			}
		}
	}
}

// countryChunk is one country's chunk of scanCountriesInChunks: its
// panelists with their locales and packed profiles back to back, and the
// next to visit.
type countryChunk struct {
	country string
	ids     []string
	locales []string
	blobs   []byte
	ends    []int
	next    int
	// done is set once a read returned fewer rows than a chunk: the
	// country has no more.
	done bool
}

func (c *countryChunk) blob(i int) []byte {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.blobs[start:c.ends[i]]
}

// read replaces the chunk with the country's next rows.
func (c *countryChunk) read(ctx context.Context, stmt *sql.Stmt, codes textCodes) error {
	after := ""
	if len(c.ids) > 0 {
		after = c.ids[len(c.ids)-1]
	}
	c.ids, c.locales, c.blobs, c.ends, c.next = c.ids[:0], c.locales[:0], c.blobs[:0], c.ends[:0], 0
	rows, err := stmt.QueryContext(ctx, c.country, after, profileScanChunk)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, locale string
		var blob sql.RawBytes // the driver's bytes, copied below
		if err := rows.Scan(&id, &locale, &blob); err != nil {
			return err
		}
		c.ids = append(c.ids, id)
		c.locales = append(c.locales, codes.of(locale))
		c.blobs = append(c.blobs, blob...)
		c.ends = append(c.ends, len(c.blobs))
	}
	c.done = len(c.ids) < profileScanChunk
	return rows.Err()
}

// CountProfiledIn returns how many panelists have a profile and a panel
// row whose country is one of countries, byte for byte, as
// ScanPanelistsIn reads them: the panelists a send list of those
// countries is drawn from. With no country, none.
func (s *Store) CountProfiledIn(ctx context.Context, countries []string) (int64, error) {
	if len(countries) == 0 {
		return 0, nil
	}
	query, args, err := sqlx.In(`SELECT COUNT(*) FROM panel p JOIN profiles pr ON pr.panelist_id = p.panelist_id WHERE p.country IN (?)`, countries)
	if err != nil {
		return 0, fmt.Errorf("count the profiled panelists of %v: %w", countries, err)
	}
	var n int64
	if err := s.reader.GetContext(ctx, &n, query, args...); err != nil {
		return 0, fmt.Errorf("count the profiled panelists of %v: %w", countries, err)
	}
	return n, nil
}
