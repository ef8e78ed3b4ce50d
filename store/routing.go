package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// RoutingKey is one key invitation tokens are signed with, as stored:
// the key, and when it was made and stops being valid.
type RoutingKey struct {
	domain.SigningKey
	CreatedAt time.Time  `db:"created_at"`
	ExpiresAt *time.Time `db:"expires_at"` // nil for the current key
}

// routingKeysQuery reads the keys valid at a time (RoutingKeys).
const routingKeysQuery = `SELECT key_id, secret, created_at, expires_at FROM routing_keys
	WHERE expires_at IS NULL OR expires_at > ? ORDER BY key_id DESC`

// RoutingKeys are the keys valid at now, newest first: the first signs.
func (s *Store) RoutingKeys(ctx context.Context, now time.Time) ([]RoutingKey, error) {
	var keys []RoutingKey
	err := s.hot.routingKeys.SelectContext(ctx, &keys, now)
	if err != nil {
		return nil, fmt.Errorf("routing keys: %w", err)
	}
	return keys, nil
}

// InvitationKeys are the keys valid at now, newest first, as rules/invite
// opens tokens with them.
func (s *Store) InvitationKeys(ctx context.Context, now time.Time) ([]domain.SigningKey, error) {
	keys, err := s.RoutingKeys(ctx, now)
	if err != nil {
		return nil, err
	}
	out := make([]domain.SigningKey, len(keys))
	for i, k := range keys {
		out[i] = k.SigningKey
	}
	return out, nil
}

// routingSecretSize is the length of a routing key's secret, in bytes.
const routingSecretSize = 32

// NewRoutingSecret is a new routing key's secret: 32 random bytes.
func NewRoutingSecret() []byte {
	secret := make([]byte, routingSecretSize)
	rand.Read(secret) // never fails (crypto/rand)
	return secret
}

// SigningKey is the key invitations are signed with at now: the newest
// valid one, or, when there is none, a first one with a new random secret
// (FirstRoutingKey).
func (s *Store) SigningKey(ctx context.Context, now time.Time) (RoutingKey, error) {
	keys, err := s.RoutingKeys(ctx, now)
	if err != nil {
		return RoutingKey{}, err
	}
	if len(keys) > 0 {
		return keys[0], nil
	}
	return s.FirstRoutingKey(ctx, NewRoutingSecret(), now)
}

// FirstRoutingKey returns the newest key valid at now, or, when there is
// none, stores secret as the first and returns it: in one transaction, so
// two first uses at once make one key, not one that retires the other.
func (s *Store) FirstRoutingKey(ctx context.Context, secret []byte, now time.Time) (RoutingKey, error) {
	var key RoutingKey
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		if err := s.dialect.serialize(ctx, tx, "routing keys"); err != nil {
			return err
		}
		var keys []RoutingKey
		if err := tx.SelectContext(ctx, &keys, routingKeysQuery, now); err != nil {
			return err
		}
		if len(keys) > 0 {
			key = keys[0]
			return nil
		}
		key = RoutingKey{SigningKey: domain.SigningKey{Secret: secret}, CreatedAt: now}
		return tx.GetContext(ctx, &key.ID, `INSERT INTO routing_keys (secret, created_at) VALUES (?, ?) RETURNING key_id`, secret, now)
	})
	if err != nil {
		return RoutingKey{}, fmt.Errorf("first routing key: %w", err)
	}
	return key, nil
}

// RotateRoutingKey makes secret (NewRoutingSecret's) the signing key, in
// one transaction: the keys valid until now stay valid for grace more (0
// ends them now), so that the invitations already sent keep working
// meanwhile.
func (s *Store) RotateRoutingKey(ctx context.Context, secret []byte, now time.Time, grace time.Duration) (RoutingKey, error) {
	if grace < 0 {
		return RoutingKey{}, fmt.Errorf("grace %s is negative", grace)
	}
	key := RoutingKey{SigningKey: domain.SigningKey{Secret: secret}, CreatedAt: now}
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		if err := s.dialect.serialize(ctx, tx, "routing keys"); err != nil {
			return err
		}
		until := now.Add(grace)
		if _, err := tx.ExecContext(ctx, `UPDATE routing_keys SET expires_at = ? WHERE expires_at IS NULL OR expires_at > ?`, until, until); err != nil {
			return err
		}
		return tx.GetContext(ctx, &key.ID, `INSERT INTO routing_keys (secret, created_at) VALUES (?, ?) RETURNING key_id`, secret, now)
	})
	if err != nil {
		return RoutingKey{}, fmt.Errorf("rotate routing key: %w", err)
	}
	return key, nil
}

