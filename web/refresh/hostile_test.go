package refresh

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client"
	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// A hostile or broken upstream: whatever the provider does, the last good
// snapshot stays current, what could not be read is marked, nothing is
// decided sendable on data that was not read, the failure is recorded with
// its time, and the next refresh recovers by itself.

// upstreamSecret is the provider auth header's value: in no error, record
// or log line.
const upstreamSecret = "Bearer fb-upstream-5ecret-7a9c"

const (
	pathAll  = "/supplier/v1/event/all"
	pathLive = "/supplier/v1/event/live-details"
)

// hostileRequestTimeout is the hostile fixture's per-request timeout.
const hostileRequestTimeout = 2 * time.Second

// hostileHang is how long a refresh against a hostile provider may take
// before the test calls it held up: above the two attempts of a timed-out
// call with room for a loaded machine, below the 30 s a capped
// Retry-After would cost one call, and far below 1e9 s. A bound on a
// hang, not a measure of speed.
const hostileHang = 25 * time.Second

// hostileModes are the simulator's failure modes, with what the recorded
// error says. The 429 asks for a hostile 1e9 seconds.
var hostileModes = []struct {
	name string
	mode sim.FailMode
	says string
}{
	{"timeout", sim.FailTimeout, "per-request timeout exceeded"},
	{"connection reset", sim.FailReset, ""}, // "connection reset by peer" or "EOF", as the kernel has it
	{"5xx", sim.FailServerError, "503 Service Unavailable"},
	{"429 with Retry-After", sim.FailRateLimited, "429 Too Many Requests"},
	{"malformed JSON", sim.FailMalformed, "decoding response"},
	{"wrong types", sim.FailWrongTypes, "is a string, not a"}, // the lists are read element by element
	{"huge body", sim.FailHugeBody, "response larger than"},
	{"empty list", sim.FailEmptyList, ""},
}

// lockedBuffer is a log sink safe for the refresher's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type hostileFixture struct {
	*fixture
	logs *lockedBuffer
}

