package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Role is what a user or a bearer token may do. Each role may do all the
// one before it may: a viewer reads and downloads, a coordinator also
// changes data and decisions, an admin also manages users, tokens and
// webhooks.
type Role string

// The roles, narrowest first (Roles).
const (
	RoleViewer      Role = "viewer"
	RoleCoordinator Role = "coordinator"
	RoleAdmin       Role = "admin"
)

// Roles are the roles, narrowest first.
var Roles = []Role{RoleViewer, RoleCoordinator, RoleAdmin}

// ParseRole returns the role named s, or an error listing the roles.
func ParseRole(s string) (Role, error) {
	for _, r := range Roles {
		if string(r) == s {
			return r, nil
		}
	}
	names := make([]string, len(Roles))
	for i, r := range Roles {
		names[i] = string(r)
	}
	return "", fmt.Errorf("unknown role %q (one of %s)", s, strings.Join(names, ", "))
}

// Covers reports whether r may do all that need may. An unknown role
// covers nothing.
func (r Role) Covers(need Role) bool {
	have, want := r.rank(), need.rank()
	return have > 0 && have >= want
}

func (r Role) rank() int {
	for i, known := range Roles {
		if r == known {
			return i + 1
		}
	}
	return 0
}

// ErrLastAdmin is a change of role refused because it would leave no
// admin, and nobody to manage users and tokens from the dashboard.
var ErrLastAdmin = errors.New("it would leave no admin")

// TooWideError is a token refused because it would have more rights than
// the user making it.
type TooWideError struct {
	Maker     string
	MakerRole Role
	Want      Role
}

func (e *TooWideError) Error() string {
	return fmt.Sprintf("%s, a %s, cannot make a token with the %s role: a token's rights are never wider than its maker's", e.Maker, e.MakerRole, e.Want)
}

// tokenWithin is the rule that a token's rights are never wider than its
// maker's: nil when a user called makerName, of role maker, may hold a
// token of role want, else a *TooWideError. A token made on the command
// line (no maker) may have any role: whoever runs it holds the database.
// CreateToken refuses what it refuses; TokenOf narrows to the maker's
// role now what it would refuse now.
func tokenWithin(makerName string, maker, want Role) error {
	if makerName == "" || maker.Covers(want) {
		return nil
	}
	return &TooWideError{Maker: makerName, MakerRole: maker, Want: want}
}

// SetUserRole changes a user's role, or returns an error wrapping
// ErrNotFound or ErrLastAdmin. The change holds at the user's next
// request, and for the tokens the user made (TokenOf).
func (s *Store) SetUserRole(ctx context.Context, name string, role Role) error {
	if role.rank() == 0 {
		return fmt.Errorf("role of %q: unknown role %q", name, role)
	}
	err := inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		// Two admins taking each other's role at once must not both
		// succeed.
		if err := s.dialect.serialize(ctx, tx, "roles"); err != nil {
			return err
		}
		var was Role
		err := tx.GetContext(ctx, &was, `SELECT role FROM users WHERE name = ?`, name)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("user %q: %w", name, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("role of %q: %w", name, err)
		}
		if was == RoleAdmin && role != RoleAdmin {
			var admins int
			if err := tx.GetContext(ctx, &admins, `SELECT COUNT(*) FROM users WHERE role = ?`, RoleAdmin); err != nil {
				return fmt.Errorf("count the admins: %w", err)
			}
			if admins <= 1 {
				return fmt.Errorf("%s is the only admin; making them a %s: %w", name, role, ErrLastAdmin)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET role = ? WHERE name = ?`, role, name); err != nil {
			return fmt.Errorf("role of %q: %w", name, err)
		}
		return nil
	})
	s.tokens.forget() // the user's tokens may have narrowed
	return err
}
