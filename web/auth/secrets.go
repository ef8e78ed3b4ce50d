// Package auth decides who is asking: users signed in with a password
// (a session cookie, and a CSRF token for every change they ask for) and
// scripts with a bearer token. Passwords are hashed with bcrypt; session
// and token secrets are random and stored as SHA-256 hashes only.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// TokenPrefix starts every bearer token, so a leaked one is recognisable
// (secret scanners, logs).
const TokenPrefix = "fbt_"

// newSecret returns 32 random bytes, URL-safe base64.
func newSecret() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashSecret is how sessions and tokens are found: SHA-256 is enough for
// 256-bit random secrets, and keeps a lookup at one hash.
func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// NewToken returns a new bearer token and the hash to store.
func NewToken() (token string, hash []byte) {
	token = TokenPrefix + newSecret()
	return token, hashSecret(token)
}

// GeneratePassword returns a random password of 20 characters from a
// readable alphabet (no 0/O, 1/l/I).
func GeneratePassword() string {
	const alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// MinPasswordLength is the shortest password a user may choose.
const MinPasswordLength = 12

// HashPassword checks a chosen password and hashes it with bcrypt.
func HashPassword(password string) (string, error) {
	switch {
	case utf8.RuneCountInString(password) < MinPasswordLength:
		return "", fmt.Errorf("the password must have at least %d characters", MinPasswordLength)
	case len(password) > 72:
		return "", errors.New("the password must have at most 72 bytes (bcrypt's limit)")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(hash), nil
}

// ValidUserName checks a user name: 1 to 64 characters, letters, digits
// and . _ - @ only, so it reads well in logs and pages.
func ValidUserName(name string) error {
	if name == "" || len(name) > 64 {
		return errors.New("a user name has 1 to 64 characters")
	}
	if i := strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r))
	}); i >= 0 {
		return fmt.Errorf("a user name has only letters, digits and . _ - @ (not %q)", name[i:i+1])
	}
	return nil
}
