package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestRoutingLogWritesEveryDecisionOnce: decisions recorded faster than
// one batch holds, from many goroutines and between flushes, are each
// written once, none lost and none twice, whatever batches the writer
// gathers them in.
func TestRoutingLogWritesEveryDecisionOnce(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := newRoutingLog(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	const workers, each = 4, 3 * routingBatch / 2
	at := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				l.Record(domain.RoutingDecision{At: at, PanelistID: fmt.Sprintf("P%d-%d", w, i), Chosen: int64(1 + i), Outcome: domain.RoutedAnswer, Reason: "first"})
				if i == each/2 {
					if err := l.Flush(ctx); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	l.Close()
	got, total, err := st.Routings(ctx, store.RoutingFilter{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, d := range got {
		seen[d.PanelistID]++
	}
	for w := range workers {
		for i := range each {
			if id := fmt.Sprintf("P%d-%d", w, i); seen[id] != 1 {
				t.Errorf("decision of %s written %d times, want once", id, seen[id])
			}
		}
	}
	if total != workers*each {
		t.Errorf("%d decisions written, want %d", total, workers*each)
	}
}

// TestRoutingLogSaysWhoIsQueued: a panelist with a send recorded and not
// yet written is Queued, however many of theirs wait, and one whose only
// decision sent them nowhere is not; once the queue is written, nobody
// is. The writer is not started, so nothing is written
// behind the test's back.
func TestRoutingLogSaysWhoIsQueued(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := &routingLog{store: st, logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		queue: make(chan domain.RoutingDecision, 8), queued: map[string]int{}}
	at := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	l.Record(domain.RoutingDecision{At: at, PanelistID: "P3", Outcome: domain.RoutedNone, Reason: "none"}) // no send
	for _, id := range []string{"P1", "P2", "P2"} {
		l.Record(domain.RoutingDecision{At: at, PanelistID: id, Chosen: 1, Outcome: domain.RoutedAnswer, Reason: "first"})
	}
	for id, want := range map[string]bool{"P1": true, "P2": true, "P3": false} {
		if got := l.Queued(id); got != want {
			t.Errorf("before the write, Queued(%s) = %v, want %v", id, got, want)
		}
	}
	l.writeQueued(make([]domain.RoutingDecision, 0, routingBatch))
	for _, id := range []string{"P1", "P2"} {
		if l.Queued(id) {
			t.Errorf("after the write, %s is still queued", id)
		}
		if d, err := st.LastSend(ctx, id, at.Add(-time.Hour)); err != nil || d.PanelistID != id {
			t.Errorf("after the write, %s's send: %+v, %v", id, d, err)
		}
	}
}
