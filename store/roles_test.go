package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestRolesOfUsers: a user keeps the role it was added with, lists with
// it and signs in with it (SessionOf); a change of role holds at once;
// the last admin cannot stop being one, an admin among two can.
func TestRolesOfUsers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		for _, u := range []struct {
			name string
			role store.Role
		}{{"ada", store.RoleAdmin}, {"cora", store.RoleCoordinator}, {"vic", store.RoleViewer}} {
			if err := s.AddUser(ctx, u.name, u.role, "hash", t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddUser(ctx, "odd", store.Role("owner"), "hash", t0); err == nil {
			t.Error("a user with the role owner was added")
		}
		users, err := s.Users(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]store.Role{}
		for _, u := range users {
			got[u.Name] = u.Role
		}
		if len(got) != 3 || got["ada"] != store.RoleAdmin || got["cora"] != store.RoleCoordinator || got["vic"] != store.RoleViewer {
			t.Errorf("Users' roles = %v", got)
		}
		sess := store.Session{SecretHash: []byte("vic-session"), UserName: "vic", CSRFToken: "csrf", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		if got, err := s.SessionOf(ctx, sess.SecretHash, t0); err != nil || got.Role != store.RoleViewer {
			t.Errorf("vic's session: role %q, %v; want viewer", got.Role, err)
		}
		if err := s.SetUserRole(ctx, "vic", store.RoleCoordinator); err != nil {
			t.Fatal(err)
		}
		if got, err := s.SessionOf(ctx, sess.SecretHash, t0); err != nil || got.Role != store.RoleCoordinator {
			t.Errorf("vic's session after the change: role %q, %v; want coordinator at once", got.Role, err)
		}

		if err := s.SetUserRole(ctx, "ada", store.RoleCoordinator); !errors.Is(err, store.ErrLastAdmin) {
			t.Errorf("the only admin made a coordinator: %v, want ErrLastAdmin", err)
		}
		if err := s.SetUserRole(ctx, "ada", store.RoleAdmin); err != nil {
			t.Errorf("the only admin kept admin: %v", err)
		}
		if err := s.SetUserRole(ctx, "cora", store.RoleAdmin); err != nil {
			t.Fatal(err)
		}
		if err := s.SetUserRole(ctx, "ada", store.RoleViewer); err != nil {
			t.Errorf("one admin of two made a viewer: %v, want done", err)
		}
		if err := s.SetUserRole(ctx, "cora", store.RoleViewer); !errors.Is(err, store.ErrLastAdmin) {
			t.Errorf("the admin left made a viewer: %v, want ErrLastAdmin", err)
		}
		if err := s.SetUserRole(ctx, "nobody", store.RoleViewer); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the role of nobody: %v, want ErrNotFound", err)
		}
	})
}

// TestTokenNeverWiderThanItsMaker: a user makes tokens of their role or
// narrower, never wider (a *TooWideError), an admin any; the maker is
// recorded; a token made on the command line has the role it is given; a
// token whose maker lost rights holds no more than the maker now; a
// revoked token stays listed, refused, its name taken.
func TestTokenNeverWiderThanItsMaker(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		for _, u := range []struct {
			name string
			role store.Role
		}{{"ada", store.RoleAdmin}, {"root", store.RoleAdmin}, {"cora", store.RoleCoordinator}, {"vic", store.RoleViewer}} {
			if err := s.AddUser(ctx, u.name, u.role, "hash", t0); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			name, maker string
			role        store.Role
			wide        bool
		}{
			{"an admin makes an admin token", "ada", store.RoleAdmin, false},
			{"an admin makes a viewer token", "ada", store.RoleViewer, false},
			{"a coordinator makes a coordinator token", "cora", store.RoleCoordinator, false},
			{"a coordinator makes a viewer token", "cora", store.RoleViewer, false},
			{"a coordinator cannot make an admin token", "cora", store.RoleAdmin, true},
			{"a viewer makes a viewer token", "vic", store.RoleViewer, false},
			{"a viewer cannot make a coordinator token", "vic", store.RoleCoordinator, true},
			{"a viewer cannot make an admin token", "vic", store.RoleAdmin, true},
			{"the command line makes an admin token", "", store.RoleAdmin, false},
		}
		for i, tc := range tests {
			name := "token-" + string(rune('a'+i))
			hash := []byte(name + "-hash")
			err := s.CreateToken(ctx, store.Token{Name: name, Role: tc.role, CreatedBy: tc.maker, CreatedAt: t0}, hash)
			var wide *store.TooWideError
			if tc.wide != errors.As(err, &wide) || (!tc.wide && err != nil) {
				t.Errorf("%s: CreateToken = %v, want too wide %v", tc.name, err, tc.wide)
				continue
			}
			tok, err := s.TokenOf(ctx, hash)
			if tc.wide {
				if !errors.Is(err, store.ErrNotFound) {
					t.Errorf("%s: refused, yet TokenOf = %+v, %v", tc.name, tok, err)
				}
				continue
			}
			if err != nil || tok.Role != tc.role || tok.CreatedBy != tc.maker {
				t.Errorf("%s: TokenOf = %+v, %v; want role %s made by %q", tc.name, tok, err, tc.role, tc.maker)
			}
		}
		if err := s.CreateToken(ctx, store.Token{Name: "ghost", Role: store.RoleViewer, CreatedBy: "nobody", CreatedAt: t0}, []byte("g")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a token made by nobody: %v, want ErrNotFound", err)
		}

		// ada's admin token (token-a) narrows with ada.
		if err := s.SetUserRole(ctx, "ada", store.RoleCoordinator); err != nil {
			t.Fatal(err)
		}
		if tok, err := s.TokenOf(ctx, []byte("token-a-hash")); err != nil || tok.Role != store.RoleCoordinator {
			t.Errorf("ada's admin token once ada is a coordinator: %+v, %v; want the coordinator role", tok, err)
		}
		if tok, err := s.TokenOf(ctx, []byte("token-b-hash")); err != nil || tok.Role != store.RoleViewer {
			t.Errorf("ada's viewer token once ada is a coordinator: %+v, %v; want still a viewer", tok, err)
		}

		if err := s.RevokeToken(ctx, "token-a", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TokenOf(ctx, []byte("token-a-hash")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a revoked token: %v, want ErrNotFound", err)
		}
		toks, err := s.Tokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var revoked *store.Token
		for i := range toks {
			if toks[i].Name == "token-a" {
				revoked = &toks[i]
			}
		}
		if revoked == nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(t0.Add(time.Hour)) || revoked.CreatedBy != "ada" || revoked.Role != store.RoleAdmin {
			t.Errorf("the revoked token listed as %+v; want it listed, revoked at t0+1h, made by ada as admin", revoked)
		}
		if err := s.CreateToken(ctx, store.Token{Name: "token-a", Role: store.RoleViewer, CreatedAt: t0}, []byte("again")); !errors.Is(err, store.ErrExists) {
			t.Errorf("a token named as a revoked one: %v, want ErrExists", err)
		}
	})
}
