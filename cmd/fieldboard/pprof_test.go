package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestPprofHidesTheCommandLine: the command line holds the provider's
// secrets (--upstream-header), so the profile server never shows it.
//
// Not parallel: it changes os.Args, which the other tests read.
func TestPprofHidesTheCommandLine(t *testing.T) {
	args := os.Args
	t.Cleanup(func() { os.Args = args })
	os.Args = append(append([]string(nil), args...), "--upstream-header", "X-Api-Key: s3cret-of-the-provider")
	srv := httptest.NewServer(pprofHandler())
	t.Cleanup(srv.Close)

	status, body := getWithHost(t, srv.URL+"/debug/pprof/cmdline", "")
	if status != http.StatusNotFound || strings.Contains(body, "s3cret") {
		t.Errorf("GET /debug/pprof/cmdline = %d %q; want 404 without the header's value", status, body)
	}
	if status, body := getWithHost(t, srv.URL+"/debug/pprof/", ""); status != http.StatusOK || !strings.Contains(body, "heap") {
		t.Errorf("GET /debug/pprof/ = %d; want the index of the profiles:\n%.300s", status, body)
	}
}

// TestPprofAnswersOnlyToLoopbackNames: a page of another site that points
// its own name at 127.0.0.1 (DNS rebinding) gets nothing; the names a user
// types for a loopback address work with any port.
func TestPprofAnswersOnlyToLoopbackNames(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(pprofHandler())
	t.Cleanup(srv.Close)
	for host, want := range map[string]int{
		"localhost:6060": 200, "LOCALHOST": 200, "127.0.0.1:6060": 200, "127.0.0.1": 200, "[::1]:6060": 200, "[::1]": 200,
		"evil.example": 421, "evil.example:6060": 421, "127.0.0.1.nip.io:6060": 421, "localhost.evil.example": 421,
		"0.0.0.0:6060": 421, "192.168.1.10:6060": 421,
	} {
		status, body := getWithHost(t, srv.URL+"/debug/pprof/", host)
		if status != want {
			t.Errorf("GET /debug/pprof/ with Host %q = %d, want %d", host, status, want)
		}
		if want == 421 && (strings.Contains(body, "heap") || !strings.Contains(body, "answer only to localhost")) {
			t.Errorf("Host %q was refused without the reason, or with the profiles: %.200s", host, body)
		}
	}
}

// getWithHost GETs url with the Host header host ("" for the URL's own).
func getWithHost(t *testing.T, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
