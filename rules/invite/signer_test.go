package invite

import (
	"strings"
	"testing"
	"time"
)

// TestSigner: a signer's links open, under its key, to the panelist and
// subsample with its expiry; an invitation valid for no time is refused.
func TestSigner(t *testing.T) {
	key := Key{ID: 7, Secret: []byte("secret")}
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	g, err := NewSigner(key, now, 2*time.Hour, "https://go.example.com")
	if err != nil {
		t.Fatal(err)
	}
	token, ok := strings.CutPrefix(g.Link("P1", 42), "https://go.example.com/r/")
	if !ok || token != g.Token("P1", 42) {
		t.Fatalf("link %q is not PUBLIC-URL/r/TOKEN", g.Link("P1", 42))
	}
	inv, err := Open([]Key{key}, token, now)
	if want := (Invitation{PanelistID: "P1", SubsampleID: 42, Expires: now.Add(2 * time.Hour)}); err != nil || inv != want {
		t.Errorf("the token opens to %+v, %v; want %+v", inv, err, want)
	}
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, err := NewSigner(key, now, ttl, "https://go.example.com"); err == nil {
			t.Errorf("a signer of invitations valid for %s was made", ttl)
		}
	}
}
