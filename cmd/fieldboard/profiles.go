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
		case "mapping":
			if len(args) > 1 && args[1] == "import" {
				return runProfilesMappingImport(ctx, args[2:], stdout, stderr)
			}
		}
	}
	fmt.Fprintln(stderr, "Usage: fieldboard profiles import [--own] --db PATH FILE\n       fieldboard profiles mapping import --db PATH FILE\n       fieldboard profiles generate [--own | --mapping] --panelists N --seed S > FILE")
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		return nil
	}
	return fmt.Errorf("%w: profiles takes the subcommand import or generate, or mapping import", errUsage)
}

// profilesImportReport is the report of either kind of profile file
// 'profiles import' reads: by provider ids, or with --own in the
// supplier's own codes.
type profilesImportReport struct {
	ids store.ProfileImportReport
	own *store.OwnProfileImportReport
}

func (r profilesImportReport) BadLinesOf() ([]store.LineError, int) {
	if r.own != nil {
		return r.own.BadLinesOf()
	}
	return r.ids.BadLinesOf()
}

func runProfilesImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("profiles import", "Imports panelist profiles from a CSV file with the header "+store.ProfileHeader+": for a library question, value is one answer id (a row per answer of a multi-punch question); for the age question -1 it is the birth date yyyy-MM-dd. The file is checked line by line and written in one transaction: a file with any bad line is rejected whole, listing each bad line, and nothing is written. A panelist's answers to a question in the file replace that panelist's earlier answers to it; questions not in the stored library are accepted with a warning. With --own the file is in the supplier's own codes, header "+store.OwnProfileHeader+": the stored mapping ('fieldboard profiles mapping import') translates what it can into the provider's ids, and keeps the rest as sent, counted, for a mapping imported later. Answers imported in the provider's ids to a question win over translated ones.", stderr)
	own := fs.Bool("own", false, "the file is in the supplier's own codes ("+store.OwnProfileHeader+"), translated by the stored mapping")
	var known func(questionID int64) bool
	report, err := importFile(ctx, fs, args, func(st *store.Store, in io.Reader) (r profilesImportReport, err error) {
		if *own {
			ownReport, err := st.ImportOwnProfilesCSV(ctx, in)
			return profilesImportReport{own: &ownReport}, err
		}
		if known, err = st.KnownQuestions(ctx); err != nil { // nil without a stored library: nothing is checked
			return r, err
		}
		r.ids, err = st.ImportProfilesCSV(ctx, in, known)
		return r, err
	})
	if err != nil {
		return err
	}
	if report.own != nil {
		r := report.own
		fmt.Fprintf(stdout, "imported %s: %d records, %d answers of %d panelists; %d translated by the mapping, %d kept untranslated\n",
			fs.Arg(0), r.Records, r.Answers, r.Panelists, r.Translated, r.Untranslated)
		if r.Untranslated > 0 {
			fmt.Fprintln(stdout, "note: the untranslated answers are kept as sent, and not matched to quotas until a mapping row covers them ('fieldboard profiles mapping import')")
		}
		return nil
	}
	return profilesImportSaid(stdout, fs.Arg(0), report.ids, known)
}

// profilesImportSaid says what an import of a profile file by provider
// ids wrote, and warns of questions the library does not have.
func profilesImportSaid(stdout io.Writer, file string, report store.ProfileImportReport, known func(int64) bool) error {
	fmt.Fprintf(stdout, "imported %s: %d records, %d answers written, %d earlier answers replaced\n",
		file, report.Records, report.Inserted, report.Replaced)
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

func runProfilesMappingImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("profiles mapping import", "Imports the supplier's mapping from its own profile codes to the provider's ids, a CSV file with the header "+store.MappingHeader+": the supplier's question code and answer code, and the provider's question id and answer id they mean; country empty for a row that holds in every country (a country's row wins over it). A code mapped to the age question -1 has no value and no answer id: its values are birth dates yyyy-mm-dd. The file is the whole mapping: it replaces the stored one. Each row is checked against the stored question library of its country's locales (run 'fieldboard refresh' first); a file with any bad line is rejected whole, listing each bad line, and nothing is written. The own-code profiles imported before ('profiles import --own') are translated again with the new mapping.", stderr)
	report, err := importFile(ctx, fs, args, func(st *store.Store, in io.Reader) (store.MappingImportReport, error) {
		return st.ImportMappingCSV(ctx, in)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d mapping rows; %d panelists with own-code answers translated again (%d profiles changed): %d answers translated, %d kept untranslated\n",
		fs.Arg(0), report.Records, report.Panelists, report.Changed, report.Translated, report.Untranslated)
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
