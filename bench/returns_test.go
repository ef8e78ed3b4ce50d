//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Figure 18, the way back: a respondent returned by the provider on
// GET /return/screenout?id=P, recorded against P's open send and routed on
// to the survey the router chooses now (a 302), against the next-survey
// answer (figure 12's GET /api/v1/panelists/P/next?limit=5) on the same
// panelists, in the same run, loaded the same way. Every return needs a
// send of its own that is not returned yet: each panelist is returned
// once, right after a next-survey answer that chose a survey for them
// (which records their send), and the returns are timed only once every
// one of those sends is in the routing log, so that none takes the path
// of a return that finds no send (which first writes the sends still
// queued). What the return does beyond the next-survey answer is what
// the figure measures: the send looked up, the return written with its
// history record in one transaction, and the router's decision made
// again on the panelist read afresh.

// returnTargets are figure 18's targets: a return's p99 at most this many
// times the next-survey answer's, its throughput at least this share.
const (
	returnP99Target        = 1.3
	returnThroughputTarget = 0.7
)

// returnRounds is how many rounds of throughput each side has, the best
// of each kept, as figure 12's.
const returnRounds = 3

// returnsRoutedOn is figure 18. db is serve's database file, base and
// token serve's address and a bearer token; taken are panelists other
// figures asked about, left out.
//
// With BENCH_RETURNPROFILE=FILE it writes serve's CPU profile over the
// throughput rounds, from its profiles on pprofAddr; the returns' share
// is `go tool pprof -focus ReturnAddress -top FILE`.
func returnsRoutedOn(t *testing.T, base, token, pprofAddr, db string, s sizes, taken []string) []Row {
	log := openRoutingLog(t, db)
	sent := panelistsSentSomewhere(t, base, token, log, s, loadRequests+returnRounds*throughputRequests, taken)
	latencySet, rest := sent[:loadRequests], sent[loadRequests:]

	inTurn := func(format string, ids []string) func(int) string {
		var mu sync.Mutex
		i := -1
		return func(int) string {
			mu.Lock()
			defer mu.Unlock()
			i++
			return fmt.Sprintf(format, ids[i%len(ids)])
		}
	}
	answers := &nextAnswers{limit: 5}
	nextGetter := newGetter(base, token, answers.check)
	returned := &returnAnswers{}
	returnGetter := newRedirectGetter(returned.check, base)

	// Latency: each panelist of the set asked for their next survey once,
	// then, their sends written, returned once, in the same order.
	since := time.Now()
	next := load(t, nextGetter, inTurn("/api/v1/panelists/%s/next?limit=5", latencySet))
	log.waitForSends(t, latencySet, since)
	ret := load(t, returnGetter, inTurn("/return/screenout?id=%s", latencySet))
	log.mustBeReturned(t, latencySet, since)

	// Throughput: rounds on sets of their own, the best of each side.
	var nextRate, returnRate float64
	profiled := profileServe(t, pprofAddr, os.Getenv("BENCH_RETURNPROFILE"))
	for round := range returnRounds {
		set := rest[round*throughputRequests : (round+1)*throughputRequests]
		since := time.Now()
		nextRate = max(nextRate, answersPerSecond(t, nextGetter, inTurn("/api/v1/panelists/%s/next?limit=5", set)))
		log.waitForSends(t, set, since)
		returnRate = max(returnRate, answersPerSecond(t, returnGetter, inTurn("/return/screenout?id=%s", set)))
		log.mustBeReturned(t, set, since)
		t.Logf("figure 18, round %d: %.0f next-survey answers/s, %.0f returns/s", round+1, nextRate, returnRate)
	}
	profiled()
	if answers.seen() == 0 {
		t.Fatal("figure 18: no next-survey answer checked held a survey")
	}
	if returned.routedOn() == 0 {
		t.Fatal("figure 18: no return checked was routed on to a survey")
	}
	routedOn := log.waitForRoutedOn(t, sent, since)
	if refused := refusedReturns(t, base, token); refused != 0 {
		t.Fatalf("figure 18: serve refused %d returns; each had an open send", refused)
	}

	ratio := ret.p99.Seconds() / next.p99.Seconds()
	rateRatio := returnRate / nextRate
	return []Row{
		{Figure: fmt.Sprintf("18 a return recorded and routed on, GET /return/screenout, each panelist's open send (p99; %d panelists, %d of all %d returned routed on to a survey; floor: the next-survey answer, limit 5, on the same panelists)",
			len(latencySet), routedOn, len(sent)),
			Value: ms(ret.p99), Unit: "ms", Floor: ms(next.p99), Ratio: round(ratio),
			Target: fmt.Sprintf("<= %g x floor", returnP99Target), Met: ratio <= returnP99Target},
		{Figure: "18 return throughput, each return a panelist's open send, against the next-survey answer's on the same panelists, answers/s",
			Value: round(returnRate), Unit: "answers/s", Floor: round(nextRate), Ratio: round(rateRatio),
			Target: fmt.Sprintf(">= %g x floor", returnThroughputTarget), Met: rateRatio >= returnThroughputTarget},
	}
}

