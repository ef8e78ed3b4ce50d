package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"fieldboard/client"
	"fieldboard/rules"
)

// newFlagSet returns a flag set for a subcommand whose help names it.
func newFlagSet(name, summary string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: fieldboard %s [flags]\n\n%s\n\nFlags (each also read from FIELDBOARD_<FLAG>):\n", name, summary)
		fs.PrintDefaults()
	}
	return fs
}

// dbFlag defines --db, the database every command but provider-sim
// works on: a SQLite file, or a PostgreSQL database that several
// instances share (store.Open).
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", "fieldboard.db", "database: a SQLite file or a postgres:// URL (created when missing by the commands that write; those that only read, such as subsamples, refuse a missing one)")
}

// parse parses args, then fills every flag not given on the command line
// from its FIELDBOARD_* environment variable.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return applyEnv(fs)
}

// applyEnv fills every flag not given on the command line from its
// FIELDBOARD_* environment variable.
func applyEnv(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || err != nil {
			return
		}
		env := "FIELDBOARD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := os.LookupEnv(env); ok {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("%s: %w", env, serr)
			}
		}
	})
	return err
}

// headerList collects repeated --upstream-header "Name: value" flags. In a
// FIELDBOARD_UPSTREAM_HEADER variable several headers are separated by
// newlines.
type headerList []string

func (h *headerList) String() string { return fmt.Sprintf("%d header(s)", len(*h)) }

// Set keeps the value as given: it is checked by upstreamFlags.client,
// because the flag package would quote a rejected value, secret and all,
// in its error.
func (h *headerList) Set(v string) error {
	for _, line := range strings.Split(v, "\n") {
		if strings.TrimSpace(line) != "" {
			*h = append(*h, line)
		}
	}
	return nil
}

// upstreamFlags are the flags that say how to reach the provider.
type upstreamFlags struct {
	url         string
	headers     headerList
	timeout     time.Duration
	attempts    int
	providerTZ  string
	concurrency int
	deadline    time.Duration
}

func (u *upstreamFlags) register(fs *flag.FlagSet, urlHelp string) {
	fs.StringVar(&u.url, "upstream", "", urlHelp)
	fs.Var(&u.headers, "upstream-header", `header sent on every provider request, "Name: value" (repeatable; for the provider's authentication)`)
	fs.DurationVar(&u.timeout, "upstream-timeout", 15*time.Second, "timeout of one provider request")
	fs.IntVar(&u.attempts, "upstream-attempts", 3, "attempts per provider request (retries with backoff on timeouts and 5xx)")
	fs.StringVar(&u.providerTZ, "provider-tz", "UTC", "time zone of the provider's zone-less dates (IANA name)")
	fs.IntVar(&u.concurrency, "concurrency", 8, "per-subsample provider requests in flight during a refresh")
	fs.DurationVar(&u.deadline, "refresh-deadline", 2*time.Minute, "bounds one whole refresh: calls still running then are cancelled, their subsamples keep their earlier data marked as failed, and the rest is written")
}

// client builds the provider client for baseURL.
func (u *upstreamFlags) client(baseURL, userAgent string) (*client.Client, error) {
	loc, err := time.LoadLocation(u.providerTZ)
	if err != nil {
		return nil, fmt.Errorf("--provider-tz %q: %w", u.providerTZ, err)
	}
	if u.deadline <= 0 {
		return nil, errFlag("refresh-deadline", "must be more than 0, such as 2m")
	}
	cfg := client.Config{BaseURL: baseURL, UserAgent: userAgent, Timeout: u.timeout, MaxAttempts: u.attempts, Location: loc, Header: map[string][]string{}}
	for i, line := range u.headers {
		name, value, err := client.ParseHeader(line)
		if err != nil {
			return nil, fmt.Errorf("--upstream-header number %d: %w", i+1, err)
		}
		cfg.Header.Add(name, value)
	}
	c, err := client.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("--upstream: %w", err)
	}
	return c, nil
}

// newLogger returns a text logger at the named level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// userAgent names this build to the provider.
const userAgent = "fieldboard/0.1 (+sample supplier dashboard)"

// entryURLs collects repeated --entry-url flags, the provider's entry
// addresses (the spec's {entry_url}): an entry link outside them is not
// usable. In a FIELDBOARD_ENTRY_URL variable several addresses are
// separated by spaces or newlines.
type entryURLs struct{ urls rules.EntryURLs }

func (e *entryURLs) String() string {
	if e == nil {
		return ""
	}
	return e.urls.String()
}

func (e *entryURLs) Set(v string) error {
	for _, raw := range strings.Fields(v) {
		u, err := rules.ParseEntryURL(raw)
		if err != nil {
			return err
		}
		e.urls = append(e.urls, u)
	}
	return nil
}

// entryURLFlag registers --entry-url on fs.
func entryURLFlag(fs *flag.FlagSet) *entryURLs {
	e := &entryURLs{}
	fs.Var(e, "entry-url", "the provider's entry address, such as https://survey.provider.test/start (repeatable): entry links not under it, or on plain http when it is https, are not usable; unset, links are not checked and every page and answer says so")
	return e
}

// warnLinksUnchecked tells the user of a command that gives or decides on
// entry links that their hosts are not checked, when no --entry-url is set.
func warnLinksUnchecked(stderr io.Writer, e *entryURLs) {
	if len(e.urls) == 0 {
		fmt.Fprintln(stderr, "fieldboard: note: "+rules.LinksUnchecked)
	}
}
