package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/views/formats"
)

// runProfiling prints the ranking of questions to profile next, as the
// /profiling page's download does (the same service and writer).
func runProfiling(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("profiling", "Prints, as CSV ("+strings.Join(formats.ProfilingColumns, ",")+"), one line per provider question and country that a hard quota of a sendable subsample asks, best first: the subsamples, their remaining completes in those cells, the panelists of the country without an answer, and the money at stake per currency.", stderr)
	dbPath := dbFlag(fs)
	decide := decisionFlags(fs)
	country := fs.String("country", "", "only this country (two letters)")
	providerTZ := fs.String("provider-tz", "UTC", "the provider's time zone: panelists' ages are counted on its calendar day")
	if err := parse(fs, args); err != nil {
		return err
	}
	only := ""
	if *country != "" {
		c, err := domain.ParseCountry(*country)
		if err != nil {
			return errFlag("country", "%v", err)
		}
		only = c
	}
	loc, err := time.LoadLocation(*providerTZ)
	if err != nil {
		return fmt.Errorf("--provider-tz %q: %w", *providerTZ, err)
	}
	if err := decide.validate(); err != nil {
		return err
	}
	st, err := openStore(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := decide.service(st, loc, nil).Profiling(ctx)
	if err != nil {
		return err
	}
	w := formats.NewWriter(stdout)
	if err := formats.WriteProfilingCSV(w, rep.Of(only).Questions); err != nil {
		return err
	}
	return w.Flush()
}
