package handlers_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"fieldboard/handlers"
)

// body is a request body that counts the reads, and answers each with
// err (nil: the end).
type body struct {
	reads int
	err   error
}

func (b *body) Read([]byte) (int, error) {
	b.reads++
	if b.err != nil {
		return 0, b.err
	}
	return 0, io.EOF
}

// TestImportRefusals: the API's imports refuse a body of the wrong type
// with one 415 before reading it (the mapping has no JSON form), and a
// body too large says which command imports it.
func TestImportRefusals(t *testing.T) {
	h := &handlers.Handler{} // no store: nothing reaches it
	e := echo.New()
	e.POST("/api/v1/profiles/mapping", h.APIImportMapping)
	e.POST("/api/v1/profiles/own", h.APIImportOwnProfiles)
	e.POST("/api/v1/profiles", h.APIImportProfiles)
	e.POST("/api/v1/panelists", h.APIImportPanel)
	e.POST("/api/v1/history", h.APIImportHistory)
	tooBig := &http.MaxBytesError{Limit: 1}
	cases := []struct {
		name, target, contentType string
		err                       error // of the body's reads
		status                    int
		want                      string
		read                      bool // whether the body is read
	}{
		{"a JSON mapping", "/api/v1/profiles/mapping", "application/json", nil, 415, "Send the mapping as text/csv.", false},
		{"a form as the mapping", "/api/v1/profiles/mapping", "application/x-www-form-urlencoded", nil, 415, "Send the mapping as text/csv.", false},
		{"a form as the panel", "/api/v1/panelists", "text/plain", nil, 415, "Send the panel as text/csv or application/json.", false},
		{"a mapping too large", "/api/v1/profiles/mapping", "text/csv", tooBig, 413, "import it with fieldboard profiles mapping import.", true},
		{"own profiles too large", "/api/v1/profiles/own", "text/csv", tooBig, 413, "import it with fieldboard profiles import --own.", true},
		{"own JSON profiles too large", "/api/v1/profiles/own", "application/json", tooBig, 413, "import it with fieldboard profiles import --own.", true},
		{"profiles too large", "/api/v1/profiles", "text/csv", tooBig, 413, "import it with fieldboard profiles import.", true},
		{"a panel too large", "/api/v1/panelists", "text/csv", tooBig, 413, "import it with fieldboard panelists import.", true},
		{"a history too large", "/api/v1/history", "text/csv", tooBig, 413, "import it with fieldboard history import.", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &body{err: c.err}
			req := httptest.NewRequest(http.MethodPost, c.target, b)
			req.Header.Set(echo.HeaderContentType, c.contentType)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.want) {
				t.Errorf("%d %s; want %d %q", rec.Code, rec.Body, c.status, c.want)
			}
			if read := b.reads > 0; read != c.read {
				t.Errorf("body read: %v, want %v", read, c.read)
			}
		})
	}
}
