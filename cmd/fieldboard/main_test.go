package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/views/formats"
)

// childArgs makes the test binary run fieldboard itself with these
// arguments (separated by newlines), for tests that kill a process.
const childArgs = "FIELDBOARD_TEST_CHILD_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(childArgs); args != "" {
		if err := run(context.Background(), strings.Split(args, "\n"), os.Stdout, os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func newSim(t *testing.T, opts sim.Options) (*sim.Simulator, string) {
	t.Helper()
	if opts.Subsamples == 0 {
		opts.Subsamples = 40
	}
	s := sim.New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func TestRefreshCommandFillsDatabase(t *testing.T) {
	t.Parallel()
	simulator, url := newSim(t, sim.Options{Seed: 5, Locales: 2, QuestionsPerLocale: 10})
	db := filepath.Join(t.TempDir(), "fb.db")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"refresh", "--upstream", url, "--db", db, "--upstream-header", "X-Api-Key: s3cret"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("refresh: %v\n%s", err, stderr.String())
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.CountLive(context.Background())
	if err != nil || n != len(simulator.LiveSubsampleIDs()) || n == 0 {
		t.Errorf("live subsamples stored = %d, %v; want %d", n, err, len(simulator.LiveSubsampleIDs()))
	}
	if !strings.Contains(stdout.String(), "live") {
		t.Errorf("stdout = %q, want a summary", stdout.String())
	}
}

// TestRefreshCommandDropsOneMalformedElement: one unreadable element of
// event/all costs its subsample only: the refresh succeeds and says what it
// dropped, and `subsamples` has that subsample unknown with why.
// TestDatabaseURLFromTheEnvironment: FIELDBOARD_DB names a PostgreSQL
// database as --db does, and what the commands print of it leaves its
// password out.
func TestDatabaseURLFromTheEnvironment(t *testing.T) {
	simulator, url := newSim(t, sim.Options{Seed: 5})
	u, err := neturl.Parse(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.UserPassword(u.User.Username(), "not-to-be-printed") // the test cluster trusts local connections
	t.Setenv("FIELDBOARD_DB", u.String())
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"refresh", "--upstream", url}, &stdout, &stderr); err != nil {
		t.Fatalf("refresh: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "refreshed postgres://") || strings.Contains(stdout.String()+stderr.String(), "not-to-be-printed") {
		t.Errorf("refresh printed %q (and %q); want the database URL without its password", stdout.String(), stderr.String())
	}
	stdout.Reset()
	if err := run(ctx, []string{"subsamples", "--format", "json"}, &stdout, &stderr); err != nil {
		t.Fatalf("subsamples: %v\n%s", err, stderr.String())
	}
	var all []formats.SubsampleJSON
	if err := json.Unmarshal(stdout.Bytes(), &all); err != nil || len(all) != 40 {
		t.Fatalf("subsamples from FIELDBOARD_DB: %v, %d listed; want the 40 refreshed", err, len(all))
	}
	st, err := store.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.CountLive(ctx); err != nil || n != len(simulator.LiveSubsampleIDs()) {
		t.Errorf("live subsamples in the PostgreSQL database = %d, %v; want %d", n, err, len(simulator.LiveSubsampleIDs()))
	}
}

func TestRefreshCommandDropsOneMalformedElement(t *testing.T) {
	t.Parallel()
	simulator, url := newSim(t, sim.Options{Seed: 5})
	simulator.FailPath("/supplier/v1/event/all", sim.FailOneElement)
	db := filepath.Join(t.TempDir(), "fb.db")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"refresh", "--upstream", url, "--db", db}, &stdout, &stderr); err != nil {
		t.Fatalf("refresh: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "dropped 1 unreadable element(s)") || !strings.Contains(stdout.String(), "event/all element 2 (subsample ") {
		t.Errorf("stdout = %q, want the dropped element named", stdout.String())
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"subsamples", "--db", db, "--format", "json"}, &stdout, &stderr); err != nil {
		t.Fatalf("subsamples: %v\n%s", err, stderr.String())
	}
	var all []formats.SubsampleJSON
	if err := json.Unmarshal(stdout.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	unknown := 0
	for _, s := range all {
		if strings.Contains(strings.Join(s.Reasons, " "), "event/all answer for this subsample could not be read") {
			unknown++
			if s.Sendability != rules.Unknown {
				t.Errorf("subsample %d, whose element was dropped, is %s", s.SubsampleID, s.Sendability)
			}
		}
	}
	if unknown != 1 || len(all) != 40 {
		t.Errorf("%d subsamples listed, %d unknown for a dropped element; want all 40, one of them", len(all), unknown)
	}
}

func TestRefreshCommandNamesTheFailingEndpoint(t *testing.T) {
	t.Parallel()
	simulator, url := newSim(t, sim.Options{Seed: 5})
	simulator.FailPath("/supplier/v1/event/live-details", sim.FailServerError)
	db := filepath.Join(t.TempDir(), "fb.db")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"refresh", "--upstream", url, "--db", db, "--upstream-attempts", "1"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "/supplier/v1/event/live-details") {
		t.Fatalf("refresh error = %v, want one naming the endpoint", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans several lines: %q", err)
	}
}

func TestRefreshCommandFailingEverywhereSaysOneLine(t *testing.T) {
	t.Parallel()
	simulator, url := newSim(t, sim.Options{Seed: 5})
	simulator.SetFailRate(1)
	var out bytes.Buffer
	err := run(context.Background(), []string{"refresh", "--upstream", url, "--db", filepath.Join(t.TempDir(), "fb.db"),
		"--upstream-attempts", "1", "--upstream-timeout", "200ms"}, &out, &out)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "/supplier/v1/") || !strings.Contains(err.Error(), "more failure") {
		t.Fatalf("error = %q, want one line naming an endpoint and counting the others", err)
	}
}

func TestMalformedHeaderFlagKeepsItsSecret(t *testing.T) {
	t.Parallel()
	for _, header := range []string{"X-Api-Key secretvalue123", "X-Api-Key: secret\x01value123"} {
		var out bytes.Buffer
		err := run(context.Background(), []string{"refresh", "--upstream", "http://127.0.0.1:1", "--db", filepath.Join(t.TempDir(), "x.db"), "--upstream-header", header}, &out, &out)
		if err == nil || !strings.Contains(err.Error(), "--upstream-header") {
			t.Errorf("error = %v, want one naming --upstream-header", err)
		}
		if strings.Contains(out.String()+fmt.Sprint(err), "value123") {
			t.Errorf("the header's value appears in the output: %q / %v", out.String(), err)
		}
	}
}

func TestBadInvocations(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no command", nil, nil, "a command is needed"},
		{"unknown command", []string{"frobnicate"}, nil, `unknown command "frobnicate"`},
		{"refresh without upstream", []string{"refresh", "--db", "x.db"}, nil, "--upstream"},
		{"bad header", []string{"refresh", "--upstream", "http://x", "--upstream-header", "no colon"}, nil, "header"},
		{"bad provider tz", []string{"refresh", "--upstream", "http://127.0.0.1:1", "--provider-tz", "Mars/Base"}, nil, "--provider-tz"},
		{"bad upstream URL", []string{"refresh", "--upstream", "ftp://x"}, nil, "--upstream"},
		{"bad env", []string{"provider-sim"}, map[string]string{"FIELDBOARD_FAIL_RATE": "lots"}, "FIELDBOARD_FAIL_RATE"},
		{"fail rate out of range", []string{"provider-sim", "--fail-rate", "2"}, nil, "--fail-rate"},
		{"return address without {status}", []string{"provider-sim", "--return-url", "http://127.0.0.1:8080/return?id={id}"}, nil, "must hold {status} and {id}"},
		{"return address without {id}", []string{"provider-sim", "--return-url", "http://127.0.0.1:8080/return/{status}"}, nil, "must hold {status} and {id}"},
		{"relative return address", []string{"provider-sim", "--return-url", "/return/{status}?id={id}"}, nil, "not an absolute http or https address"},
		{"return address on ftp", []string{"provider-sim", "--return-url", "ftp://h/return/{status}?id={id}"}, nil, "not an absolute http or https address"},
		{"unknown signature hash", []string{"provider-sim", "--return-url", "http://h/r/{status}?id={id}", "--return-sig-alg", "md5"}, nil, "--return-sig-alg: signature algorithm \"md5\""},
		{"secret without return address", []string{"provider-sim", "--return-secret", "k"}, nil, "need a return address"},
		{"stray argument", []string{"serve", "extra"}, nil, `unexpected argument "extra"`},
		{"pprof on a public address", []string{"serve", "--pprof", "0.0.0.0:6060"}, nil, "not a loopback address"},
		{"pprof without a port", []string{"serve", "--pprof", "localhost"}, nil, "--pprof"},
		{"trusted proxy that is no address", []string{"serve", "--trusted-proxies", "10.0.0.1, proxy.example"}, nil, `--trusted-proxies: "proxy.example" is neither an address nor a CIDR range`},
		{"lease shorter than a second", []string{"serve", "--lease-ttl", "300ms"}, nil, "--lease-ttl: must be at least 1s"},
		{"trusted proxy range without bits", []string{"serve", "--trusted-proxies", "10.0.0.0/"}, nil, "--trusted-proxies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestTrustedProxies: --trusted-proxies takes addresses and CIDR ranges;
// an address is a range of one.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	proxies, err := parseProxies(" 10.1.2.3, 192.168.0.0/16,::1 ,")
	if err != nil || len(proxies) != 3 {
		t.Fatalf("parseProxies = %v, %v; want 3 ranges", proxies, err)
	}
	for ip, want := range map[string]bool{"10.1.2.3": true, "10.1.2.4": false, "192.168.77.1": true, "::1": true, "::2": false} {
		trusted := false
		for _, p := range proxies {
			trusted = trusted || p.Contains(net.ParseIP(ip))
		}
		if trusted != want {
			t.Errorf("%s trusted = %v, want %v", ip, trusted, want)
		}
	}
}

func TestHelpNamesEveryCommandAndFlag(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &stdout, &stdout); err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		if !strings.Contains(stdout.String(), c.name) {
			t.Errorf("--help does not name %s", c.name)
		}
	}
	for _, cmd := range []string{"serve", "refresh", "provider-sim"} {
		var out bytes.Buffer
		err := run(context.Background(), []string{cmd, "--help"}, &out, &out)
		if !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "FIELDBOARD_") || !strings.Contains(out.String(), "-db") && cmd != "provider-sim" {
			t.Errorf("%s --help = %v:\n%s", cmd, err, out.String())
		}
	}
}

