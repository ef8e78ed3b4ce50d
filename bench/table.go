// Package bench is Fieldboard's benchmark harness, run by `make bench`:
// the figures themselves are behind the bench build tag (bench_test.go),
// so `make test` never runs them. This file, which has no tag, turns the
// figures of bench/results.json into the table of bench/README.md, so that
// the table is never typed by hand: the harness rewrites it after each full
// run, `go run ./bench/cmd/benchtable` rewrites it from results.json, and
// TestReadmeTableIsResultsJSON fails when the two differ.
package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Row is one line of the results: a figure, its floor and whether it met
// its target, or why it did not run.
type Row struct {
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Floor  float64 `json:"floor"`
	Ratio  float64 `json:"ratio"`
	Target string  `json:"target"`
	Met    bool    `json:"met"`
	NotRun string  `json:"not_run,omitempty"`
}

// The markers around the generated table in bench/README.md; everything
// between them belongs to Table.
const (
	TableStart = "<!-- results-table:start (generated from results.json by go run ./bench/cmd/benchtable; do not edit) -->"
	TableEnd   = "<!-- results-table:end -->"
)

// The files the table is made from and written to, in the bench folder.
const (
	ResultsFile = "results.json"
	ReadmeFile  = "README.md"
)

// Table renders rows as a Markdown table: one line a figure, in the order
// of the results, with its measure, its floor, their ratio, its target and
// whether it met it.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| # | figure | measured | floor | ratio | target | met |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		number, what := splitFigure(r.Figure)
		if r.NotRun != "" {
			fmt.Fprintf(&b, "| %s | %s | not run: %s | | | | |\n", number, cell(what), cell(r.NotRun))
			continue
		}
		floor, ratio := "", ""
		if r.Floor != 0 {
			floor = quantity(r.Floor, r.Unit)
		}
		if r.Ratio != 0 {
			ratio = significant(r.Ratio)
		}
		met := "yes"
		if !r.Met {
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n",
			number, cell(what), quantity(r.Value, r.Unit), floor, ratio, cell(readableTarget(r.Target)), met)
	}
	return b.String()
}

// RewriteTable returns readme with what lies between TableStart and
// TableEnd replaced by the table of rows.
func RewriteTable(readme string, rows []Row) (string, error) {
	start := strings.Index(readme, TableStart)
	end := strings.Index(readme, TableEnd)
	if start < 0 || end < start {
		return "", errors.New("the markers of the results table are missing or out of order: want " + TableStart + " then " + TableEnd)
	}
	head := readme[:start+len(TableStart)]
	return head + "\n\n" + Table(rows) + "\n" + readme[end:], nil
}

// ReadResults reads the rows of a results file.
func ReadResults(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the results: %w", err)
	}
	var rows []Row
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("read the results %s: %w", path, err)
	}
	return rows, nil
}

// UpdateReadme rewrites the table of dir's README.md from the rows given,
// or from dir's results.json when rows is nil.
func UpdateReadme(dir string, rows []Row) error {
	if rows == nil {
		var err error
		if rows, err = ReadResults(filepath.Join(dir, ResultsFile)); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, ReadmeFile)
	readme, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the bench README: %w", err)
	}
	out, err := RewriteTable(string(readme), rows)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return fmt.Errorf("write the bench README: %w", err)
	}
	return nil
}

// The marks of the groups of rows that runs other than TestBench's add to
// results.json, after its rows (`make bench` runs them after it): a
// group's mark is in the figure of each of its rows, after the number,
// and in no other.
const (
	scaleMark = " scale: " // make bench-scale, TestBenchScale
	busyMark  = " busy: "  // make bench-busy, TestBenchBusy
)

// inGroup says whether r is a row of one of the groups.
func inGroup(r Row) bool {
	return strings.Contains(r.Figure, scaleMark) || strings.Contains(r.Figure, busyMark)
}

// replaceGroup is rows with the group mark's rows replaced by group, after
// all the others: `make bench` runs the groups after TestBench, which
// writes its rows alone, so after it results.json holds one run's
// figures.
func replaceGroup(rows []Row, mark string, group []Row) []Row {
	out := make([]Row, 0, len(rows)+len(group))
	for _, r := range rows {
		if !strings.Contains(r.Figure, mark) {
			out = append(out, r)
		}
	}
	return append(out, group...)
}

// splitFigure cuts a figure's name into its number ("1p", "5+11") and
// what it measures.
func splitFigure(figure string) (number, what string) {
	number, what, _ = strings.Cut(figure, " ")
	return number, what
}

// quantity writes v in unit readably: milliseconds of a second or more as
// seconds, three significant digits, thousands separated.
func quantity(v float64, unit string) string {
	switch unit {
	case "ms":
		if v >= 1000 {
			return significant(v/1000) + " s"
		}
		return significant(v) + " ms"
	case "":
		return significant(v)
	default:
		return significant(v) + " " + unit
	}
}

// significant writes v with three significant digits (more for numbers of
// four digits or more, which keep their whole part), thousands separated.
func significant(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return thousands(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

// thousands puts a comma between each group of three digits of a whole
// number ("45696" is "45,696").
func thousands(whole string) string {
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return sign + whole
}

// readableTarget writes a target as the README does ("<= 1.25 x floor" is
// "≤ 1.25 × floor").
func readableTarget(target string) string {
	return strings.NewReplacer("<=", "≤", ">=", "≥", " x ", " × ").Replace(target)
}

// cell keeps a text from breaking its table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
