package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

// TestSlowBodiesAreCutOffButUploadsMayBeSlow: the server reads a request
// within its short read timeout, so a connection that trickles a body to
// the public sign-in form is answered 408 and closed before the body is
// done; an upload route reads a body for longer, so a file sent slower
// than that timeout is still imported.
func TestSlowBodiesAreCutOffButUploadsMayBeSlow(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	addr, token := serveWithTimeouts(t, readTimeout, time.Minute)

	// A body trickled to POST /login: 2 bytes every 50 ms of 1,000 declared.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n", addr)
	sent := make(chan int, 1)
	go func() {
		n := 0
		for n < 1000 {
			if _, err := conn.Write([]byte("aa")); err != nil {
				break
			}
			n += 2
			time.Sleep(50 * time.Millisecond)
		}
		sent <- n
	}()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second)) // only so that a failure does not hang: 15 minutes before the fix
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("a body trickled to POST /login got no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body) // to the end: the server closes the connection
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "came too slowly") || !resp.Close {
		t.Errorf("a body trickled to POST /login: %d, Connection: close %v:\n%.300s\nwant 408 saying it came too slowly, and the connection closed", resp.StatusCode, resp.Close, body)
	}
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Error("the connection is still open after the answer")
	}
	if n := <-sent; n >= 1000 {
		t.Errorf("the whole body was sent (%d bytes) before the server cut it off", n)
	}

	// An upload slower than the read timeout: 8 lines, 100 ms apart.
	slow := &slowLines{lines: []string{store.PanelHeader}, pause: 100 * time.Millisecond}
	for i := range 8 {
		slow.lines = append(slow.lines, fmt.Sprintf("SLOW%d,FR,", i))
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/v1/panelists", slow)
	req.Header.Set("Content-Type", "text/csv")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a slow upload: %v", err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"records":8`) || slow.took < 2*readTimeout {
		t.Errorf("a panel upload sent over %s: %d %s; want 200 with its 8 records", slow.took, resp.StatusCode, body)
	}

	// Headers are capped at 64 KiB.
	req, _ = http.NewRequest("GET", "http://"+addr+"/healthz", nil)
	req.Header.Set("X-Padding", strings.Repeat("x", 100<<10))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a request with 100 KiB of headers: %d, want 431", resp.StatusCode)
	}
}

// slowLines is a body that sends its lines one at a time, pausing before
// each, and says how long it took.
type slowLines struct {
	lines []string
	pause time.Duration
	start time.Time
	took  time.Duration
}

func (s *slowLines) Read(p []byte) (int, error) {
	if s.start.IsZero() {
		s.start = time.Now()
	}
	if len(s.lines) == 0 {
		return 0, io.EOF
	}
	time.Sleep(s.pause)
	n := copy(p, s.lines[0]+"\n") // lines are short
	s.lines = s.lines[1:]
	s.took = time.Since(s.start)
	return n, nil
}

// serveWithTimeouts runs Server.Serve, with its read timeouts, on a
// loopback port, and returns its address and a bearer token.
func serveWithTimeouts(t *testing.T, readTimeout, uploadReadTimeout time.Duration) (addr, token string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "fb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	token, tokenHash := auth.NewToken()
	if err := st.CreateToken(ctx, "tests", tokenHash, time.Now()); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	s := &web.Server{
		Store: st, Refresher: refresh.New(nil, st, refresh.Options{Logger: logger}), Auth: auth.New(st, auth.Options{Logger: logger}),
		Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC,
		ReadTimeout: readTimeout, UploadReadTimeout: uploadReadTimeout,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(serveCtx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String(), token
}