func TestProviderSimServesAllNineEndpoints(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	stdout := &syncWriter{w: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"provider-sim", "--addr", "127.0.0.1:0", "--seed", "9", "--subsamples", "20"}, stdout, &stderr)
	}()
	var base string
	// A safety net, not a speed: the wait ends when it says where it
	// listens, or when it stops.
	for failsafe := time.Now().Add(5 * time.Minute); base == ""; time.Sleep(10 * time.Millisecond) {
		if out := stdout.String(); strings.Contains(out, "http://") {
			base = strings.Fields(out[strings.Index(out, "http://"):])[0]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("provider-sim stopped before it said where it listens: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(failsafe) {
			t.Fatal("in five minutes provider-sim did not say where it listens")
		}
	}
	endpoints := []struct{ method, path string }{
		{"POST", "/supplier/v1/event/all"},
		{"POST", "/supplier/v1/event/live-details"},
		{"GET", "/supplier/v1/countries"},
		{"GET", "/supplier/v1/locales"},
		{"GET", "/supplier/v1/survey-statuses"},
	}
	get := func(method, path string, out any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s %s: %v %v", method, path, err, resp)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	for _, e := range endpoints {
		var any []map[string]any
		get(e.method, e.path, &any)
	}
	// The four endpoints that take an id or a locale, with values the
	// lists above name.
	var live []struct {
		SubsampleID int64                   `json:"subsampleId"`
		Locales     []struct{ Name string } `json:"locales"`
	}
	get("POST", "/supplier/v1/event/live-details", &live)
	if len(live) == 0 {
		t.Fatal("no live subsample")
	}
	var quotas []map[string]any
	get("GET", "/supplier/v1/subsamples/"+strconv.FormatInt(live[0].SubsampleID, 10)+"/quotas", &quotas)
	var rules map[string]any
	get("GET", "/supplier/v1/subsamples/"+strconv.FormatInt(live[0].SubsampleID, 10)+"/eligibility-rules", &rules)
	var questions []struct{ ID int64 }
	get("GET", "/supplier/v1/locales/"+live[0].Locales[0].Name+"/questions", &questions)
	var answers []map[string]any
	get("GET", "/supplier/v1/locales/"+live[0].Locales[0].Name+"/questions/"+strconv.FormatInt(questions[len(questions)-1].ID, 10)+"/answers", &answers)
	if len(quotas) == 0 || len(rules) != 4 || len(questions) == 0 {
		t.Errorf("quotas %d, rule arrays %d, questions %d", len(quotas), len(rules), len(questions))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("provider-sim after cancel: %v", err)
	}
}

