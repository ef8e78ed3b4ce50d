package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
)

// TestDataMovingUnderACheckIsATryAgain: a check refused because the
// snapshot kept moving under it (checks.ErrVersionMoving) is no fault of
// the request nor of the server: the API, the dashboard and an
// invitation link answer 503 with Retry-After and say to try again,
// rather than 500's "something went wrong".
func TestDataMovingUnderACheckIsATryAgain(t *testing.T) {
	s := &Server{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Location: time.UTC}
	e := echo.New()
	for _, path := range []string{"/api/v1/panelists/P1/next", "/panelists/P1", "/r/AQHUmNaw"} {
		t.Run(path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c := e.NewContext(httptest.NewRequest(http.MethodGet, path, nil), rec)
			s.handleError(fmt.Errorf("next surveys: check the panelist: %w", checks.ErrVersionMoving), c)
			if rec.Code != http.StatusServiceUnavailable {
				t.Errorf("status %d, want 503", rec.Code)
			}
			if got := rec.Header().Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After %q, want 1", got)
			}
			if body := rec.Body.String(); !strings.Contains(body, "try again in a moment") {
				t.Errorf("body does not say to try again:\n%s", body)
			}
		})
	}
}
