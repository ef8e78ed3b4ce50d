// Command benchtable rewrites the results table of bench/README.md from
// bench/results.json, between the table's two marker comments:
//
//	go run ./bench/cmd/benchtable [BENCH_DIR]
//
// BENCH_DIR is the folder holding both files, bench by default (run it
// from the module's root). `make bench` does the same after a full run.
package main

import (
	"fmt"
	"os"

	"fieldboard/bench"
)

func main() {
	dir := "bench"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := bench.UpdateReadme(dir, nil); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}
