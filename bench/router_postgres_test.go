//go:build bench

package bench

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
)

// routerOnPostgres is 12p and 13p: figures 12 and 13 served by two
// `fieldboard serve` instances sharing the scenario's copy on PostgreSQL
// (scenario), as instances behind a load balancer share one database,
// answering at once: the load's requests alternate between them, one p99
// is taken over all their answers and the throughput is both together.
// Each instance has a floor server of its own, a process as it is,
// reading the same rows from the same database through a pool as large
// as serve's, loaded the same way (floorProcessesOn). The invitation
// links are signed in that database,
// so either instance opens them. It logs the CPU time the instances and
// the cluster spent during the throughput rounds (cpuWatch).
func routerOnPostgres(t *testing.T, s sizes, cluster, scenario string) []Row {
	ctx := context.Background()
	bin := buildFieldboard(t)
	token := createToken(t, bin, scenario)
	st, err := store.Open(ctx, scenario)
	if err != nil {
		t.Fatal(err)
	}
	panelists := onPanel(t, st, s, 500)
	st.Close()
	upstream := serve(t, sim.New(simOptions(s)))
	addrs := []string{freeAddr(t), freeAddr(t)}
	invites := invitationPaths(t, scenario, "http://"+addrs[0], panelists)
	router := routerServed{token: token, p99Within: 1.5, floorProcesses: len(addrs), floorDB: scenario,
		name: func(f string) string { return onEngine(scenario, f) + ", two serve instances sharing it" },
		cpu:  &cpuWatch{postmaster: postmasterOf(t, cluster), rounds: cpuRounds}}
	for _, addr := range addrs {
		cmd := startServe(t, bin, scenario, upstream, addr)
		router.bases = append(router.bases, "http://"+addr)
		router.cpu.serves = append(router.cpu.serves, cmd.Process.Pid)
	}
	rows, floor := nextSurveys(t, router, panelists)
	rows = append(rows, invitationClicks(t, router, invites, floor))
	router.cpu.log(t, "12p")
	return rows
}

// floorProcessesOn starts n floor servers (floorHandler) on the database
// target names, each in a process of its own, as each serve instance is:
// this test binary again, running TestFloorProcess, with a pool as large
// as serve's. It returns a getter alternating between them, their process
// ids and a function that stops them, which the test's end calls too. A
// floor process also ends when its standard input, a pipe from this
// process, closes.
func floorProcessesOn(t *testing.T, target string, n, size int) (*getter, []int, func()) {
	createFloorSends(t, target) // once, before the processes record their sends
	var bases []string
	var pids []int
	var stops []func()
	for range n {
		addr := freeAddr(t)
		cmd := exec.Command(os.Args[0], "-test.run=^TestFloorProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), floorDBEnv+"="+target, floorAddrEnv+"="+addr, floorSizeEnv+"="+strconv.Itoa(size))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start a floor process: %v", err)
		}
		stopped := false
		stop := func() {
			if !stopped {
				stopped = true
				stdin.Close()
				cmd.Wait()
			}
		}
		t.Cleanup(stop)
		stops = append(stops, stop)
		base := "http://" + addr
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := http.Get(base + "/floor/")
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the floor process at %s did not answer in 30s: %v", addr, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		bases, pids = append(bases, base), append(pids, cmd.Process.Pid)
	}
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	return newGetterOver(bases, "", sameBytes(bytes.Repeat([]byte("x"), size))), pids, stopAll
}

// The environment of a floor process (floorProcessesOn).
const (
	floorDBEnv   = "BENCH_FLOOR_DB"
	floorAddrEnv = "BENCH_FLOOR_ADDR"
	floorSizeEnv = "BENCH_FLOOR_SIZE"
)

// TestFloorProcess is a floor server of 12p and 13p in a process of its
// own, which floorProcessesOn starts: it serves floorHandler's answers
// from the database BENCH_FLOOR_DB names until its standard input ends,
// then says what its reads found. Run otherwise, it skips.
func TestFloorProcess(t *testing.T) {
	target := os.Getenv(floorDBEnv)
	if target == "" {
		t.Skip("a floor server of 12p and 13p, started by the harness in a process of its own")
	}
	size, err := strconv.Atoi(os.Getenv(floorSizeEnv))
	if err != nil {
		t.Fatalf("%s: %v", floorSizeEnv, err)
	}
	p := openPanelistRowsPostgres(t, target)
	recordSends(t, p, target)
	ln, err := net.Listen("tcp", os.Getenv(floorAddrEnv))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: floorHandler(p, bytes.Repeat([]byte("x"), size))}
	go srv.Serve(ln)
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
	t.Logf("a floor process: %d panel rows, %d profiles and %d history records read for %d panelists",
		p.panels.Load(), p.profiles.Load(), p.records.Load(), p.reads.Load())
}

// cpuRounds is how many throughput rounds of each 12p measures the CPU
// time over: a round lasts about a tenth of a second, and /proc counts
// CPU time in hundredths.
const cpuRounds = 20