// profileServe, when file is not "", starts a CPU profile of serve from
// its profiles on pprofAddr, and returns the function that waits for it
// (returnProfileSeconds, enough for the throughput rounds) and writes it
// to file.
func profileServe(t *testing.T, pprofAddr, file string) (wait func()) {
	if file == "" {
		return func() {}
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", pprofAddr, returnProfileSeconds))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil {
			err = os.WriteFile(file, b, 0o644)
		}
		done <- err
	}()
	return func() {
		if err := <-done; err != nil {
			t.Fatalf("BENCH_RETURNPROFILE: %v", err)
		}
		t.Logf("serve's CPU profile over figure 18's throughput rounds: %s", file)
	}
}

// returnProfileSeconds is how long BENCH_RETURNPROFILE's profile lasts.
const returnProfileSeconds = 5

// answersPerSecond is throughputOver in answers a second: a failed
// answer fails the run.
func answersPerSecond(t *testing.T, g *getter, path func(i int) string) float64 {
	bytesPerSecond, size, err := throughputOver(g, path)
	if err != nil {
		t.Fatalf("figure 18: throughput: %v", err)
	}
	return bytesPerSecond / float64(size)
}

// panelistsSentSomewhere draws n panelists of the panel at random, none
// of taken, for whom a next-survey answer names a survey (asked once
// each, untimed): those who will have a send to return from.
func panelistsSentSomewhere(t *testing.T, base, token string, log routingLog, s sizes, n int, taken []string) []string {
	seen := map[string]bool{}
	for _, id := range taken {
		seen[id] = true
	}
	rng := rand.New(rand.NewPCG(7, 8))
	client := &http.Client{}
	var ids []string
	for asked := 0; len(ids) < n; asked++ {
		if asked > 20*n || asked >= s.panelists {
			t.Fatalf("figure 18: %d of %d panelists asked would be sent to a survey, %d wanted", len(ids), asked, n)
		}
		id := fmt.Sprintf("P%07d", rng.IntN(s.panelists))
		if seen[id] {
			continue
		}
		seen[id] = true
		if !log.onPanel(t, id) {
			continue
		}
		req, err := http.NewRequest("GET", base+"/api/v1/panelists/"+id+"/next?limit=1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			t.Fatal(err)
		case resp.StatusCode != http.StatusOK:
			t.Fatalf("figure 18: next survey of %s: status %d: %.200s", id, resp.StatusCode, body)
		case bytes.Contains(body, []byte(`"entryLink"`)):
			ids = append(ids, id)
		}
	}
	return ids
}

// returnAnswers checks the returns' redirects: on to a survey, its entry
// link filled for the panelist, or to the no-survey URL; and counts those
// routed on.
type returnAnswers struct {
	mu       sync.Mutex
	surveyed int
}

func (r *returnAnswers) check(path string, location []byte) error {
	loc := string(location)
	if loc == noSurveyURL {
		return nil
	}
	id := path[strings.Index(path, "id=")+len("id="):]
	if !strings.Contains(loc, "SAPI=1") || !strings.HasSuffix(loc, "id="+id) {
		return fmt.Errorf("returned to %q, neither an entry link filled for %s nor the no-survey URL", loc, id)
	}
	r.mu.Lock()
	r.surveyed++
	r.mu.Unlock()
	return nil
}