// newHostileFixture is newFixture with a client that sends the secret
// header, gives up on a request after 2 s (a hanging provider costs a
// test seconds, not a minute; a loaded machine answers a request of the
// local simulator, which adds no latency, well within it: at 300 ms the
// good calls around the broken one could time out too) and caps bodies
// at 1 MiB, and a refresher that
// logs into a buffer; wrap, when set, stands between the client and the
// simulator. It has done one good full refresh.
func newHostileFixture(t *testing.T, wrap func(http.Handler) http.Handler) *hostileFixture {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	simulator := sim.New(sim.Options{Seed: 7, Subsamples: 40, Locales: 3, QuestionsPerLocale: 12, Now: clock.Now})
	simulator.SetRetryAfter("1000000000")
	var h http.Handler = simulator
	if wrap != nil {
		h = wrap(simulator)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := client.New(client.Config{BaseURL: srv.URL, Header: http.Header{"Authorization": {upstreamSecret}},
		Timeout: hostileRequestTimeout, MaxAttempts: 2, Backoff: time.Millisecond, MaxBodyBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logs := &lockedBuffer{}
	r := New(c, st, Options{Now: clock.Now, Logger: slog.New(slog.NewTextHandler(logs, nil)), Concurrency: 4})
	t.Cleanup(r.Close)
	f := &hostileFixture{fixture: &fixture{sim: simulator, store: st, refresher: r, clock: clock}, logs: logs}
	if err := r.Refresh(context.Background(), Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	return f
}

// view is what the dashboard reads of the current snapshot, with the
// verdict of every subsample decided as the checks service decides it.
type view struct {
	live     []store.LiveRow
	rows     []store.SubsampleRow
	quotas   map[int64][]domain.Quota
	verdicts map[int64]rules.Verdict
}

func (f *hostileFixture) view(t *testing.T) view {
	t.Helper()
	ctx := context.Background()
	live, err := f.store.LiveRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.store.SubsampleRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := view{live: live, rows: rows, quotas: map[int64][]domain.Quota{}, verdicts: map[int64]rules.Verdict{}}
	for _, row := range rows {
		if row.Live {
			if v.quotas[row.SubsampleID], err = f.store.QuotasOf(ctx, row.SubsampleID); err != nil {
				t.Fatal(err)
			}
		}
		v.verdicts[row.SubsampleID] = verdictOf(row, v.quotas[row.SubsampleID])
	}
	return v
}

// verdictOf decides a row's sendability as the checks service does
// (checks.Facts): quotas count as loaded only when the last read of them
// succeeded; the field end is judged at that read.
func verdictOf(row store.SubsampleRow, quotas []domain.Quota) rules.Verdict {
	var now time.Time
	if row.QuotasAt != nil {
		now = *row.QuotasAt
	}
	return rules.Sendability(checks.Facts(row, quotas, now))
}

// sendable returns the ids of the subsamples decided sendable.
func (v view) sendable() []int64 {
	var ids []int64
	for _, row := range v.rows {
		if v.verdicts[row.SubsampleID].State == rules.Sendable {
			ids = append(ids, row.SubsampleID)
		}
	}
	return ids
}

// noSecret fails when the upstream secret, or its token, is in s.
func noSecret(t *testing.T, what, s string) {
	t.Helper()
	token := strings.Fields(upstreamSecret)[1]
	if strings.Contains(s, upstreamSecret) || strings.Contains(s, token) {
		t.Errorf("the upstream secret is in the %s: %.300q", what, s)
	}
}

// TestHostileEventListsKeepTheLastGoodSnapshot: each failure mode on each
// event list, after a good refresh: nothing of the failed refresh is
// written, the failure is recorded with its time, endpoint and message, and
// once the upstream heals the next refresh recovers by itself.
func TestHostileEventListsKeepTheLastGoodSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, path := range []string{pathAll, pathLive} {
		t.Run(path, func(t *testing.T) {
			f := newHostileFixture(t, nil)
			for _, m := range hostileModes {
				if path == pathLive && m.mode == sim.FailEmptyList {
					continue // a legitimate answer: no live work; see TestHostileEmptyLiveDetails
				}
				t.Run(m.name, func(t *testing.T) {
					before := f.view(t)
					if len(before.sendable()) == 0 {
						t.Fatal("no sendable subsample to keep")
					}
					f.clock.Advance(10 * time.Minute) // the world moves on: a refresh that got through would change the snapshot
					f.sim.FailPath(path, m.mode)
					start := time.Now()
					refreshErr := f.refresher.Refresh(ctx, Request{})
					if took := time.Since(start); took > hostileHang {
						t.Errorf("the failing refresh took %v: it was held up by the provider", took)
					}
					failedAt := f.clock.Now()
					if refreshErr == nil || !strings.Contains(refreshErr.Error(), path) || !strings.Contains(refreshErr.Error(), m.says) {
						t.Fatalf("refresh error %v, want one naming %s and saying %q", refreshErr, path, m.says)
					}

					after := f.view(t)
					if !reflect.DeepEqual(after, before) {
						t.Errorf("a failed refresh changed the snapshot (%d live rows before, %d after)", len(before.live), len(after.live))
					}
					states, err := f.store.Datasets(ctx)
					if err != nil {
						t.Fatal(err)
					}
					ev := states[store.DatasetEvents]
					if !ev.Failing() || ev.LastErrorAt == nil || !ev.LastErrorAt.Equal(failedAt) || ev.LastSuccessAt.Equal(failedAt) ||
						!strings.HasSuffix(ev.LastErrorEndpoint, path) || !strings.Contains(ev.LastError, m.says) {
						t.Errorf("events dataset = %+v; want failing since %v at %s, saying %q", ev, failedAt, path, m.says)
					}
					runs, err := f.store.RecentRuns(ctx, 1)
					if err != nil || len(runs) != 1 || runs[0].OK || !runs[0].FinishedAt.Equal(failedAt) || runs[0].Error != ev.LastError {
						t.Errorf("last refresh run = %+v, %v; want the failure, finished %v", runs, err, failedAt)
					}
					if p := f.refresher.Progress(); p.Running || p.Err == "" {
						t.Errorf("progress after the failure = %+v, want the error", p)
					}
					noSecret(t, "recorded error", ev.LastError)
					noSecret(t, "refresh error", refreshErr.Error())
					noSecret(t, "log", f.logs.String())

					f.sim.ClearFailures()
					f.clock.Advance(time.Minute)
					if err := f.refresher.Refresh(ctx, Request{}); err != nil {
						t.Fatalf("the refresh after the upstream healed: %v", err)
					}
					states, _ = f.store.Datasets(ctx)
					if ev := states[store.DatasetEvents]; ev.Failing() || !ev.LastSuccessAt.Equal(f.clock.Now()) {
						t.Errorf("after recovering: %+v, want a success now", ev)
					}
					recovered := f.view(t)
					if got, want := len(recovered.live), len(f.sim.LiveSubsampleIDs()); got != want {
						t.Errorf("after recovering %d live rows, the simulator has %d", got, want)
					}
				})
			}
		})
	}
}

// TestHostileOneSubsampleQuotasFail: each failure mode on one subsample's
// quotas while the rest succeed: the refresh commits, that subsample keeps
// its earlier quotas marked as failed with the error and is unknown, not
// sendable; the others are read afresh; the next refresh heals it.
func TestHostileOneSubsampleQuotasFail(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	for _, m := range hostileModes {
		t.Run(m.name, func(t *testing.T) {
			before := f.view(t)
			sendable := before.sendable()
			if len(sendable) < 2 {
				t.Fatalf("want two sendable subsamples, have %v", sendable)
			}
			broken, other := sendable[0], sendable[1]
			path := fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", broken)
			f.clock.Advance(10 * time.Minute)
			f.sim.FailPath(path, m.mode)
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Fatalf("one subsample's failure must not fail the refresh: %v", err)
			}
			readAt := f.clock.Now()
			after := f.view(t)
			fetch, err := f.store.FetchOf(ctx, broken)
			if err != nil {
				t.Fatal(err)
			}
			verdict := after.verdicts[broken]
			if verdict.State != rules.Unknown {
				t.Errorf("subsample %d, whose quotas failed (%s), is %s, want unknown: %v", broken, m.name, verdict.State, verdict.Reasons)
			}
			if m.mode == sim.FailEmptyList {
				// The client cannot tell an empty list from a real one:
				// the quotas are read as none, and with no total quota the
				// rule cannot decide.
				if !fetch.QuotasOK || len(after.quotas[broken]) != 0 || !strings.Contains(strings.Join(verdict.Reasons, " "), "sent no quotas") {
					t.Errorf("empty quota list: fetch %+v, %d quotas, reasons %v", fetch, len(after.quotas[broken]), verdict.Reasons)
				}
			} else {
				if fetch.QuotasOK || !strings.Contains(fetch.QuotasError, path) || !strings.Contains(fetch.QuotasError, m.says) ||
					fetch.QuotasAt.Equal(readAt) || !fetch.RulesOK || !fetch.RulesAt.Equal(readAt) {
					t.Errorf("fetch state of subsample %d = %+v; want quotas failed saying %q (rules read at %v)", broken, fetch, m.says, readAt)
				}
				if !reflect.DeepEqual(after.quotas[broken], before.quotas[broken]) {
					t.Errorf("the earlier quotas of subsample %d were not kept", broken)
				}
				if reasons := strings.Join(verdict.Reasons, " "); !strings.Contains(reasons, "Quotas could not be read") || !strings.Contains(reasons, path) {
					t.Errorf("the verdict does not say why: %v", verdict.Reasons)
				}
				for _, row := range after.live {
					if row.SubsampleID == broken && (row.QuotasOK == nil || *row.QuotasOK || row.QuotasError == "") {
						t.Errorf("the live list does not mark subsample %d stale: %+v", broken, row)
					}
				}
				noSecret(t, "quotas error", fetch.QuotasError)
			}
			for id, v := range after.verdicts {
				row := after.rows[indexOf(after.rows, id)]
				if v.State == rules.Sendable && (row.QuotasOK == nil || !*row.QuotasOK) {
					t.Errorf("subsample %d is sendable on quotas that were not read", id)
				}
			}
			otherFetch, err := f.store.FetchOf(ctx, other)
			if err != nil || !otherFetch.QuotasOK || !otherFetch.QuotasAt.Equal(readAt) {
				t.Errorf("another subsample's fetch = %+v, %v; want its quotas read at %v", otherFetch, err, readAt)
			}
			noSecret(t, "log", f.logs.String())

			f.sim.ClearFailures()
			f.clock.Advance(time.Minute)
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Fatal(err)
			}
			healed, err := f.store.FetchOf(ctx, broken)
			if err != nil || !healed.QuotasOK || healed.QuotasError != "" || !healed.QuotasAt.Equal(f.clock.Now()) {
				t.Errorf("after the upstream healed subsample %d's fetch = %+v, %v", broken, healed, err)
			}
		})
	}
}

func indexOf(rows []store.SubsampleRow, id int64) int {
	for i, r := range rows {
		if r.SubsampleID == id {
			return i
		}
	}
	return -1
}

// TestHostileEmptyEventList: event/all lists every subsample the supplier
// has or had an allocation in, so an empty list after a full one is a broken
// provider: the refresh fails and keeps the snapshot (covered with the other
// modes above). The very first refresh may well find none.
func TestHostileEmptyEventList(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}
	f := newFixture(t, sim.Options{Seed: 7, Now: clock.Now})
	f.sim.FailPath(pathAll, sim.FailEmptyList)
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatalf("a first refresh that finds no subsamples: %v", err)
	}
	if n, _ := f.store.CountSubsamples(ctx); n != 0 {
		t.Errorf("%d subsamples stored from an empty list", n)
	}
}

