package invite

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

var (
	now  = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	key1 = Key{ID: 1, Secret: []byte("0123456789abcdef0123456789abcdef")}
	key2 = Key{ID: 2, Secret: []byte("fedcba9876543210fedcba9876543210")}
)

func TestSignOpen(t *testing.T) {
	for _, inv := range []Invitation{
		{PanelistID: "P1", SubsampleID: 200102, Expires: now.Add(72 * time.Hour)},
		{PanelistID: "P 1/x&<ü>", Expires: now.Add(time.Second)},
		{PanelistID: strings.Repeat("x", 128), SubsampleID: 1 << 40, Expires: now.Add(24 * time.Hour)},
	} {
		token := Sign(key2, inv)
		if len(token) > MaxTokenLen || strings.ContainsAny(token, "+/=") {
			t.Errorf("token %q: %d characters, or not URL-safe", token, len(token))
		}
		got, err := Open([]Key{key1, key2}, token, now)
		if err != nil || got != inv {
			t.Errorf("Open(Sign(%+v)) = %+v, %v", inv, got, err)
		}
	}
}

// TestOpenRefuses: every token that was not signed as it stands by a key
// given, or has expired, is ErrInvalid, whatever was changed.
func TestOpenRefuses(t *testing.T) {
	inv := Invitation{PanelistID: "P1", SubsampleID: 200102, Expires: now.Add(time.Hour)}
	good := Sign(key1, inv)
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	refused := map[string]string{
		"expired":             Sign(key1, Invitation{PanelistID: "P1", Expires: now}),
		"unknown key":         Sign(Key{ID: 9, Secret: key1.Secret}, inv),
		"key id of another":   Sign(Key{ID: 2, Secret: key1.Secret}, inv),
		"retired key":         Sign(Key{ID: 3, Secret: []byte("another secret")}, inv),
		"empty":               "",
		"not base64":          good[:10] + "*" + good[11:],
		"too short":           good[:20],
		"too long":            strings.Repeat("A", MaxTokenLen+1),
		"no panelist":         Sign(key1, Invitation{SubsampleID: 1, Expires: now.Add(time.Hour)}),
		"padded":              good + "=",
		"the signature alone": base64.RawURLEncoding.EncodeToString(raw[len(raw)-macSize:]),
	}
	for i := range raw {
		for _, bit := range []byte{1, 0x80} {
			altered := append([]byte(nil), raw...)
			altered[i] ^= bit
			if _, err := Open([]Key{key1, key2}, base64.RawURLEncoding.EncodeToString(altered), now); err != ErrInvalid {
				t.Errorf("byte %d xor %#x: %v, want ErrInvalid", i, bit, err)
			}
		}
	}
	for name, token := range refused {
		if got, err := Open([]Key{key1, key2}, token, now); err != ErrInvalid {
			t.Errorf("%s: Open = %+v, %v; want ErrInvalid", name, got, err)
		}
	}
	// One spelling: a last character that differs only in its unused
	// bits decodes to the same bytes, and is refused all the same.
	for _, inv := range []Invitation{inv, {PanelistID: "P12", Expires: now.Add(time.Hour)}, {PanelistID: "P123", Expires: now.Add(time.Hour)}} {
		token := Sign(key1, inv)
		const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		last := strings.IndexByte(alphabet, token[len(token)-1])
		for bits := 1; bits < 16; bits++ { // the low bits of the last character
			other := token[:len(token)-1] + string(alphabet[last^bits])
			if _, err := base64.RawURLEncoding.DecodeString(other); err != nil {
				continue // not base64 at all
			}
			if _, err := Open([]Key{key1}, other, now); err != ErrInvalid {
				t.Errorf("%q, a second spelling of %q, opens: %v", other, token, err)
			}
		}
	}
	if _, err := Open([]Key{key2}, good, now); err != ErrInvalid {
		t.Errorf("a token of key 1 opened with key 2 alone: %v", err)
	}
	if _, err := Open([]Key{key1}, good, now); err != nil {
		t.Errorf("the good token: %v", err)
	}
}

// TestPeekReadsWhatOpenOpens: Peek gives the key id and the panelist of
// every token Open takes, and refuses what Open could never take.
func TestPeekReadsWhatOpenOpens(t *testing.T) {
	for _, inv := range []Invitation{
		{PanelistID: "P1", SubsampleID: 200102, Expires: now.Add(72 * time.Hour)},
		{PanelistID: "P 1/x&<ü>", Expires: now.Add(time.Second)},
	} {
		for _, key := range []Key{key1, key2} {
			token := Sign(key, inv)
			id, panelist, err := Peek(token)
			if err != nil || id != key.ID || panelist != inv.PanelistID {
				t.Errorf("Peek(Sign(%d, %+v)) = %d, %q, %v", key.ID, inv, id, panelist, err)
			}
		}
	}
	good := Sign(key1, Invitation{PanelistID: "P1", Expires: now.Add(time.Hour)})
	for name, token := range map[string]string{"empty": "", "not base64": good[:10] + "*" + good[11:], "too short": good[:20],
		"too long": strings.Repeat("A", MaxTokenLen+1), "padded": good + "="} {
		if _, _, err := Peek(token); err != ErrInvalid {
			t.Errorf("%s: Peek = %v, want ErrInvalid", name, err)
		}
	}
}