// cpuWatch measures the CPU time spent during a figure's throughput
// rounds, from /proc: by the serve instances (serves), by the PostgreSQL
// cluster (its postmaster, whose count takes in its children that have
// ended, and every living child: the backends of each pool, the
// checkpointer, the WAL writer), by the floor processes in the floor's
// rounds, by this process (the load) and by the whole machine, which
// others share. A nil cpuWatch measures nothing.
type cpuWatch struct {
	// serves are the instances' process ids, floors the floor
	// processes', counted in the floor's rounds in their place.
	serves, floors []int
	postmaster     int
	// rounds is how many throughput rounds of each the figure runs.
	rounds      int
	ours, floor cpuTally
}

// cpuTally is the wall time, answers and CPU seconds of some rounds.
type cpuTally struct {
	wall                              time.Duration
	answers                           int
	serve, postgres, harness, machine float64
}

// roundsWanted is how many throughput rounds of each w measures over.
func (w *cpuWatch) roundsWanted() int {
	if w == nil {
		return 0
	}
	return w.rounds
}

// oursRound runs one of Fieldboard's throughput rounds (f) and counts it.
func (w *cpuWatch) oursRound(t *testing.T, f func()) {
	if w == nil {
		f()
		return
	}
	w.round(t, &w.ours, w.serves, f)
}

// floorRound runs one of the floor's throughput rounds (f) and counts it.
func (w *cpuWatch) floorRound(t *testing.T, f func()) {
	if w == nil {
		f()
		return
	}
	w.round(t, &w.floor, w.floors, f)
}

// round runs f and counts what it used, serves' CPU time as the serve
// side's.
func (w *cpuWatch) round(t *testing.T, into *cpuTally, serves []int, f func()) {
	before := w.sample(t, serves)
	start := time.Now()
	f()
	into.wall += time.Since(start)
	after := w.sample(t, serves)
	into.answers += throughputRequests
	into.serve += after.serve - before.serve
	into.postgres += after.postgres - before.postgres
	into.harness += after.harness - before.harness
	into.machine += after.machine - before.machine
}

// sample reads the CPU seconds used so far by the serve instances, the
// cluster (none without a postmaster), this process and the machine.
func (w *cpuWatch) sample(t *testing.T, serves []int) (c cpuTally) {
	for _, pid := range serves {
		c.serve += cpuSeconds(t, pid, false)
	}
	if w.postmaster != 0 {
		c.postgres = cpuSeconds(t, w.postmaster, true)
		for _, pid := range childrenOf(t, w.postmaster) {
			c.postgres += cpuSeconds(t, pid, false)
		}
	}
	c.harness = cpuSeconds(t, os.Getpid(), false)
	c.machine = machineBusy(t)
	return c
}

// log writes what the rounds used, an answer's CPU time on each side, and
// what it says of a third instance: on this machine, whether the cores
// were all busy; on a larger one, how many instances the database keeps
// up with, on as many cores as one instance has.
func (w *cpuWatch) log(t *testing.T, figure string) {
	cores := float64(runtime.NumCPU())
	for _, side := range []struct {
		name, servers string
		c             cpuTally
	}{{"Fieldboard's", "the serve instances", w.ours}, {"the floor's", "the floor processes", w.floor}} {
		c := side.c
		per := func(seconds float64) float64 { return seconds * 1000 / float64(c.answers) }
		t.Logf("%s: %s throughput rounds, %d answers in %v: CPU time an answer %.3f ms in %s, %.3f ms in PostgreSQL, %.3f ms in this process (the load); "+
			"%.2f of the %.0f cores busy with them, %.2f with anything",
			figure, side.name, c.answers, c.wall.Round(time.Millisecond), per(c.serve), side.servers, per(c.postgres), per(c.harness),
			(c.serve+c.postgres+c.harness)/c.wall.Seconds(), cores, c.machine/c.wall.Seconds())
	}
	c := w.ours
	if c.postgres <= 0 || c.serve <= 0 {
		t.Logf("%s: no CPU time measured on one side (serve %.3f s, PostgreSQL %.3f s)", figure, c.serve, c.postgres)
		return
	}
	idle := max(0, cores-c.machine/c.wall.Seconds())
	t.Logf("%s: a third instance on these %.0f cores: %.2f cores were idle while the two answered, so it could add %.0f%% at most; "+
		"with more cores, an answer takes %.3f ms of an instance's CPU and %.3f ms of PostgreSQL's, so PostgreSQL on as many cores as one instance keeps up with %.1f instances, and is the limit beyond that",
		figure, cores, idle, 100*idle/((c.serve+c.postgres+c.harness)/c.wall.Seconds()),
		c.serve*1000/float64(c.answers), c.postgres*1000/float64(c.answers), c.serve/c.postgres)
}

// postmasterOf is the process id of the postmaster of cluster: the first
// line of postmaster.pid in its data directory.
func postmasterOf(t *testing.T, cluster string) int {
	conn := pgConnect(t, cluster)
	var dir string
	if err := conn.QueryRow(context.Background(), `SHOW data_directory`).Scan(&dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		t.Fatalf("the cluster's postmaster: %v", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the cluster's postmaster.pid: %v", err)
	}
	return pid
}
