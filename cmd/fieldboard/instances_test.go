package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/handlers"
	"fieldboard/rules"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// instanceLeaseTTL is the lease the test's instances hold: short, so a
// takeover comes within seconds.
const instanceLeaseTTL = 3 * time.Second

// TestSeveralInstancesOnOneDatabase starts two `fieldboard serve`
// processes on one database and one provider, as two instances behind a
// load balancer are, with the events due at every look (--refresh-every
// 1s), so they take turns. Throughout, at most one of them refreshes at a
// time: /healthz never has both holding the refresh lease, and no two
// runs of the refresh log overlap. The test kills the one refreshing
// (SIGKILL) in the middle of its refresh: the database still holds a
// whole snapshot; the other takes the lease as soon as the dead one's
// runs out, not before, and writes the next snapshot. Before the kill,
// and after it beside an instance started in the dead one's place, both
// instances answer the same verdicts, send lists and next-survey choices
// for the same snapshot.
func TestSeveralInstancesOnOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	simulator := sim.New(sim.Options{Seed: 5, Subsamples: 60, Locales: 2, QuestionsPerLocale: 8, Latency: 60 * time.Millisecond})
	var requests phases
	upstream := httptest.NewServer(requests.watch(simulator))
	t.Cleanup(upstream.Close)
	db := sharedDatabase(t)
	token := prepareDatabase(t, db, simulator)

	a, b := startInstance(t, db, upstream.URL, token), startInstance(t, db, upstream.URL, token)
	both := []*instance{a, b}
	first := waitForSnapshot(t, both, 0)
	sameAnswers(t, a, b)

	// Kill whichever holds the refresh lease in the middle of an events
	// refresh after the first: once it asked for event/all and before
	// its snapshot is current.
	asked := requests.eventAll.Load()
	var holder, survivor *instance
	for failsafe := time.Now().Add(time.Minute); holder == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatal("in a minute neither instance was seen refreshing")
		}
		held := 0
		for i, in := range both {
			if h := in.health(t); h.RefreshLease.HeldHere && requests.eventAll.Load() > asked && h.Snapshot.RunID == first {
				holder, survivor = in, both[1-i]
				held++
			}
		}
		if held > 1 {
			a.bothHeld, b.bothHeld = true, true
		}
	}
	holder.kill(t)
	dead, err := leaseOf(t, db)
	if err != nil || dead.Holder != holder.id {
		t.Fatalf("the lease after the kill: %+v, %v; want the killed instance's", dead, err)
	}
	whole := snapshotOf(t, db) // fails on half a snapshot
	t.Logf("killed %s mid-refresh, holding the lease until %s; the database holds run %d whole (run %d was current at the kill)",
		holder.id, dead.ExpiresAt.Format(time.StampMilli), whole.Run, first)

	// The survivor takes the lease once the dead one's ran out, and
	// writes the next snapshot.
	var taken store.Lease
	for failsafe := time.Now().Add(time.Minute); taken.Holder != survivor.id; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatalf("in a minute %s did not take over the lease of the killed %s", survivor.id, holder.id)
		}
		if taken, err = leaseOf(t, db); err != nil {
			t.Fatal(err)
		}
	}
	if taken.AcquiredAt.Before(dead.ExpiresAt) {
		t.Fatalf("%s took the lease at %v, before the killed one's ran out at %v", survivor.id, taken.AcquiredAt, dead.ExpiresAt)
	}
	if late := taken.AcquiredAt.Sub(dead.ExpiresAt); late > instanceLeaseTTL {
		t.Errorf("%s took the lease %v after it ran out: more than a lease's time", survivor.id, late)
	} else {
		t.Logf("%s took over %v after the killed one's lease ran out", survivor.id, late)
	}
	after := waitForSnapshot(t, []*instance{survivor}, whole.Run)
	snapshotOf(t, db)

	replacement := startInstance(t, db, upstream.URL, token)
	waitForSnapshot(t, []*instance{replacement}, after-1)
	sameAnswers(t, survivor, replacement)

	// At most one refreshed at a time: the refresh log's runs never
	// overlap (every instance runs on this machine's clock).
	runs := refreshLog(t, db)
	for i := 1; i < len(runs); i++ {
		if runs[i].StartedAt.Before(runs[i-1].FinishedAt) {
			t.Errorf("run %d (%s) started at %v, before run %d (%s) finished at %v: two refreshes at once",
				runs[i].RunID, runs[i].Dataset, runs[i].StartedAt, runs[i-1].RunID, runs[i-1].Dataset, runs[i-1].FinishedAt)
		}
	}
	for _, in := range []*instance{a, b, replacement} {
		if in.bothHeld {
			t.Errorf("%s and another instance both said they held the refresh lease", in.id)
		}
	}
	t.Logf("%d runs in the refresh log, none overlapping", len(runs))
}

