package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/views/formats"
)

// runReport prints what the sending produced: a month's invoice, or a
// period's outcomes, as the dashboard's downloads do (the same writers).
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "invoice" && args[0] != "outcomes") {
		fmt.Fprintln(stderr, "Usage: fieldboard report invoice --db PATH --month YYYY-MM [--entity NAME]\n       fieldboard report outcomes --db PATH [--from DATE] [--to DATE] [--group subsample|event|country|day] [--totals]")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return fmt.Errorf("%w: report takes the subcommand invoice or outcomes", errUsage)
	}
	if args[0] == "invoice" {
		return runReportInvoice(ctx, args[1:], stdout, stderr)
	}
	return runReportOutcomes(ctx, args[1:], stdout, stderr)
}

func runReportInvoice(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report invoice", "Prints a month's invoice as CSV ("+strings.Join(formats.InvoiceColumns, ",")+"): every complete registered in the month at the price in effect then, and every reversal registered in the month as a credit at its complete's price; one line per billing entity, job number, event, subsample, currency and price. A line whose price Fieldboard never saw has no amount.", stderr)
	dbPath := dbFlag(fs)
	month := fs.String("month", "", "the month, YYYY-MM, in the provider's time zone (required)")
	entity := fs.String("entity", "", "print the lines of this billing entity alone (as the page's entity filter); one with nothing on the month's invoice is an error naming those that have")
	providerTZ := fs.String("provider-tz", "UTC", "the provider's time zone, whose calendar months are invoiced")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *month == "" {
		return errFlag("month", "is required, as YYYY-MM")
	}
	service, closeStore, err := outcomesService(ctx, *dbPath, *providerTZ)
	if err != nil {
		return err
	}
	defer closeStore()
	all, err := service.Invoice(ctx, *month)
	if err != nil {
		return fmt.Errorf("--month: %w", err)
	}
	inv, ok := all.Only(strings.TrimSpace(*entity))
	if !ok {
		return errFlag("entity", "%q has nothing on the invoice of %s; its billing entities are %s", *entity, *month, all.NamedEntities())
	}
	w := formats.NewWriter(stdout)
	if err := formats.WriteInvoiceCSV(w, inv); err != nil {
		return err
	}
	return w.Flush()
}

func runReportOutcomes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report outcomes", "Prints the outcomes of a period (entrants, completes, screen-outs, quota fulls, abandons, reversals, the router's sends and wrong sends, earnings per currency, realized conversion and EPC beside the predicted) per subsample, event, country or day, one line each; with --totals, what the period earned per currency instead.", stderr)
	dbPath := dbFlag(fs)
	from := fs.String("from", "", "first day of the period, YYYY-MM-DD (default: 30 days before --to)")
	to := fs.String("to", "", "last day of the period, YYYY-MM-DD, included (default: today)")
	group := fs.String("group", "subsample", "what a line is: subsample, event, country or day")
	format := fs.String("format", "csv", "output format: csv or json")
	totals := fs.Bool("totals", false, "print the totals per currency (CSV) instead of the lines; the JSON holds them in total")
	providerTZ := fs.String("provider-tz", "UTC", "the provider's time zone, whose calendar days the period counts")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *format != "json" && *format != "csv" {
		return errFlag("format", "%q is neither json nor csv", *format)
	}
	if *totals && *format == "json" {
		return errFlag("totals", "is for the CSV: the JSON holds the totals in total")
	}
	grouping, err := outcomes.ParseGrouping(*group)
	if err != nil {
		return errFlag("group", "%v", err)
	}
	service, closeStore, err := outcomesService(ctx, *dbPath, *providerTZ)
	if err != nil {
		return err
	}
	defer closeStore()
	since, until, err := rules.PeriodOrLast30Days(*from, *to, time.Now(), service.ProviderLocation)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	q := outcomes.Query{From: since, To: until, Group: grouping}
	rep, err := service.Outcomes(ctx, q)
	if err != nil {
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(formats.Outcomes(rep))
	}
	write := formats.WriteOutcomesCSV
	if *totals {
		write = formats.WriteOutcomeTotalsCSV
	}
	w := formats.NewWriter(stdout)
	if err := write(w, rep); err != nil {
		return err
	}
	return w.Flush()
}

// outcomesService opens the database and the outcomes service over it,
// months and days in the provider's time zone.
func outcomesService(ctx context.Context, dbPath, providerTZ string) (*outcomes.Service, func(), error) {
	loc, err := time.LoadLocation(providerTZ)
	if err != nil {
		return nil, nil, fmt.Errorf("--provider-tz %q: %w", providerTZ, err)
	}
	st, err := openStore(ctx, dbPath)
	if err != nil {
		return nil, nil, err
	}
	checker := &checks.Service{Store: st, Now: time.Now, ProviderLocation: loc}
	return &outcomes.Service{Store: st, Checks: checker, ProviderLocation: loc}, func() { st.Close() }, nil
}
