// Package invite makes and opens invitation tokens: the panelist, the
// subsample the invitation was for (optional) and an expiry, signed with
// HMAC-SHA256 so that a token can be neither guessed nor altered. It is
// pure: the keys and the time are passed in.
//
// A token is base64url (no padding) of
//
//	version (1) | key id (uvarint) | expiry, Unix seconds (varint) |
//	subsample id (uvarint, 0 for none) | panelist id (the rest)
//
// followed by the 32 bytes of HMAC-SHA256 over all of that under the key.
// The panelist id can be read by whoever holds the token (it is in the
// entry link the token leads to as well); it cannot be changed.
package invite

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// Invitation is what a token carries.
type Invitation struct {
	PanelistID string
	// SubsampleID is the subsample the invitation was sent for; 0 when
	// the router is to choose.
	SubsampleID int64
	Expires     time.Time
}

// Key is one signing key (the store's domain.SigningKey): Open accepts
// the tokens of every key it is given, Sign signs with the one it is
// given.
type Key = domain.SigningKey

const (
	version = 1
	macSize = sha256.Size
	// MaxTokenLen bounds what Open reads: a token of a 128-byte panelist
	// id is about 240 characters.
	MaxTokenLen = 512
)

// ErrInvalid is every reason a token is refused: malformed, signed by no
// key given, altered, or expired. Callers say nothing more to the client.
var ErrInvalid = errors.New("invalid or expired invitation")

// Sign makes the token of inv under key.
func Sign(key Key, inv Invitation) string {
	b := make([]byte, 0, 1+3*binary.MaxVarintLen64+len(inv.PanelistID)+macSize)
	b = append(b, version)
	b = binary.AppendUvarint(b, uint64(key.ID))
	b = binary.AppendVarint(b, inv.Expires.Unix())
	b = binary.AppendUvarint(b, uint64(inv.SubsampleID))
	b = append(b, inv.PanelistID...)
	b = mac(key.Secret, b).Sum(b)
	return encoding.EncodeToString(b)
}

// encoding spells tokens: base64url without padding, strict, so that one
// token has one spelling (the unused bits of its last character are 0).
var encoding = base64.RawURLEncoding.Strict()

// Open checks token against keys and the time now and returns what it
// carries, or ErrInvalid.
func Open(keys []Key, token string, now time.Time) (Invitation, error) {
	if len(token) > MaxTokenLen {
		return Invitation{}, ErrInvalid
	}
	b, err := encoding.DecodeString(token)
	if err != nil || len(b) < 1+macSize || b[0] != version {
		return Invitation{}, ErrInvalid
	}
	payload, sum := b[:len(b)-macSize], b[len(b)-macSize:]
	rest := payload[1:]
	keyID, n := binary.Uvarint(rest)
	if n <= 0 {
		return Invitation{}, ErrInvalid
	}
	rest = rest[n:]
	var secret []byte
	for _, k := range keys {
		if uint64(k.ID) == keyID {
			secret = k.Secret
		}
	}
	if secret == nil || !hmac.Equal(mac(secret, payload).Sum(nil), sum) {
		return Invitation{}, ErrInvalid
	}
	expires, n := binary.Varint(rest)
	if n <= 0 {
		return Invitation{}, ErrInvalid
	}
	rest = rest[n:]
	subsample, n := binary.Uvarint(rest)
	if n <= 0 || subsample > 1<<62 {
		return Invitation{}, ErrInvalid
	}
	inv := Invitation{PanelistID: string(rest[n:]), SubsampleID: int64(subsample), Expires: time.Unix(expires, 0).UTC()}
	if !now.Before(inv.Expires) || inv.PanelistID == "" {
		return Invitation{}, ErrInvalid
	}
	return inv, nil
}

// Peek reads the key id and the panelist id token says it carries,
// without checking its signature or expiry, so that the key can be read
// with the panelist's rows: only Open, given that key, says whether to
// believe them. A token Open could never take (malformed) is ErrInvalid.
func Peek(token string) (keyID int64, panelistID string, err error) {
	if len(token) > MaxTokenLen {
		return 0, "", ErrInvalid
	}
	b, err := encoding.DecodeString(token)
	if err != nil || len(b) < 1+macSize || b[0] != version {
		return 0, "", ErrInvalid
	}
	rest := b[1 : len(b)-macSize]
	id, n := binary.Uvarint(rest)
	if n <= 0 || id > 1<<62 {
		return 0, "", ErrInvalid
	}
	rest = rest[n:]
	if _, n = binary.Varint(rest); n <= 0 {
		return 0, "", ErrInvalid
	}
	rest = rest[n:]
	if _, n = binary.Uvarint(rest); n <= 0 {
		return 0, "", ErrInvalid
	}
	return int64(id), string(rest[n:]), nil
}

// mac is HMAC-SHA256 under secret, payload written.
func mac(secret, payload []byte) hash.Hash {
	h := hmac.New(sha256.New, secret)
	h.Write(payload)
	return h
}

// ParsePublicURL checks the address panelists reach the server at, where
// invitation links point (Link): an absolute http or https URL with no
// query or fragment. It returns it without a trailing slash.
func ParsePublicURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", fmt.Errorf("public URL %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return "", fmt.Errorf("public URL %q is not an absolute http or https address", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return "", fmt.Errorf("public URL %q has a query, fragment or user name; give the bare address, e.g. https://go.example.com", raw)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// Link is the invitation link of token under publicURL (ParsePublicURL's).
func Link(publicURL, token string) string { return publicURL + "/r/" + token }
