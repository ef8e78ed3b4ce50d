//go:build bench

package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules/checks"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/store"
)

// benchMonth is the month figures 15 and 16 report: the last whole month
// before the scenario's world was created, where its history is densest.
const benchMonth = "2026-10"

// priceDays is how far back the scenario's price history goes: past the
// start of benchMonth, so most of its completes are priced and the rest
// estimated.
const priceDays = 60

// withPrices adds the simulator's price history (sim.PriceHistory, as the
// demo does) to the scenario once, marked by its own file as withPanel:
// its one refresh saw one price per live subsample, today.
func withPrices(t *testing.T, s sizes, db string) {
	marker := filepath.Join(filepath.Dir(db), "prices-ready")
	if _, err := os.Stat(marker); err == nil {
		return
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.AddPriceHistory(ctx, sim.New(simOptions(s)).PriceHistory(s.seed, priceDays)); err != nil {
		t.Fatal(err)
	}
	if err := st.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// outcomesService opens the outcomes service on the database target
// names, with the snapshot already decided (the first question of a
// version reads it whole; a page asks many).
func outcomesService(t *testing.T, target string) *outcomes.Service {
	ctx := context.Background()
	st, err := store.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &checks.Service{Store: st, Now: time.Now}
	if _, err := c.Current(ctx); err != nil {
		t.Fatal(err)
	}
	return &outcomes.Service{Store: st, Checks: c, ProviderLocation: time.UTC}
}

// outcomeCounts are the numbers figure 15 compares, per subsample.
type outcomeCounts struct {
	Entrants, InSurvey, Completes, ScreenOuts, QuotaFulls, Abandons, Reversed, Nothing int
	EarnedCents                                                                        int64
}

// monthOutcomes is figure 15 (15p on PostgreSQL): the outcomes of
// benchMonth grouped by subsample (outcomes.Service.Outcomes), against the
// floor: one SQL query written by hand giving the same counts and
// earnings per subsample over the same rows (floorOutcomes). The run fails
// unless they agree.
func monthOutcomes(t *testing.T, target string) Row {
	ctx := context.Background()
	s := outcomesService(t, target)
	from, to, err := monthBounds(benchMonth)
	if err != nil {
		t.Fatal(err)
	}
	var rep outcomes.Report
	ours := func() time.Duration {
		start := time.Now()
		var err error
		if rep, err = s.Outcomes(ctx, outcomes.Query{From: from, To: to, Group: outcomes.BySubsample}); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	got := map[int64]outcomeCounts{}
	ours()
	for _, r := range rep.Rows {
		if len(r.Earned) > 1 {
			t.Fatalf("subsample %d earned in %v: the scenario prices each subsample in one currency", r.SubsampleID, r.Earned)
		}
		c := outcomeCounts{Entrants: r.Entrants, InSurvey: r.InSurvey, Completes: r.Completes, ScreenOuts: r.ScreenOuts,
			QuotaFulls: r.QuotaFulls, Abandons: r.Abandons, Reversed: r.Reversed, Nothing: r.ReversalsOfNothing}
		for _, cents := range r.Earned {
			c.EarnedCents = cents
		}
		got[r.SubsampleID] = c
	}
	f := openFloor(t, target)
	want, floorTook := floorOutcomes(t, f, from, to)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("figure 15 on %s: the outcomes of %s disagree with the hand-written query's on %s", engineOf(target), benchMonth, firstDifference(got, want))
	}
	oursTook := best(3, ours)
	ratio := oursTook.Seconds() / floorTook.Seconds()
	return Row{Figure: onEngine(target, fmt.Sprintf("15 outcomes of %s by subsample (%d subsamples, %d entrants)", benchMonth, len(got), rep.Total.Entrants)),
		Value: ms(oursTook), Unit: "ms", Floor: ms(floorTook), Ratio: round(ratio), Target: "<= 1.5 x floor", Met: ratio <= 1.5}
}

// floorOutcomes is figure 15's floor: each (panelist, subsample) pair with
// a record in the month, ranked by the latest record before its end, the
// latest counted by status; a verdict is reversed when the pair has a
// complete (which, ordered by time then status, is before it); a complete
// earns the CPI in effect at its time, else the first price.
func floorOutcomes(t *testing.T, f *floorDB, from, to time.Time) (map[int64]outcomeCounts, time.Duration) {
	ctx := context.Background()
	query := `
		WITH pairs AS (
			SELECT DISTINCT panelist_id, subsample_id FROM history WHERE registered_at >= ` + f.time(from) + ` AND registered_at < ` + f.time(to) + `
		), ranked AS (
			SELECT h.subsample_id, h.status_id, h.registered_at,
				ROW_NUMBER() OVER (PARTITION BY h.panelist_id, h.subsample_id ORDER BY h.registered_at DESC, h.status_id DESC) AS rn,
				MAX(CASE WHEN h.status_id = 3 THEN 1 ELSE 0 END) OVER (PARTITION BY h.panelist_id, h.subsample_id) AS completed
			FROM pairs p CROSS JOIN history h WHERE h.panelist_id = p.panelist_id AND h.subsample_id = p.subsample_id
			AND h.registered_at < ` + f.time(to) + `
		)
		SELECT r.subsample_id, COUNT(*),
			SUM(CASE WHEN r.status_id = 2 THEN 1 ELSE 0 END),
			SUM(CASE WHEN r.status_id = 3 THEN 1 ELSE 0 END),
			SUM(CASE WHEN r.status_id = 82 THEN 1 ELSE 0 END),
			SUM(CASE WHEN r.status_id = 83 THEN 1 ELSE 0 END),
			SUM(CASE WHEN r.status_id = 92 THEN 1 ELSE 0 END),
			SUM(CASE WHEN r.status_id IN (98, 99) AND r.completed = 1 THEN 1 ELSE 0 END),
			SUM(CASE WHEN r.status_id IN (98, 99) AND r.completed = 0 THEN 1 ELSE 0 END),
			COALESCE(SUM(CASE WHEN r.status_id = 3 THEN COALESCE(
				(SELECT ROUND(ph.cpi * 100) FROM price_history ph WHERE ph.subsample_id = r.subsample_id AND ph.from_at <= r.registered_at ORDER BY ph.from_at DESC LIMIT 1),
				(SELECT ROUND(ph.cpi * 100) FROM price_history ph WHERE ph.subsample_id = r.subsample_id ORDER BY ph.from_at LIMIT 1)) END), 0)
		FROM ranked r WHERE r.rn = 1
		GROUP BY r.subsample_id`
	var out map[int64]outcomeCounts
	run := func() time.Duration {
		out = map[int64]outcomeCounts{}
		start := time.Now()
		rows, err := f.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var c outcomeCounts
			var earned float64
			if err := rows.Scan(&id, &c.Entrants, &c.InSurvey, &c.Completes, &c.ScreenOuts, &c.QuotaFulls, &c.Abandons, &c.Reversed, &c.Nothing, &earned); err != nil {
				t.Fatal(err)
			}
			c.EarnedCents = int64(earned)
			out[id] = c
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	run()
	return out, best(3, run)
}

// invoiceKey and invoiceCounts are what figure 16 compares: per subsample
// and CPI, the completes and the reversals credited.
type invoiceKey struct {
	SubsampleID int64
	CPICents    int64 // -1: unknown price
}

type invoiceCounts struct{ Completes, Reversed int }

// monthInvoice is figure 16 (16p on PostgreSQL): the invoice of
// benchMonth (outcomes.Service.Invoice) against the floor: one SQL query
// written by hand giving the same completes and credited reversals per
// subsample and price (floorInvoice). The run fails unless they agree.
func monthInvoice(t *testing.T, target string) Row {
	ctx := context.Background()
	s := outcomesService(t, target)
	from, to, err := monthBounds(benchMonth)
	if err != nil {
		t.Fatal(err)
	}
	var inv outcomes.InvoiceReport
	ours := func() time.Duration {
		start := time.Now()
		var err error
		if inv, err = s.Invoice(ctx, benchMonth); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	ours()
	got := map[invoiceKey]invoiceCounts{}
	for _, l := range inv.Lines {
		k := invoiceKey{SubsampleID: l.SubsampleID, CPICents: -1}
		if l.Known {
			k.CPICents = int64(l.CPI*100 + 0.5)
		}
		c := got[k]
		c.Completes += l.Completes
		c.Reversed += l.Reversed
		got[k] = c
	}
	f := openFloor(t, target)
	want, floorTook := floorInvoice(t, f, from, to)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("figure 16 on %s: the invoice of %s disagrees with the hand-written query's on %s", engineOf(target), benchMonth, firstDifference(got, want))
	}
	oursTook := best(3, ours)
	ratio := oursTook.Seconds() / floorTook.Seconds()
	return Row{Figure: onEngine(target, fmt.Sprintf("16 invoice of %s (%d lines)", benchMonth, len(inv.Lines))),
		Value: ms(oursTook), Unit: "ms", Floor: ms(floorTook), Ratio: round(ratio), Target: "<= 1.5 x floor", Met: ratio <= 1.5}
}

// floorInvoice is figure 16's floor: every complete registered in the
// month at the CPI in effect then (else the first price; -1 when none),
// and every verdict registered in the month that reverses a complete
// (the latest complete before it, with no verdict between them) at that
// complete's CPI.
func floorInvoice(t *testing.T, f *floorDB, from, to time.Time) (map[invoiceKey]invoiceCounts, time.Duration) {
	ctx := context.Background()
	price := func(at string) string {
		return `COALESCE(
			(SELECT ROUND(ph.cpi * 100) FROM price_history ph WHERE ph.subsample_id = o.subsample_id AND ph.from_at <= ` + at + ` ORDER BY ph.from_at DESC LIMIT 1),
			(SELECT ROUND(ph.cpi * 100) FROM price_history ph WHERE ph.subsample_id = o.subsample_id ORDER BY ph.from_at LIMIT 1), -1)`
	}
	query := `
		WITH pairs AS (
			SELECT DISTINCT panelist_id, subsample_id FROM history
			WHERE registered_at >= ` + f.time(from) + ` AND registered_at < ` + f.time(to) + ` AND status_id IN (3, 98, 99)
		), numbered AS (
			SELECT h.panelist_id, h.subsample_id, h.status_id, h.registered_at,
				ROW_NUMBER() OVER (PARTITION BY h.panelist_id, h.subsample_id ORDER BY h.registered_at, h.status_id) AS n
			FROM pairs p CROSS JOIN history h WHERE h.panelist_id = p.panelist_id AND h.subsample_id = p.subsample_id
			AND h.registered_at < ` + f.time(to) + ` AND h.status_id IN (3, 98, 99)
		), ordered AS (
			SELECT n.subsample_id, n.status_id, n.registered_at,
				MAX(CASE WHEN n.status_id = 3 THEN n.n END) OVER w AS last_complete,
				MAX(CASE WHEN n.status_id = 3 THEN n.registered_at END) OVER w AS last_complete_at,
				MAX(CASE WHEN n.status_id IN (98, 99) THEN n.n END) OVER w AS last_verdict
			FROM numbered n
			WINDOW w AS (PARTITION BY n.panelist_id, n.subsample_id ORDER BY n.n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
		), lines AS (
			SELECT o.subsample_id, ` + price("o.registered_at") + ` AS cpi, 1 AS completes, 0 AS reversed
			FROM ordered o WHERE o.status_id = 3 AND o.registered_at >= ` + f.time(from) + `
			UNION ALL
			SELECT o.subsample_id, ` + price("o.last_complete_at") + `, 0, 1
			FROM ordered o WHERE o.status_id IN (98, 99) AND o.registered_at >= ` + f.time(from) + `
				AND o.last_complete IS NOT NULL AND (o.last_verdict IS NULL OR o.last_verdict < o.last_complete)
		)
		SELECT subsample_id, cpi, SUM(completes), SUM(reversed) FROM lines GROUP BY subsample_id, cpi`
	var out map[invoiceKey]invoiceCounts
	run := func() time.Duration {
		out = map[invoiceKey]invoiceCounts{}
		start := time.Now()
		rows, err := f.QueryContext(ctx, query)
		if err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
		defer rows.Close()
		for rows.Next() {
			var k invoiceKey
			var cpi float64
			var c invoiceCounts
			if err := rows.Scan(&k.SubsampleID, &cpi, &c.Completes, &c.Reversed); err != nil {
				t.Fatal(err)
			}
			k.CPICents = int64(cpi)
			out[k] = c
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	run()
	return out, best(3, run)
}

// monthBounds is the month in UTC, the scenario's provider zone.
func monthBounds(month string) (time.Time, time.Time, error) {
	from, err := time.Parse("2006-01", month)
	return from, from.AddDate(0, 1, 0), err
}

// firstDifference names the first key whose values differ between got
// and want, for a failure message.
func firstDifference[K comparable, V comparable](got, want map[K]V) string {
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			return fmt.Sprintf("%v: Fieldboard %+v, the floor %+v (%d keys against %d)", k, g, w, len(got), len(want))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%v: Fieldboard %+v, the floor none (%d keys against %d)", k, g, len(got), len(want))
		}
	}
	return "nothing"
}