// TestBinaryEmbedsTimeZones: --tz and --provider-tz must read on a host
// without zoneinfo (a scratch container), so the binary carries its own.
func TestBinaryEmbedsTimeZones(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "fieldboard/cmd/fieldboard").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !slices.Contains(strings.Fields(string(out)), "time/tzdata") {
		t.Error(`fieldboard does not embed the time zone database: import _ "time/tzdata" in cmd/fieldboard`)
	}
}

// syncWriter lets the test read what a goroutine writes.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// TestHistoryImportSubsamplesAndEligibleCommands runs the commands on
// each database Fieldboard runs on: --db a SQLite file, then a postgres://
// URL.
func TestHistoryImportSubsamplesAndEligibleCommands(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		_, url := newSim(t, sim.Options{Seed: 5, QuestionsPerLocale: 10})
		dir := t.TempDir()
		db := d.Target(t)
		ctx := context.Background()
		var out, errOut bytes.Buffer
		if err := run(ctx, []string{"refresh", "--upstream", url, "--db", db}, &out, &errOut); err != nil {
			t.Fatal(err)
		}

		out.Reset()
		if err := run(ctx, []string{"subsamples", "--db", db, "--format", "json", "--sendability", "sendable"}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		var subs []formats.SubsampleJSON
		if err := json.Unmarshal(out.Bytes(), &subs); err != nil || len(subs) == 0 {
			t.Fatalf("subsamples --format json: %v, %d sendable:\n%s", err, len(subs), out.String())
		}
		target := subs[0]
		// A sendable subsample is API compatible: its live and testing links
		// carry SAPI=1 before the empty id (README, Entry links).
		testing := 0
		for _, s := range subs {
			for _, l := range s.EntryLinks {
				for _, link := range []string{l.Live, l.Testing} {
					if link != "" && !strings.HasSuffix(link, "&SAPI=1&id=") {
						t.Errorf("subsamples --format json: subsample %d, %s: entry link %q, want SAPI=1 and an empty id last", s.SubsampleID, l.Locale, link)
					}
				}
				if l.Testing != "" {
					testing++
				}
			}
		}
		if testing == 0 {
			t.Error("subsamples --format json: no sendable subsample has a testing link")
		}

		out.Reset()
		if err := run(ctx, []string{"subsamples", "--db", db, "--format", "csv", "--sendability", "sendable"}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
		if err != nil || len(rows) != len(subs)+1 || !slices.Equal(rows[0][:3], []string{"subsampleId", "eventId", "name"}) {
			t.Fatalf("subsamples --format csv: %v, %d lines for %d sendable subsamples, header %q", err, len(rows), len(subs), rows[0])
		}
		for _, r := range rows[1:] {
			links := r[slices.Index(rows[0], "liveEntryLinks")]
			for _, l := range strings.Split(links, "; ") {
				if !strings.HasSuffix(l, "&SAPI=1&id=") {
					t.Errorf("subsamples --format csv: subsample %s's live entry links %q, want each with SAPI=1 and an empty id last", r[0], links)
				}
			}
		}

		history := filepath.Join(dir, "history.csv")
		os.WriteFile(history, []byte(store.HistoryHeader+"\n"+
			"P1,"+strconv.FormatInt(target.SubsampleID, 10)+",3,2026-11-01T10:00:00.000,"+strconv.FormatInt(target.EventID, 10)+",0,0\n"), 0o644)
		out.Reset()
		if err := run(ctx, []string{"history", "import", "--db", db, history}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "1 new") {
			t.Errorf("history import said %q", out.String())
		}

		bad := filepath.Join(dir, "bad.csv")
		os.WriteFile(bad, []byte(store.HistoryHeader+"\nP1,1,77,2026-11-01T10:00:00.000,1,0,0\n"), 0o644)
		err = run(ctx, []string{"history", "import", "--db", db, bad}, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("importing a bad file: %v, want an error naming line 2", err)
		}

		// P1 and P2 live in the target's country.
		panel := filepath.Join(dir, "panel.csv")
		os.WriteFile(panel, []byte(store.PanelHeader+"\nP1,"+target.Country+",\nP2,"+target.Country+",\n"), 0o644)
		if err := run(ctx, []string{"panelists", "import", "--db", db, panel}, &out, &errOut); err != nil {
			t.Fatal(err)
		}

		ids := filepath.Join(dir, "ids.csv")
		os.WriteFile(ids, []byte("panelistId\nP1\nP2\n"), 0o644)
		out.Reset()
		if err := run(ctx, []string{"eligible", "--db", db, "--subsample", strconv.FormatInt(target.SubsampleID, 10), "--panelists", ids}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 3 || lines[0] != "panelistId,eligible,quota,send,reasons" || !strings.HasPrefix(lines[2], "P2,true,unknown,false") {
			t.Errorf("eligible printed:\n%s", out.String())
		}

		failures := []struct {
			args []string
			want string
		}{
			{[]string{"eligible", "--db", db, "--subsample", "1", "--panelists", ids}, "not in the current snapshot"},
			{[]string{"eligible", "--db", db, "--subsample", "1", "--panelists", filepath.Join(dir, "missing.csv")}, "missing.csv"},
			{[]string{"eligible", "--db", filepath.Join(dir, "none.db"), "--subsample", "1", "--panelists", ids}, "none.db"},
			{[]string{"subsamples", "--db", db, "--format", "xml"}, "--format"},
			{[]string{"history", "export"}, "import"},
		}
		for _, f := range failures {
			err := run(ctx, f.args, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), f.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", f.args, err, f.want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
			t.Error("eligible created a database that did not exist")
		}
	})
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

func TestUserAndTokenCommands(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, d storetest.Dialect) {
		ctx := context.Background()
		db := d.Target(t)
		var out, errOut bytes.Buffer
		if err := runUser(ctx, []string{"add", "--db", db, "maria"}, strings.NewReader(""), &out, &errOut); err != nil {
			t.Fatalf("user add: %v\n%s", err, errOut.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if password := lines[len(lines)-1]; len(password) < 16 || strings.Contains(password, " ") {
			t.Errorf("user add printed %q; want the generated password alone on its last line", out.String())
		}
		out.Reset()
		if err := runUser(ctx, []string{"add", "--db", db, "maria"}, strings.NewReader(""), &out, &errOut); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("adding maria twice: %v, want already exists", err)
		}
		if err := runUser(ctx, []string{"passwd", "--db", db, "--password-stdin", "maria"}, strings.NewReader("short\n"), &out, &errOut); err == nil || !strings.Contains(err.Error(), "at least 12") {
			t.Errorf("a short password: %v, want refused", err)
		}
		if err := runUser(ctx, []string{"passwd", "--db", db, "--password-stdin", "maria"}, strings.NewReader("a long enough secret\n"), &out, &errOut); err != nil {
			t.Fatalf("passwd: %v", err)
		}
		if strings.Contains(out.String(), "a long enough secret") {
			t.Errorf("passwd --password-stdin echoed the password: %q", out.String())
		}
		if err := runUser(ctx, []string{"passwd", "--db", db, "nobody"}, strings.NewReader(""), &out, &errOut); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("passwd of an unknown user: %v", err)
		}
		out.Reset()
		if err := runUser(ctx, []string{"list", "--db", db}, nil, &out, &errOut); err != nil || !strings.HasPrefix(out.String(), "maria\t") {
			t.Errorf("user list: %v %q", err, out.String())
		}

		out.Reset()
		if err := runToken(ctx, []string{"create", "--db", db, "--name", "nightly-report"}, &out, &errOut); err != nil {
			t.Fatalf("token create: %v", err)
		}
		lines = strings.Split(strings.TrimSpace(out.String()), "\n")
		token := lines[len(lines)-1]
		if !strings.HasPrefix(token, "fbt_") || strings.Contains(token, " ") {
			t.Fatalf("token create printed %q; want the token alone on its last line", out.String())
		}
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var stored int
		tokens, err := st.Tokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tokens {
			if tk.Name == "nightly-report" {
				stored++
			}
		}
		if stored != 1 {
			t.Errorf("tokens stored: %v", tokens)
		}
		if err := runToken(ctx, []string{"revoke", "--db", db, "--name", "nightly-report"}, &out, &errOut); err != nil {
			t.Fatalf("token revoke: %v", err)
		}
		if err := runToken(ctx, []string{"revoke", "--db", db, "--name", "nightly-report"}, &out, &errOut); err == nil {
			t.Error("revoking a token twice succeeded")
		}
		for _, args := range [][]string{{"frob"}, {"create", "--db", db}, {"create", "--db", db, "--name", "bad name"}} {
			if err := runToken(ctx, args, &out, &errOut); err == nil {
				t.Errorf("token %q succeeded", args)
			}
		}
	})
}

