package store_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// crashChildEnv makes the test binary act as a child that writes snapshots
// until it is killed.
const crashChildEnv = "FIELDBOARD_CRASH_CHILD_DB"

// bigSnapshot builds snapshot number gen: every name carries the generation,
// so a reader can tell whether it sees one whole snapshot.
func bigSnapshot(gen int) store.EventsSnapshot {
	at := t0.Add(time.Duration(gen) * 3 * time.Minute)
	snap := store.EventsSnapshot{
		Run:     store.Run{Dataset: store.DatasetEvents, StartedAt: at, FinishedAt: at},
		Details: map[int64]store.SubsampleDetail{},
	}
	tag := "gen-" + strconv.Itoa(gen)
	for i := int64(1); i <= 1500; i++ {
		snap.Summaries = append(snap.Summaries, domain.SubsampleSummary{EventID: i, SubsampleID: i, SubsampleName: tag, SubsampleStatus: domain.StatusLive})
		snap.Live = append(snap.Live, domain.LiveSubsample{EventID: i, EventName: tag, SubsampleID: i, SubsampleName: tag,
			SubsampleStatus: domain.StatusLive, Locales: []domain.SubsampleLocale{{Name: "en-us"}}})
		var quotas []domain.Quota
		for q := int64(1); q <= 10; q++ {
			quotas = append(quotas, domain.Quota{QuotaID: q, TableName: tag, QuotaType: "hard", AchievedInterviews: int64(gen)})
		}
		snap.Details[i] = store.SubsampleDetail{FetchedAt: at, Quotas: quotas}
	}
	return snap
}

// TestCrashChild is the child process of TestKilledDuringSnapshotWrite; it
// does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("child process of TestKilledDuringSnapshotWrite")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	first, _ := strconv.Atoi(os.Getenv(crashChildEnv + "_FROM"))
	for gen := first; ; gen++ {
		snap := bigSnapshot(gen)
		fmt.Println("writing", gen)
		if _, err := s.SaveEvents(ctx, snap, 24*time.Hour); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("written", gen)
	}
}

// TestKilledDuringSnapshotWrite kills a process in the middle of writing a
// snapshot (SIGKILL, no chance to clean up) and checks that the database
// holds one whole snapshot: the last one committed, never a mix.
func TestKilledDuringSnapshotWrite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		path := db.Target(t)
		s, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveEvents(ctx, bigSnapshot(1), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		s.Close()

		for round, delay := range []time.Duration{0, 30 * time.Millisecond, 90 * time.Millisecond} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), crashChildEnv+"="+path, fmt.Sprintf("%s_FROM=%d", crashChildEnv, 100*(round+1)))
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			lastWritten, writing := 0, 0
			// Let the child commit at least one snapshot, then kill it while it
			// writes the next one.
			for lines.Scan() {
				f := strings.Fields(lines.Text())
				if len(f) == 2 && f[0] == "written" {
					lastWritten, _ = strconv.Atoi(f[1])
				}
				if len(f) == 2 && f[0] == "writing" && lastWritten > 0 {
					writing, _ = strconv.Atoi(f[1])
					time.Sleep(delay)
					break
				}
				if len(f) > 0 && f[0] == "error" {
					t.Fatalf("child: %s", lines.Text())
				}
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			s, err := store.Open(ctx, path)
			if err != nil {
				t.Fatalf("round %d: reopen after kill: %v", round, err)
			}
			gen := snapshotGeneration(t, s)
			s.Close()
			if gen != lastWritten && gen != writing {
				t.Errorf("round %d: database holds generation %d; want %d (last committed) or %d (being written)", round, gen, lastWritten, writing)
			}
			t.Logf("round %d: killed while writing generation %d, %d ms in; database holds generation %d", round, writing, delay.Milliseconds(), gen)
		}
	})
}

// snapshotGeneration checks that every row of the live list and the quotas
// belongs to one generation, and returns it.
func snapshotGeneration(t *testing.T, s *store.Store) int {
	t.Helper()
	ctx := context.Background()
	rows, err := s.LiveRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1500 {
		t.Fatalf("live rows = %d, want 1500", len(rows))
	}
	gens := map[string]int{}
	for _, r := range rows {
		gens[r.EventName]++
		if r.Name != r.EventName {
			t.Fatalf("subsample %d is named %q in an event named %q: a mix of snapshots", r.SubsampleID, r.Name, r.EventName)
		}
	}
	if len(gens) != 1 {
		t.Fatalf("live rows come from several snapshots: %v", gens)
	}
	var tag string
	for g := range gens {
		tag = g
	}
	gen, _ := strconv.Atoi(strings.TrimPrefix(tag, "gen-"))
	for _, id := range []int64{1, 750, 1500} {
		quotas, err := s.QuotasOf(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range quotas {
			if q.TableName != tag || q.AchievedInterviews != int64(gen) {
				t.Fatalf("quota %d of subsample %d is from %s, the live list from %s", q.QuotaID, id, q.TableName, tag)
			}
		}
	}
	return gen
}
