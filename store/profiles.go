package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"fieldboard/rules/domain"
)

// ProfileOf returns one panelist's profile. A panelist without a profile
// has an empty one (no answers, no birth date), which is not an error.
func (s *Store) ProfileOf(ctx context.Context, panelistID string) (domain.Profile, error) {
	p := domain.Profile{Answers: map[int64][]int64{}}
	var blob []byte
	err := s.reader.GetContext(ctx, &blob, `SELECT answers FROM profiles WHERE panelist_id = ?`, panelistID)
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

// profileScanChunk is how many panelists ScanProfiles reads per query.
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
// The profiles are read in chunks of profileScanChunk panelists, each one
// query for the next range of the key, all inside one read transaction on
// the reader pool: every chunk sees the same snapshot, memory is bounded by
// one chunk, and fn is called between queries, never while one is open.
// fn runs inside the read transaction: a slow fn delays WAL checkpoints,
// never a writer.
func (s *Store) ScanProfiles(ctx context.Context, fn func(panelistID string, p domain.Profile) error) error {
	tx, err := s.reader.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("scan profiles: begin: %w", err)
	}
	defer tx.Rollback()
	first, err := tx.PrepareContext(ctx, `SELECT panelist_id, answers FROM profiles ORDER BY panelist_id LIMIT ?`)
	if err != nil {
		return fmt.Errorf("scan profiles: prepare: %w", err)
	}
	defer first.Close()
	after, err := tx.PrepareContext(ctx, `SELECT panelist_id, answers FROM profiles WHERE panelist_id > ? ORDER BY panelist_id LIMIT ?`)
	if err != nil {
		return fmt.Errorf("scan profiles: prepare: %w", err)
	}
	defer after.Close()

	var c profileChunk
	p := domain.Profile{Answers: make(map[int64][]int64, 16)}
	var arena []int64
	for {
		if len(c.ids) == 0 {
			err = c.read(ctx, first, profileScanChunk)
		} else {
			err = c.read(ctx, after, c.ids[len(c.ids)-1], profileScanChunk)
		}
		if err != nil {
			return fmt.Errorf("scan profiles: %w", err)
		}
		for i, id := range c.ids {
			clear(p.Answers)
			p.BirthDate = time.Time{}
			if arena, err = decodeProfile(c.blob(i), &p, arena[:0]); err != nil {
				return fmt.Errorf("scan profiles: panelist %q: %w", id, err)
			}
			if err := fn(id, p); err != nil {
				return err
			}
		}
		if len(c.ids) < profileScanChunk {
			return nil
		}
	}
}

// profileChunk is one chunk of ScanProfiles: the panelist ids and their
// packed profiles back to back.
type profileChunk struct {
	ids   []string
	blobs []byte
	ends  []int
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

// ProfilesOf returns the profiles of the panelists of ids that have one,
// by panelist id; the others are absent. One query: the caller passes a
// chunk (a bulk check's 500), not a whole file.
func (s *Store) ProfilesOf(ctx context.Context, ids []string) (map[string]domain.Profile, error) {
	out := make(map[string]domain.Profile, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT panelist_id, answers FROM profiles WHERE panelist_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("profiles of %d panelists: %w", len(ids), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return nil, fmt.Errorf("profiles of %d panelists: %w", len(ids), err)
		}
		p := domain.Profile{Answers: map[int64][]int64{}}
		if _, err := decodeProfile(blob, &p, nil); err != nil {
			return nil, fmt.Errorf("profile of panelist %q: %w", id, err)
		}
		out[id] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("profiles of %d panelists: %w", len(ids), err)
	}
	return out, nil
}
