package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
)

// csvRun is one way a command prints CSV: its arguments, and which of its
// cells may be echoed as the caller gave them (nil: none).
type csvRun struct {
	args   []string
	exempt func(row, col int, cell string) bool
}

// formulaStarts are what a spreadsheet runs as a formula at the start of
// a cell: = + - @, their full-width forms, tab and CR.
var formulaStarts = []string{"=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"}

func startsFormula(s string) bool {
	if regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`).MatchString(s) {
		return false // a credit: -1.50 is a number, not a formula
	}
	for _, p := range formulaStarts {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestEveryCSVTheCommandLinePrintsIsNeutralised runs every command of
// the command table that prints CSV on a database refreshed from a
// simulator whose names and panelist ids begin with formulas (imported
// through the profile, panel and history imports), and fails on any cell a
// spreadsheet would run: one beginning with = + - @, their full-width
// forms, tab or CR without the writer's leading quote, or holding a ; and
// not quoted. A command the test does not know fails it: say whether it
// prints CSV and how to run it.
func TestEveryCSVTheCommandLinePrintsIsNeutralised(t *testing.T) {
	t.Parallel()
	simulator, upstream := newSim(t, sim.Options{Seed: 5, QuestionsPerLocale: 10, FormulaNames: true, FormulaIDs: true})
	dir := t.TempDir()
	db := filepath.Join(dir, "fb.db")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	mustRun := func(args ...string) string {
		t.Helper()
		out.Reset()
		errOut.Reset()
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("fieldboard %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		return out.String()
	}
	file := func(name string, lines func(*strings.Builder)) string {
		var b strings.Builder
		lines(&b)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const panelists = 300
	mustRun("refresh", "--upstream", upstream, "--db", db)
	var ids []string
	profiles := file("profiles.csv", func(b *strings.Builder) {
		b.WriteString(store.ProfileHeader + "\n")
		for r := range simulator.Profiles(3, panelists) {
			if len(ids) == 0 || ids[len(ids)-1] != r.PanelistID {
				ids = append(ids, r.PanelistID)
			}
			fmt.Fprintf(b, "%s,%d,%s\n", r.PanelistID, r.QuestionID, r.Value)
		}
	})
	mustRun("profiles", "import", "--db", db, profiles)
	mustRun("panelists", "import", "--db", db, file("panel.csv", func(b *strings.Builder) {
		b.WriteString(store.PanelHeader + "\n")
		for m := range simulator.Panel(3, panelists) {
			fmt.Fprintf(b, "%s,%s,%s\n", m.PanelistID, m.Country, m.Locale)
		}
	}))
	mustRun("history", "import", "--db", db, file("history.csv", func(b *strings.Builder) {
		b.WriteString(store.HistoryHeader + "\n")
		for r := range simulator.History(3, 2*panelists, panelists) {
			fmt.Fprintf(b, "%s,%d,%d,%s,%d,%d,%d\n", r.PanelistID, r.SubsampleID, r.StatusID,
				r.RegisteredAt.UTC().Format(time.DateTime), r.EventID, r.CategoryID, r.ResearchTypeID)
		}
	}))
	idList := file("ids.csv", func(b *strings.Builder) { b.WriteString("panelistId\n" + strings.Join(ids, "\n") + "\n") })
	var sendable []struct {
		SubsampleID int64 `json:"subsampleId"`
	}
	if err := json.Unmarshal([]byte(mustRun("subsamples", "--db", db, "--format", "json", "--sendability", "sendable")), &sendable); err != nil {
		t.Fatal(err)
	}

	// What each command prints as CSV; nil for one that prints none.
	echoed := func(row, col int, cell string) bool { return row > 0 && col == 0 && cell == ids[row-1] } // the README's one exception
	var targets []csvRun
	for _, s := range sendable {
		targets = append(targets, csvRun{args: []string{"targets", "--db", db, "--subsample", strconv.FormatInt(s.SubsampleID, 10)}})
	}
	printsCSV := map[string][]csvRun{
		"subsamples": {{args: []string{"subsamples", "--db", db, "--format", "csv"}}},
		"eligible":   {{args: []string{"eligible", "--db", db, "--subsample", strconv.FormatInt(sendable[0].SubsampleID, 10), "--panelists", idList}, exempt: echoed}},
		"targets":    targets,
		// An import file for fieldboard, not a spreadsheet's: the age
		// question's id, -1, must read back as written; its ids and
		// values must still be safe.
		"profiles": {{args: []string{"profiles", "generate", "--panelists", "50"}, exempt: func(row, col int, cell string) bool {
			return row > 0 && col == 1 && cell == "-1"
		}}, {args: []string{"profiles", "generate", "--own", "--panelists", "50"}}, {args: []string{"profiles", "generate", "--mapping"}, exempt: func(row, col int, cell string) bool {
			return row > 0 && col == 2 && cell == "-1"
		}}},
		"report":    {{args: []string{"report", "outcomes", "--db", db}}, {args: []string{"report", "invoice", "--db", db, "--month", time.Now().UTC().Format("2006-01")}}},
		"profiling": {{args: []string{"profiling", "--db", db}}},
		"panelists": {{args: []string{"panelists", "held", "--db", db}}},
		// A rule whose value, who and why begin with formulas, then the
		// rules and their audit.
		"policy": {{args: []string{"policy", "block", "category", "=cmd|' /C calc'!A0", "--by", "@maria", "--why", "+1;2", "--db", db}},
			{args: []string{"policy", "list", "--format", "csv", "--db", db}}, {args: []string{"policy", "changes", "--format", "csv", "--db", db}}},
		"serve": nil, "refresh": nil, "provider-sim": nil, "history": nil,
		"user": nil, "token": nil, "webhook": nil, "invite": nil, "secret": nil,
	}
	neutralised := map[string]int{}
	for _, c := range commands() {
		runs, known := printsCSV[c.name]
		if !known {
			t.Errorf("command %q is new to this test: add it to printsCSV, with how to make it print CSV, or nil", c.name)
			continue
		}
		for _, r := range runs {
			printed := mustRun(r.args...)
			rows, err := csv.NewReader(strings.NewReader(printed)).ReadAll()
			if err != nil {
				t.Fatalf("fieldboard %s printed CSV that does not read back: %v", strings.Join(r.args, " "), err)
			}
			for i, row := range rows {
				for j, cell := range row {
					if rest, ok := strings.CutPrefix(cell, "'"); ok && startsFormula(rest) {
						neutralised[c.name]++
					}
					if r.exempt != nil && r.exempt(i, j, cell) {
						continue
					}
					if startsFormula(cell) {
						t.Errorf("fieldboard %s, line %d, cell %d: %q begins with a formula, not neutralised", c.name, i+1, j+1, cell)
					}
					if strings.Contains(cell, ";") && !strings.Contains(printed, `"`+strings.ReplaceAll(cell, `"`, `""`)+`"`) {
						t.Errorf("fieldboard %s, line %d, cell %d: %q holds a ; and is not quoted", c.name, i+1, j+1, cell)
					}
				}
			}
		}
	}
	// The commands that print names or ids had formulas to neutralise.
	for _, name := range []string{"subsamples", "targets", "policy"} {
		if neutralised[name] == 0 {
			t.Errorf("fieldboard %s: no cell neutralised; the world gave it no name or id beginning with a formula (%v)", name, neutralised)
		}
	}
}
