//go:build bench

package bench

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"fieldboard/store"
)

// The floor of the router's answers (figures 5, 12 and 13). Any correct
// answer about one panelist must first read that panelist's panel row (no
// country, no survey), profile (the quota cells they fall in) and history
// (the rules that exclude them), then send its bytes. The floor does just
// that: a plain net/http server in this process that, for each request,
// reads the three with one prepared query on the same database file
// serve answers from, unpacks the profile with the store's decoder, and
// sends a fixed body of the answer's size. It decides nothing. On
// PostgreSQL (12p and 13p) it reads the same rows from the scenario's copy
// there through pgx, with a pool as large as serve's.

// panelistRowsQuery reads one panelist's panel row, profile and history
// records in one statement: a row of each kind, the kind first.
const panelistRowsQuery = `
SELECT 0, country, locale, NULL, 0, 0, 0, 0, 0, 0 FROM panel WHERE panelist_id = ?1
UNION ALL
SELECT 1, NULL, NULL, answers, 0, 0, 0, 0, 0, 0 FROM profiles WHERE panelist_id = ?1
UNION ALL
SELECT 2, NULL, NULL, NULL, subsample_id, status_id, registered_at, event_id, category_id, research_type_id FROM history WHERE panelist_id = ?1`

// panelistRowsQueryPostgres is panelistRowsQuery on PostgreSQL, which
// types a chain of UNIONs by its first branch's columns: the first
// branch's NULLs are cast to the others' types.
const panelistRowsQueryPostgres = `
SELECT 0, country, locale, CAST(NULL AS BYTEA), 0, 0, CAST(NULL AS TIMESTAMPTZ), 0, 0, 0 FROM panel WHERE panelist_id = $1
UNION ALL
SELECT 1, NULL, NULL, answers, 0, 0, NULL, 0, 0, 0 FROM profiles WHERE panelist_id = $1
UNION ALL
SELECT 2, NULL, NULL, NULL, subsample_id, status_id, registered_at, event_id, category_id, research_type_id FROM history WHERE panelist_id = $1`

// panelistRows is the floor's prepared query on one database, and what
// its reads found, to show it read something.
type panelistRows struct {
	stmt *sql.Stmt
	// postgres: the records' times are timestamps, not Unix milliseconds.
	postgres bool
	// sends, when set, records a send after each answer (the router's
	// floors: recordSends).
	sends                            *sendRecorder
	reads, panels, profiles, records atomic.Int64
}

// openPanelistRows prepares panelistRowsQuery on the SQLite file db with
// the store's pragmas and as many readers as serve's store keeps; closed
// when the test ends.
func openPanelistRows(t *testing.T, db string) *panelistRows {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	conn, err := sql.Open("sqlite", "file:"+db+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	readers := max(4, runtime.GOMAXPROCS(0)*2)
	conn.SetMaxOpenConns(readers)
	conn.SetMaxIdleConns(readers)
	stmt, err := conn.PrepareContext(context.Background(), panelistRowsQuery)
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { stmt.Close(); conn.Close() })
	return &panelistRows{stmt: stmt}
}

// openPanelistRowsPostgres prepares panelistRowsQueryPostgres on the
// database target names, through pgx's database/sql driver with a pool as
// large as serve's store keeps there; closed when the test ends.
func openPanelistRowsPostgres(t *testing.T, target string) *panelistRows {
	conn, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	pool := max(4, runtime.GOMAXPROCS(0)*2)
	conn.SetMaxOpenConns(pool)
	conn.SetMaxIdleConns(pool)
	stmt, err := conn.PrepareContext(context.Background(), panelistRowsQueryPostgres)
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { stmt.Close(); conn.Close() })
	return &panelistRows{stmt: stmt, postgres: true}
}

// read reads one panelist's rows as the floor does: every column scanned,
// the profile unpacked.
func (p *panelistRows) read(ctx context.Context, panelistID string) error {
	rows, err := p.stmt.QueryContext(ctx, panelistID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var kind int
	var country, locale sql.NullString
	var answers []byte
	var subsample, status, registered, event, category, researchType int64
	var registeredAt sql.NullTime
	var at any = &registered
	if p.postgres {
		at = &registeredAt
	}
	for rows.Next() {
		if err := rows.Scan(&kind, &country, &locale, &answers, &subsample, &status, at, &event, &category, &researchType); err != nil {
			return err
		}
		switch kind {
		case 0:
			p.panels.Add(1)
		case 1:
			if _, err := store.DecodeProfile(answers); err != nil {
				return err
			}
			p.profiles.Add(1)
		default:
			p.records.Add(1)
		}
	}
	p.reads.Add(1)
	return rows.Err()
}

// floorServer serves, at /floor/ID, panelist ID's rows read (p.read) and
// then a fixed JSON body of size bytes, with a plain net/http server until
// the test ends, and returns a getter of it that checks each answer is
// that body: the floor of figures 5, 12 and 13.
func floorServer(t *testing.T, p *panelistRows, size int) *getter {
	return floorServers(t, []*panelistRows{p}, size)
}

// floorServers is floorServer for figures served by several instances:
// one server for each of floors, each reading through its own, and a
// getter that alternates between them as the figure's does between its
// instances.
func floorServers(t *testing.T, floors []*panelistRows, size int) *getter {
	body := bytes.Repeat([]byte("x"), size)
	var bases []string
	for _, p := range floors {
		bases = append(bases, serveFloor(t, p, body))
	}
	return newGetterOver(bases, "", sameBytes(body))
}

// serveFloor serves floorServer's answers, body after p's read, until the
// test ends, and returns its base URL.
func serveFloor(t *testing.T, p *panelistRows, body []byte) string {
	srv := &http.Server{Handler: floorHandler(p, body)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// floorHandler answers /floor/ID with body once p has read ID's rows.
func floorHandler(p *panelistRows, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/floor/")
		if err := p.read(r.Context(), id); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
		if p.sends != nil && id != "" {
			p.sends.record(id)
		}
	})
}

// panelistFloor loads floorServer like the figure it is the floor of, on
// the panelists its paths name (path(i) is /floor/ID), and logs what the
// reads found and, beside it, the p99 of the static answer alone.
func panelistFloor(t *testing.T, p *panelistRows, size int, path func(i int) string) loaded {
	return panelistFloorOver(t, []*panelistRows{p}, size, path)
}

// panelistFloorOver is panelistFloor on floorServers.
func panelistFloorOver(t *testing.T, floors []*panelistRows, size int, path func(i int) string) loaded {
	counts := func() (c [4]int64) {
		for _, p := range floors {
			c[0], c[1], c[2], c[3] = c[0]+p.reads.Load(), c[1]+p.panels.Load(), c[2]+p.profiles.Load(), c[3]+p.records.Load()
		}
		return c
	}
	before := counts()
	l := load(t, floorServers(t, floors, size), path)
	after := counts()
	t.Logf("the floor's reads: %d panel rows, %d profiles and %d history records for %d panelists",
		after[1]-before[1], after[2]-before[2], after[3]-before[3], after[0]-before[0])
	static := staticAnswer(t, size)
	t.Logf("the floor's p99 %v; the static answer's alone %v", l.p99, static.p99)
	return l
}
