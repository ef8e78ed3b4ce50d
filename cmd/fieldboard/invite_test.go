package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/invite"
	"fieldboard/store"
)

// TestInviteAndSecretCommands: invite prints PUBLIC-URL/r/TOKEN carrying
// the panelist, the subsample and the expiry; secret rotate retires the
// key it was signed with after the grace period (here none).
func TestInviteAndSecretCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	var out, errOut bytes.Buffer
	before := time.Now()
	if err := run(ctx, []string{"invite", "--db", db, "--panelist", "P 1/x", "--subsample", "200102", "--ttl", "2h", "--public-url", "https://go.example.com/"}, &out, &errOut); err != nil {
		t.Fatalf("invite: %v\n%s", err, errOut.String())
	}
	link := strings.TrimSpace(out.String())
	token, ok := strings.CutPrefix(link, "https://go.example.com/r/")
	if !ok || strings.ContainsAny(token, "/?#") {
		t.Fatalf("invite printed %q; want https://go.example.com/r/TOKEN", link)
	}
	inv, err := openInvitation(ctx, st, token)
	if err != nil || inv.PanelistID != "P 1/x" || inv.SubsampleID != 200102 || inv.Expires.Before(before.Add(2*time.Hour-time.Second)) || inv.Expires.After(time.Now().Add(2*time.Hour)) {
		t.Fatalf("the token carries %+v, %v; want P 1/x, 200102, in two hours", inv, err)
	}

	out.Reset()
	if err := run(ctx, []string{"secret", "rotate", "--db", db, "--grace", "0"}, &out, &errOut); err != nil || !strings.Contains(out.String(), "signs invitations from now on") {
		t.Fatalf("secret rotate: %v %q", err, out.String())
	}
	if _, err := openInvitation(ctx, st, token); err != invite.ErrInvalid {
		t.Errorf("a token of the key rotated out without grace: %v, want ErrInvalid", err)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"invite", "--db", db, "--panelist", "P1"}, "--public-url"},
		{[]string{"invite", "--db", db, "--panelist", "P1", "--public-url", "go.example.com"}, "not an absolute http or https address"},
		{[]string{"invite", "--db", db, "--panelist", "P1", "--public-url", "https://go.example.com/?a=1"}, "has a query"},
		{[]string{"invite", "--db", db, "--public-url", "https://go.example.com"}, "--panelist"},
		{[]string{"invite", "--db", db, "--panelist", "P1", "--ttl", "0s", "--public-url", "https://go.example.com"}, "--ttl"},
		{[]string{"invite", "--db", filepath.Join(t.TempDir(), "none.db"), "--panelist", "P1", "--public-url", "https://go.example.com"}, "fieldboard refresh"},
		{[]string{"secret", "rotate", "--db", db, "--grace", "-1h"}, "--grace"},
		{[]string{"secret", "show", "--db", db}, `unknown secret subcommand "show"`},
		{[]string{"serve", "--public-url", "ftp://x"}, "--public-url"},
		{[]string{"serve", "--no-survey-url", "/thanks"}, "--no-survey-url"},
	} {
		if err := run(ctx, tt.args, &out, &errOut); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("fieldboard %q = %v, want an error with %q", tt.args, err, tt.want)
		}
	}
}

// openInvitation opens token, as a click on its link would, with the
// routing keys of st valid now.
func openInvitation(ctx context.Context, st *store.Store, token string) (invite.Invitation, error) {
	now := time.Now()
	keys, err := st.InvitationKeys(ctx, now)
	if err != nil {
		return invite.Invitation{}, err
	}
	return invite.Open(keys, token, now)
}

// TestSecureCookiesFollowAnHTTPSPublicURL: a dashboard whose public URL is
// https is reached through TLS, so its session cookie is Secure unless
// --secure-cookies=false says otherwise (on the command line or in the
// environment).
func TestSecureCookiesFollowAnHTTPSPublicURL(t *testing.T) {
	tests := []struct {
		name      string
		args, env []string
		publicURL string
		want      bool
	}{
		{name: "an https public URL marks the cookie Secure", publicURL: "https://go.example.com", want: true},
		{name: "an https public URL in capitals too", publicURL: "HTTPS://go.example.com", want: true},
		{name: "--secure-cookies=false turns it off", args: []string{"--secure-cookies=false"}, publicURL: "https://go.example.com", want: false},
		{name: "FIELDBOARD_SECURE_COOKIES=false turns it off", env: []string{"FIELDBOARD_SECURE_COOKIES", "false"}, publicURL: "https://go.example.com", want: false},
		{name: "an http public URL leaves it to requests over TLS", publicURL: "http://localhost:8080", want: false},
		{name: "no public URL leaves it to requests over TLS", publicURL: "", want: false},
		{name: "--secure-cookies turns it on without a public URL", args: []string{"--secure-cookies"}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != nil {
				t.Setenv(tt.env[0], tt.env[1])
			}
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			secure := fs.Bool("secure-cookies", false, "")
			if err := parse(fs, tt.args); err != nil {
				t.Fatal(err)
			}
			if got := secureCookies(fs, *secure, tt.publicURL); got != tt.want {
				t.Errorf("secure cookies = %v, want %v", got, tt.want)
			}
		})
	}
}
