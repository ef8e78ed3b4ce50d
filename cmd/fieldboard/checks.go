package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// openStore opens the database named by --db, which must exist: the
// commands that read it never create an empty SQLite file by mistake. (A
// PostgreSQL database always exists before Fieldboard; one of a mistyped
// name fails to connect.)
func openStore(ctx context.Context, path string) (*store.Store, error) {
	if !store.IsPostgres(path) {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("--db %s: %w (run 'fieldboard refresh' first)", path, err)
		}
	}
	return store.Open(ctx, path)
}

func runSubsamples(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("subsamples", "Prints every subsample of the current snapshot with its sendability, reasons, quota counts and entry links, for scripts and cron jobs.", stderr)
	dbPath := dbFlag(fs)
	decide := decisionFlags(fs)
	format := fs.String("format", "json", "output format: json or csv")
	status := fs.String("status", "", "only subsamples with this status ("+strings.Join(domain.Statuses, ", ")+")")
	sendability := fs.String("sendability", "", "only subsamples in this state ("+rules.StateNames()+")")
	country := fs.String("country", "", "only subsamples of this country code")
	entry := entryURLFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *format != "json" && *format != "csv" {
		return errFlag("format", "%q is neither json nor csv", *format)
	}
	filter, err := checks.ParseSubsampleFilter(*status, *sendability, *country)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := decide.validate(); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	service := decide.service(st, nil, entry.urls)
	warnLinksUnchecked(stderr, entry)
	reports, err := service.Subsamples(ctx, filter)
	if err != nil {
		return err
	}
	if *format == "csv" {
		return formats.WriteSubsamplesCSV(stdout, reports)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(formats.Subsamples(reports))
}

func runEligible(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eligible", "Checks a file of panelist ids (a panelistId header line, then one id a line) against one live subsample and prints panelistId,eligible,quota,send,reasons as CSV (quota: the panelist's quota verdict from their profile; send: sendable, eligible and in an open cell).", stderr)
	dbPath := dbFlag(fs)
	decide := decisionFlags(fs)
	subsample := fs.Int64("subsample", 0, "the live subsample to check against (required)")
	panelists := fs.String("panelists", "", "CSV file of panelist ids (required; - for standard input)")
	providerTZ := fs.String("provider-tz", "UTC", "the provider's time zone: panelists' ages are counted on its calendar day")
	entry := entryURLFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	loc, err := time.LoadLocation(*providerTZ)
	if err != nil {
		return fmt.Errorf("--provider-tz %q: %w", *providerTZ, err)
	}
	if *subsample <= 0 {
		return errFlag("subsample", "a positive subsample id is required")
	}
	if *panelists == "" {
		return errFlag("panelists", "a file of panelist ids is required")
	}
	in, err := openInput(*panelists)
	if err != nil {
		return err
	}
	defer in.Close()
	ids, lineErrs, err := formats.ParsePanelistList(in)
	if err != nil {
		return withLineErrors(fmt.Errorf("%s: %w", *panelists, err), lineErrs)
	}
	defer ids.Close()
	if err := decide.validate(); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	service := decide.service(st, loc, entry.urls)
	warnLinksUnchecked(stderr, entry)
	if err := formats.WriteBulkCSV(ctx, service, *subsample, ids, stdout, true); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("subsample %d is not in the current snapshot", *subsample)
		}
		return err
	}
	return nil
}

func runTargets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("targets", "Prints the send list of a live subsample as CSV panelistId,entryLink: every profiled panelist who may enter it now and surely fits an open quota cell, in panelist id order, with the live entry link filled for them.", stderr)
	dbPath := dbFlag(fs)
	decide := decisionFlags(fs)
	subsample := fs.Int64("subsample", 0, "the live subsample (required)")
	limit := fs.Int("limit", 0, "at most this many panelists (0: all)")
	providerTZ := fs.String("provider-tz", "UTC", "the provider's time zone: panelists' ages are counted on its calendar day")
	publicURL := publicURLFlag(fs, "the list then carries an inviteLink column, each panelist's invitation link for the subsample")
	inviteTTL := fs.Duration("invite-ttl", defaultInviteTTL, "how long the invitation links stay valid")
	entry := entryURLFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *subsample <= 0 {
		return errFlag("subsample", "a positive subsample id is required")
	}
	if *limit < 0 {
		return errFlag("limit", "must not be negative")
	}
	base, err := parsePublicURL(*publicURL, false)
	if err != nil {
		return err
	}
	if *inviteTTL <= 0 {
		return errFlag("invite-ttl", "must be positive")
	}
	loc, err := time.LoadLocation(*providerTZ)
	if err != nil {
		return fmt.Errorf("--provider-tz %q: %w", *providerTZ, err)
	}
	if err := decide.validate(); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	service := decide.service(st, loc, entry.urls)
	warnLinksUnchecked(stderr, entry)
	invites := base != ""
	var signer invite.Signer
	if invites {
		if signer, err = newSigner(ctx, st, base, *inviteTTL); err != nil {
			return err
		}
	}
	out := bufio.NewWriter(stdout)
	w := formats.NewWriter(out)
	if err := formats.WriteTargetsHeader(w, invites); err != nil {
		return err
	}
	err = service.SendList(ctx, *subsample, *limit, func(id, link string) error {
		target := formats.TargetJSON{PanelistID: id, EntryLink: link}
		if invites {
			target.InviteLink = signer.Link(id, *subsample)
		}
		return formats.WriteTarget(w, target, invites)
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("subsample %d is not in the current snapshot", *subsample)
	case errors.Is(err, checks.ErrNotLive):
		return fmt.Errorf("subsample %d is not live in the current snapshot", *subsample)
	case err != nil:
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return out.Flush()
}

// decision is the flags of every command that decides: how old the data
// it decides on may be (--stale-after), and when a panelist is held for
// quality (--hold-reversals, --hold-days).
type decision struct {
	staleAfter              *time.Duration
	holdReversals, holdDays *int
}

// decisionFlags registers the flags of decision on fs.
func decisionFlags(fs *flag.FlagSet) decision {
	return decision{
		staleAfter: fs.Duration("stale-after", 15*time.Minute, "decide on nothing when the last successful read of the events is older than this (every subsample unknown, no send list); 0 for no limit"),
		holdReversals: fs.Int("hold-reversals", rules.DefaultQualityHold.Reversals,
			"hold a panelist for quality (sent nowhere) with at least this many completes reversed (98, 99) in the last --hold-days days; 0 turns the hold off"),
		holdDays: fs.Int("hold-days", rules.DefaultQualityHold.Days, "the days back the quality hold counts reversals over; 0 turns the hold off"),
	}
}

// validate refuses a negative hold: check it before service.
func (d decision) validate() error {
	if *d.holdReversals < 0 {
		return errFlag("hold-reversals", "%d is negative: give 0 to turn the hold off", *d.holdReversals)
	}
	if *d.holdDays < 0 {
		return errFlag("hold-days", "%d is negative: give 0 to turn the hold off", *d.holdDays)
	}
	return nil
}

// service is the checks service a command decides with, as the flags
// ask: serve and every deciding command build it here, so none decides
// under other limits. providerLocation may be nil (UTC).
func (d decision) service(st *store.Store, providerLocation *time.Location, entry rules.EntryURLs) *checks.Service {
	return &checks.Service{Store: st, Now: time.Now, ProviderLocation: providerLocation, StaleAfter: *d.staleAfter,
		QualityHold: rules.QualityHoldPolicy{Reversals: *d.holdReversals, Days: *d.holdDays}, EntryURLs: entry}
}