// TestHostileEmptyLiveDetails: live-details may legitimately be empty (no
// live work now). Taking it is the careful reading: every subsample then is
// not sendable, where keeping the old list would keep sending.
func TestHostileEmptyLiveDetails(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	f.sim.FailPath(pathLive, sim.FailEmptyList)
	f.clock.Advance(10 * time.Minute)
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	v := f.view(t)
	if len(v.live) != 0 || len(v.sendable()) != 0 {
		t.Errorf("an empty live-details left %d live rows, %d sendable", len(v.live), len(v.sendable()))
	}
}

// TestHostileRetryAfterDoesNotHoldARefresh: every live subsample's quotas
// answer 429 with Retry-After 1e9. The refresh neither waits that nor a
// capped 30s per call: it ends at once, every one of them unknown.
func TestHostileRetryAfterDoesNotHoldARefresh(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	f.clock.Advance(10 * time.Minute)
	live := f.sim.LiveSubsampleIDs()
	for _, id := range live {
		f.sim.FailPath(fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", id), sim.FailRateLimited)
	}
	start := time.Now()
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > hostileHang {
		t.Errorf("%d subsamples rate limited with Retry-After 1e9: the refresh took %v", len(live), took)
	}
	v := f.view(t)
	if ids := v.sendable(); len(ids) != 0 {
		t.Errorf("subsamples %v are sendable though none of their quotas were read", ids)
	}
	for _, row := range v.live {
		if row.QuotasOK == nil || *row.QuotasOK || !strings.Contains(row.QuotasError, "Retry-After") {
			t.Errorf("subsample %d: quotas ok %v, error %q", row.SubsampleID, row.QuotasOK, row.QuotasError)
		}
	}
}

// TestHostileRefreshNeverRunsTwiceAtOnce: refreshes asked while one runs
// join it: the provider sees one refresh's requests.
func TestHostileRefreshNeverRunsTwiceAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	f.clock.Advance(10 * time.Minute)
	want := int64(2 + 2*len(f.sim.LiveSubsampleIDs())) // event lists, then quotas and rules of each live subsample
	f.sim.SetLatency(20 * time.Millisecond)
	before := f.sim.Requests()
	f.refresher.Start(Request{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			f.refresher.Start(Request{})
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := f.sim.Requests() - before; n != want {
		t.Errorf("nine overlapping refreshes made %d requests, one makes %d", n, want)
	}
	runs, _ := f.store.RecentRuns(ctx, 10)
	events := 0
	for _, r := range runs {
		if r.Dataset == store.DatasetEvents && r.StartedAt.Equal(f.clock.Now()) {
			events++
		}
	}
	if events != 1 {
		t.Errorf("%d events refreshes ran, want 1", events)
	}
}

// TestHostileSlowUpstreamDoesNotBlockReads: while a refresh waits on a
// provider that takes an hour per answer, everything pages read answers,
// from the last good snapshot, while the refresh still waits: the reads
// did not wait for it, however long they took on this machine. Close
// then cancels the refresh instead of waiting the hour.
func TestHostileSlowUpstreamDoesNotBlockReads(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	before := f.view(t)
	f.sim.SetLatency(time.Hour)
	f.clock.Advance(10 * time.Minute)
	// A refresher whose client waits as long as the provider takes, so
	// its refresh runs until Close (the fixture's gives up after 2 s).
	srv := httptest.NewServer(f.sim)
	t.Cleanup(srv.Close)
	patient, err := client.New(client.Config{BaseURL: srv.URL, Header: http.Header{"Authorization": {upstreamSecret}},
		Timeout: 2 * time.Hour, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := New(patient, f.store, Options{Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler), Concurrency: 4})
	t.Cleanup(r.Close) // before srv.Close, which waits for the requests in flight
	r.Start(Request{Force: true})
	if p := r.Progress(); !p.Running {
		t.Fatalf("progress %+v, want the refresh running", p)
	}
	during := f.view(t)
	if _, err := f.store.Datasets(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.SnapshotVersion(ctx); err != nil {
		t.Fatal(err)
	}
	if p := r.Progress(); !p.Running {
		t.Fatalf("progress %+v after the reads: the refresh stopped before they answered, so they may have waited for it", p)
	}
	if !reflect.DeepEqual(during, before) {
		t.Error("the snapshot changed while the refresh was still waiting")
	}
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Minute): // a hang, not a speed: the provider takes an hour
		t.Fatal("Close did not return: it waited for the refresh held by the provider instead of cancelling it")
	}
}

// TestHostileSecretStaysOutOfRecordsAndLogs: a provider that echoes the
// auth header back, in an error body, in a field that does not decode and
// in a status line: the value is in no refresh error, stored message or
// log line.
func TestHostileSecretStaysOutOfRecordsAndLogs(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	echo := map[string]string{} // path -> how to echo
	f := newHostileFixture(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			how := echo[r.URL.Path]
			mu.Unlock()
			secret := r.Header.Get("Authorization")
			switch how {
			case "body":
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprintf(w, "credentials %q refused", secret)
			case "field":
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `[{"quotaId": 1, "tableName": %q, "questions": [], "remainingExclusive": "%s"}]`, secret, secret)
			case "content-type":
				w.Header().Set("Content-Type", "text/"+strings.Fields(secret)[1])
				fmt.Fprint(w, "<html>")
			case "status-line":
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err == nil {
					fmt.Fprintf(buf, "HTTP/1.1 200 %s\r\nContent-Length: x%s\r\n\r\n", secret, secret)
					buf.Flush()
					conn.Close()
				}
			default:
				next.ServeHTTP(w, r)
			}
		})
	})
	set := func(path, how string) {
		mu.Lock()
		defer mu.Unlock()
		echo[path] = how
	}
	ids := f.sim.LiveSubsampleIDs()
	set(fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", ids[0]), "field")
	set(fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", ids[1]), "status-line")
	set(fmt.Sprintf("/supplier/v1/subsamples/%d/eligibility-rules", ids[2]), "body")
	set(fmt.Sprintf("/supplier/v1/subsamples/%d/eligibility-rules", ids[3]), "content-type")
	f.clock.Advance(10 * time.Minute)
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:4] {
		fetch, err := f.store.FetchOf(ctx, id)
		if err != nil || (fetch.QuotasOK && fetch.RulesOK) {
			t.Errorf("subsample %d: %+v, %v; want a failure recorded", id, fetch, err)
		}
		noSecret(t, "stored quotas error", fetch.QuotasError)
		noSecret(t, "stored rules error", fetch.RulesError)
	}

	set(pathAll, "body")
	f.clock.Advance(10 * time.Minute)
	err := f.refresher.Refresh(ctx, Request{})
	if err == nil {
		t.Fatal("the refresh got through a 403")
	}
	noSecret(t, "refresh error", err.Error())
	states, _ := f.store.Datasets(ctx)
	noSecret(t, "recorded error", states[store.DatasetEvents].LastError)
	runs, _ := f.store.RecentRuns(ctx, 5)
	for _, r := range runs {
		noSecret(t, "refresh log", r.Error)
	}
	noSecret(t, "progress", f.refresher.Progress().Err)
	logs := f.logs.String()
	if !strings.Contains(logs, "refresh failed") {
		t.Errorf("the failure was not logged:\n%s", logs)
	}
	noSecret(t, "log", logs)
}

