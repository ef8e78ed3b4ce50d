package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

func runRefresh(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("refresh", "Reads everything from the provider once (reference data, events, quotas, eligibility rules, question library) into the database and exits. Exits non-zero with a one-line error naming the endpoint that failed.", stderr)
	var up upstreamFlags
	dbPath := dbFlag(fs)
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	up.register(fs, "provider base URL (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if up.url == "" {
		return errFlag("upstream", "the provider's base URL is required")
	}
	logger, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	provider, err := up.client(up.url, userAgent)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	r := refresh.New(provider, st, refresh.Options{Concurrency: up.concurrency, Deadline: up.deadline, Logger: logger})
	defer r.Close()
	if err := r.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		return oneLine(err)
	}
	live, err := st.CountLive(ctx)
	if err != nil {
		return err
	}
	all, err := st.CountSubsamples(ctx)
	if err != nil {
		return err
	}
	states, err := st.Datasets(ctx)
	if err != nil {
		return err
	}
	logger.Log(ctx, slog.LevelInfo, "refresh done", "subsamples", all, "live", live)
	fmt.Fprintf(stdout, "refreshed %s: %d subsamples, %d live\n", store.Describe(*dbPath), all, live)
	for _, name := range []string{store.DatasetEvents, store.DatasetLibrary, store.DatasetReference} {
		if ds := states[name]; ds.MalformedCount > 0 {
			fmt.Fprintf(stdout, "dropped %d unreadable element(s) of the provider's %s lists, %s; first: %s\n",
				ds.MalformedCount, name, formats.DroppedCost(name), ds.MalformedFirst)
		}
	}
	return nil
}

// oneLine reports the first of several joined failures on one line, with
// how many more there were.
func oneLine(err error) error {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) == 1 {
		return err
	}
	return fmt.Errorf("%s (and %d more failure(s))", lines[0], len(lines)-1)
}