// sharedDatabase is the database the instances share: a SQLite file,
// which WAL lets several processes use at once. (When the store speaks
// PostgreSQL, a test database's URL goes here, and the rest holds.)
func sharedDatabase(t *testing.T) string {
	return filepath.Join(t.TempDir(), "fb.db")
}

// prepareDatabase gives the database the simulator's panel and profiles,
// for next-survey choices and send lists, and a bearer token for the
// API, which it returns.
func prepareDatabase(t *testing.T, db string, simulator *sim.Simulator) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportPanel(ctx, simulator.Panel(5, 300)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ImportProfiles(ctx, simulator.Profiles(5, 300), nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out bytes.Buffer
	if err := run(ctx, []string{"token", "create", "--db", db, "--name", "instances-test"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1]
}

// instance is one `fieldboard serve` child process.
type instance struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    *syncWriter
	url    string
	id     string
	token  string
	// bothHeld is set when this instance and another were seen holding
	// the refresh lease at once.
	bothHeld bool
}

var servingURL = regexp.MustCompile(`msg="serving the dashboard" url=(http://[0-9.:]+) .*instance=(\S+)`)

// startInstance starts `fieldboard serve` on db and upstream and waits
// until it serves.
func startInstance(t *testing.T, db, upstream, token string) *instance {
	t.Helper()
	in := &instance{log: &syncWriter{w: &bytes.Buffer{}}, exited: make(chan struct{}), token: token}
	in.cmd = exec.Command(os.Args[0])
	in.cmd.Env = append(os.Environ(), childArgs+"="+strings.Join([]string{"serve", "--upstream", upstream, "--db", db,
		"--addr", "127.0.0.1:0", "--refresh-every", "1s", "--lease-ttl", instanceLeaseTTL.String()}, "\n"))
	in.cmd.Stderr = in.log
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { in.cmd.Wait(); close(in.exited) }()
	t.Cleanup(func() {
		in.cmd.Process.Kill()
		<-in.exited
		if t.Failed() {
			t.Logf("log of %s:\n%s", in.id, in.log.String())
		}
	})
	for failsafe := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if m := servingURL.FindStringSubmatch(in.log.String()); m != nil {
			in.url, in.id = m[1], m[2]
			return in
		}
		select {
		case <-in.exited:
			t.Fatalf("fieldboard serve exited:\n%s", in.log.String())
		default:
		}
		if time.Now().After(failsafe) {
			t.Fatalf("fieldboard serve did not start in a minute:\n%s", in.log.String())
		}
	}
}

func (in *instance) kill(t *testing.T) {
	t.Helper()
	if err := in.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-in.exited
}

// get fetches path with the bearer token and returns the body.
func (in *instance) get(t *testing.T, path string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, in.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+in.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s of %s: %d %v\n%s", path, in.id, resp.StatusCode, err, body)
	}
	return body
}

func (in *instance) health(t *testing.T) handlers.HealthJSON {
	t.Helper()
	var h handlers.HealthJSON
	if err := json.Unmarshal(in.get(t, "/healthz"), &h); err != nil {
		t.Fatal(err)
	}
	if h.Instance != in.id {
		t.Fatalf("/healthz of %s names %s", in.id, h.Instance)
	}
	return h
}