// TestServeOnABusyAddressWritesNothing: serve takes its address before it
// opens the database, so a demo started on a port already taken fails at
// once, creating no database and spending no one-time password.
func TestServeOnABusyAddressWritesNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(t.TempDir(), "fb.db")
	var out bytes.Buffer
	err = run(context.Background(), []string{"serve", "--addr", busy.Addr().String(), "--db", db}, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "--addr") {
		t.Fatalf("serve on a busy address: %v, want an error naming --addr", err)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("serve on a busy address left a database (%v); it must write nothing", err)
	}
	if strings.Contains(out.String(), "password=") {
		t.Errorf("serve on a busy address printed a password:\n%s", out.String())
	}
}

func TestDemoCreatesAdminOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	if err := checkUsers(ctx, st, true, "fb.db", logger); err != nil {
		t.Fatal(err)
	}
	if err := checkUsers(ctx, st, true, "fb.db", logger); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "password="); n != 1 {
		t.Errorf("the admin's password was logged %d times, want once:\n%s", n, log.String())
	}
	users, err := st.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]store.Role{}
	for _, u := range users {
		roles[u.Name] = u.Role
	}
	if want := map[string]store.Role{"admin": store.RoleAdmin, "maria": store.RoleCoordinator, "tom": store.RoleViewer}; !maps.Equal(roles, want) {
		t.Errorf("users after two demo starts: %v, want %v", roles, want)
	}
}

