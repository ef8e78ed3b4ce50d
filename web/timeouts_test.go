package web_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/store/storetest"
	"fieldboard/web"
	"fieldboard/web/auth"
	"fieldboard/web/refresh"
)

// The tests of this file race the server's read deadlines with the pace of
// their clients: they do not run in parallel with the package's others, so
// the machine they see is only as loaded as go test's other packages make it.

// TestSlowBodiesAreCutOffButUploadsMayBeSlow: the server reads a request
// within its short read timeout, so a connection that trickles a body to
// the public sign-in form is answered 408 and closed before the body is
// done; an upload route reads a body for longer, so a file sent slower
// than that timeout is still imported.
func TestSlowBodiesAreCutOffButUploadsMayBeSlow(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	srv := serveWithTimeouts(t, readTimeout, time.Minute)
	addr := srv.addr

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
	req.Header.Set("Authorization", "Bearer "+srv.token)
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

// timedServer is a Server served by Serve, with read timeouts, on a
// loopback port: its address, a bearer token, and the session cookie and
// CSRF token of the user tester, signed in through the form.
type timedServer struct {
	addr, token string
	cookie      *http.Cookie
	csrf        string
}

// serveWithTimeouts runs Server.Serve, with its read timeouts, on a
// loopback port, and signs in to it.
func serveWithTimeouts(t *testing.T, readTimeout, uploadReadTimeout time.Duration) *timedServer {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.MigratedSQLitePath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	token, tokenHash := auth.NewToken()
	if err := st.CreateToken(ctx, store.Token{Name: "tests", Role: store.RoleAdmin, CreatedAt: time.Now()}, tokenHash); err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(testerPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUser(ctx, "tester", store.RoleAdmin, string(hash), time.Now()); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	s := &web.Server{
		Store: st, Checks: &checks.Service{Store: st, Now: time.Now}, Refresher: refresh.New(nil, st, refresh.Options{Logger: logger}),
		Auth:   auth.New(st, auth.Options{Logger: logger, UnknownNameCost: bcrypt.MinCost}),
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
	srv := &timedServer{addr: ln.Addr().String(), token: token}
	a := &app{url: "http://" + srv.addr, store: st, anonymous: noRedirects(nil)}
	srv.cookie, srv.csrf = a.login(t, "tester", testerPassword)
	return srv
}

// uploadPaths are the routes that read a body for longer than the read
// timeout (web's uploadRoutes), as requests go to them.
var uploadPaths = []string{
	"/api/v1/history", "/api/v1/profiles", "/api/v1/panelists", "/api/v1/subsamples/1/eligibility",
	"/panelists/history", "/panelists/bulk", "/panelists/profiles", "/panelists/panel",
	"/api/v1/profiles/mapping", "/api/v1/profiles/own", "/profiling/mapping", "/profiling/own",
}

// trickledBodyLength is the length a trickled body declares: less than
// the 256 KiB net/http reads of an unread body before it answers, so
// that a server which drains bodies waits for this one.
const trickledBodyLength = 100_000

// trickle sends a POST to path with header (lines ending in \\r\\n) and
// a body of trickledBodyLength declared: first, then a byte every 50 ms
// until the connection fails or the test ends. It returns the
// connection, for the answer.
func trickle(t *testing.T, addr, path, header, first string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %d\r\n\r\n%s", path, addr, header, trickledBodyLength, first)
	go func() {
		for range trickledBodyLength - len(first) {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := conn.Write([]byte("a")); err != nil {
				return
			}
		}
	}()
	return conn
}

// answerAndClose reads the answer to a trickled request, within limit
// (so that a failure does not hang), and reports its status, its body and
// whether the server closed the connection after it (the next read sees
// its end rather than the limit). took is from now until the end was
// seen.
func answerAndClose(t *testing.T, conn net.Conn, limit time.Duration) (status int, body string, closed bool, took time.Duration) {
	t.Helper()
	start := time.Now()
	conn.SetReadDeadline(start.Add(limit))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return 0, fmt.Sprintf("no answer within %s: %v", limit, err), false, time.Since(start)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, err = r.ReadByte()
	closed = err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
	return resp.StatusCode, string(b), closed, time.Since(start)
}

// TestRefusedUploadsAreAnsweredAtOnce: a request refused before its body
// is read (no credentials, a wrong token or CSRF token, another site, a
// body declared too large) is answered while the client is still sending
// it, and its connection closed, instead of net/http reading the rest of
// the body first (up to 256 KiB, at the client's pace, for as long as
// the read deadline lets it: on the upload routes, 15 minutes before the
// fix). The server's read timeouts here are both long, so only an answer
// that does not wait for the body comes within the test's limit.
func TestRefusedUploadsAreAnsweredAtOnce(t *testing.T) {
	const readTimeout, uploadReadTimeout, limit = time.Minute, 10 * time.Minute, 20 * time.Second
	srv := serveWithTimeouts(t, readTimeout, uploadReadTimeout)
	csv := "Content-Type: text/csv\r\n"
	form := "Content-Type: multipart/form-data; boundary=b\r\n"
	session := "Cookie: " + srv.cookie.String() + "\r\n"
	type refusal struct {
		name, path, header, first string
		status                    int
	}
	var cases []refusal
	for _, path := range uploadPaths {
		cases = append(cases, refusal{"no credentials", path, csv, "", http.StatusUnauthorized})
	}
	cases = append(cases,
		refusal{"a wrong bearer token", "/api/v1/history", csv + "Authorization: Bearer wrong\r\n", "", http.StatusUnauthorized},
		refusal{"a wrong CSRF token in the header", "/panelists/history", form + session + "X-CSRF-Token: wrong\r\n", "", http.StatusForbidden},
		refusal{"a wrong CSRF token as the form's first field", "/panelists/panel", form + session,
			"--b\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\nwrong\r\n--b\r\n", http.StatusForbidden},
		refusal{"a bearer token on a dashboard form", "/panelists/bulk", form + "Authorization: Bearer " + srv.token + "\r\n", "", http.StatusForbidden},
		refusal{"a post from another site", "/panelists/profiles", form + session + "Sec-Fetch-Site: cross-site\r\n", "", http.StatusForbidden},
		refusal{"a sign-in form declared larger than forms may be", "/login", "Content-Type: application/x-www-form-urlencoded\r\n", "", http.StatusRequestEntityTooLarge},
	)
	for _, c := range cases {
		t.Run(c.name+" "+c.path, func(t *testing.T) {
			t.Parallel()
			conn := trickle(t, srv.addr, c.path, c.header, c.first)
			status, body, closed, took := answerAndClose(t, conn, limit)
			if status != c.status || !closed {
				t.Errorf("POST %s, %s, its body trickling: %d after %s, connection closed %v; want %d at once and the connection closed\n%.300s",
					c.path, c.name, status, took.Round(time.Millisecond), closed, c.status, body)
			}
		})
	}
}

// TestUploadsWaitLongOnlyForWhoMaySend: the long read deadline of the
// upload routes is granted only once the request is known to come from
// someone signed in, its CSRF token checked: a body trickled without
// credentials, or a dashboard form whose CSRF token (its first field)
// trickles, is cut off within the short read timeout, long before the
// upload one. (With a 1 s read timeout and a 10 minute upload timeout,
// the test's limit of 30 s tells them apart on any machine.)
func TestUploadsWaitLongOnlyForWhoMaySend(t *testing.T) {
	const readTimeout, uploadReadTimeout, limit = time.Second, 10 * time.Minute, 30 * time.Second
	srv := serveWithTimeouts(t, readTimeout, uploadReadTimeout)
	form := "Content-Type: multipart/form-data; boundary=b\r\n"
	session := "Cookie: " + srv.cookie.String() + "\r\n"
	for _, path := range uploadPaths {
		t.Run("no credentials "+path, func(t *testing.T) {
			t.Parallel()
			conn := trickle(t, srv.addr, path, form, "")
			status, body, closed, took := answerAndClose(t, conn, limit)
			if status != http.StatusUnauthorized || !closed {
				t.Errorf("POST %s without credentials, its body trickling: %d after %s, connection closed %v; want 401 and the connection closed within the %s read timeout\n%.300s",
					path, status, took.Round(time.Millisecond), closed, readTimeout, body)
			}
		})
		if strings.HasPrefix(path, "/api/") {
			continue
		}
		t.Run("a session whose CSRF field trickles "+path, func(t *testing.T) {
			t.Parallel()
			conn := trickle(t, srv.addr, path, form+session, "--b\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n")
			status, body, closed, took := answerAndClose(t, conn, limit)
			if status != http.StatusRequestTimeout || !closed {
				t.Errorf("POST %s with a session, its CSRF field trickling: %d after %s, connection closed %v; want 408 and the connection closed within the %s read timeout\n%.300s",
					path, status, took.Round(time.Millisecond), closed, readTimeout, body)
			}
		})
	}
}

// TestSignedInDashboardUploadsMayBeSlow: a dashboard upload form sent by
// a signed-in user slower than the read timeout is imported, with its
// CSRF token as the form's first field (a plain form) or in the
// X-CSRF-Token header (htmx).
func TestSignedInDashboardUploadsMayBeSlow(t *testing.T) {
	// Long enough that a loaded machine reads the token and the file's
	// start within it; the body as a whole takes half as long again.
	const readTimeout = 6 * time.Second
	srv := serveWithTimeouts(t, readTimeout, time.Minute)
	for _, tokenIn := range []string{"the first field", "the header"} {
		t.Run(tokenIn, func(t *testing.T) {
			t.Parallel() // each waits out its own pauses: the two need not wait in turn
			var body strings.Builder
			mw := multipart.NewWriter(&body)
			if tokenIn == "the first field" {
				mw.WriteField(auth.CSRFField, srv.csrf)
			}
			fw, _ := mw.CreateFormFile("file", "panel.csv")
			fmt.Fprintln(fw, store.PanelHeader)
			head := body.Len() // the token and the file's start come at once, within the read timeout
			for i := range 6 {
				fmt.Fprintf(fw, "SLOW%d,FR,\n", i)
			}
			mw.Close()
			slow := &slowChunks{chunks: splitAfter(body.String(), head, 6), pause: readTimeout / 4}
			req, _ := http.NewRequest("POST", "http://"+srv.addr+"/panelists/panel", slow)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("HX-Request", "true")
			req.AddCookie(srv.cookie)
			if tokenIn == "the header" {
				req.Header.Set(auth.CSRFHeader, srv.csrf)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("a slow dashboard upload: %v", err)
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(answer), "6 records read") || slow.took < readTimeout {
				t.Errorf("a panel form sent over %s, the CSRF token in %s: %d\n%.500s\nwant 200 with its 6 records", slow.took, tokenIn, resp.StatusCode, answer)
			}
		})
	}
}

// splitAfter cuts s into its first head bytes, then the rest in n
// pieces.
func splitAfter(s string, head, n int) []string {
	chunks := []string{s[:head]}
	rest := s[head:]
	size := (len(rest) + n - 1) / n
	for len(rest) > 0 {
		k := min(size, len(rest))
		chunks, rest = append(chunks, rest[:k]), rest[k:]
	}
	return chunks
}

// slowChunks is a body that sends its first chunk at once and each other
// after a pause, and says how long it took.
type slowChunks struct {
	chunks []string
	pause  time.Duration
	start  time.Time
	took   time.Duration
}

func (s *slowChunks) Read(p []byte) (int, error) {
	if len(s.chunks) == 0 {
		return 0, io.EOF
	}
	if s.start.IsZero() {
		s.start = time.Now()
	} else {
		time.Sleep(s.pause)
	}
	n := copy(p, s.chunks[0])
	if s.chunks[0] = s.chunks[0][n:]; s.chunks[0] == "" {
		s.chunks = s.chunks[1:]
	}
	s.took = time.Since(s.start)
	return n, nil
}
