//go:build bench

package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
)

// TestBenchBusy is `make bench-busy`: figures 12 and 13 with their floors,
// as TestBench serves them on SQLite (the default scenario, resized by the
// BENCH_ sizes), while another process keeps every core busy (burner):
// the router's answers on a machine whose cores something else wants too.
// The p99's target is 3 times the floor's, which the burner slows as
// much. At full size its rows, marked busy:, go in results.json and the
// README's table in place of the previous run's.
func TestBenchBusy(t *testing.T) {
	s := scenarioSizes(t)
	db := cachedScenario(t, s)
	withProfiles(t, s, db)
	withPanel(t, s, db)
	withPrices(t, s, db)
	rows := routerBusy(t, s, db)
	report(t, rows, false)
	if s == defaultSizes {
		keepGroup(t, busyMark, rows)
	}
}

// routerBusy serves figures 12 and 13 from `fieldboard serve` on a copy of
// the scenario and measures them and their floor with the burner running,
// started once everything else is ready and killed when they are done.
func routerBusy(t *testing.T, s sizes, scenario string) []Row {
	db := filepath.Join(t.TempDir(), "serve.db")
	copyFile(t, scenario, db)
	bin := buildFieldboard(t)
	token := createToken(t, bin, db)
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	panelists := onPanel(t, st, s, 500)
	st.Close()
	addr := freeAddr(t)
	invites := invitationPaths(t, db, "http://"+addr, panelists)
	startServe(t, bin, db, serve(t, sim.New(simOptions(s))), addr)
	router := routerServed{bases: []string{"http://" + addr}, token: token, floors: []*panelistRows{routerFloorRows(t, db)},
		name: func(f string) string {
			return inGroupNamed(busyMark)(f) + ", while another process keeps every core busy"
		}, p99Within: 3}

	stop := burner(t)
	rows, floor := nextSurveys(t, router, panelists)
	rows = append(rows, invitationClicks(t, router, invites, floor))
	stop()
	return rows
}

// burner starts bench/cmd/burn, a process of its own spinning as many
// goroutines as this machine has cores at normal priority, and returns a
// function that kills it and logs the cores it kept busy. It is killed
// when the test ends in any case, and it ends by itself when its standard
// input, a pipe from this process, closes.
func burner(t *testing.T) (stop func()) {
	bin := filepath.Join(t.TempDir(), "burn")
	build := exec.Command("go", "build", "-o", bin, "fieldboard/bench/cmd/burn")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build the burner: %v", err)
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the burner: %v", err)
	}
	start := time.Now()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		used := cpuSeconds(t, cmd.Process.Pid, false)
		took := time.Since(start)
		cmd.Process.Kill()
		stdin.Close()
		cmd.Wait()
		t.Logf("the burner kept %.2f of the %d cores busy for %v", used/took.Seconds(), runtime.NumCPU(), took.Round(time.Millisecond))
	}
	t.Cleanup(stop)
	return stop
}
