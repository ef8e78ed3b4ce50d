package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// TestClientThatGoesAwayIsNoError: a client that leaves in the middle of a
// request, before the answer or half-way through a streamed one, is logged
// as having gone (info), never as an ERROR and a 500.
func TestClientThatGoesAwayIsNoError(t *testing.T) {
	t.Parallel()
	logs := &recordedLogs{}
	stalling := &stallingChecks{stalled: make(chan string, 1)}
	a := newAppWith(t, func(s *web.Server) {
		s.Logger = slog.New(logs)
		stalling.Service = s.Checks
		s.AnswerSlowlyWith(stalling)
	})
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	target, _ := sendableSiblings(t, a)

	for _, tt := range []struct{ name, path, stall string }{
		{"a page whose data is still being read", fmt.Sprintf("/subsamples/%d", target.SubsampleID), "Subsample"},
		{"a send list half-way through", fmt.Sprintf("/api/v1/subsamples/%d/targets", target.SubsampleID), "SendList"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, leave := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", a.url+tt.path, nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := a.client.Do(req); err == nil {
					resp.Body.Close() // the answer started: close it unread
				}
			}()
			if got := <-stalling.stalled; got != tt.stall {
				t.Fatalf("%s stalled in %s, want %s", tt.path, got, tt.stall)
			}
			leave() // the client closes its connection while the server works
			<-done
			line := logs.waitFor(t, "request", tt.path)
			for _, r := range logs.all() {
				if r.Level >= slog.LevelError {
					t.Errorf("a client that went away was logged as an error: %s %v", r.Message, r.attrs)
				}
			}
			gone := logs.find("client went away before the answer was sent", tt.path)
			if gone == nil || gone.Level != slog.LevelInfo {
				t.Errorf("no info line says the client of %s went away: %+v", tt.path, logs.all())
			}
			if tt.stall == "Subsample" && line.attrs["status"] != "499" {
				t.Errorf("the request line of %s has status %s, want 499 (client closed request)", tt.path, line.attrs["status"])
			}
		})
	}
}

// stallingChecks is the checks service whose Subsample and SendList stall,
// as a slow query would, until the request is given up; each says on
// stalled where it stalls. SendList sends its first rows before.
type stallingChecks struct {
	*checks.Service
	stalled chan string
}

func (s *stallingChecks) Subsample(ctx context.Context, id int64) (checks.SubsampleParts, error) {
	s.stalled <- "Subsample"
	<-ctx.Done()
	return checks.SubsampleParts{}, fmt.Errorf("read subsample %d: %w", id, ctx.Err())
}

func (s *stallingChecks) SendList(ctx context.Context, id int64, limit int, emit func(panelistID, entryLink string) error) error {
	for i := range 100 {
		if err := emit(fmt.Sprintf("P%07d", i), "https://provider.example/s?id=P"); err != nil {
			return err
		}
	}
	s.stalled <- "SendList"
	<-ctx.Done()
	// Carry on as a list that has not noticed yet: writes to the gone
	// client fail, or the list sees its context cancelled.
	for i := range 100_000 {
		if err := emit(fmt.Sprintf("Q%07d", i), "https://provider.example/s?id=Q"); err != nil {
			return fmt.Errorf("send list of %d: %w", id, err)
		}
	}
	return fmt.Errorf("send list of %d: %w", id, ctx.Err())
}

// recordedLogs is a slog handler that keeps every record, at every level.
type recordedLogs struct {
	mu      sync.Mutex
	records []logRecord
}

type logRecord struct {
	Level   slog.Level
	Message string
	attrs   map[string]string
}

func (l *recordedLogs) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordedLogs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *recordedLogs) WithGroup(string) slog.Handler            { return l }

func (l *recordedLogs) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{Level: r.Level, Message: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, rec)
	return nil
}

func (l *recordedLogs) all() []logRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]logRecord(nil), l.records...)
}

// find returns the first record with message whose path is path.
func (l *recordedLogs) find(message, path string) *logRecord {
	for _, r := range l.all() {
		if r.Message == message && r.attrs["path"] == path {
			return &r
		}
	}
	return nil
}

// waitFor waits until a record with message and path is logged.
func (l *recordedLogs) waitFor(t *testing.T, message, path string) logRecord {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) { // a hang, not a speed
		if r := l.find(message, path); r != nil {
			return *r
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line for %s was logged: %+v", message, path, l.all())
		}
	}
}