// RecordRoutings adds decisions to the router's record, in one
// transaction: under load the router's writer records a few hundred
// decisions a batch (web's routing log), so they go many rows to a
// statement, by statements prepared once on the writer
// (routingInserts), never parsed again.
func (s *Store) RecordRoutings(ctx context.Context, decisions []domain.RoutingDecision) error {
	// Prepared before the transaction, which holds SQLite's one writer
	// connection.
	stmts, err := s.routingInserts.prepared(ctx, s.writer, s.dialect)
	if err != nil {
		return fmt.Errorf("record %d routing decisions: %w", len(decisions), err)
	}
	err = inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		args := make([]any, 0, routingInsertRows[0]*routingInsertWidth)
		for rest := decisions; len(rest) > 0; {
			k := 0
			for routingInsertRows[k] > len(rest) {
				k++
			}
			n, stmt := routingInsertRows[k], stmts[k]
			args = args[:0]
			for _, d := range rest[:n] {
				args = append(args, d.At.UTC(), d.PanelistID, nullID(d.Intended), nullID(d.Chosen), string(d.Outcome), d.Reason, d.Cells, max(d.Hop, 1), nullID(d.After))
			}
			if _, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, args...); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record %d routing decisions: %w", len(decisions), err)
	}
	return nil
}

// nullID is an id as a parameter: NULL (nil) for 0, none.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// routingInsertRows are the sizes of the router's record's INSERTs, in
// rows, largest first: a batch takes as many of each as fit, in order.
var routingInsertRows = [...]int{64, 8, 1}

// routingInsertWidth is the parameters of one decision.
const routingInsertWidth = 9

// routingInserts are the router's record's INSERTs, one per size of
// routingInsertRows, prepared on the writer when first used.
type routingInserts struct {
	mu    sync.Mutex
	stmts [len(routingInsertRows)]*sql.Stmt
}

// prepared is the INSERTs, by size (routingInsertRows), prepared on
// writer the first time. Their values are plain parameters (an id of 0
// bound as NULL, nullID) and the verb the dialect's insertInTx: on SQLite
// both are needed for the statement to keep no journal of its own, a
// fifth of the record's cost.
func (r *routingInserts) prepared(ctx context.Context, writer *sqlx.DB, d dialect) ([len(routingInsertRows)]*sql.Stmt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, rows := range routingInsertRows {
		if r.stmts[k] != nil {
			continue
		}
		row := "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
		stmt, err := writer.PrepareContext(ctx, d.insertInTx()+` INTO routing_decisions (at, panelist_id, intended_subsample, chosen_subsample, outcome, reason, cells, hop, after_decision) VALUES `+
			strings.TrimSuffix(strings.Repeat(row+", ", rows), ", "))
		if err != nil {
			return r.stmts, fmt.Errorf("prepare the routing record's insert: %w", err)
		}
		r.stmts[k] = stmt
	}
	return r.stmts, nil
}

// RoutingFilter selects decisions of the record; zero fields select all.
type RoutingFilter struct {
	PanelistID  string
	SubsampleID int64 // intended or chosen
	Outcome     domain.RoutingOutcome
	Since       time.Time
	Until       time.Time // exclusive
}

// where is the filter's SQL condition and arguments.
func (f RoutingFilter) where() filtered {
	var w filtered
	if f.PanelistID != "" {
		w.add("panelist_id = ?", f.PanelistID)
	}
	if f.SubsampleID != 0 {
		w.add("(intended_subsample = ? OR chosen_subsample = ?)", f.SubsampleID, f.SubsampleID)
	}
	if f.Outcome != "" {
		w.add("outcome = ?", string(f.Outcome))
	}
	w.period("at", f.Since, f.Until)
	return w
}

// Routings are the decisions f selects, newest first, limit of them after
// offset (limit 0: all), with the names the current snapshot gives their
// subsamples, and how many f selects in all.
func (s *Store) Routings(ctx context.Context, f RoutingFilter, limit, offset int) ([]domain.RoutingDecision, int, error) {
	var out []domain.RoutingDecision
	w := f.where()
	total, err := s.page(ctx, &out, "routing_decisions", w, `
		SELECT `+routingColumns+`,
			COALESCE((SELECT s.name FROM subsamples s WHERE s.subsample_id = routing_decisions.intended_subsample), '') AS intended_name,
			COALESCE((SELECT s.name FROM subsamples s WHERE s.subsample_id = routing_decisions.chosen_subsample), '') AS chosen_name
		FROM routing_decisions WHERE `+w.where()+` ORDER BY at DESC, decision_id DESC LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("routing decisions: %w", err)
	}
	return out, total, nil
}

// routingCountsQuery counts one subsample's clicks and redirects since a
// time (RoutingCounts).
const routingCountsQuery = `
	SELECT (SELECT COUNT(*) FROM routing_decisions WHERE intended_subsample = ? AND at >= ?),
		(SELECT COUNT(*) FROM routing_decisions WHERE chosen_subsample = ? AND at >= ? AND outcome != 'answer')`

// RoutingCounts says, for one subsample since a time, how many clicks on
// invitations for it there were and how many clicks (on any invitation)
// were sent to it; the next-survey answers that named it are not clicks.
func (s *Store) RoutingCounts(ctx context.Context, subsampleID int64, since time.Time) (clicks, redirects int, err error) {
	err = s.hot.routingCounts.QueryRowxContext(ctx, subsampleID, since.UTC(), subsampleID, since.UTC()).Scan(&clicks, &redirects)
	if err != nil {
		return 0, 0, fmt.Errorf("routing counts of subsample %d: %w", subsampleID, err)
	}
	return clicks, redirects, nil
}
