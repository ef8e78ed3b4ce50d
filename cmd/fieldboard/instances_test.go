package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/handlers"
	"fieldboard/rules"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/views/formats"
	"fieldboard/web/auth"

	"golang.org/x/crypto/bcrypt"
)

// instanceLeaseTTL is the lease the test's instances hold: short beside
// the default (30 s), so the takeover after the kill comes in seconds, but
// long beside a snapshot's write. A holder renews every third of the TTL
// and gives up (its refresh is stopped) when no renewal went through for
// two thirds of it; its renewals queue behind its own snapshot write (on
// SQLite, one writer), which on a loaded machine took 3.7 s. At 3 s, the
// holders gave up mid-refresh again and again and the lease ran out while
// their snapshots were being written, and the test never saw one holding
// it mid-refresh. 20 s leaves the write 13 s.
const instanceLeaseTTL = 20 * time.Second

// instancesPatience bounds each wait of the test for something the
// instances will do: a safety net against a hang, not a measure of speed.
// Every wait polls its condition and says what it waited for.
const instancesPatience = 5 * time.Minute

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
// for the same snapshot. Before the kill the two also share what lives in
// the database (sharedState): sessions, an invitation link, a sign-in
// lock.
//
// It runs on PostgreSQL, the engine several instances are meant for, and
// on SQLite, whose file several processes on one machine may share too.
func TestSeveralInstancesOnOneDatabase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) { severalInstances(t, d.Target(t)) })
}

func severalInstances(t *testing.T, db string) {
	simulator := sim.New(sim.Options{Seed: 5, Subsamples: 60, Locales: 2, QuestionsPerLocale: 8, Latency: 60 * time.Millisecond})
	var requests phases
	upstream := httptest.NewServer(requests.watch(simulator))
	t.Cleanup(upstream.Close)
	token := prepareDatabase(t, db, simulator)

	a, b := startInstance(t, db, upstream.URL, token), startInstance(t, db, upstream.URL, token)
	both := []*instance{a, b}
	waitForSnapshot(t, both, 0)
	sameAnswers(t, a, b)
	sharedState(t, a, b)
	first := waitForSnapshot(t, both, 0)

	// Kill whichever holds the refresh lease in the middle of an events
	// refresh after the first: once it asked for event/all and before
	// its snapshot is current.
	asked := requests.eventAll.Load()
	var holder, survivor *instance
	for failsafe := time.Now().Add(instancesPatience); holder == nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatalf("in %v neither instance was seen holding the refresh lease after asking for event/all and before its snapshot was current", instancesPatience)
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

	// The survivor takes the lease once the dead one's ran out, not
	// before, and writes the next snapshot. How soon after is logged, not
	// checked: that is the machine's speed.
	var taken store.Lease
	for failsafe := time.Now().Add(instancesPatience); taken.Holder != survivor.id; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatalf("in %v %s did not take over the lease of the killed %s, which ran out at %s; the lease: %+v",
				instancesPatience, survivor.id, holder.id, dead.ExpiresAt.Format(time.StampMilli), taken)
		}
		if taken, err = leaseOf(t, db); err != nil {
			t.Fatal(err)
		}
	}
	if taken.AcquiredAt.Before(dead.ExpiresAt) {
		t.Fatalf("%s took the lease at %v, before the killed one's ran out at %v", survivor.id, taken.AcquiredAt, dead.ExpiresAt)
	}
	t.Logf("%s took over %v after the killed one's lease ran out", survivor.id, taken.AcquiredAt.Sub(dead.ExpiresAt))
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

// prepareDatabase gives the database the simulator's panel and profiles,
// for next-survey choices and send lists, the user instancesUser, and a
// bearer token for the API, which it returns.
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
	// bcrypt's lowest cost: a sign-in checks quicker than at the default.
	hash, err := bcrypt.GenerateFromPassword([]byte(instancesPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUser(ctx, instancesUser, store.RoleAdmin, string(hash), time.Now()); err != nil {
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
		"--addr", "127.0.0.1:0", "--refresh-every", "1s", "--lease-ttl", instanceLeaseTTL.String(), "--public-url", instancesPublicURL}, "\n"))
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
	for failsafe := time.Now().Add(instancesPatience); ; time.Sleep(10 * time.Millisecond) {
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
			t.Fatalf("fieldboard serve did not say it serves in %v:\n%s", instancesPatience, in.log.String())
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
	return in.getAccepting(t, path, "")
}

// getJSON is get asking for JSON.
func (in *instance) getJSON(t *testing.T, path string) []byte {
	t.Helper()
	return in.getAccepting(t, path, "application/json")
}

func (in *instance) getAccepting(t *testing.T, path, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, in.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+in.token)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
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
	for failsafe := time.Now().Add(instancesPatience); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(failsafe) {
			t.Fatalf("in %v not every instance answered from a snapshot after run %d", instancesPatience, run)
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
// otherwise they are asked again, as often as it takes (on a loaded
// machine asking may outlast several snapshots) until instancesPatience. The pacing of the verdicts is left out:
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
			// Without the invitation links, whose expiry is reckoned
			// from the moment each instance signs them.
			var targets []formats.TargetJSON
			if err := json.Unmarshal(in.getJSON(t, "/api/v1/subsamples/"+sendList+"/targets"), &targets); err != nil {
				t.Fatal(err)
			}
			for i := range targets {
				targets[i].InviteLink = ""
			}
			b, _ := json.Marshal(targets)
			out["send list "+sendList] = string(b)
		}
		for i := range 10 {
			path := fmt.Sprintf("/api/v1/panelists/P%07d/next?limit=50", i*29)
			out[path] = string(in.get(t, path))
		}
		return out
	}
	attempts := 0
	for failsafe := time.Now().Add(instancesPatience); time.Now().Before(failsafe); attempts++ {
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
	t.Fatalf("in %v (%d attempts) the two instances were never on one snapshot for the length of the answers", instancesPatience, attempts)
}

