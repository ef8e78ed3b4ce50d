package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// TestConcurrentRequestsDuringRefreshAndImport sends waves of 200
// concurrent page and API requests while a refresh commits its snapshot
// and a history import writes: every answer must be 200, none may say the
// database is locked. The p99 is reported in the log.
//
// Not parallel: it loads the machine itself, and its requests wait on
// SQLite's busy timeout.
func TestConcurrentRequestsDuringRefreshAndImport(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	a := refreshed(t)
	var live []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?status=Live", &live)
	if len(live) == 0 {
		t.Fatal("no live subsample")
	}
	paths := []string{"/", "/live", "/live.csv", "/events", "/panelists?panelist=P1",
		"/api/v1/subsamples", "/api/v1/panelists/P1/surveys", fmt.Sprintf("/subsamples/%d", live[0].SubsampleID),
		fmt.Sprintf("/api/v1/eligibility?panelistId=P2&subsampleId=%d", live[0].SubsampleID)}

	var history strings.Builder
	history.WriteString("panelistId,subsampleId,statusId,registeredAt,eventId,categoryId,researchTypeId\n")
	for i := range 30_000 {
		fmt.Fprintf(&history, "L%d,%d,3,2026-11-%02d 10:00:00,%d,0,0\n", i, 100000+i%300, 1+i%20, 9000+i%40)
	}

	// The refresh under load has all the time a loaded machine needs:
	// the test is about what the requests see meanwhile, not how long
	// the refresh takes (the refresher's own deadline is 2 minutes).
	c, err := client.New(client.Config{BaseURL: newLoopback(t, a.sim), Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	patient := refresh.New(c, a.store, refresh.Options{Deadline: 15 * time.Minute, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(patient.Close)
	ctx := context.Background()
	var busy atomic.Int32
	busy.Store(2)
	go func() {
		defer busy.Add(-1)
		a.sim.SetLatency(2 * time.Millisecond)
		if err := patient.Refresh(ctx, refresh.Request{Force: true}); err != nil {
			t.Errorf("refresh under load: %v", err)
		}
	}()
	go func() {
		defer busy.Add(-1)
		if resp, body := a.post(t, "/api/v1/history", "text/csv", history.String()); resp.StatusCode != 200 {
			t.Errorf("history import under load: %d %.300s", resp.StatusCode, body)
		}
	}()

	var mu sync.Mutex
	var latencies []time.Duration
	var failures []string
	// Waves go on until both are done (two at least), however many that
	// takes on this machine; the failsafe is for a hang.
	failsafe := time.Now().Add(20 * time.Minute)
	for wave := 0; wave < 2 || busy.Load() > 0; wave++ {
		if time.Now().After(failsafe) {
			t.Fatalf("in twenty minutes (%d waves) the refresh and the import did not both finish", wave)
		}
		var wg sync.WaitGroup
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				path := paths[i%len(paths)]
				req, _ := http.NewRequest("GET", a.url+path, nil)
				start := time.Now()
				resp, err := a.client.Do(req)
				var body []byte
				if err == nil {
					body, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				took := time.Since(start)
				mu.Lock()
				defer mu.Unlock()
				latencies = append(latencies, took)
				switch {
				case err != nil:
					failures = append(failures, path+": "+err.Error())
				case resp.StatusCode != 200:
					failures = append(failures, fmt.Sprintf("%s: %d %.200s", path, resp.StatusCode, body))
				case strings.Contains(strings.ToLower(string(body)), "database is locked"):
					failures = append(failures, path+": database is locked")
				}
			}()
		}
		wg.Wait()
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed under load, first: %s", len(failures), len(latencies), failures[0])
	}
	slices.Sort(latencies)
	t.Logf("%d requests in waves of 200 during a refresh and a 100,000-record import: p50 %v, p99 %v, max %v",
		len(latencies), latencies[len(latencies)/2], latencies[len(latencies)*99/100], latencies[len(latencies)-1])
}
