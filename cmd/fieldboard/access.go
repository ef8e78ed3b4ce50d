package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"fieldboard/store"
	"fieldboard/web/auth"
)

// subcommand splits "user add ..." into the subcommand and its arguments,
// or explains the choices.
func subcommand(name string, args []string, choices []string, stderr io.Writer) (string, []string, error) {
	usage := fmt.Sprintf("Usage: fieldboard %s %s --db PATH ...", name, strings.Join(choices, "|"))
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return "", nil, fmt.Errorf("%w: %s takes a subcommand: %s", errUsage, name, strings.Join(choices, ", "))
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, usage)
		return "", nil, flag.ErrHelp
	}
	for _, c := range choices {
		if args[0] == c {
			return c, args[1:], nil
		}
	}
	fmt.Fprintln(stderr, usage)
	return "", nil, fmt.Errorf("%w: unknown %s subcommand %q (one of %s)", errUsage, name, args[0], strings.Join(choices, ", "))
}

// openStoreWithName parses the flags of a subcommand that takes --db and
// one NAME, and opens the store.
func openStoreWithName(ctx context.Context, fs *flag.FlagSet, args []string, what string) (*store.Store, string, error) {
	dbPath := dbFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, "", err
	}
	if err := applyEnv(fs); err != nil {
		return nil, "", err
	}
	if what != "" && fs.NArg() != 1 {
		return nil, "", fmt.Errorf("%w: %s takes one %s (flags first)", errUsage, fs.Name(), what)
	}
	if what == "" && fs.NArg() != 0 {
		return nil, "", fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	st, err := store.Open(ctx, *dbPath)
	if err != nil {
		return nil, "", err
	}
	return st, fs.Arg(0), nil
}

// runUser manages the users who may sign in to the dashboard.
func runUser(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub, args, err := subcommand("user", args, []string{"add", "passwd", "list"}, stderr)
	if err != nil {
		return err
	}
	if sub == "list" {
		st, _, err := openStoreWithName(ctx, newFlagSet("user list", "Lists the users who may sign in.", stderr), args, "")
		if err != nil {
			return err
		}
		defer st.Close()
		users, err := st.Users(ctx)
		if err != nil {
			return err
		}
		for _, u := range users {
			fmt.Fprintf(stdout, "%s\tcreated %s\tpassword set %s\n", u.Name, u.CreatedAt.UTC().Format(time.DateTime), u.PasswordChangedAt.UTC().Format(time.DateTime))
		}
		return nil
	}
	summary := map[string]string{
		"add":    "Adds a user who may sign in to the dashboard, and prints a generated password (or reads one line with --password-stdin).",
		"passwd": "Sets a user's password to a generated one, printed, (or one line read with --password-stdin) and signs the user out everywhere.",
	}[sub]
	fs := newFlagSet("user "+sub, summary, stderr)
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input instead of generating one")
	st, name, err := openStoreWithName(ctx, fs, args, "NAME")
	if err != nil {
		return err
	}
	defer st.Close()
	if err := auth.ValidUserName(name); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	password := auth.GeneratePassword()
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the password: %w", err)
		}
		password = strings.TrimRight(line, "\r\n")
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	if sub == "add" {
		err = st.AddUser(ctx, name, hash, time.Now())
	} else {
		err = st.SetPassword(ctx, name, hash, time.Now())
	}
	if err != nil {
		return err
	}
	if *fromStdin {
		fmt.Fprintf(stdout, "%s: password set\n", name)
		return nil
	}
	fmt.Fprintf(stdout, "%s: password set; it is shown this once:\n%s\n", name, password)
	return nil
}

// runToken manages the bearer tokens of scripts.
func runToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, args, err := subcommand("token", args, []string{"create", "revoke", "list"}, stderr)
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		st, _, err := openStoreWithName(ctx, newFlagSet("token list", "Lists the bearer tokens by name (their secrets are not stored).", stderr), args, "")
		if err != nil {
			return err
		}
		defer st.Close()
		tokens, err := st.Tokens(ctx)
		if err != nil {
			return err
		}
		for _, t := range tokens {
			fmt.Fprintf(stdout, "%s\tcreated %s\n", t.Name, t.CreatedAt.UTC().Format(time.DateTime))
		}
		return nil
	case "revoke":
		fs := newFlagSet("token revoke", "Revokes a bearer token: scripts using it are refused from now on.", stderr)
		nameFlag := fs.String("name", "", "name of the token")
		st, _, err := openStoreWithName(ctx, fs, args, "")
		if err != nil {
			return err
		}
		defer st.Close()
		if *nameFlag == "" {
			return errFlag("name", "name the token to revoke (fieldboard token list)")
		}
		if err := st.RevokeToken(ctx, *nameFlag); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %s revoked\n", *nameFlag)
		return nil
	}
	fs := newFlagSet("token create", "Creates a bearer token for a script (Authorization: Bearer TOKEN) and prints it alone on the last line, once: only its hash is stored.", stderr)
	nameFlag := fs.String("name", "", "a name for the token, to revoke it later (e.g. the script's)")
	st, _, err := openStoreWithName(ctx, fs, args, "")
	if err != nil {
		return err
	}
	defer st.Close()
	if err := auth.ValidUserName(*nameFlag); err != nil {
		return errFlag("name", "%v", err)
	}
	token, hash := auth.NewToken()
	if err := st.CreateToken(ctx, *nameFlag, hash, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "token %s created; it is shown this once, keep it secret:\n%s\n", *nameFlag, token)
	return nil
}
