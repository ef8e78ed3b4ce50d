package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// policyRules are the words that begin a rule (rules.PolicyUsage); the
// other subcommands of policy read or remove.
var policyRules = []string{"block", "min-cpi", "min-epc", "max-loi", "min-incidence", "devices", "cap", "priority", "pause"}

// policyUsage is policy's usage: one line a subcommand, the rules'
// grammar first.
var policyUsage = func() string {
	var b strings.Builder
	b.WriteString("Usage:\n")
	for line := range strings.SplitSeq(rules.PolicyUsage, "\n") {
		b.WriteString("  fieldboard policy " + line + " [--why TEXT] [--by NAME] [--db PATH]\n")
	}
	b.WriteString("  fieldboard policy resume subsample ID [--why TEXT] [--by NAME] [--db PATH]\n")
	b.WriteString("  fieldboard policy remove ID|RULE [--why TEXT] [--by NAME] [--db PATH]\n")
	b.WriteString("  fieldboard policy list [--format text|csv|json] [--db PATH]\n")
	b.WriteString("  fieldboard policy changes [--format text|csv|json] [--limit N] [--db PATH]\n")
	b.WriteString("\nFlags may come anywhere; a priority's -1 is a value, not a flag. --by defaults to $USER.\n")
	return b.String()
}()

// runPolicy sets, removes and lists the supplier's own rules, and prints
// their audit: each change set by --by for --why, as the page's and the
// API's are.
func runPolicy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, policyUsage)
		if len(args) == 0 {
			return fmt.Errorf("%w: policy takes a rule or a subcommand (list, changes, remove, resume)", errUsage)
		}
		return flag.ErrHelp
	}
	fs := newFlagSet("policy", "Sets, removes or lists the supplier's own rules (see fieldboard policy --help).", stderr)
	dbPath := dbFlag(fs)
	why := fs.String("why", "", "why the change is made, kept in the audit (at most 500 bytes)")
	by := fs.String("by", os.Getenv("USER"), "who makes the change, kept in the audit (default: $USER)")
	format := fs.String("format", "text", "list and changes: text, csv or json (the page's CSV and the API's JSON)")
	limit := fs.Int("limit", 0, "changes: at most this many, newest first (0: all)")
	words, err := parsePolicyFlags(fs, args)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return fmt.Errorf("%w: policy takes a rule or a subcommand (list, changes, remove, resume)", errUsage)
	}
	sub, words := words[0], words[1:]
	if *format != "text" && *format != "csv" && *format != "json" {
		return errFlag("format", "%q is none of text, csv, json", *format)
	}
	if *limit < 0 {
		return errFlag("limit", "must be 0 (all) or more")
	}
	isRule := false
	for _, r := range policyRules {
		isRule = isRule || sub == r
	}
	if !isRule && sub != "list" && sub != "changes" && sub != "remove" && sub != "resume" {
		fmt.Fprint(stderr, policyUsage)
		return fmt.Errorf("%w: %q is not a rule nor a policy subcommand (list, changes, remove, resume)", errUsage, sub)
	}
	if sub != "list" && sub != "changes" && strings.TrimSpace(*by) == "" {
		return errFlag("by", "say who makes the change: $USER is not set")
	}
	open := store.Open // a change makes the database when missing
	if sub == "list" || sub == "changes" {
		open = openStore // a read refuses a missing one
	}
	st, err := open(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := &checks.Service{Store: st, Now: time.Now}

	switch sub {
	case "list":
		if len(words) > 0 {
			return fmt.Errorf("%w: policy list takes no argument, not %q", errUsage, words[0])
		}
		return printPolicy(ctx, svc, *format, stdout)
	case "changes":
		if len(words) > 0 {
			return fmt.Errorf("%w: policy changes takes no argument, not %q", errUsage, words[0])
		}
		return printPolicyChanges(ctx, svc, *format, *limit, stdout)
	case "remove":
		if len(words) == 0 {
			return fmt.Errorf("%w: policy remove takes a rule's id (policy list) or its words, as in policy remove block country DE", errUsage)
		}
		return removePolicyRule(ctx, svc, words, *by, *why, stdout)
	case "resume":
		if len(words) != 2 || words[0] != "subsample" {
			return fmt.Errorf("%w: policy resume takes subsample ID", errUsage)
		}
		return removePolicyRule(ctx, svc, append([]string{"pause"}, words...), *by, *why, stdout)
	}
	r, err := svc.SetRule(ctx, rules.JoinBlockValue(append([]string{sub}, words...)), *by, *why)
	if errors.Is(err, checks.ErrBadRule) {
		return fmt.Errorf("%w: %s", errUsage, strings.TrimPrefix(err.Error(), checks.ErrBadRule.Error()+": "))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rule %d in force: %s (%s)\n", r.ID, rules.PolicyWords(r), rules.PolicySubject(r))
	return nil
}

// parsePolicyFlags parses the flags fs defines wherever they are in args
// (--why after the rule's words), and returns the other words in order.
// A word that is not one of fs's flags is a word, even when it begins
// with a dash (a priority's -1); "--" ends the flags.
func parsePolicyFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "h" || name == "help" {
			flags = append(flags, a) // fs.Parse prints the help and says so
			continue
		}
		if !strings.HasPrefix(a, "-") || fs.Lookup(name) == nil {
			words = append(words, a)
			continue
		}
		flags = append(flags, a)
		if !hasValue && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	if err := applyEnv(fs); err != nil {
		return nil, err
	}
	return words, nil
}

