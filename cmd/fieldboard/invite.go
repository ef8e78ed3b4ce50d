package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
)

// defaultInviteTTL is how long an invitation link stays valid unless told.
const defaultInviteTTL = 72 * time.Hour

// publicURLFlag registers --public-url, where panelists reach the
// dashboard's server: invitation links are PUBLIC-URL/r/TOKEN.
func publicURLFlag(fs *flag.FlagSet, use string) *string {
	return fs.String("public-url", "", "the address panelists reach this server at (e.g. https://go.example.com): "+use)
}

// parsePublicURL checks --public-url; "" stays "" unless required.
func parsePublicURL(raw string, required bool) (string, error) {
	if raw == "" {
		if required {
			return "", errFlag("public-url", "the address invitation links point at is required (e.g. https://go.example.com)")
		}
		return "", nil
	}
	u, err := invite.ParsePublicURL(raw)
	if err != nil {
		return "", errFlag("public-url", "%v", err)
	}
	return u, nil
}

func runInvite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("invite", "Prints an invitation link PUBLIC-URL/r/TOKEN for one panelist. When clicked, the link goes to the subsample's entry link if the panelist would still be sent there, else to their best survey now, else to the server's --no-survey-url. The token is signed (HMAC-SHA256) with the database's routing key and expires.", stderr)
	dbPath := dbFlag(fs)
	panelist := fs.String("panelist", "", "the panelist's id (required)")
	subsample := fs.Int64("subsample", 0, "the subsample the invitation is for; 0 lets the router choose at click time")
	ttl := fs.Duration("ttl", defaultInviteTTL, "how long the link stays valid")
	publicURL := publicURLFlag(fs, "required")
	if err := parse(fs, args); err != nil {
		return err
	}
	panelistID, err := domain.ParsePanelistID(*panelist)
	if err != nil {
		return errFlag("panelist", "%v", err)
	}
	if *subsample < 0 {
		return errFlag("subsample", "must not be negative")
	}
	if *ttl <= 0 {
		return errFlag("ttl", "must be positive")
	}
	base, err := parsePublicURL(*publicURL, true)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	signer, err := newSigner(ctx, st, base, *ttl)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, signer.Link(panelistID, *subsample))
	return err
}

func runSecret(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	_, args, err := subcommand("secret", args, []string{"rotate"}, stderr)
	if err != nil {
		return err
	}
	fs := newFlagSet("secret rotate", "Makes a new routing key, the one invitation links are signed with from now on. The links signed with the previous keys keep working for --grace, then stop.", stderr)
	dbPath := dbFlag(fs)
	grace := fs.Duration("grace", 7*24*time.Hour, "how long the links signed with the previous keys stay valid (0: they stop now)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *grace < 0 {
		return errFlag("grace", "must not be negative")
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	key, err := st.RotateRoutingKey(ctx, store.NewRoutingSecret(), time.Now(), *grace)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "routing key %d signs invitations from now on; links signed before stay valid until %s\n",
		key.ID, key.CreatedAt.Add(*grace).UTC().Format(time.DateTime+" UTC"))
	return err
}

// newSigner signs invitations with the store's signing key (made when
// there is none), valid for ttl, linking to publicURL.
func newSigner(ctx context.Context, st *store.Store, publicURL string, ttl time.Duration) (invite.Signer, error) {
	now := time.Now()
	key, err := st.SigningKey(ctx, now)
	if err != nil {
		return invite.Signer{}, err
	}
	return invite.NewSigner(key.SigningKey, now, ttl, publicURL)
}

// absoluteURL checks that raw is an absolute http or https address.
func absoluteURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http or https address", raw)
	}
	return nil
}
