package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"fieldboard/client/sim"
	"fieldboard/store"
	"fieldboard/views/formats"
)

func runProfiles(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "import":
			return runProfilesImport(ctx, args[1:], stdout, stderr)
		case "generate":
			return runProfilesGenerate(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintln(stderr, "Usage: fieldboard profiles import --db PATH FILE\n       fieldboard profiles generate [--own | --mapping] --panelists N --seed S > FILE")
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		return nil
	}
	return fmt.Errorf("%w: profiles takes the subcommand import or generate", errUsage)
}

func runProfilesImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("profiles import", "Imports panelist profiles from a CSV file with the header "+store.ProfileHeader+": for a library question, value is one answer id (a row per answer of a multi-punch question); for the age question -1 it is the birth date yyyy-MM-dd. The file is checked line by line and written in one transaction: a file with any bad line is rejected whole, listing each bad line, and nothing is written. A panelist's answers to a question in the file replace that panelist's earlier answers to it; questions not in the stored library are accepted with a warning.", stderr)
	var known func(questionID int64) bool
	report, err := importFile(ctx, fs, args, func(st *store.Store, in io.Reader) (_ store.ProfileImportReport, err error) {
		if known, err = st.KnownQuestions(ctx); err != nil { // nil without a stored library: nothing is checked
			return store.ProfileImportReport{}, err
		}
		return st.ImportProfilesCSV(ctx, in, known)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d records, %d answers written, %d earlier answers replaced\n",
		fs.Arg(0), report.Records, report.Inserted, report.Replaced)
	switch {
	case known == nil:
		fmt.Fprintln(stdout, "note: no question library is stored yet (run 'fieldboard refresh'), so question ids were not checked")
	case report.UnknownQuestions > 0:
		ids := make([]string, len(report.UnknownQuestionIDs))
		for i, id := range report.UnknownQuestionIDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		fmt.Fprintf(stdout, "warning: %d records answer questions not in the stored library, among them %s\n",
			report.UnknownQuestions, strings.Join(ids, ", "))
	}
	return nil
}

func runProfilesGenerate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("profiles generate", "Writes to standard output a CSV profile file ("+store.ProfileHeader+") of simulated panelists P0000000, P0000001, ... whose answers fit the built-in simulator's question library, regions and quotas: import it with 'fieldboard profiles import' to try the dashboard on the simulator. With --own, the same profiles in a supplier's own codes (panelistId,code,value: dob, gender, region, ...), without household income, which that supplier never asks; with --mapping, that supplier's mapping from its codes to the library's ids (code,value,questionId,answerId,country), which leaves one country's regions unmapped.", stderr)
	panelists := fs.Int("panelists", 1000, "number of panelists")
	seed := fs.Int64("seed", 1, "seed of the profiles: the same seed gives the same file")
	simSeed := fs.Int64("sim-seed", 1, "seed of the simulator the profiles fit (serve's --sim-seed)")
	simSize := fs.Int("sim-subsamples", 240, "subsamples of that simulator (serve's --sim-subsamples)")
	own := fs.Bool("own", false, "write the profiles in the supplier's own codes (panelistId,code,value)")
	mapping := fs.Bool("mapping", false, "write the supplier's mapping from its codes to the library's ids (code,value,questionId,answerId,country) instead of profiles")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *panelists < 1:
		return errFlag("panelists", "must be at least 1")
	case *simSize < 1:
		return errFlag("sim-subsamples", "must be at least 1")
	case *own && *mapping:
		return errFlag("mapping", "cannot be used with --own: write the profiles and the mapping in two runs")
	}
	provider := sim.New(sim.Options{Seed: *simSeed, Subsamples: *simSize})
	switch {
	case *own:
		if err := formats.WriteOwnProfilesCSV(stdout, provider.OwnProfiles(*seed, *panelists)); err != nil {
			return fmt.Errorf("write profiles: %w", err)
		}
	case *mapping:
		if err := formats.WriteMappingCSV(stdout, provider.Mapping()); err != nil {
			return fmt.Errorf("write mapping: %w", err)
		}
	default:
		if err := formats.WriteProfilesCSV(stdout, provider.Profiles(*seed, *panelists)); err != nil {
			return fmt.Errorf("write profiles: %w", err)
		}
	}
	return nil
}