// removePolicyRule removes the rule words name: an id, or the words of a
// rule in force (its amount not compared).
func removePolicyRule(ctx context.Context, svc *checks.Service, words []string, by, why string, stdout io.Writer) error {
	var err error
	var removed string
	if id, perr := strconv.ParseInt(words[0], 10, 64); perr == nil && len(words) == 1 {
		r, rerr := svc.RemoveRule(ctx, id, by, why)
		err, removed = rerr, rules.PolicyWords(r)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: no rule %d is in force (policy list)", errUsage, id)
		}
	} else {
		r, rerr := svc.RemoveRuleWords(ctx, rules.JoinBlockValue(words), by, why)
		err, removed = rerr, rules.PolicyWords(r)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: %s", errUsage, strings.TrimSuffix(err.Error(), ": "+store.ErrNotFound.Error()))
		}
	}
	if errors.Is(err, checks.ErrBadRule) {
		return fmt.Errorf("%w: %s", errUsage, strings.TrimPrefix(err.Error(), checks.ErrBadRule.Error()+": "))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "removed: %s\n", removed)
	return nil
}

// utcTime writes a time as the command line's CSVs do: RFC 3339 in UTC.
func utcTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// printPolicy prints the rules in force: a line each (text), the page's
// CSV or the API's JSON.
func printPolicy(ctx context.Context, svc *checks.Service, format string, stdout io.Writer) error {
	p, err := svc.Policy(ctx)
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		w := formats.NewWriter(stdout)
		if err := formats.WritePolicyCSV(w, p.Rules, utcTime); err != nil {
			return err
		}
		return w.Flush()
	case "json":
		return json.NewEncoder(stdout).Encode(formats.Policy(p))
	}
	if len(p.Rules) == 0 {
		fmt.Fprintln(stdout, "none of our rules is in force")
	}
	for _, r := range p.Rules {
		fmt.Fprintf(stdout, "%d\t%s\t%s\tset by %s %s\t%s\n", r.ID, rules.PolicyWords(r), rules.PolicySubject(r), or(r.SetBy, "someone unnamed"), r.SetAt.UTC().Format(time.DateTime), r.Why)
	}
	return nil
}

// printPolicyChanges prints the audit, newest first: a line each (text),
// the page's CSV or the API's JSON.
func printPolicyChanges(ctx context.Context, svc *checks.Service, format string, limit int, stdout io.Writer) error {
	changes, err := svc.PolicyChanges(ctx, limit)
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		w := formats.NewWriter(stdout)
		if err := formats.WritePolicyChangesCSV(w, changes, utcTime); err != nil {
			return err
		}
		return w.Flush()
	case "json":
		return json.NewEncoder(stdout).Encode(formats.PolicyChangesPage{Changes: formats.PolicyChanges(changes)})
	}
	for _, c := range changes {
		fmt.Fprintf(stdout, "%s\t%s\t%s %s\t%s -> %s\t%s\n", c.At.UTC().Format(time.DateTime), c.By, c.Action, c.Subject, or(c.Before, "none"), or(c.After, "none"), c.Why)
	}
	return nil
}
