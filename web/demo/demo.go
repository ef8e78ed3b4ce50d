// Package demo gives the dashboard on the built-in simulator something to
// show from its first start: a panel profiled in a supplier's own codes,
// that supplier's mapping to the provider's ids, and the field's returns
// of the last days with the prices they were earned at, and a day of use
// (Replay): the simulator's last 24 hours refreshed, clicked and
// delivered to a webhook receiver of the demo's own (Receiver); and,
// once the dashboard serves, respondents driven through the simulator's
// survey and back (Returns).
// Everything is written through the store's own imports, as a
// supplier's files would be, and the code a day of real use runs, and
// only into an empty database: a restart keeps what is there.
package demo

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// The demo's sizes: how many simulated panelists it profiles, how far
// back its history and prices go, and the first of the three panelists
// whose completes were reversed often enough to be held for quality.
const (
	Panelists   = 5000
	HistoryDays = 30
	HeldFrom    = 7
)

// Seeder writes the demo's data into Store from Sim, drawn with Seed.
type Seeder struct {
	Store  *store.Store
	Sim    *sim.Simulator
	Seed   int64
	Logger *slog.Logger
	// Size is how many panelists the panel holds; 0 is Panelists, the
	// demo's. Tests that need less data to decide about set fewer.
	Size int
}

// size is the number of panelists the panel holds.
func (d Seeder) size() int {
	if d.Size > 0 {
		return d.Size
	}
	return Panelists
}

// Panel imports, into a database that has none of them, the simulator's
// panel (each panelist's country and locale), its panelists' profiles in
// a supplier's own codes (sim.OwnProfiles: kept untranslated until the
// mapping is imported, MapCodes), and the field's returns of the last
// HistoryDays days with their prices. It needs no snapshot.
func (d Seeder) Panel(ctx context.Context) error {
	st, demo, seed, size := d.Store, d.Sim, d.Seed, d.size()
	n, err := st.CountPanel(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		if _, err := st.ImportPanel(ctx, demo.Panel(seed, size)); err != nil {
			return fmt.Errorf("demo panel: %w", err)
		}
		d.Logger.Info("demo: imported the simulator's panel: each panelist's country and locale", "panelists", size)
	}
	if n, err = st.CountOwnProfiles(ctx); err != nil {
		return err
	}
	if n == 0 {
		if _, err := st.ImportOwnProfiles(ctx, demo.OwnProfiles(seed, size)); err != nil {
			return fmt.Errorf("demo profiles: %w", err)
		}
		d.Logger.Info(fmt.Sprintf("demo: imported the profiles of panelists %s to %s in a supplier's own codes (dob, gender, region, ...)",
			demo.PanelistID(0), demo.PanelistID(size-1)), "panelists", size)
	}
	records, err := st.CountHistory(ctx)
	if err != nil || records > 0 {
		return err
	}
	panel := slices.Collect(demo.Panel(seed, size))
	history := demo.RecentHistory(seed, panel, HistoryDays, HeldFrom)
	if _, err := st.ImportHistory(ctx, history); err != nil {
		return fmt.Errorf("demo history: %w", err)
	}
	if err := st.AddPriceHistory(ctx, demo.PriceHistory(seed, HistoryDays)); err != nil {
		return fmt.Errorf("demo prices: %w", err)
	}
	d.Logger.Info(fmt.Sprintf("demo: imported the field's returns of the last %d days and the prices they were earned at", HistoryDays),
		"records", len(history), "held for quality", fmt.Sprintf("%s to %s", demo.PanelistID(HeldFrom), demo.PanelistID(HeldFrom+2)))
	return nil
}

// MapCodes imports the supplier's mapping from its own codes to the
// provider's ids (sim.Mapping), as a CSV file through the store's import,
// when none is stored: the profiles Panel imported are then translated
// and matched to quotas. A mapping is checked against the question
// library, so refresh first reads one when no locale's library was ever
// read (a fetch that failed stores none). The simulator's mapping leaves
// one country's regions unmapped and the supplier never asks household
// income, so /profiling has unmapped codes and a question to ask next
// from the first start.
func (d Seeder) MapCodes(ctx context.Context, refresh func(context.Context) error) error {
	rows, err := d.Store.ProfileMapping(ctx)
	if err != nil || len(rows) > 0 {
		return err
	}
	locales, err := d.Store.LibraryLocales(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(locales)), func(read time.Time) bool { return !read.IsZero() }) {
		if err := refresh(ctx); err != nil {
			return fmt.Errorf("demo mapping: the first refresh: %w", err)
		}
	}
	var file bytes.Buffer
	if err := formats.WriteMappingCSV(&file, d.Sim.Mapping()); err != nil {
		return fmt.Errorf("demo mapping: %w", err)
	}
	report, err := d.Store.ImportMappingCSV(ctx, &file)
	if err != nil {
		return fmt.Errorf("demo mapping: %w", err)
	}
	d.Logger.Info("demo: imported the supplier's mapping from its codes to the provider's ids; see /profiling",
		"rows", report.Records, "answers translated", report.Translated, "kept untranslated", report.Untranslated)
	return nil
}
