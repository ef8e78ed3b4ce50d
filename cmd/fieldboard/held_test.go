package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// TestPanelistsHoldReleaseHeld: panelists hold and release change the
// held list that panelists held prints (CSV and JSON); bad input exits
// with the reason and changes nothing.
func TestPanelistsHoldReleaseHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var history []domain.HistoryRecord
	for i := range int64(3) {
		at := time.Now().Add(-time.Duration(i+1) * 24 * time.Hour)
		history = append(history,
			domain.HistoryRecord{PanelistID: "Q1", SubsampleID: 70 + i, EventID: 70 + i, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(-time.Hour)},
			domain.HistoryRecord{PanelistID: "Q1", SubsampleID: 70 + i, EventID: 70 + i, StatusID: domain.ReturnPotentiallyUnengaged, RegisteredAt: at})
	}
	if _, err := st.ImportHistory(ctx, history); err != nil {
		t.Fatal(err)
	}
	st.Close()
	runOK := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	held := func() map[string]string {
		t.Helper()
		var list formats.HeldListJSON
		if err := json.Unmarshal([]byte(runOK("panelists", "held", "--db", db, "--format", "json")), &list); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, h := range list.Held {
			out[h.PanelistID] = h.Kind
		}
		return out
	}
	if got := held(); len(got) != 1 || got["Q1"] != "quality" {
		t.Fatalf("held at first = %v, want Q1 for quality", got)
	}
	until := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	if out := runOK("panelists", "hold", "H1", "--db", db, "--until", until, "--why", "asked to pause", "--by", "maria"); out != "panelist H1 held by hand by maria until "+until+"\n" {
		t.Errorf("hold said %q", out)
	}
	if out := runOK("panelists", "release", "--db", db, "--why", "withdrawn", "--by", "maria", "Q1"); !strings.Contains(out, "panelist Q1 released by hand") {
		t.Errorf("release said %q", out)
	}
	if got := held(); len(got) != 1 || got["H1"] != "hand" {
		t.Errorf("held after hold H1 and release Q1 = %v, want H1 by hand", got)
	}
	csv := runOK("panelists", "held", "--db", db)
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], `H1,,hand,"Held by hand (set by maria on `) || !strings.Contains(lines[1], ","+until+",maria,asked to pause,") {
		t.Errorf("panelists held (CSV) =\n%s", csv)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"panelists", "hold", "H2", "--db", db, "--by", "maria"}, "--why: say why"},
		{[]string{"panelists", "hold", "H2", "--db", db, "--why", "x"}, "say who makes the change"},
		{[]string{"panelists", "hold", "H2", "--db", db, "--why", "x", "--by", "maria", "--until", "tomorrow"}, `--until: "tomorrow" is not an RFC 3339 time`},
		{[]string{"panelists", "hold", "H2", "--db", db, "--why", "x", "--by", "maria", "--until", "2020-01-01T00:00:00Z"}, "a hold must last until a time still to come"},
		{[]string{"panelists", "hold", "--db", db, "--why", "x", "--by", "maria"}, "takes one panelist ID"},
		{[]string{"panelists", "release", "H2", "--db", filepath.Join(t.TempDir(), "missing.db"), "--why", "x", "--by", "maria"}, "run 'fieldboard refresh' first"},
		{[]string{"panelists", "held", "--db", db, "--format", "xml"}, `--format: "xml" is neither csv nor json`},
		{[]string{"panelists", "unheld"}, `unknown panelists subcommand "unheld"`},
	} {
		var out, errOut bytes.Buffer
		err := run(ctx, bad.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), bad.want) || exitCode(err) == 0 {
			t.Errorf("%q: %v, want an error saying %q", bad.args, err, bad.want)
		}
	}
	if got := held(); len(got) != 1 || got["H2"] != "" {
		t.Errorf("a refused hold changed the held list: %v", got)
	}
}
