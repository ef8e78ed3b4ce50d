// Command burn keeps every core busy, for `make bench-busy`: it spins
// GOMAXPROCS goroutines (one a core by default) at normal priority until
// it is killed or its standard input ends, so that a harness that dies
// without killing it does not leave it spinning:
//
//	go run ./bench/cmd/burn < some-pipe
package main

import (
	"io"
	"os"
	"runtime"
)

func main() {
	for range runtime.GOMAXPROCS(0) {
		go spin()
	}
	io.Copy(io.Discard, os.Stdin)
}

// spin never returns and never waits.
func spin() {
	for n := uint64(1); ; n = n*6364136223846793005 + 1442695040888963407 {
	}
}
