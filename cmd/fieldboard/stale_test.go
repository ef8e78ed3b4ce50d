package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"regexp"
	"testing"
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