// waitForSnapshot waits until every instance answers from a snapshot
// newer than run, and returns the run; meanwhile it checks that no two
// instances say they hold the refresh lease at once.
func waitForSnapshot(t *testing.T, instances []*instance, run int64) int64 {
	t.Helper()
	for failsafe := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatalf("no snapshot after run %d in two minutes", run)
		}
		newest, held := int64(0), 0
		for _, in := range instances {
			h := in.health(t)
			if h.RefreshLease.HeldHere {
				held++
			}
			if h.Snapshot == nil || h.Snapshot.RunID <= run {
				newest = 0
				break
			}
			newest = max(newest, h.Snapshot.RunID)
		}
		if held > 1 {
			for _, in := range instances {
				in.bothHeld = true
			}
		}
		if newest > 0 {
			return newest
		}
	}
}

// sameAnswers asks both instances for the verdicts, a send list and the
// next-survey choices of ten panelists, and fails unless they answer
// alike. The snapshot moves on every few seconds, so the answers count
// only when both instances said the same snapshot before and after them;
// otherwise they are asked again. The pacing of the verdicts is left out:
// its projected fill is reckoned from the moment each instance decides.
func sameAnswers(t *testing.T, a, b *instance) {
	t.Helper()
	snapshotOfBoth := func() int64 {
		ha, hb := a.health(t), b.health(t)
		if ha.Snapshot == nil || hb.Snapshot == nil || ha.Snapshot.RunID != hb.Snapshot.RunID {
			return 0
		}
		return ha.Snapshot.RunID
	}
	answers := func(in *instance, sendList string) map[string]string {
		out := map[string]string{}
		var verdicts []formats.SubsampleJSON
		if err := json.Unmarshal(in.get(t, "/api/v1/subsamples"), &verdicts); err != nil {
			t.Fatal(err)
		}
		for i := range verdicts {
			verdicts[i].Pacing = nil
		}
		v, _ := json.Marshal(verdicts)
		out["verdicts"] = string(v)
		if sendList != "" {
			out["send list "+sendList] = string(in.get(t, "/api/v1/subsamples/"+sendList+"/targets"))
		}
		for i := range 10 {
			path := fmt.Sprintf("/api/v1/panelists/P%07d/next?limit=50", i*29)
			out[path] = string(in.get(t, path))
		}
		return out
	}
	for attempt := 1; attempt <= 20; attempt++ {
		before := snapshotOfBoth()
		if before == 0 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		var verdicts []formats.SubsampleJSON
		if err := json.Unmarshal(a.get(t, "/api/v1/subsamples"), &verdicts); err != nil {
			t.Fatal(err)
		}
		sendList := ""
		if i := slices.IndexFunc(verdicts, func(v formats.SubsampleJSON) bool { return v.Sendability == rules.Sendable }); i >= 0 {
			sendList = fmt.Sprint(verdicts[i].SubsampleID)
		}
		fromA, fromB := answers(a, sendList), answers(b, sendList)
		if snapshotOfBoth() != before {
			continue // a refresh landed meanwhile
		}
		if sendList == "" {
			t.Fatal("no subsample is sendable: the send lists were not compared")
		}
		for what, answer := range fromA {
			if fromB[what] != answer {
				t.Fatalf("%s and %s answer %s differently on run %d:\n%.400s\n%.400s", a.id, b.id, what, before, answer, fromB[what])
			}
		}
		t.Logf("%s and %s gave the same %d answers on run %d", a.id, b.id, len(fromA), before)
		return
	}
	t.Fatal("in 20 attempts the two instances were never on one snapshot for the length of the answers")
}

// leaseOf reads the refresh lease from the shared database.
func leaseOf(t *testing.T, db string) (store.Lease, error) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return st.LeaseOf(context.Background(), store.LeaseRefresh)
}

// refreshLog is every run of the refresh log, oldest first.
func refreshLog(t *testing.T, db string) []store.RunRecord {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.RecentRuns(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(runs)
	return runs
}