// TestHostileOneMalformedElement: one element of event/all, live-details
// or a subsample's quotas with numbers where strings are due: the refresh
// commits; that one subsample is unknown, saying which element of which
// list could not be read and why; every other subsample is read afresh;
// the run counts the dropped element; the next refresh heals it.
func TestHostileOneMalformedElement(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	sendable := f.view(t).sendable()
	if len(sendable) < 2 {
		t.Fatalf("want two sendable subsamples, have %v", sendable)
	}
	quotasPath := fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", sendable[0])
	for _, tt := range []struct {
		list, path string
		broken     int64
	}{
		{domain.ListEventAll, pathAll, elementID(t, f.sim, http.MethodPost, pathAll)},
		{domain.ListLiveDetails, pathLive, elementID(t, f.sim, http.MethodPost, pathLive)},
		{domain.ListQuotas, quotasPath, sendable[0]},
	} {
		t.Run(tt.list, func(t *testing.T) {
			before := f.view(t)
			f.clock.Advance(10 * time.Minute)
			f.sim.FailPath(tt.path, sim.FailOneElement)
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Fatalf("one malformed element must not fail the refresh: %v", err)
			}
			after := f.view(t)
			verdict, ok := after.verdicts[tt.broken]
			reasons := strings.Join(verdict.Reasons, " ")
			if !ok || verdict.State != rules.Unknown || !strings.Contains(reasons, tt.list) || !strings.Contains(reasons, "is a string, not a") {
				t.Errorf("subsample %d, whose %s element is malformed: %s %v; want unknown, saying which list and why", tt.broken, tt.list, verdict.State, verdict.Reasons)
			}
			if len(after.rows) != len(before.rows) {
				t.Errorf("%d subsamples after the refresh, %d before: one malformed element must cost no other", len(after.rows), len(before.rows))
			}
			for id, v := range before.verdicts {
				if id != tt.broken && after.verdicts[id].State != v.State {
					t.Errorf("subsample %d went from %s to %s", id, v.State, after.verdicts[id].State)
				}
			}
			runs, err := f.store.RecentRuns(ctx, 1)
			if err != nil || len(runs) != 1 || !runs[0].OK || runs[0].MalformedCount != 1 ||
				!strings.Contains(runs[0].MalformedFirst, fmt.Sprintf("(subsample %d)", tt.broken)) {
				t.Errorf("the refresh run = %+v, %v; want it ok, counting one malformed element of subsample %d", runs, err, tt.broken)
			}
			states, err := f.store.Datasets(ctx)
			if ev := states[store.DatasetEvents]; err != nil || ev.MalformedCount != 1 || ev.MalformedFirst == "" {
				t.Errorf("events dataset = %+v, %v; want the current snapshot's malformed element", ev, err)
			}

			f.sim.ClearFailures()
			f.clock.Advance(time.Minute)
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Fatal(err)
			}
			healed := f.view(t)
			if v := healed.verdicts[tt.broken]; v.State != before.verdicts[tt.broken].State {
				t.Errorf("after the upstream healed subsample %d is %s %v, was %s", tt.broken, v.State, v.Reasons, before.verdicts[tt.broken].State)
			}
			if states, _ := f.store.Datasets(ctx); states[store.DatasetEvents].MalformedCount != 0 {
				t.Errorf("a clean refresh still counts %d malformed elements", states[store.DatasetEvents].MalformedCount)
			}
		})
	}
}

