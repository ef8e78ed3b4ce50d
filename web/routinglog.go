package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
)

// routingBatch bounds how many decisions one transaction writes.
const routingBatch = 256

// routingLinger is how long the writer waits, after a decision, for more
// to join its transaction: under load a transaction per decision or two
// would cost the database's one writer a commit each.
const routingLinger = 20 * time.Millisecond

// routingLog writes the router's decisions behind the redirects: a click
// is answered at once and its decision queued, and one goroutine writes
// what is queued, a transaction per batch. A click therefore never waits
// for the database's one writer (an import may hold it for seconds). When
// the queue is full the decision is written by the click itself, so none
// is dropped; a crash loses at most the decisions still queued, those of
// the last routingLinger among them.
type routingLog struct {
	store  *store.Store
	logger *slog.Logger
	queue  chan domain.RoutingDecision
	flush  chan chan struct{} // Flush's requests, each answered by closing it
	stop   chan struct{}
	done   chan struct{}

	mu sync.Mutex
	// queued counts each panelist's decisions recorded and not yet
	// written (Queued).
	queued map[string]int
}

// newRoutingLog starts the writer of the router's decisions; Close stops
// it once what is queued is written.
func newRoutingLog(st *store.Store, logger *slog.Logger) *routingLog {
	l := &routingLog{store: st, logger: logger, queue: make(chan domain.RoutingDecision, 4096),
		flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), queued: map[string]int{}}
	go l.run()
	return l
}

// Record queues a decision (handlers.RoutingRecorder).
func (l *routingLog) Record(d domain.RoutingDecision) {
	if d.Chosen != 0 { // a send: a return may come back from it
		l.mu.Lock()
		l.queued[d.PanelistID]++
		l.mu.Unlock()
	}
	select {
	case l.queue <- d:
	default:
		l.write([]domain.RoutingDecision{d})
	}
}

func (l *routingLog) run() {
	defer close(l.done)
	// Every batch is gathered in the same room: the store copies a
	// batch's decisions into its statements' arguments, so the room is
	// free again once the batch is written.
	room := make([]domain.RoutingDecision, 0, routingBatch)
	for {
		select {
		case d := <-l.queue:
			batch, flushed := l.gather(append(room[:0], d))
			l.write(batch)
			if flushed != nil {
				l.writeQueued(room)
				close(flushed)
			}
		case flushed := <-l.flush:
			l.writeQueued(room)
			close(flushed)
		case <-l.stop:
			l.writeQueued(room)
			return
		}
	}
}

// writeQueued writes everything queued, a batch at a time, gathered in
// room.
func (l *routingLog) writeQueued(room []domain.RoutingDecision) {
	for batch := l.drain(room[:0], routingBatch); len(batch) > 0; batch = l.drain(room[:0], routingBatch) {
		l.write(batch)
	}
}

// Flush returns once every decision recorded before it was called is
// written: a return that finds no send asks it (checks.Returns.Pending),
// since a click's send is written a moment after its redirect.
func (l *routingLog) Flush(ctx context.Context) error {
	flushed := make(chan struct{})
	select {
	case l.flush <- flushed:
	case <-l.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-flushed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gather adds to batch what is queued within routingLinger, up to
// routingBatch in all; Close ends the wait, and so does a Flush, whose
// request it returns to be answered once the batch is written.
func (l *routingLog) gather(batch []domain.RoutingDecision) ([]domain.RoutingDecision, chan struct{}) {
	linger := time.NewTimer(routingLinger)
	defer linger.Stop()
	for len(batch) < routingBatch {
		select {
		case d := <-l.queue:
			batch = append(batch, d)
		case flushed := <-l.flush:
			return batch, flushed
		case <-linger.C:
			return batch, nil
		case <-l.stop:
			return batch, nil
		}
	}
	return batch, nil
}

// drain adds to batch what is queued, without waiting, up to n in all.
func (l *routingLog) drain(batch []domain.RoutingDecision, n int) []domain.RoutingDecision {
	for len(batch) < n {
		select {
		case d := <-l.queue:
			batch = append(batch, d)
		default:
			return batch
		}
	}
	return batch
}

func (l *routingLog) write(batch []domain.RoutingDecision) {
	if err := l.store.RecordRoutings(context.Background(), batch); err != nil {
		l.logger.Error("record the router's decisions", "decisions", len(batch), "err", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range batch {
		if d.Chosen == 0 {
			continue
		}
		if l.queued[d.PanelistID]--; l.queued[d.PanelistID] <= 0 {
			delete(l.queued, d.PanelistID)
		}
	}
}

// Queued says whether a send of the panelist (a decision that chose a
// subsample) is recorded and not yet written: a return then asks for a
// Flush before it reads the panelist's newest send
// (checks.Returns.Queued), which the newest decision may be. It knows
// this instance's queue only: with several instances, a return that
// reaches another within routingLinger of the click finds the send
// before it.
func (l *routingLog) Queued(panelistID string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queued[panelistID] > 0
}

// Close writes what is queued and stops the writer.
func (l *routingLog) Close() {
	close(l.stop)
	<-l.done
}
