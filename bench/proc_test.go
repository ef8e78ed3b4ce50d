package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// CPU time from /proc, which 12p's cpuWatch reads. No build tag: `make
// test` runs TestProcCPUTimes.

// machineBusy is the CPU seconds every core of the machine has spent on
// anything but waiting, from the first line of /proc/stat.
func machineBusy(t *testing.T) float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	busy := 0.0
	for i, f := range fields[1:] {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatalf("/proc/stat: %q: %v", line, err)
		}
		if i != 3 && i != 4 && i < 8 { // neither idle nor iowait; guest time is in user's already
			busy += v
		}
	}
	return busy / 100
}

// cpuSeconds is the user and system CPU time process pid has used, from
// /proc/PID/stat, with its ended and waited-for children's when children
// is set; 0 for a process that has ended.
func cpuSeconds(t *testing.T, pid int, children bool) float64 {
	fields := procStat(pid)
	if fields == nil {
		return 0
	}
	// After the command's closing parenthesis: state is field 3, utime 14,
	// stime 15, cutime 16, cstime 17 (proc(5)).
	ticks := 0.0
	last := 15
	if children {
		last = 17
	}
	for i := 14; i <= last; i++ {
		v, err := strconv.ParseFloat(fields[i-3], 64)
		if err != nil {
			t.Fatalf("/proc/%d/stat field %d: %v", pid, i, err)
		}
		ticks += v
	}
	return ticks / 100 // USER_HZ, 100 on Linux whatever the kernel's tick
}

// procStat is /proc/PID/stat's fields from the third (the state) on, nil
// when the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	i := strings.LastIndex(string(b), ") ")
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+2:]))
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(t *testing.T, pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	parent := strconv.Itoa(pid)
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(child); len(f) > 1 && f[1] == parent {
			out = append(out, child)
		}
	}
	return out
}

// TestProcCPUTimes: a process that spins sees its count grow, never
// faster than its cores allow, and the machine's count grows as much; a
// child is found among its parent's children, with a count of its own.
func TestProcCPUTimes(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	self := os.Getpid()
	before, machine := cpuSeconds(t, self, false), machineBusy(t)
	start := time.Now()
	// Spin until 0.2 s of CPU time are counted; the deadline is a safety
	// net against a count that never grows, not a measure of speed.
	for cpuSeconds(t, self, false)-before < 0.2 {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("spinning %v counted %.2f s of CPU time", time.Since(start), cpuSeconds(t, self, false)-before)
		}
		for i := 0; i < 1e6; i++ {
		}
	}
	spun, took := cpuSeconds(t, self, false)-before, time.Since(start).Seconds()
	if spun > took*float64(runtime.NumCPU())+0.02 {
		t.Errorf("spinning %.2f s on %d cores counted %.2f s of CPU time", took, runtime.NumCPU(), spun)
	}
	if busy := machineBusy(t) - machine; busy < spun-0.02*float64(runtime.NumCPU()) {
		t.Errorf("the machine counted %.2f s busy while this process counted %.2f s", busy, spun)
	}
	child := exec.Command("sleep", "5")
	if err := child.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if !slices.Contains(childrenOf(t, self), child.Process.Pid) {
		t.Errorf("the child %d is not among %v", child.Process.Pid, childrenOf(t, self))
	}
	if c := cpuSeconds(t, child.Process.Pid, true); c < 0 || c > 0.5 {
		t.Errorf("a sleeping child used %.2f s of CPU time", c)
	}
	if cpuSeconds(t, 1<<30, false) != 0 {
		t.Error("a process that does not exist used CPU time")
	}
}
