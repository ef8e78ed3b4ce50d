package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
)

// ErrExists is returned when a user or token of that name already exists.
var ErrExists = errors.New("already exists")

// User is one person who may sign in.
type User struct {
	Name              string    `db:"name"`
	Role              Role      `db:"role"`
	CreatedAt         time.Time `db:"created_at"`
	PasswordChangedAt time.Time `db:"password_changed_at"`
}

// Session is one signed-in browser. The browser holds the secret; the
// store only its hash.
type Session struct {
	SecretHash []byte    `db:"secret_hash"`
	UserName   string    `db:"user_name"`
	CSRFToken  string    `db:"csrf_token"`
	CreatedAt  time.Time `db:"created_at"`
	ExpiresAt  time.Time `db:"expires_at"`
	// Role is the user's role now (SessionOf), not stored with the
	// session: a change of role holds at the user's next request.
	Role Role `db:"role"`
}

// Token is one script's bearer token, by the name it was created with.
type Token struct {
	Name string `db:"name"`
	// Role is what the token may do. TokenOf narrows it to its maker's
	// role now, should the maker have lost rights since.
	Role Role `db:"role"`
	// CreatedBy is the user who made it; "" when made on the command
	// line.
	CreatedBy string    `db:"created_by"`
	CreatedAt time.Time `db:"created_at"`
	// RevokedAt is when it was revoked; nil while it lets its script in.
	RevokedAt *time.Time `db:"revoked_at"`
}

// AddUser stores a new user with a role and a password hash, or returns
// an error wrapping ErrExists.
func (s *Store) AddUser(ctx context.Context, name string, role Role, passwordHash string, now time.Time) error {
	if role.rank() == 0 {
		return fmt.Errorf("add user %q: unknown role %q", name, role)
	}
	_, err := s.writer.ExecContext(ctx, `INSERT INTO users (name, role, password_hash, created_at, password_changed_at) VALUES (?, ?, ?, ?, ?)`,
		name, role, passwordHash, now, now)
	if s.dialect.uniqueViolation(err) {
		return fmt.Errorf("user %q: %w", name, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("add user %q: %w", name, err)
	}
	return nil
}

// SetPassword replaces a user's password hash and ends every session of
// the user, in one transaction, or returns an error wrapping ErrNotFound.
func (s *Store) SetPassword(ctx context.Context, name, passwordHash string, now time.Time) error {
	return inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, password_changed_at = ? WHERE name = ?`, passwordHash, now, name)
		if err != nil {
			return fmt.Errorf("password of %q: %w", name, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("user %q: %w", name, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_name = ?`, name); err != nil {
			return fmt.Errorf("sessions of %q: %w", name, err)
		}
		return nil
	})
}

// PasswordHash returns a user's password hash, or an error wrapping
// ErrNotFound.
func (s *Store) PasswordHash(ctx context.Context, name string) (string, error) {
	var hash string
	err := s.reader.GetContext(ctx, &hash, `SELECT password_hash FROM users WHERE name = ?`, name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("user %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("user %q: %w", name, err)
	}
	return hash, nil
}

// Users lists the users by name.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	out := []User{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT name, role, created_at, password_changed_at FROM users ORDER BY name`); err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	return out, nil
}

// CreateSession stores a session, and deletes the sessions that expired.
func (s *Store) CreateSession(ctx context.Context, sess Session) error {
	return inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, sess.CreatedAt); err != nil {
			return fmt.Errorf("expired sessions: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (secret_hash, user_name, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			sess.SecretHash, sess.UserName, sess.CSRFToken, sess.CreatedAt, sess.ExpiresAt); err != nil {
			return fmt.Errorf("session of %q: %w", sess.UserName, err)
		}
		return nil
	})
}

// SessionOf returns the session whose secret hashes to secretHash if it has
// not expired at now, or an error wrapping ErrNotFound.
func (s *Store) SessionOf(ctx context.Context, secretHash []byte, now time.Time) (Session, error) {
	var sess Session
	err := s.reader.GetContext(ctx, &sess, `
		SELECT s.secret_hash, s.user_name, s.csrf_token, s.created_at, s.expires_at, u.role
		FROM sessions s JOIN users u ON u.name = s.user_name
		WHERE s.secret_hash = ? AND s.expires_at > ?`, secretHash, now)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session: %w", ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", err)
	}
	return sess, nil
}

