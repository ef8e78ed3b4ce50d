package bench

import (
	"os"
	"strings"
	"testing"
)

// These tests have no build tag: `make test` runs them.

// TestReadmeTableIsResultsJSON: the table of bench/README.md is exactly
// what results.json gives, so the figures a reader sees are the last full
// run's and nobody's typing.
func TestReadmeTableIsResultsJSON(t *testing.T) {
	rows, err := ReadResults(ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(ReadmeFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := RewriteTable(string(readme), rows)
	if err != nil {
		t.Fatalf("bench/README.md: %v", err)
	}
	if string(readme) != want {
		t.Errorf("bench/README.md's results table is not what bench/results.json gives; run `go run ./bench/cmd/benchtable` and commit it. The table results.json gives:\n%s", Table(rows))
	}
}

// TestTableWritesEachFigureReadably: the units, the missing floor, the
// misses in bold and a figure that did not run, each as a reader reads it.
func TestTableWritesEachFigureReadably(t *testing.T) {
	rows := []Row{
		{Figure: "1 full refresh", Value: 14633.195, Unit: "ms", Floor: 12898.75, Ratio: 1.134, Target: "<= 1.25 x floor", Met: true},
		{Figure: "2 write one snapshot", Value: 325.057, Unit: "ms", Target: "<= 300 ms"},
		{Figure: "12 next-survey throughput", Value: 8455.217, Unit: "answers/s", Floor: 45696.336, Ratio: 0.185, Target: ">= 0.5 x floor"},
		{Figure: "7p history import | on PostgreSQL", NotRun: "no PostgreSQL"},
	}
	want := []string{
		"| 1 | full refresh | 14.6 s | 12.9 s | 1.13 | ≤ 1.25 × floor | yes |",
		"| 2 | write one snapshot | 325 ms |  |  | ≤ 300 ms | **no** |",
		"| 12 | next-survey throughput | 8,455 answers/s | 45,696 answers/s | 0.185 | ≥ 0.5 × floor | **no** |",
		`| 7p | history import \| on PostgreSQL | not run: no PostgreSQL | | | | |`,
	}
	got := strings.Split(strings.TrimSpace(Table(rows)), "\n")[2:]
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

// TestRewriteTableKeepsTheRestAndNeedsItsMarkers: only what lies between
// the markers changes, and a README without them is an error, not a
// table appended somewhere.
func TestRewriteTableKeepsTheRestAndNeedsItsMarkers(t *testing.T) {
	rows := []Row{{Figure: "8 RSS", Value: 116.598, Unit: "MiB", Target: "<= 150 MB", Met: true}}
	readme := "# Performance\n\nbefore\n" + TableStart + "\n| old | table |\n" + TableEnd + "\nafter\n"
	out, err := RewriteTable(readme, rows)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Performance\n\nbefore\n" + TableStart + "\n\n" + Table(rows) + "\n" + TableEnd + "\nafter\n"
	if out != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
	if again, _ := RewriteTable(out, rows); again != out {
		t.Error("a second rewrite changed the README again")
	}
	if _, err := RewriteTable("# Performance\n\nno markers\n", rows); err == nil {
		t.Error("a README without the markers was rewritten")
	}
}

// TestReplaceGroupKeepsTheOthers: a group's new rows (make bench-busy's,
// make bench-scale's) take the place of its old ones, after every other
// row, and leave TestBench's rows and the other group's as they were.
func TestReplaceGroupKeepsTheOthers(t *testing.T) {
	rows := []Row{
		{Figure: "12 next-survey answer"},
		{Figure: "12 scale: next-survey answer throughput, at 24000"},
		{Figure: "12 busy: next-survey answer, old"},
		{Figure: "13 busy: invitation link click, old"},
		{Figure: "13 invitation link click"},
	}
	got := replaceGroup(rows, busyMark, []Row{{Figure: "12 busy: next-survey answer, new"}, {Figure: "13 busy: invitation link click, new"}})
	want := []string{"12 next-survey answer", "12 scale: next-survey answer throughput, at 24000", "13 invitation link click",
		"12 busy: next-survey answer, new", "13 busy: invitation link click, new"}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Figure != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i].Figure, want[i])
		}
	}
	for _, r := range got {
		if inGroup(r) != (strings.Contains(r.Figure, "scale:") || strings.Contains(r.Figure, "busy:")) {
			t.Errorf("%q: inGroup says %v", r.Figure, inGroup(r))
		}
	}
}
