package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
)

// BenchmarkPanelistRowsOf reads one panelist's rows as every next-survey
// answer does: a panel row, a profile and six history records, as the
// bench's panelist has. Its allocations are the read's share of an answer's.
func BenchmarkPanelistRowsOf(b *testing.B) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "p.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ImportPanelCSV(ctx, strings.NewReader(panelCSV("P0029191,MX,es-mx"))); err != nil {
		b.Fatal(err)
	}
	if _, err := s.ImportProfilesCSV(ctx, strings.NewReader(profileCSV("P0029191,43,101", "P0029191,44,7", "P0029191,-1,1990-01-31")), nil); err != nil {
		b.Fatal(err)
	}
	var recs []domain.HistoryRecord
	for i := range 6 {
		recs = append(recs, domain.HistoryRecord{PanelistID: "P0029191", SubsampleID: 206285 + int64(i), StatusID: 3,
			RegisteredAt: day(i + 1).Add(1234 * time.Millisecond), EventID: 31396, CategoryID: 7, ResearchTypeID: 2})
	}
	if _, err := s.ImportHistory(ctx, recs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := cpuTime(b)
	for b.Loop() {
		rows, err := s.PanelistRowsOf(ctx, "P0029191")
		if err != nil || !rows.OnPanel || len(rows.History) != 6 {
			b.Fatalf("rows: %v, %+v", err, rows)
		}
	}
	b.ReportMetric(cpu()/float64(b.N), "cpu-µs/op")
}

// BenchmarkRecordRoutings writes the router's record as its writer does
// under load: batches of 200 decisions, each a next-survey answer's. The
// record grows with every batch, and a decision costs more in a larger
// one: compare runs of a fixed count (-benchtime 1000x).
func BenchmarkRecordRoutings(b *testing.B) {
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batch := make([]domain.RoutingDecision, 200)
	at := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	cpu := cpuTime(b)
	n := 0
	for b.Loop() {
		for i := range batch {
			n++
			at = at.Add(time.Millisecond)
			batch[i] = domain.RoutingDecision{At: at, PanelistID: fmt.Sprintf("P%07d", n%100000), Chosen: 200000 + int64(n%2000),
				Outcome: domain.RoutedAnswer, Reason: "the first of 5 surveys named", Cells: "1:2,3:4"}
		}
		if err := s.RecordRoutings(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(cpu()/float64(n), "cpu-µs/decision")
}

// cpuTime returns a function giving the process's CPU time (user and
// system, every thread: the driver's and the collector's too) since it
// was called, in µs: on a shared machine a steadier measure than the
// wall clock.
func cpuTime(b *testing.B) func() float64 {
	b.Helper()
	now := func() float64 {
		var u syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
			b.Fatal(err)
		}
		return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e3
	}
	start := now()
	return func() float64 { return now() - start }
}
