package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fieldboard/rules/checks/checkstest"
	"fieldboard/store"
)

// TestEveryDecidingCommandTakesTheDocumentedStalenessLimit: the commands
// that decide (serve, subsamples, eligible, targets) refuse to decide on
// data older than 15 minutes unless told otherwise, as docs/rules.md says
// (five of the provider's 3-minute caching periods). The rules/checks
// boundary tests hold the limit relative to the one a service is given;
// this holds the limit each command gives it, so a default doubled or
// dropped on one command fails here.
func TestEveryDecidingCommandTakesTheDocumentedStalenessLimit(t *testing.T) {
	t.Parallel()
	defaultLine := regexp.MustCompile(`(?m)^\s+-stale-after duration\n.*\(default 15m0s\)$`)
	for _, cmd := range []string{"serve", "subsamples", "eligible", "targets"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{cmd, "--help"}, &out, &out); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		if !defaultLine.Match(out.Bytes()) {
			t.Errorf("%s --help does not give --stale-after the default 15m0s:\n%s", cmd, out.String())
		}
	}
}

// TestEveryDecidingCommandHoldsForQuality: the commands that decide take
// the quality hold's flags with the documented defaults (3 reversals in 90
// days), and the one that prints its decisions per panelist (eligible)
// refuses a panelist held for quality with the reason, and sends them
// again with --hold-reversals 0.
func TestEveryDecidingCommandHoldsForQuality(t *testing.T) {
	for _, cmd := range []string{"serve", "subsamples", "eligible", "targets"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{cmd, "--help"}, &out, &out); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		for _, want := range []string{`(?m)^\s+-hold-reversals int\n.*\n?.*\(default 3\)$`, `(?m)^\s+-hold-days int\n.*\(default 90\)$`} {
			if !regexp.MustCompile(want).Match(out.Bytes()) {
				t.Errorf("%s --help does not match %s:\n%s", cmd, want, out.String())
			}
		}
	}

	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	checkstest.Build(t, st)
	st.Close()
	ids := filepath.Join(t.TempDir(), "ids.csv")
	if err := os.WriteFile(ids, []byte("panelistId\nP-held\nP-open\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The world was read on a fixed day: no staleness limit, and a
	// window of days that reaches back to its reversals whenever the
	// test runs.
	eligible := func(extra ...string) [][]string {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{"eligible", "--db", db, "--subsample", strconv.FormatInt(checkstest.Target, 10), "--panelists", ids,
			"--stale-after", "0", "--hold-days", "36500"}, extra...)
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		rows, err := csv.NewReader(&out).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("%v printed %q, %v", args, out.String(), err)
		}
		return rows
	}
	rows := eligible()
	if held := rows[1]; held[0] != "P-held" || held[3] != "false" || !strings.Contains(held[4], "Held for quality: 3 reversed completes in the last 36500 days.") {
		t.Errorf("a panelist held for quality: %q, want send false and the hold's reason", held)
	}
	if open := rows[2]; open[3] != "true" {
		t.Errorf("P-open: %q, want send true", open)
	}
	if off := eligible("--hold-reversals", "0")[1]; off[3] != "true" {
		t.Errorf("with the hold off P-held is %q, want send true", off)
	}
	// The send list leaves the held panelist out, and keeps them with the
	// hold off.
	targets := func(extra ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{"targets", "--db", db, "--subsample", strconv.FormatInt(checkstest.Target, 10), "--stale-after", "0", "--hold-days", "36500"}, extra...)
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	if list := targets(); strings.Contains(list, "P-held,") || !strings.Contains(list, "P-open,") {
		t.Errorf("the send list with the hold on:\n%s\nwant P-open and not P-held", list)
	}
	if list := targets("--hold-reversals", "0"); !strings.Contains(list, "P-held,") {
		t.Errorf("the send list with the hold off:\n%s\nwant P-held on it", list)
	}
	var errOut bytes.Buffer
	if err := run(ctx, []string{"eligible", "--db", db, "--subsample", "10", "--panelists", ids, "--hold-days", "-1"}, &errOut, &errOut); err == nil || !strings.Contains(err.Error(), "--hold-days") {
		t.Errorf("a negative --hold-days: %v, want a usage error naming it", err)
	}
}
