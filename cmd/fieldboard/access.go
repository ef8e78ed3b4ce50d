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
	sub, args, err := subcommand("user", args, []string{"add", "passwd", "role", "list"}, stderr)
	if err != nil {
		return err
	}
	switch sub {
	case "role":
		return runUserRole(ctx, args, stdout, stderr)
	case "list":
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
			fmt.Fprintf(stdout, "%s\t%s\tcreated %s\tpassword set %s\n", u.Name, u.Role, u.CreatedAt.UTC().Format(time.DateTime), u.PasswordChangedAt.UTC().Format(time.DateTime))
		}
		return nil
	}
	summary := map[string]string{
		"add": "Adds a user who may sign in to the dashboard, with a role (--role; the first user is an admin, a later one a viewer " +
			"unless said), and prints a generated password (or reads one line with --password-stdin).",
		"passwd": "Sets a user's password to a generated one, printed, (or one line read with --password-stdin) and signs the user out everywhere.",
	}[sub]
	fs := newFlagSet("user "+sub, summary, stderr)
	fromStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input instead of generating one")
	var roleFlag *string
	if sub == "add" {
		roleFlag = fs.String("role", "", "viewer, coordinator or admin (default: admin for the first user, viewer after)")
	}
	st, name, err := openStoreWithName(ctx, fs, args, "NAME")
	if err != nil {
		return err
	}
	defer st.Close()
	if err := auth.ValidUserName(name); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var role store.Role
	if sub == "add" {
		if role, err = newUserRole(ctx, st, *roleFlag); err != nil {
			return err
		}
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
		err = st.AddUser(ctx, name, role, hash, time.Now())
	} else {
		err = st.SetPassword(ctx, name, hash, time.Now())
	}
	if err != nil {
		return err
	}
	if sub == "add" {
		fmt.Fprintf(stdout, "%s: added as %s\n", name, role)
	}
	if *fromStdin {
		fmt.Fprintf(stdout, "%s: password set\n", name)
		return nil
	}
	fmt.Fprintf(stdout, "%s: password set; it is shown this once:\n%s\n", name, password)
	return nil
}

// newUserRole is the role of a user added with --role given (or ""): the
// named role, or, unnamed, admin for the first user, who must be able to
// manage the others from the dashboard, and viewer for any after, who
// gets no more rights than asked for.
func newUserRole(ctx context.Context, st *store.Store, given string) (store.Role, error) {
	if given != "" {
		role, err := store.ParseRole(given)
		if err != nil {
			return "", errFlag("role", "%v", err)
		}
		return role, nil
	}
	users, err := st.Users(ctx)
	if err != nil {
		return "", err
	}
	if len(users) == 0 {
		return store.RoleAdmin, nil
	}
	return store.RoleViewer, nil
}

// runUserRole changes a user's role; the last admin keeps theirs.
func runUserRole(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("user role", "Changes a user's role (--role viewer|coordinator|admin); it holds at the user's next request. The last admin stays one.", stderr)
	roleFlag := fs.String("role", "", "the new role: viewer, coordinator or admin")
	st, name, err := openStoreWithName(ctx, fs, args, "NAME")
	if err != nil {
		return err
	}
	defer st.Close()
	role, err := store.ParseRole(*roleFlag)
	if err != nil {
		return errFlag("role", "%v", err)
	}
	if err := st.SetUserRole(ctx, name, role); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: role %s\n", name, role)
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
			by := "the command line"
			if t.CreatedBy != "" {
				by = t.CreatedBy
			}
			line := fmt.Sprintf("%s\t%s\tcreated %s by %s", t.Name, t.Role, t.CreatedAt.UTC().Format(time.DateTime), by)
			if t.RevokedAt != nil {
				line += "\trevoked " + t.RevokedAt.UTC().Format(time.DateTime)
			}
			fmt.Fprintln(stdout, line)
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
		if err := st.RevokeToken(ctx, *nameFlag, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %s revoked\n", *nameFlag)
		return nil
	}
	fs := newFlagSet("token create", "Creates a bearer token for a script (Authorization: Bearer TOKEN) and prints it alone on the last line, once: only its hash is stored.", stderr)
	nameFlag := fs.String("name", "", "a name for the token, to revoke it later (e.g. the script's)")
	roleFlag := fs.String("role", string(store.RoleCoordinator), "what the token may do: viewer (read), coordinator (also import and change data through /api/v1) or admin")
	st, _, err := openStoreWithName(ctx, fs, args, "")
	if err != nil {
		return err
	}
	defer st.Close()
	if err := auth.ValidUserName(*nameFlag); err != nil {
		return errFlag("name", "%v", err)
	}
	role, err := store.ParseRole(*roleFlag)
	if err != nil {
		return errFlag("role", "%v", err)
	}
	token, hash := auth.NewToken()
	if err := st.CreateToken(ctx, store.Token{Name: *nameFlag, Role: role, CreatedAt: time.Now()}, hash); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "token %s created with the %s role; it is shown this once, keep it secret:\n%s\n", *nameFlag, role, token)
	return nil
}
