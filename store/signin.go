package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// What the sign-in limits count failures by (signin_failures.kind).
const (
	SignInByUser    = "user"    // the user name, lower-cased
	SignInByAddress = "address" // the client's address (an IPv6 /64 as one)
)

// SignInKey is what one sign-in limit counts an attempt's failure under.
type SignInKey struct{ Kind, Key string }

// ReserveSignIn decides whether a sign-in attempt may be made, and counts
// it as failed before it is made, in one transaction that every sign-in
// on every instance takes one after the other: attempts made at once
// cannot all pass the limits, and each decision sees the failures of all
// the others. It reads the failures after since of each key, oldest
// first, and calls decide with them (recent[i] are keys[i]'s); decide
// returns which keys this attempt counts a failure for, and those are
// counted at now. ReserveSignIn returns their ids (0 for a key not
// counted), for UndoSignInFailure when the attempt succeeds. Failures of
// the keys' kinds from since or earlier are deleted on the way.
func (s *Store) ReserveSignIn(ctx context.Context, keys []SignInKey, since, now time.Time, decide func(recent [][]time.Time) (count []bool)) ([]int64, error) {
	ids := make([]int64, len(keys))
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		if err := s.beginSignIn(ctx, tx, keys, since); err != nil {
			return err
		}
		recent := make([][]time.Time, len(keys))
		for i, k := range keys {
			if err := tx.SelectContext(ctx, &recent[i], `SELECT at FROM signin_failures WHERE kind = ? AND key = ? AND at > ? ORDER BY at, failure_id`,
				k.Kind, k.Key, since); err != nil {
				return err
			}
		}
		for i, count := range decide(recent) {
			if count {
				if err := tx.GetContext(ctx, &ids[i], `INSERT INTO signin_failures (kind, key, at) VALUES (?, ?, ?) RETURNING failure_id`,
					keys[i].Kind, keys[i].Key, now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count a sign-in attempt: %w", err)
	}
	return ids, nil
}

// AddSignInFailure counts a failure of key at now, whatever its count (an
// attempt let through a lock that failed).
func (s *Store) AddSignInFailure(ctx context.Context, key SignInKey, since, now time.Time) error {
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		if err := s.beginSignIn(ctx, tx, []SignInKey{key}, since); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signin_failures (kind, key, at) VALUES (?, ?, ?)`, key.Kind, key.Key, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("count a failed sign-in of %s %q: %w", key.Kind, key.Key, err)
	}
	return nil
}

// beginSignIn serializes tx with every other sign-in transaction, on any
// instance, and deletes the failures of the keys' kinds from since or
// earlier. On SQLite the delete is the transaction's first statement and
// a write: it takes the file's write lock before anything is read, so
// another process sharing the file cannot count between this one's check
// and its count.
func (s *Store) beginSignIn(ctx context.Context, tx *sqlx.Tx, keys []SignInKey, since time.Time) error {
	if err := s.dialect.serialize(ctx, tx, "sign-in"); err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, `DELETE FROM signin_failures WHERE kind = ? AND at <= ?`, k.Kind, since); err != nil {
			return err
		}
	}
	return nil
}

// UndoSignInFailure takes back a failure ReserveSignIn counted as id. One
// already gone is no error.
func (s *Store) UndoSignInFailure(ctx context.Context, id int64) error {
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM signin_failures WHERE failure_id = ?`, id); err != nil {
		return fmt.Errorf("take back a counted sign-in: %w", err)
	}
	return nil
}

// ForgetSignInFailures clears key's failures (a user who signed in).
func (s *Store) ForgetSignInFailures(ctx context.Context, key SignInKey) error {
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM signin_failures WHERE kind = ? AND key = ?`, key.Kind, key.Key); err != nil {
		return fmt.Errorf("forget the failed sign-ins of %s %q: %w", key.Kind, key.Key, err)
	}
	return nil
}