func TestProfilesGenerateAndImportCommands(t *testing.T) {
	t.Parallel()
	_, url := newSim(t, sim.Options{Seed: 5})
	dir := t.TempDir()
	db := filepath.Join(dir, "fb.db")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"refresh", "--upstream", url, "--db", db}, &out, &errOut); err != nil {
		t.Fatal(err)
	}

	out.Reset()
	if err := run(ctx, []string{"profiles", "generate", "--panelists", "50", "--seed", "2", "--sim-seed", "5", "--sim-subsamples", "40"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != store.ProfileHeader || !strings.HasPrefix(lines[1], "P0000000,") || !strings.HasPrefix(lines[len(lines)-1], "P0000049,") {
		t.Fatalf("profiles generate wrote %d lines from %q to %q", len(lines), lines[0], lines[len(lines)-1])
	}
	profiles := filepath.Join(dir, "profiles.csv")
	os.WriteFile(profiles, out.Bytes(), 0o644)
	out.Reset()
	if err := run(ctx, []string{"profiles", "import", "--db", db, profiles}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d records, %d answers written", len(lines)-1, len(lines)-1); !strings.Contains(out.String(), want) || strings.Contains(out.String(), "warning") {
		t.Errorf("profiles import said %q, want %q and no warning: the profiles fit the simulator's library", out.String(), want)
	}

	unknown := filepath.Join(dir, "unknown.csv")
	os.WriteFile(unknown, []byte(store.ProfileHeader+"\nP0000001,999999,1\n"), 0o644)
	out.Reset()
	if err := run(ctx, []string{"profiles", "import", "--db", db, unknown}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "warning: 1 records answer questions not in the stored library, among them 999999") {
		t.Errorf("importing an unknown question said %q", out.String())
	}

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte(store.ProfileHeader+"\nP1,43,101\nP1,-1,2026-02-30\nP2,x,1\n"), 0o644)
	err := run(ctx, []string{"profiles", "import", "--db", db, bad}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "2 bad lines") || !strings.Contains(err.Error(), "\n  line 3: value must be a birth date") ||
		!strings.Contains(err.Error(), "\n  line 4: questionId") || exitCode(err) != 1 {
		t.Errorf("importing a bad file: %v, want the bad lines 3 and 4 listed", err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.CountProfiles(ctx); err != nil || n != 50 {
		t.Errorf("CountProfiles = %d, %v; want the 50 generated panelists, the bad file written not at all", n, err)
	}

	for _, f := range []struct {
		args []string
		want string
	}{
		{[]string{"profiles", "export"}, "import or generate"},
		{[]string{"profiles", "import", "--db", db}, "one FILE"},
		{[]string{"profiles", "import", "--db", db, filepath.Join(dir, "missing.csv")}, "missing.csv"},
		{[]string{"profiles", "generate", "--panelists", "0"}, "--panelists"},
	} {
		if err := run(ctx, f.args, &out, &errOut); err == nil || !strings.Contains(err.Error(), f.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", f.args, err, f.want)
		}
	}
}

func TestProfilesGenerateOwnAndMappingCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	generate := func(flags ...string) []string {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{"profiles", "generate", "--panelists", "50", "--seed", "2", "--sim-seed", "5", "--sim-subsamples", "40"}, flags...)
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("run(%q): %v\n%s", args, err, errOut.String())
		}
		return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	}

	// The same panelists as the plain file, in the supplier's codes, and
	// without household income (question 14785), which it never asks.
	plain, own := generate(), generate("--own")
	if own[0] != "panelistId,code,value" || !strings.HasPrefix(own[1], "P0000000,") || !strings.HasPrefix(own[len(own)-1], "P0000049,") {
		t.Fatalf("profiles generate --own wrote %d lines from %q to %q", len(own), own[0], own[len(own)-1])
	}
	asked := 0
	for _, line := range plain[1:] {
		if strings.Split(line, ",")[1] != "14785" {
			asked++
		}
	}
	if len(own)-1 != asked {
		t.Errorf("--own wrote %d records, the plain file has %d besides income", len(own)-1, asked)
	}
	codes := map[string]bool{}
	for _, line := range own[1:] {
		codes[strings.Split(line, ",")[1]] = true
	}
	for _, c := range []string{"dob", "gender", "region", "education", "employment", "kids"} {
		if !codes[c] {
			t.Errorf("--own has no record with the code %s", c)
		}
	}
	if codes["income"] {
		t.Error("--own has income, which the supplier never asks")
	}

	mapping := generate("--mapping")
	if mapping[0] != "code,value,questionId,answerId,country" || mapping[1] != "dob,,-1,," {
		t.Fatalf("profiles generate --mapping begins %q", mapping[:min(2, len(mapping))])
	}
	if again := generate("--mapping", "--panelists", "7"); !slices.Equal(again, mapping) {
		t.Error("the mapping depends on --panelists")
	}
	var general, regions int
	for _, line := range mapping[1:] {
		f := strings.Split(line, ",")
		switch {
		case len(f) != 5:
			t.Errorf("mapping line %q", line)
		case f[0] == "region" && f[4] != "":
			regions++
		case f[0] == "region":
			t.Errorf("mapping line %q: a region row for every country", line)
		case f[4] == "":
			general++
		}
	}
	if general == 0 || regions == 0 {
		t.Errorf("mapping has %d general rows and %d region rows per country, want some of each", general, regions)
	}

	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"profiles", "generate", "--own", "--mapping"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "--mapping") {
		t.Errorf("--own with --mapping: %v, want a usage error", err)
	}
}

