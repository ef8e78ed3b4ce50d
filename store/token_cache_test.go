package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestTokenRevokedElsewhereIsRefusedWithinASecond: a token revoked by
// another process on the same database (the command line, another
// instance) is refused within a second by one that took it just before;
// one revoked through the store itself at once (TestUsersSessionsTokens).
func TestTokenRevokedElsewhereIsRefusedWithinASecond(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		target := d.Target(t)
		serving, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer serving.Close()
		if err := serving.CreateToken(ctx, store.Token{Name: "nightly", Role: store.RoleAdmin, CreatedAt: time.Now()}, []byte("token-hash")); err != nil {
			t.Fatal(err)
		}
		if _, err := serving.TokenOf(ctx, []byte("token-hash")); err != nil {
			t.Fatal(err)
		}
		elsewhere, err := store.Open(ctx, target)
		if err != nil {
			t.Fatal(err)
		}
		defer elsewhere.Close()
		if err := elsewhere.RevokeToken(ctx, "nightly", time.Now()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second + 50*time.Millisecond)
		if _, err := serving.TokenOf(ctx, []byte("token-hash")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a second after another process revoked it, TokenOf = %v, want ErrNotFound", err)
		}
	})
}