// DeleteSession ends a session (signing out). Ending one that does not
// exist is not an error.
func (s *Store) DeleteSession(ctx context.Context, secretHash []byte) error {
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM sessions WHERE secret_hash = ?`, secretHash); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}

// CreateToken stores a bearer token's hash under t.Name with t.Role,
// made by t.CreatedBy ("" for the command line) at t.CreatedAt. It
// returns an error wrapping ErrExists when the name is taken (by a
// revoked token too), ErrNotFound when the maker is no user, or a
// *TooWideError when the role is wider than the maker's (tokenWithin).
func (s *Store) CreateToken(ctx context.Context, t Token, secretHash []byte) error {
	if t.Role.rank() == 0 {
		return fmt.Errorf("create token %q: unknown role %q", t.Name, t.Role)
	}
	return inTx(ctx, s.writer, func(tx *sqlx.Tx) error {
		var maker *string
		if t.CreatedBy != "" {
			var makerRole Role
			err := tx.GetContext(ctx, &makerRole, `SELECT role FROM users WHERE name = ?`, t.CreatedBy)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("maker of token %q, user %q: %w", t.Name, t.CreatedBy, ErrNotFound)
			}
			if err != nil {
				return fmt.Errorf("maker of token %q: %w", t.Name, err)
			}
			if err := tokenWithin(t.CreatedBy, makerRole, t.Role); err != nil {
				return err
			}
			maker = &t.CreatedBy
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO api_tokens (secret_hash, name, role, created_by, created_at) VALUES (?, ?, ?, ?, ?)`,
			secretHash, t.Name, t.Role, maker, t.CreatedAt)
		if s.dialect.uniqueViolation(err) {
			return fmt.Errorf("token %q: %w", t.Name, ErrExists)
		}
		if err != nil {
			return fmt.Errorf("create token %q: %w", t.Name, err)
		}
		return nil
	})
}

// tokenOfQuery reads a token that is not revoked, with its maker's role
// now ("" when made on the command line).
const tokenOfQuery = `SELECT t.name, t.role, COALESCE(t.created_by, '') AS created_by, t.created_at, t.revoked_at, COALESCE(u.role, '') AS maker_role
	FROM api_tokens t LEFT JOIN users u ON u.name = t.created_by
	WHERE t.secret_hash = ? AND t.revoked_at IS NULL`

// TokenOf returns the token whose secret hashes to secretHash, or an error
// wrapping ErrNotFound. A token found is kept for tokenCacheFor
// (tokenCache): a script's every request asks for it.
func (s *Store) TokenOf(ctx context.Context, secretHash []byte) (Token, error) {
	t, gen, ok := s.tokens.get(secretHash)
	if ok {
		return t, nil
	}
	var row struct {
		Token
		MakerRole Role `db:"maker_role"`
	}
	err := s.hot.tokenOf.GetContext(ctx, &row, secretHash)
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, fmt.Errorf("token: %w", ErrNotFound)
	}
	if err != nil {
		return Token{}, fmt.Errorf("token: %w", err)
	}
	t = row.Token
	if t.CreatedBy != "" {
		// The maker lost rights since, or is gone: the token holds no
		// more than the maker does now.
		if tokenWithin(t.CreatedBy, row.MakerRole, t.Role) != nil {
			t.Role = row.MakerRole
			if t.Role.rank() == 0 {
				t.Role = RoleViewer
			}
		}
	}
	s.tokens.put(secretHash, t, gen)
	return t, nil
}

// tokenCacheFor is how long TokenOf keeps a token it found: how long a
// token revoked by another process (the command line, another instance)
// may still be taken by this one. One revoked through this store is
// refused at once.
const tokenCacheFor = time.Second

// tokenCache keeps the tokens TokenOf found lately, by secret hash, each
// for tokenCacheFor. Only tokens found are kept: a token just created is
// read at its first use, and a wrong one at every use.
type tokenCache struct {
	mu    sync.Mutex
	found map[string]cachedToken
	// gen counts the revocations: a token read before one is not kept.
	gen uint64
}

type cachedToken struct {
	Token
	at time.Time
}

// maxCachedTokens bounds the cache: there are a few tokens, one per
// script.
const maxCachedTokens = 256

// get returns the token of secretHash when it is kept, else the
// generation to put it with once read.
func (c *tokenCache) get(secretHash []byte) (Token, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.found[string(secretHash)]
	if !ok || time.Since(t.at) >= tokenCacheFor {
		return Token{}, c.gen, false
	}
	return t.Token, c.gen, true
}

// put keeps t, read in generation gen, unless a token was revoked since.
func (c *tokenCache) put(secretHash []byte, t Token, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.found == nil || len(c.found) >= maxCachedTokens {
		c.found = map[string]cachedToken{}
	}
	c.found[string(secretHash)] = cachedToken{Token: t, at: time.Now()}
}

// forget empties the cache: a token was revoked.
func (c *tokenCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.found, c.gen = nil, c.gen+1
}

// RevokeToken marks the token called name revoked at now, or returns an
// error wrapping ErrNotFound when there is none or it was revoked
// already. A revoked token stays listed (Tokens).
func (s *Store) RevokeToken(ctx context.Context, name string, now time.Time) error {
	res, err := s.writer.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL`, now, name)
	s.tokens.forget() // whether or not the delete went through: it may have
	if err != nil {
		return fmt.Errorf("revoke token %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("token %q: %w", name, ErrNotFound)
	}
	return nil
}

// Tokens lists the bearer tokens by name (never their secrets), revoked
// ones too, each with the role it was made with.
func (s *Store) Tokens(ctx context.Context) ([]Token, error) {
	out := []Token{}
	if err := s.reader.SelectContext(ctx, &out, `SELECT name, role, COALESCE(created_by, '') AS created_by, created_at, revoked_at FROM api_tokens ORDER BY name`); err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	return out, nil
}