// Not parallel: it changes os.Stdin, which the user command reads.
func TestPanelistsImportCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "fb.db")
	ctx := context.Background()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var out, errOut bytes.Buffer
	good := write("panel.csv", store.PanelHeader+"\nP1,fr,fr_FR\nP2,CA,en-ca\nP3,US,\nP1,BE,fr-be\n")
	if err := run(ctx, []string{"panelists", "import", "--db", db, good}, &out, &errOut); err != nil {
		t.Fatalf("panelists import: %v\n%s", err, errOut.String())
	}
	if want := "imported " + good + ": 4 records, 3 panelists written, 0 of them replacing an earlier country and locale\n"; out.String() != want {
		t.Errorf("panelists import said %q, want %q", out.String(), want)
	}
	out.Reset()
	again := write("again.csv", store.PanelHeader+"\nP3,US,es-us\nP4,DE,\n")
	if err := run(ctx, []string{"panelists", "import", "--db", db, again}, &out, &errOut); err != nil ||
		!strings.Contains(out.String(), "2 records, 2 panelists written, 1 of them replacing an earlier country and locale") {
		t.Errorf("a second import: %v, said %q", err, out.String())
	}

	// FILE - is standard input.
	stdin, err := os.Open(write("stdin.csv", store.PanelHeader+"\nP4,DE,de-de\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	saved := os.Stdin
	os.Stdin = stdin
	out.Reset()
	err = run(ctx, []string{"panelists", "import", "--db", db, "-"}, &out, &errOut)
	os.Stdin = saved
	if err != nil || !strings.HasPrefix(out.String(), "imported -: 1 records, 1 panelists written, 1 of them") {
		t.Errorf("panelists import -: %v, said %q", err, out.String())
	}

	bad := write("bad.csv", store.PanelHeader+"\nP5,FR,fr-fr\nP6,FRA,\nP7,FR,en-us\n")
	err = run(ctx, []string{"panelists", "import", "--db", db, bad}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "2 bad lines") || !strings.Contains(err.Error(), "\n  line 3: country \"FRA\" is not a two-letter country code") ||
		!strings.Contains(err.Error(), "\n  line 4: locale en-us is of country US, not of the panelist's FR") || exitCode(err) != 1 {
		t.Errorf("importing a bad file: %v, want the bad lines 3 and 4 listed", err)
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.CountPanel(ctx); err != nil || n != 4 {
		t.Errorf("CountPanel = %d, %v; want P1 to P4, the bad file written not at all", n, err)
	}
	if m, err := st.PanelOf(ctx, "P1"); err != nil || m.Country != "BE" || m.Locale != "fr-be" {
		t.Errorf("P1 = %+v, %v; want the file's last line, BE fr-be", m, err)
	}
	if m, err := st.PanelOf(ctx, "P4"); err != nil || m.Locale != "de-de" {
		t.Errorf("P4 = %+v, %v; want de-de from standard input", m, err)
	}

	for _, f := range []struct {
		args []string
		want string
	}{
		{[]string{"panelists"}, "panelists takes a subcommand: import, held, hold, release"},
		{[]string{"panelists", "export"}, `unknown panelists subcommand "export" (one of import, held, hold, release)`},
		{[]string{"panelists", "import", "--db", db}, "one FILE"},
		{[]string{"panelists", "import", "--db", db, filepath.Join(dir, "missing.csv")}, "missing.csv"},
	} {
		if err := run(ctx, f.args, &out, &errOut); err == nil || !strings.Contains(err.Error(), f.want) {
			t.Errorf("run(%q) = %v, want an error containing %q", f.args, err, f.want)
		}
	}
	errOut.Reset()
	if err := run(ctx, []string{"panelists", "import", "--help"}, &out, &errOut); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(errOut.String(), store.PanelHeader) || !strings.Contains(errOut.String(), "-db") {
		t.Errorf("panelists import --help = %v:\n%s", err, errOut.String())
	}
}

func TestProfilesAndTargetsCommands(t *testing.T) {
	t.Parallel()
	simulator, url := newSim(t, sim.Options{Seed: 5, QuestionsPerLocale: 10})
	dir := t.TempDir()
	db := filepath.Join(dir, "fb.db")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"refresh", "--upstream", url, "--db", db}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var profiles strings.Builder
	profiles.WriteString(store.ProfileHeader + "\n")
	for r := range simulator.Profiles(3, 500) {
		fmt.Fprintf(&profiles, "%s,%d,%s\n", r.PanelistID, r.QuestionID, r.Value)
	}
	file := filepath.Join(dir, "profiles.csv")
	if err := os.WriteFile(file, []byte(profiles.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(ctx, []string{"profiles", "import", "--db", db, file}, &out, &errOut); err != nil {
		t.Fatalf("profiles import: %v\n%s", err, errOut.String())
	}
	var panel strings.Builder
	panel.WriteString(store.PanelHeader + "\n")
	countryOf := map[string]string{}
	for m := range simulator.Panel(3, 500) {
		fmt.Fprintf(&panel, "%s,%s,%s\n", m.PanelistID, m.Country, m.Locale)
		countryOf[m.PanelistID] = m.Country
	}
	panelFile := filepath.Join(dir, "panel.csv")
	if err := os.WriteFile(panelFile, []byte(panel.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"panelists", "import", "--db", db, panelFile}, &out, &errOut); err != nil {
		t.Fatalf("panelists import: %v\n%s", err, errOut.String())
	}
	out.Reset()
	if err := run(ctx, []string{"subsamples", "--db", db, "--format", "json", "--sendability", "sendable"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var subs []struct {
		SubsampleID  int64  `json:"subsampleId"`
		Country      string `json:"country"`
		OpenQuotas   int    `json:"openQuotas"`
		ClosedQuotas int    `json:"closedQuotas"`
	}
	if err := json.Unmarshal(out.Bytes(), &subs); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range subs {
		out.Reset()
		if err := run(ctx, []string{"targets", "--db", db, "--subsample", strconv.FormatInt(s.SubsampleID, 10), "--limit", "3"}, &out, &errOut); err != nil {
			t.Fatalf("targets of %d: %v", s.SubsampleID, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if lines[0] != "panelistId,entryLink" || len(lines) > 4 {
			t.Fatalf("targets --limit 3 printed %d lines, first %q", len(lines), lines[0])
		}
		for _, l := range lines[1:] {
			id, link, _ := strings.Cut(l, ",")
			if !strings.HasSuffix(link, "id="+id) {
				t.Errorf("targets line %q: the link is not filled for the panelist", l)
			}
			if countryOf[id] != s.Country {
				t.Errorf("%s, of %q, is on the send list of %d in %s", id, countryOf[id], s.SubsampleID, s.Country)
			}
		}
		total += len(lines) - 1
	}
	if total == 0 {
		t.Error("no sendable subsample has anyone on its send list")
	}
	// With --public-url each line carries the panelist's invitation link
	// for the subsample.
	invited := 0
	for _, s := range subs {
		out.Reset()
		if err := run(ctx, []string{"targets", "--db", db, "--subsample", strconv.FormatInt(s.SubsampleID, 10), "--limit", "2", "--public-url", "https://go.example.com"}, &out, &errOut); err != nil {
			t.Fatalf("targets --public-url: %v", err)
		}
		rows, err := csv.NewReader(&out).ReadAll()
		if err != nil || strings.Join(rows[0], ",") != "panelistId,entryLink,inviteLink" {
			t.Fatalf("targets --public-url printed %q, %v", rows, err)
		}
		if len(rows) < 2 {
			continue
		}
		st, _ := store.Open(ctx, db)
		for _, r := range rows[1:] {
			token, _ := strings.CutPrefix(r[2], "https://go.example.com/r/")
			inv, err := openInvitation(ctx, st, token)
			if err != nil || inv.PanelistID != r[0] || inv.SubsampleID != s.SubsampleID {
				t.Errorf("invitation link %q opens to %+v, %v; want %s to %d", r[2], inv, err, r[0], s.SubsampleID)
			}
			invited++
		}
		st.Close()
		break
	}
	if invited == 0 {
		t.Error("no send list printed an invitation link")
	}
	// Data older than --stale-after decides nothing: no send list.
	err := run(ctx, []string{"targets", "--db", db, "--subsample", strconv.FormatInt(subs[0].SubsampleID, 10), "--stale-after", "1ns"}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "old") {
		t.Errorf("targets on stale data: %v, want a refusal saying how old the data is", err)
	}
	for _, args := range [][]string{{"targets", "--db", db}, {"targets", "--db", db, "--subsample", "999999999"}, {"targets", "--db", db, "--subsample", "1", "--limit", "-1"}} {
		if err := run(ctx, args, &out, &errOut); err == nil {
			t.Errorf("%q succeeded", args)
		}
	}
}

// TestProfilesMappingAndOwnImportCommands: own-code profiles imported
// before the mapping are kept untranslated; the mapping imported after
// translates them; a bad mapping line fails the command with its number.
func TestProfilesMappingAndOwnImportCommands(t *testing.T) {
	t.Parallel()
	_, url := newSim(t, sim.Options{Seed: 5})
	dir := t.TempDir()
	db := filepath.Join(dir, "fb.db")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := run(ctx, []string{"refresh", "--upstream", url, "--db", db}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	// A question and an answer of the simulator's library, in any locale.
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	locales, err := st.LibraryLocales(ctx)
	if err != nil || len(locales) == 0 {
		t.Fatalf("locales %v, %v", locales, err)
	}
	var question, answer int64
	for locale := range locales {
		qs, err := st.Questions(ctx, locale)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			as, err := st.Answers(ctx, locale, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			if q.ID > 0 && len(as) > 0 {
				question, answer = q.ID, as[0].ID
				break
			}
		}
		if question != 0 {
			break
		}
	}
	st.Close()

	own := filepath.Join(dir, "own.csv")
	os.WriteFile(own, []byte(store.OwnProfileHeader+"\nP1,gender,F\nP1,dob,1984-03-02\nP2,income,high\n"), 0o644)
	out.Reset()
	if err := run(ctx, []string{"profiles", "import", "--own", "--db", db, own}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "3 records, 3 answers of 2 panelists; 0 translated by the mapping, 3 kept untranslated"; !strings.Contains(out.String(), want) {
		t.Errorf("profiles import --own said %q, want %q", out.String(), want)
	}

	mapping := filepath.Join(dir, "mapping.csv")
	os.WriteFile(mapping, []byte(fmt.Sprintf("%s\ngender,F,%d,%d,\ndob,,-1,,\n", store.MappingHeader, question, answer)), 0o644)
	out.Reset()
	if err := run(ctx, []string{"profiles", "mapping", "import", "--db", db, mapping}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "2 mapping rows; 2 panelists with own-code answers translated again (1 profiles changed): 2 answers translated, 1 kept untranslated"; !strings.Contains(out.String(), want) {
		t.Errorf("profiles mapping import said %q, want %q", out.String(), want)
	}

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte(store.MappingHeader+"\ngender,M,999999,1,\n,F,1,1,\n"), 0o644)
	err = run(ctx, []string{"profiles", "mapping", "import", "--db", db, bad}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "\n  line 2: question 999999 is not in the library of any locale") ||
		!strings.Contains(err.Error(), "\n  line 3: code is empty") || exitCode(err) != 1 {
		t.Errorf("importing a bad mapping: %v, want the bad lines 2 and 3 listed", err)
	}
	st, err = store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.ProfileOf(ctx, "P1")
	if err != nil || len(p.Answers[question]) != 1 || p.Answers[question][0] != answer || p.BirthDate.Year() != 1984 {
		t.Errorf("P1's profile = %+v, %v; want answer %d of question %d and born in 1984", p, err, answer, question)
	}
	if err := run(ctx, []string{"profiles", "mapping", "export"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "mapping import") {
		t.Errorf("profiles mapping export: %v, want the usage", err)
	}
}
