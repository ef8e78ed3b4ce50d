package store_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// importChildEnv makes the test binary act as a child that imports a large
// history file until it is killed.
const importChildEnv = "FIELDBOARD_IMPORT_CHILD_DB"

// historyFile streams n history records of panelists prefix0..prefixN.
func historyFile(prefix string, n int) io.Reader {
	r, w := io.Pipe()
	go func() {
		bw := bufio.NewWriter(w)
		fmt.Fprintln(bw, store.HistoryHeader)
		for i := range n {
			fmt.Fprintf(bw, "%s%d,%d,3,2026-11-%02d 10:00:00,%d,0,0\n", prefix, i, 100000+i%500, 1+i%20, 9000+i%50)
		}
		bw.Flush()
		w.Close()
	}()
	return r
}

// TestImportCrashChild is the child process of
// TestKilledDuringHistoryImport; it does nothing in a normal run.
func TestImportCrashChild(t *testing.T) {
	path := os.Getenv(importChildEnv)
	if path == "" {
		t.Skip("child process of TestKilledDuringHistoryImport")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("importing")
	if _, err := s.ImportHistoryCSV(ctx, historyFile("K", 2_000_000), time.UTC); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("imported")
}

// TestKilledDuringHistoryImport kills a process in the middle of a large
// history import (SIGKILL) and checks that the import is all or nothing:
// the records stored before are all there, and none of the killed file's.
func TestKilledDuringHistoryImport(t *testing.T) {
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
		if _, err := s.ImportHistoryCSV(ctx, historyFile("B", 1000), time.UTC); err != nil {
			t.Fatal(err)
		}
		s.Close()

		for round, delay := range []time.Duration{50 * time.Millisecond, 400 * time.Millisecond} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestImportCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), importChildEnv+"="+path)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			for lines.Scan() {
				if strings.HasPrefix(lines.Text(), "error") {
					t.Fatalf("child: %s", lines.Text())
				}
				if lines.Text() == "importing" {
					break
				}
			}
			time.Sleep(delay)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(stdout)
			cmd.Wait()
			if strings.Contains(string(rest), "imported") {
				t.Fatalf("round %d: the import of 2,000,000 records finished within %v; the kill came too late to test anything", round, delay)
			}

			s, err := store.Open(ctx, path)
			if err != nil {
				t.Fatalf("round %d: reopen after kill: %v", round, err)
			}
			n, err := s.CountHistory(ctx)
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			if n != 1000 {
				t.Errorf("round %d: %d history records after a killed import; want the 1,000 stored before, and none of the killed file's", round, n)
			}
			t.Logf("round %d: killed %d ms into the import; %d records stored", round, delay.Milliseconds(), n)
		}
	})
}
