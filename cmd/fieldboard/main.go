// Command fieldboard is the dashboard of a sample supplier's field
// coordinators: it reads the provider's Supplier Sample Allocation API into
// its database (SQLite, or PostgreSQL) and serves which subsamples may be
// sent to, and why not the others.
//
// Usage:
//
//	fieldboard serve [flags]         serve the dashboard (on the built-in simulator without --upstream)
//	fieldboard refresh [flags]       read the provider once into the database and exit
//	fieldboard provider-sim [flags]  serve the provider simulator
//	fieldboard subsamples [flags]    print the subsamples with their sendability (JSON or CSV)
//	fieldboard eligible [flags]      check a file of panelist ids against a subsample (CSV)
//	fieldboard history import FILE   import respondent history (CSV), all or nothing
//	fieldboard profiles import FILE  import panelist profiles (CSV), all or nothing; --own: in the supplier's own codes
//	fieldboard profiles mapping import FILE  import the mapping from own codes to the provider's ids (CSV), all or nothing
//	fieldboard profiles generate     write simulated profiles that fit the built-in simulator (CSV)
//	fieldboard panelists import FILE import the panel: each panelist's country and locale (CSV), all or nothing
//	fieldboard targets --subsample S print a subsample's send list (CSV)
//	fieldboard user add NAME         add a user who may sign in (also passwd, role, list)
//	fieldboard token create --name N create a bearer token for scripts (also revoke, list)
//	fieldboard webhook add --url URL subscribe an address to the change feed, signed (also list, remove, test)
//	fieldboard policy max-loi 20     put one of our own rules in force (also list, changes, remove, resume; --help)
//	fieldboard invite [flags]        print an invitation link that chooses the panelist's survey when clicked
//	fieldboard secret rotate         a new key for signing invitation links
//	fieldboard profiling --db PATH   print the questions to profile next, best first (CSV)
//	fieldboard report invoice        print a month's invoice (CSV); report outcomes: a period's outcomes
//
// Every flag can also be set with an environment variable FIELDBOARD_NAME,
// the flag's name in upper case with dashes as underscores
// (FIELDBOARD_DB=/var/lib/fieldboard.db). A flag on the command line wins.
//
// --db is a SQLite file by default; a postgres:// or postgresql:// URL
// (FIELDBOARD_DB=postgres://fieldboard@db.internal/fieldboard) puts the
// database on PostgreSQL, which several instances may share.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	// The zones of --tz and --provider-tz are embedded, so a host without
	// zoneinfo (a scratch container, Windows) reads them as any other.
	_ "time/tzdata"
)

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "serve the dashboard (on the built-in provider simulator when --upstream is not given)", runServe},
		{"refresh", "read the provider once into the database and exit; non-zero with the failing endpoint on error", runRefresh},
		{"provider-sim", "serve the provider simulator: all nine endpoints with deterministic, moving data", runProviderSim},
		{"subsamples", "print every subsample with its sendability and reasons, as JSON or CSV", runSubsamples},
		{"eligible", "check a file of panelist ids against one subsample; prints panelistId,eligible,quota,send,reasons", runEligible},
		{"history", "history import FILE: import respondent history from CSV, all or nothing", runHistory},
		{"targets", "print a subsample's send list: profiled panelists who may enter and fit an open cell, with entry links (CSV)", runTargets},
		{"profiles", "profiles import [--own] FILE: import panelist profiles from CSV (--own: in the supplier's own codes), all or nothing; profiles mapping import FILE: the mapping of own codes; profiles generate: simulated ones", runProfiles},
		{"panelists", "panelists import FILE: import the panel (each panelist's country and locale) from CSV, all or nothing; panelists held: who is held now, by hand or for quality; panelists hold|release ID: by hand", runPanelists},
		{"user", "user add|passwd|role|list: the people who may sign in to the dashboard, and their roles", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runUser(ctx, args, os.Stdin, stdout, stderr)
		}},
		{"token", "token create|revoke|list: bearer tokens for scripts (Authorization: Bearer TOKEN)", runToken},
		{"webhook", "webhook add|list|remove|test: addresses the change feed is POSTed to, signed (Standard Webhooks)", runWebhook},
		{"policy", "policy RULE|list|changes|remove|resume: the supplier's own rules (block country DE, max-loi 20, pause subsample 12...) and their audit", runPolicy},
		{"invite", "print an invitation link for a panelist that chooses their survey when clicked (--public-url/r/TOKEN)", runInvite},
		{"profiling", "print the questions to ask the panel next, best first: what each would unlock (CSV)", runProfiling},
		{"report", "report invoice --month YYYY-MM: a month's invoice (CSV); report outcomes: what the sending produced in a period", runReport},
		{"secret", "secret rotate: a new key for signing invitation links, the previous ones valid for --grace", runSecret},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "fieldboard:", err)
		}
		os.Exit(exitCode(err))
	}
}

func exitCode(err error) int {
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errUsage) {
		return 2
	}
	return 1
}

var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return fmt.Errorf("%w: a command is needed", errUsage)
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "fieldboard: which survey subsamples may a sample supplier send panel members to, and why not the others.")
	fmt.Fprintln(w, "\nUsage: fieldboard <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'fieldboard <command> --help' for a command's flags. Every flag may also be set as FIELDBOARD_<FLAG> in the environment.")
}