func (r *returnAnswers) routedOn() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.surveyed
}

// routingLog reads serve's routing log from its database file, read-only,
// to see the sends written before the returns are timed and the returns
// recorded after.
type routingLog struct{ db *sql.DB }

func openRoutingLog(t *testing.T, db string) routingLog {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	conn, err := sql.Open("sqlite", "file:"+db+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return routingLog{db: conn}
}

// onPanel says whether the panel holds panelist id.
func (l routingLog) onPanel(t *testing.T, id string) bool {
	var n int
	if err := l.db.QueryRowContext(context.Background(), `SELECT count(*) FROM panel WHERE panelist_id = ?`, id).Scan(&n); err != nil {
		t.Fatalf("figure 18: read the panel: %v", err)
	}
	return n > 0
}

// count runs query, a count over the panelists ids (?1, a JSON array)
// since a time (?2).
func (l routingLog) count(t *testing.T, query string, ids []string, since time.Time) int {
	list, err := json.Marshal(ids)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	// The store keeps times as Unix milliseconds.
	if err := l.db.QueryRowContext(context.Background(), query, string(list), since.UnixMilli()).Scan(&n); err != nil {
		t.Fatalf("figure 18: read the routing log: %v", err)
	}
	return n
}

// openSendsSince counts the panelists of ?1 with a send since ?2 not
// returned.
const openSendsSince = `SELECT count(DISTINCT panelist_id) FROM routing_decisions
	WHERE panelist_id IN (SELECT value FROM json_each(?1)) AND at >= ?2
	AND chosen_subsample IS NOT NULL AND return_status IS NULL`

// waitForSends waits until every panelist of ids has an open send since
// since in the routing log (the router's record is written in batches
// after its answer), and fails after 30 s.
func (l routingLog) waitForSends(t *testing.T, ids []string, since time.Time) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := l.count(t, openSendsSince, ids, since)
		if n == len(ids) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("figure 18: %d of %d panelists have their send in the routing log after 30 s", n, len(ids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mustBeReturned fails unless every panelist of ids has a send since
// since returned as a screen-out by the return address: each return was
// recorded, none refused.
func (l routingLog) mustBeReturned(t *testing.T, ids []string, since time.Time) {
	n := l.count(t, `SELECT count(DISTINCT panelist_id) FROM routing_decisions
		WHERE panelist_id IN (SELECT value FROM json_each(?1)) AND at >= ?2
		AND return_status = 82 AND return_via = 'redirect'`, ids, since)
	if n != len(ids) {
		t.Fatalf("figure 18: %d of %d panelists returned have their send marked returned", n, len(ids))
	}
}

// waitForRoutedOn waits until the routing log holds the decisions the
// returns of ids routed on to a survey (written in batches after the
// redirect), and returns how many there are; it fails when none has
// come after 30 s.
func (l routingLog) waitForRoutedOn(t *testing.T, ids []string, since time.Time) int {
	const query = `SELECT count(*) FROM routing_decisions
		WHERE panelist_id IN (SELECT value FROM json_each(?1)) AND at >= ?2 AND outcome = 'return' AND hop = 2 AND after_decision IS NOT NULL`
	deadline := time.Now().Add(30 * time.Second)
	last, stable := -1, 0
	for {
		n := l.count(t, query, ids, since)
		if n > 0 && n == last {
			if stable++; stable == 5 {
				return n
			}
		} else {
			stable = 0
		}
		last = n
		if time.Now().After(deadline) {
			if n == 0 {
				t.Fatal("figure 18: no return routed on to a survey is in the routing log after 30 s")
			}
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// refusedReturns is the sum of serve's fieldboard_returns_refused_total
// on /metrics.
func refusedReturns(t *testing.T, base, token string) int64 {
	req, err := http.NewRequest("GET", base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("figure 18: /metrics: status %d", resp.StatusCode)
	}
	var total int64
	found := false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "fieldboard_returns_refused_total{") {
			continue
		}
		found = true
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("figure 18: /metrics: %q: %v", line, err)
		}
		total += int64(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatal("figure 18: /metrics has no fieldboard_returns_refused_total")
	}
	return total
}
