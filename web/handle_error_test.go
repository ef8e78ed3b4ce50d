package web

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/rules/checks"
	"fieldboard/store"
	"fieldboard/views"
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

// TestErrorPageLinksBackToItsSection: an error page links back to the
// section the user was in, the menu's entry of the path's first segment,
// not always to the live list; a path of no section (a subsample's page
// among them) goes back to the live list, and so does one the viewer may
// not open.
func TestErrorPageLinksBackToItsSection(t *testing.T) {
	s := &Server{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: time.Now, Location: time.UTC}
	e := echo.New()
	back := regexp.MustCompile(`<a href="([^"]*)" data-testid="error-back">([^<]*)</a>`)
	for _, c := range []struct {
		path  string
		admin bool
		href  string
		words string
	}{
		{"/outcomes/nope", false, "/outcomes", "Back to outcomes"},
		{"/outcomes", false, "/outcomes", "Back to outcomes"},
		{"/panelists/held/x", false, "/panelists", "Back to panelists"},
		{"/webhooks/999/remove", false, "/webhooks", "Back to webhooks"},
		{"/subsamples/12", false, "/live", "Back to the live subsamples"},
		{"/outcomesx/1", false, "/live", "Back to the live subsamples"},
		{"/", false, "/live", "Back to the live subsamples"},
		{"/users/7", false, "/live", "Back to the live subsamples"},
		{"/users/7", true, "/users", "Back to users"},
	} {
		t.Run(c.path, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			role := store.RoleViewer
			if c.admin {
				role = store.RoleAdmin
			}
			req = req.WithContext(views.WithViewer(req.Context(), views.Viewer{Name: "tester", Role: role}))
			rec := httptest.NewRecorder()
			s.handleError(echo.NewHTTPError(http.StatusNotFound, "Not here."), e.NewContext(req, rec))
			got := back.FindStringSubmatch(rec.Body.String())
			if rec.Code != http.StatusNotFound || got == nil || got[1] != c.href || got[2] != c.words {
				t.Errorf("%d, back link %q; want 404 and %q to %s\n%s", rec.Code, got, c.words, c.href, rec.Body.String())
			}
		})
	}
}
