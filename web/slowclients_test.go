package web_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/web"
	"fieldboard/web/auth"

	"golang.org/x/crypto/bcrypt"
)

// smallBuffers gives every connection it accepts a small send buffer, so
// that a client that reads nothing stops the server's writes after some
// KiB rather than the megabytes the kernel would take otherwise.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// withSmallBuffers serves a's database again, with its own checks
// service, on a listener of smallBuffers; a's session and token work on
// it.
func withSmallBuffers(t *testing.T, a *app) *app {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := &web.Server{
		Store: a.store, Checks: &checks.Service{Store: a.store, Now: time.Now}, Refresher: a.refresher,
		Auth:   auth.New(a.store, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
		Logger: logger, Now: time.Now, Location: time.UTC, ProviderLocation: time.UTC,
	}
	srv := httptest.NewUnstartedServer(s.Routes())
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	b := *a
	b.url = srv.URL
	return &b
}

// stalled is a request whose client read its answer's status and headers
// and then stopped reading, on a connection with a small receive buffer
// (32 KiB: smaller, and the connection stays slow once read again).
type stalled struct {
	conn net.Conn
	resp *http.Response
}

// stall sends a request with a's token and reads no more than the
// answer's headers.
func stall(t *testing.T, a *app, method, path, contentType, body string) *stalled {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(a.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.(*net.TCPConn).SetReadBuffer(32 << 10) // with the server's, about 100 KiB of the answer fit
	req, _ := http.NewRequest(method, a.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+a.token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 512), req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d", method, path, resp.StatusCode)
	}
	return &stalled{conn, resp}
}

// rest reads the rest of the answer.
func (s *stalled) rest(t *testing.T) string {
	t.Helper()
	b, err := io.ReadAll(s.resp.Body)
	if err != nil {
		t.Fatalf("the stalled client's answer was cut short after %d bytes (%v): the server gave up on it while others waited", len(b), err)
	}
	return string(b)
}

// TestSlowReadersHoldUpNobody: a client that stops reading a send list,
// or a bulk check's answer, holds up no other send list, count or bulk
// check, and gets its whole answer when it reads again. (When a send list
// was written to its client in the turn of computing send lists, the
// others waited until the server dropped the slow client, 30 s later:
// they then answered, and the slow one's answer was cut short.)
//
// Not parallel: its stalled clients must read again before the write
// deadlines the handlers set.
func TestSlowReadersHoldUpNobody(t *testing.T) {
	a, ids := profiled(t, 16000)
	target := sendableWithCells(t, a)
	b := withSmallBuffers(t, a)
	targets := fmt.Sprintf("/api/v1/subsamples/%d/targets", target.SubsampleID)
	bulk := fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID)
	some := ids[:4000] // an answer of 450 KiB
	list := "panelistId\n" + strings.Join(some, "\n") + "\n"

	stalledList := stall(t, b, "GET", targets, "", "")
	// Two bulk checks: the second waits for no turn the first holds.
	stalledBulks := []*stalled{stall(t, b, "POST", bulk, "text/csv", list), stall(t, b, "POST", bulk, "text/csv", list)}

	resp, sendList := b.do(t, "GET", targets, nil)
	if resp.StatusCode != 200 || len(sendList) < 200<<10 {
		t.Fatalf("send list beside the stalled ones: %d, %d bytes; want 200, and more than 200 KiB for the stalled one to fill its buffers", resp.StatusCode, len(sendList))
	}
	rows := strings.Count(sendList, "\n") - 1
	resp, count := b.do(t, "GET", fmt.Sprintf("/subsamples/%d/targets/count", target.SubsampleID), map[string]string{"HX-Request": "true"})
	if want := fmt.Sprintf("<strong>%d</strong> of ", rows); resp.StatusCode != 200 || !strings.Contains(count, want) {
		t.Errorf("count beside the stalled ones: %d %s; want %q", resp.StatusCode, count, want)
	}
	resp, answer := b.post(t, bulk, "text/csv", "panelistId\n"+ids[0]+"\n")
	if resp.StatusCode != 200 || !strings.HasPrefix(answer, "panelistId,eligible,quota,send,reasons\n"+ids[0]+",") {
		t.Errorf("bulk check beside the stalled ones: %d %s", resp.StatusCode, answer)
	}

	if got := stalledList.rest(t); got != sendList {
		t.Errorf("the stalled send list read %d bytes, the other %d: want the same list", len(got), len(sendList))
	}
	for _, s := range stalledBulks {
		if got := strings.Count(s.rest(t), "\n"); got != len(some)+1 {
			t.Errorf("the stalled bulk check read %d lines, want %d", got, len(some)+1)
		}
	}
}
