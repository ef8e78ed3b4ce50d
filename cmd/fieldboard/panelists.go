package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/views/formats"
)

func runPanelists(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, args, err := subcommand("panelists", args, []string{"import", "held", "hold", "release"}, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	switch sub {
	case "held":
		return runPanelistsHeld(ctx, args, stdout, stderr)
	case "hold", "release":
		return runPanelistsHold(ctx, sub, args, stdout, stderr)
	}
	return runPanelistsImport(ctx, args, stdout, stderr)
}

func runPanelistsImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("panelists import", "Imports the panel, where each panelist belongs, from a CSV file with the header "+store.PanelHeader+": country is the ISO 3166-1 alpha-2 code (FR), locale the language-country form (fr-fr, fr_FR; any case) of that country, or empty when not known. A panelist is only sent to subsamples of their country and, when their locale is known, of their language; one with no country on file is sent nowhere. The file is checked line by line and written in one transaction: a file with any bad line is rejected whole, listing each bad line, and nothing is written. A panelist's last line replaces their earlier country and locale.", stderr)
	report, err := importFile(ctx, fs, args, func(st *store.Store, in io.Reader) (store.PanelImportReport, error) {
		return st.ImportPanelCSV(ctx, in)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d records, %d panelists written, %d of them replacing an earlier country and locale\n",
		fs.Arg(0), report.Records, report.Written, report.Replaced)
	return nil
}

// runPanelistsHeld prints the panelists held now, by hand or for quality
// (checks.Service.HeldPanelists), as CSV or JSON.
func runPanelistsHeld(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("panelists held", "Prints every panelist held now, by hand or for quality, with the reason every check of theirs gives, the reversals counted, since and until when, who held them and why, and their holds and releases by hand: CSV (panelistId,country,kind,reason,reversals,since,until,by,why,changes) or JSON as GET /api/v1/panelists/held.", stderr)
	dbPath := dbFlag(fs)
	decide := decisionFlags(fs)
	format := fs.String("format", "csv", "output format: csv or json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *format != "json" && *format != "csv" {
		return errFlag("format", "%q is neither csv nor json", *format)
	}
	if err := decide.validate(); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	held, err := decide.service(st, nil, nil).HeldPanelists(ctx)
	if err != nil {
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(formats.HeldList(held))
	}
	w := formats.NewWriter(stdout)
	if err := formats.WriteHeldCSV(w, held, func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}); err != nil {
		return err
	}
	return w.Flush()
}

// runPanelistsHold holds (sub "hold") or releases (sub "release") one
// panelist by hand: ID first or last, the flags around it.
func runPanelistsHold(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	summary := "Holds the panelist ID by hand: sent nowhere until --until (RFC 3339), or until released when it is not given. Audited with --by and --why."
	if sub == "release" {
		summary = "Releases the panelist ID by hand: from a hold by hand, and from the quality hold the reversals recorded until now made (later reversals count again). Audited with --by and --why."
	}
	fs := newFlagSet("panelists "+sub+" ID", summary, stderr)
	dbPath := dbFlag(fs)
	why := fs.String("why", "", "why, kept in the audit and shown with the hold (required)")
	by := fs.String("by", "", "who makes the change (required)")
	var until *string
	if sub == "hold" {
		until = fs.String("until", "", "when the hold ends, RFC 3339 (2026-12-08T09:00:00Z); empty: until released")
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append(args[1:len(args):len(args)], args[0])
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := applyEnv(fs); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: panelists %s takes one panelist ID", errUsage, sub)
	}
	id := fs.Arg(0)
	if strings.TrimSpace(*why) == "" {
		return errFlag("why", "say why")
	}
	var end *time.Time
	if until != nil && *until != "" {
		t, err := time.Parse(time.RFC3339, *until)
		if err != nil {
			return errFlag("until", "%q is not an RFC 3339 time (2026-12-08T09:00:00Z)", *until)
		}
		end = &t
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	service := &checks.Service{Store: st, Now: time.Now}
	if sub == "hold" {
		err = service.HoldPanelist(ctx, id, end, *by, *why)
	} else {
		err = service.ReleasePanelist(ctx, id, *by, *why)
	}
	if errors.Is(err, checks.ErrBadRule) {
		return fmt.Errorf("%w: %s", errUsage, strings.TrimPrefix(err.Error(), checks.ErrBadRule.Error()+": "))
	}
	if err != nil {
		return err
	}
	switch {
	case sub == "release":
		fmt.Fprintf(stdout, "panelist %s released by hand by %s: they may be sent again\n", id, *by)
	case end != nil:
		fmt.Fprintf(stdout, "panelist %s held by hand by %s until %s\n", id, *by, end.UTC().Format(time.RFC3339))
	default:
		fmt.Fprintf(stdout, "panelist %s held by hand by %s until released\n", id, *by)
	}
	return nil
}
