package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Lease names: the jobs of which one instance at a time does the work
// when several serve on one database.
const (
	LeaseRefresh  = "refresh"  // a refresh, scheduled or on demand
	LeaseWebhooks = "webhooks" // the webhook delivery worker
)

// Lease is a named lease as the database holds it: who holds it, since
// and until when, and its fencing token. Holder "" is nobody.
type Lease struct {
	Name       string    `db:"name"`
	Holder     string    `db:"holder"`
	Token      int64     `db:"token"`
	AcquiredAt time.Time `db:"acquired_at"`
	ExpiresAt  time.Time `db:"expires_at"`
}

// HeldBy reports whether holder holds the lease at now.
func (l Lease) HeldBy(holder string, now time.Time) bool {
	return holder != "" && l.Holder == holder && now.Before(l.ExpiresAt)
}

// Free reports whether nobody holds the lease at now.
func (l Lease) Free(now time.Time) bool { return l.Holder == "" || !now.Before(l.ExpiresAt) }

// ErrLeaseLost is returned when a lease is renewed, released or written
// under by a holder whose tenure ended: it ran out, or another took it.
var ErrLeaseLost = errors.New("the lease was lost")

// AcquireLease takes the lease name for holder until now+ttl when it is
// free (never taken, released, or run out) or already holder's, and
// returns the lease as it stands after: holder's, or, when another holds
// it, the other's (compare Holder). A lease taken anew gets a new token;
// holder's own lease still running is renewed and keeps its token. The
// one upsert is atomic on both engines: two instances asking at once
// cannot both get it.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (Lease, error) {
	if holder == "" {
		return Lease{}, errors.New("acquire lease: no holder given")
	}
	var l Lease
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO leases (name, holder, token, acquired_at, expires_at) VALUES (?, ?, 1, ?, ?)
			ON CONFLICT (name) DO UPDATE SET
				token = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ? THEN leases.token ELSE leases.token + 1 END,
				acquired_at = CASE WHEN leases.holder = excluded.holder AND leases.expires_at > ? THEN leases.acquired_at ELSE excluded.acquired_at END,
				holder = excluded.holder,
				expires_at = excluded.expires_at
			WHERE leases.holder = excluded.holder OR leases.holder = '' OR leases.expires_at <= ?`,
			name, holder, now, now.Add(ttl), now, now, now)
		if err != nil {
			return err
		}
		return tx.GetContext(ctx, &l, `SELECT name, holder, token, acquired_at, expires_at FROM leases WHERE name = ?`, name)
	})
	if err != nil {
		return Lease{}, fmt.Errorf("acquire lease %s: %w", name, err)
	}
	return l, nil
}

// RenewLease extends l to now+ttl if its holder still holds it: the same
// token, not run out at now. Otherwise it returns ErrLeaseLost, and the
// holder must stop the work the lease was for.
func (s *Store) RenewLease(ctx context.Context, l Lease, now time.Time, ttl time.Duration) (Lease, error) {
	res, err := s.writer.ExecContext(ctx, `
		UPDATE leases SET expires_at = ?
		WHERE name = ? AND holder = ? AND token = ? AND expires_at > ?`,
		now.Add(ttl), l.Name, l.Holder, l.Token, now)
	if err != nil {
		return l, fmt.Errorf("renew lease %s: %w", l.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return l, fmt.Errorf("renew lease %s: %w", l.Name, cmp.Or(err, ErrLeaseLost))
	}
	l.ExpiresAt = now.Add(ttl)
	return l, nil
}

// ReleaseLease gives l up at now, so another may take it at once. A lease
// already lost is left as it is (ErrLeaseLost).
func (s *Store) ReleaseLease(ctx context.Context, l Lease, now time.Time) error {
	res, err := s.writer.ExecContext(ctx, `
		UPDATE leases SET holder = '', expires_at = ? WHERE name = ? AND holder = ? AND token = ?`,
		now, l.Name, l.Holder, l.Token)
	if err != nil {
		return fmt.Errorf("release lease %s: %w", l.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("release lease %s: %w", l.Name, cmp.Or(err, ErrLeaseLost))
	}
	return nil
}

// leaseOfQuery reads one lease (LeaseOf).
const leaseOfQuery = `SELECT name, holder, token, acquired_at, expires_at FROM leases WHERE name = ?`

// LeaseOf returns the lease name as it stands, or ErrNotFound when it was
// never taken.
func (s *Store) LeaseOf(ctx context.Context, name string) (Lease, error) {
	var l Lease
	err := s.hot.leaseOf.GetContext(ctx, &l, name)
	if err != nil {
		return Lease{}, fmt.Errorf("lease %s: %w", name, notFound(err))
	}
	return l, nil
}

// Fenced returns the store as seen by the holder of l: the refresh's
// writes through it (SaveEvents, SaveSubsampleDetail, SaveReference,
// SaveLibrary, RecordFailure) first check, in their own transaction, that
// l's tenure still holds, and write nothing otherwise (ErrLeaseLost). The
// check locks the lease's row (a write to it), so another instance cannot
// take the lease until the write commits: a snapshot is committed under
// the lease or not at all. It shares the original's connections: close
// only the original.
func (s *Store) Fenced(l Lease) *Store {
	fenced := *s
	fenced.fence = &l
	return &fenced
}

// writeTx is inTx on the writer, checking the fence first when the store
// is fenced.
func (s *Store) writeTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return s.writeConnTx(ctx, func(_ *sqlx.Conn, tx *sqlx.Tx) error { return fn(tx) })
}

// writeConnTx is writeTx for a write that also needs the connection its
// transaction is open on (a COPY on PostgreSQL, copyFrom).
func (s *Store) writeConnTx(ctx context.Context, fn func(conn *sqlx.Conn, tx *sqlx.Tx) error) error {
	conn, err := s.writer.Connx(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	return inTx(ctx, conn, func(tx *sqlx.Tx) error {
		if s.fence != nil {
			res, err := tx.ExecContext(ctx, `UPDATE leases SET token = token WHERE name = ? AND holder = ? AND token = ?`,
				s.fence.Name, s.fence.Holder, s.fence.Token)
			if err != nil {
				return fmt.Errorf("check lease %s: %w", s.fence.Name, err)
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return fmt.Errorf("check lease %s: %w", s.fence.Name, cmp.Or(err, ErrLeaseLost))
			}
		}
		return fn(conn, tx)
	})
}