// TestHostileUnnamedMalformedElement: one element of live-details whose
// subsample id cannot be read either: the refresh commits, and every
// subsample event/all says is Live or Live for testing that live-details
// does not list readably, the lost one among them, is unknown, saying it
// may be it; the others are as before.
func TestHostileUnnamedMalformedElement(t *testing.T) {
	ctx := context.Background()
	f := newHostileFixture(t, nil)
	lost := elementID(t, f.sim, http.MethodPost, pathLive)
	before := f.view(t)
	f.clock.Advance(10 * time.Minute)
	f.sim.FailPath(pathLive, sim.FailOneElementUnnamed)
	if err := f.refresher.Refresh(ctx, Request{}); err != nil {
		t.Fatalf("one unnamed malformed element must not fail the refresh: %v", err)
	}
	after := f.view(t)
	if v := after.verdicts[lost]; v.State != rules.Unknown || !strings.Contains(strings.Join(v.Reasons, " "), "may be one of them") {
		t.Errorf("subsample %d, whose live-details element lost its id: %s %v; want unknown, saying it may be it", lost, v.State, v.Reasons)
	}
	for id, v := range after.verdicts {
		if strings.Contains(strings.Join(v.Reasons, " "), "may be one of them") {
			if v.State != rules.Unknown {
				t.Errorf("subsample %d, in doubt: %s %v; want unknown", id, v.State, v.Reasons)
			}
		} else if id != lost && v.State != before.verdicts[id].State {
			t.Errorf("subsample %d, not in doubt, went from %s to %s", id, before.verdicts[id].State, v.State)
		}
	}
	runs, err := f.store.RecentRuns(ctx, 1)
	if err != nil || len(runs) != 1 || !runs[0].OK || runs[0].MalformedCount != 1 || !strings.Contains(runs[0].MalformedFirst, "live-details element 2: ") {
		t.Errorf("the refresh run = %+v, %v; want it ok, counting one unnamed malformed element", runs, err)
	}
}

// elementID is the subsampleId of the element sim.FailOneElement breaks in
// the simulator's answer to method path.
func elementID(t *testing.T, s *sim.Simulator, method, path string) int64 {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader("{}")))
	var list []struct {
		SubsampleID int64 `json:"subsampleId"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list) <= sim.MistypedElement {
		t.Fatalf("%s %s: %d elements, %v", method, path, len(list), err)
	}
	return list[sim.MistypedElement].SubsampleID
}
