//go:build bench

package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/store"
)

// The router's floors (figures 12, 13, 12p, 13p and their busy rows)
// record a send for each answer, as the router must: a next-survey answer
// or a click sends the panelist somewhere, and a return, a cap or the
// routing log can only be right if that send is kept. The floor's record
// is the least such a record can be: one row with its time, the panelist
// and the subsample, in a table of its own with the one index a return
// finds a panelist's newest send by, written after the answer by one
// goroutine, the sends that queue meanwhile (up to floorSendWait) in one
// transaction and one INSERT of many rows. Fieldboard's record
// (store.RecordRoutings) holds more (the decision, its reason, its cells)
// and keeps more indexes.

// floorSendsTable is the floor's record of sends.
const floorSendsTable = "bench_floor_sends"

// floorSendsSchema creates floorSendsTable where it is missing.
var floorSendsSchema = []string{
	`CREATE TABLE IF NOT EXISTS ` + floorSendsTable + ` (at TIMESTAMP NOT NULL, panelist_id TEXT NOT NULL, subsample_id BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS ` + floorSendsTable + `_by_panelist ON ` + floorSendsTable + ` (panelist_id, at)`,
}

// floorSendWait is how long the floor's writer waits for more sends to
// share a transaction: serve's router record waits as long.
const floorSendWait = 20 * time.Millisecond

// maxFloorSendRows bounds the rows of one INSERT.
const maxFloorSendRows = 1000

// sendRecorder writes the floor's sends (record) in batches.
type sendRecorder struct {
	db       *sql.DB
	postgres bool
	queue    chan string
	done     chan struct{}
	written  atomic.Int64
	failed   atomic.Value // the first write's error
}

// createFloorSends creates floorSendsTable in the database target names (a
// SQLite file or a PostgreSQL URL), before any floor server opens it.
func createFloorSends(t *testing.T, target string) {
	db := openFloorWriter(t, target)
	defer db.Close()
	for _, stmt := range floorSendsSchema {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("the floor's sends table: %v", err)
		}
	}
}

// openFloorWriter opens one connection to write to target with: on SQLite
// with the store's pragmas for its writer (store/dialect_sqlite.go).
func openFloorWriter(t *testing.T, target string) *sql.DB {
	var db *sql.DB
	var err error
	if store.IsPostgres(target) {
		db, err = sql.Open("pgx", target)
	} else {
		q := url.Values{}
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "busy_timeout(10000)")
		q.Add("_pragma", "synchronous(NORMAL)")
		// As serve's writer: its log is copied into the file beside it,
		// not inside a commit an answer's record waits for.
		q.Add("_pragma", "wal_autocheckpoint(0)")
		db, err = sql.Open("sqlite", "file:"+target+"?"+q.Encode()+"&_txlock=immediate")
	}
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// recordSends makes p's floor record a send after each answer it reads
// for (floorHandler), into floorSendsTable of the database target names,
// which createFloorSends made; the writer stops when the test ends, once
// the sends queued are written.
func recordSends(t *testing.T, p *panelistRows, target string) {
	r := &sendRecorder{db: openFloorWriter(t, target), postgres: store.IsPostgres(target),
		queue: make(chan string, 4096), done: make(chan struct{})}
	go r.run()
	p.sends = r
	t.Cleanup(func() {
		close(r.queue)
		<-r.done
		r.db.Close()
		if err, ok := r.failed.Load().(error); ok {
			t.Errorf("the floor's record of sends: %v", err)
		}
		t.Logf("the floor recorded %d sends", r.written.Load())
	})
}

// record queues a send of panelistID.
func (r *sendRecorder) record(panelistID string) { r.queue <- panelistID }

// run writes the queued sends until the queue is closed: each batch is
// what arrives within floorSendWait of its first send.
func (r *sendRecorder) run() {
	defer close(r.done)
	var batch []string
	for first := range r.queue {
		batch = append(batch[:0], first)
		timer := time.NewTimer(floorSendWait)
	collect:
		for {
			select {
			case id, ok := <-r.queue:
				if !ok {
					break collect
				}
				batch = append(batch, id)
			case <-timer.C:
				break collect
			}
		}
		timer.Stop()
		if err := r.write(batch); err != nil {
			r.failed.CompareAndSwap(nil, err)
		}
	}
}

// write writes one batch of sends in one transaction.
func (r *sendRecorder) write(batch []string) error {
	ctx := context.Background()
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UTC()
	for rest := batch; len(rest) > 0; {
		n := min(len(rest), maxFloorSendRows)
		var q strings.Builder
		q.WriteString("INSERT INTO " + floorSendsTable + " (at, panelist_id, subsample_id) VALUES ")
		args := make([]any, 0, 3*n)
		for i, id := range rest[:n] {
			if i > 0 {
				q.WriteByte(',')
			}
			if r.postgres {
				fmt.Fprintf(&q, "($%d,$%d,$%d)", 3*i+1, 3*i+2, 3*i+3)
			} else {
				q.WriteString("(?,?,?)")
			}
			args = append(args, now, id, 0)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
		rest = rest[n:]
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	r.written.Add(int64(len(batch)))
	return nil
}

// routerFloorRows is the floor's read of the router's figures on the
// SQLite file db: openPanelistRows, recording a send after each answer.
func routerFloorRows(t *testing.T, db string) *panelistRows {
	createFloorSends(t, db)
	p := openPanelistRows(t, db)
	recordSends(t, p, db)
	return p
}
