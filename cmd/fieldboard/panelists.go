package main

import (
	"context"
	"fmt"
	"io"

	"fieldboard/store"
)

func runPanelists(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		fmt.Fprintln(stderr, "Usage: fieldboard panelists import --db PATH FILE")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return fmt.Errorf("%w: panelists takes the subcommand import", errUsage)
	}
	return runPanelistsImport(ctx, args[1:], stdout, stderr)
}

func runPanelistsImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("panelists import", "Imports the panel, where each panelist belongs, from a CSV file with the header "+store.PanelHeader+": country is the ISO 3166-1 alpha-2 code (FR), locale the language-country form (fr-fr, fr_FR; any case) of that country, or empty when not known. A panelist is only sent to subsamples of their country and, when their locale is known, of their language; one with no country on file is sent nowhere. The file is checked line by line and written in one transaction: a file with any bad line is rejected whole, listing each bad line, and nothing is written. A panelist's last line replaces their earlier country and locale.", stderr)
	report, err := importFile(ctx, fs, args, func(st *store.Store, in io.Reader) (store.PanelImportReport, error) {
		return st.ImportPanelCSV(ctx, in)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d records, %d panelists written, %d of them replacing an earlier country and locale\n",
		fs.Arg(0), report.Records, report.Written, report.Replaced)
	return nil
}
