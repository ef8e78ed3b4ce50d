package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"fieldboard/store"
)

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		fmt.Fprintln(stderr, "Usage: fieldboard history import --db PATH FILE")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return fmt.Errorf("%w: history takes the subcommand import", errUsage)
	}
	fs := newFlagSet("history import", "Imports respondent history from a CSV file with the header "+store.HistoryHeader+". The file is checked line by line and written in one transaction: a file with any bad line is rejected whole, listing each bad line, and nothing is written. Re-importing the same records adds no duplicates.", stderr)
	providerTZ := fs.String("provider-tz", "UTC", "time zone of registeredAt values without a zone")
	report, err := importFile(ctx, fs, args[1:], func(st *store.Store, in io.Reader) (store.ImportReport, error) {
		loc, err := time.LoadLocation(*providerTZ)
		if err != nil {
			return store.ImportReport{}, fmt.Errorf("--provider-tz %q: %w", *providerTZ, err)
		}
		return st.ImportHistoryCSV(ctx, in, loc)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d records, %d new, %d already stored\n", fs.Arg(0), report.Records, report.Inserted, report.Duplicates)
	return nil
}

// importFile is the one shape of the import commands: fs's flags plus --db
// and one FILE (- for standard input); imp writes the file to the store,
// and a rejected file's bad lines join the error, one per line.
func importFile[R interface {
	BadLinesOf() ([]store.LineError, int)
}](ctx context.Context, fs *flag.FlagSet, args []string, imp func(st *store.Store, in io.Reader) (R, error)) (R, error) {
	var report R
	dbPath := dbFlag(fs)
	if err := fs.Parse(args); err != nil {
		return report, err
	}
	if fs.NArg() != 1 {
		return report, fmt.Errorf("%w: %s takes one FILE (- for standard input)", errUsage, fs.Name())
	}
	if err := applyEnv(fs); err != nil {
		return report, err
	}
	in, err := openInput(fs.Arg(0))
	if err != nil {
		return report, err
	}
	defer in.Close()
	st, err := store.Open(ctx, *dbPath)
	if err != nil {
		return report, err
	}
	defer st.Close()
	report, err = imp(st, in)
	if err != nil {
		lines, _ := report.BadLinesOf()
		return report, withLineErrors(fmt.Errorf("%s: %w", fs.Arg(0), err), lines)
	}
	return report, nil
}

// openInput opens a file, or standard input for "-".
func openInput(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// withLineErrors appends the bad lines of a rejected file to err's message.
func withLineErrors(err error, lines []store.LineError) error {
	if len(lines) == 0 {
		return err
	}
	var msg strings.Builder
	msg.WriteString(err.Error())
	for _, l := range lines {
		fmt.Fprintf(&msg, "\n  line %d: %s", l.Line, l.Reason)
	}
	return fmt.Errorf("%s", msg.String())
}