// The user and the public address of the instances' test.
const (
	instancesUser      = "maria"
	instancesPassword  = "a long enough password"
	instancesPublicURL = "https://go.fieldboard.test"
)

// sharedState checks that what the issue says lives in the database holds
// across instances, as it must when a load balancer sends a user's or a
// panelist's requests to any of them: a session started on a is signed
// in on b, and one ended on b is ended on a; an invitation link of a's
// send list opens on b (the routing key is shared); a name locked by
// failures on a is locked on b. (The bearer token both accept throughout
// was made by the token command, in the database.)
func sharedState(t *testing.T, a, b *instance) {
	t.Helper()
	cookie := a.signIn(t, instancesPassword, http.StatusSeeOther)
	if got := b.page(t, "/live", cookie); got.StatusCode != http.StatusOK {
		t.Errorf("%s's session on %s: %d to %s, want the page", a.id, b.id, got.StatusCode, got.Header.Get("Location"))
	}
	csrf := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindStringSubmatch(string(b.body(t, "/", cookie)))
	if csrf == nil {
		t.Fatalf("%s's page for %s's session has no CSRF token", b.id, a.id)
	}
	out, err := http.NewRequest(http.MethodPost, b.url+"/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	out.AddCookie(cookie)
	out.Header.Set("X-CSRF-Token", csrf[1])
	if resp := b.do(t, out); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signing %s's session out on %s with its CSRF token: %d, want 303", a.id, b.id, resp.StatusCode)
	}
	if got := a.page(t, "/live", cookie); got.StatusCode != http.StatusSeeOther || !strings.HasPrefix(got.Header.Get("Location"), "/login") {
		t.Errorf("a session signed out on %s, on %s: %d to %q, want sent to sign in", b.id, a.id, got.StatusCode, got.Header.Get("Location"))
	}

	var verdicts []formats.SubsampleJSON
	if err := json.Unmarshal(a.get(t, "/api/v1/subsamples"), &verdicts); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(verdicts, func(v formats.SubsampleJSON) bool { return v.Sendability == rules.Sendable })
	if i < 0 {
		t.Fatal("no subsample is sendable: no invitation link to open")
	}
	var targets []formats.TargetJSON
	if err := json.Unmarshal(a.getJSON(t, fmt.Sprintf("/api/v1/subsamples/%d/targets?limit=1", verdicts[i].SubsampleID)), &targets); err != nil {
		t.Fatal(err)
	}
	if len(targets) != 1 || !strings.HasPrefix(targets[0].InviteLink, instancesPublicURL+"/r/") {
		t.Fatalf("%s's send list of subsample %d: %+v; want a panelist with an invitation link", a.id, verdicts[i].SubsampleID, targets)
	}
	link := strings.TrimPrefix(targets[0].InviteLink, instancesPublicURL)
	if got := b.page(t, link, nil); got.StatusCode != http.StatusFound && got.StatusCode != http.StatusOK {
		t.Errorf("%s's invitation link %s on %s: %d, want a redirect to a survey (or the no-survey page)", a.id, link, b.id, got.StatusCode)
	}

	for range 5 { // auth's failuresPerUser
		a.signIn(t, "a wrong password", http.StatusUnauthorized)
	}
	b.signIn(t, instancesPassword, http.StatusTooManyRequests)
	t.Logf("%s and %s share sessions, sign-outs, an invitation link and a sign-in lock", a.id, b.id)
}

// noRedirects is a client that hands back redirects instead of following
// them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends req to the instance, without following a redirect, and
// returns the answer, its body read and closed.
func (in *instance) do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("%s %s of %s: %v", req.Method, req.URL.Path, in.id, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// page asks for path as a browser does, with cookie when there is one.
func (in *instance) page(t *testing.T, path string, cookie *http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, in.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return in.do(t, req)
}

// body is the page at path for the session of cookie.
func (in *instance) body(t *testing.T, path string, cookie *http.Cookie) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, in.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s of %s: %d %v", path, in.id, resp.StatusCode, err)
	}
	return body
}

// signIn signs instancesUser in with password, fails unless the answer
// is want, and returns the session cookie, if any.
func (in *instance) signIn(t *testing.T, password string, want int) *http.Cookie {
	t.Helper()
	form := url.Values{"name": {instancesUser}, "password": {password}}
	req, err := http.NewRequest(http.MethodPost, in.url+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp := in.do(t, req)
	if resp.StatusCode != want {
		t.Fatalf("signing in on %s: %d, want %d", in.id, resp.StatusCode, want)
	}
	for _, c := range resp.Cookies() {
		if c.Name == auth.CookieName && c.Value != "" {
			return c
		}
	}
	return nil
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
