package handlers

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// csvWriter writes RFC 4180 CSV whose cells are safe to open in a
// spreadsheet: a cell that begins with =, +, -, @, tab or carriage return
// is prefixed with a single quote (OWASP's advice against formula
// injection), since names come from outside systems.
type csvWriter struct{ w *csv.Writer }

func newCSVWriter(w io.Writer) *csvWriter { return &csvWriter{w: csv.NewWriter(w)} }

// Write writes one row.
func (c *csvWriter) Write(cells ...string) error {
	for i, cell := range cells {
		cells[i] = safeCell(cell)
	}
	return c.w.Write(cells)
}

// WriteKeyed writes one row whose first cell is a key the caller gave us,
// such as a panelist id, echoed byte for byte so the answer joins back to
// its input; the other cells are neutralised as Write does.
func (c *csvWriter) WriteKeyed(key string, cells ...string) error {
	for i, cell := range cells {
		cells[i] = safeCell(cell)
	}
	return c.w.Write(append([]string{key}, cells...))
}

// Flush flushes the rows written so far and reports any write error.
func (c *csvWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

func safeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// sendCSV answers with a CSV download named after the dataset and the time
// of the snapshot it comes from, such as
// "live-subsamples_2026-11-22T1405Z.csv". write gets the writer with no
// rows written yet; it writes the header and the rows.
func (h *Handler) sendCSV(c echo.Context, dataset string, snapshot time.Time, write func(w *csvWriter) error) error {
	stamp := "no-snapshot"
	if !snapshot.IsZero() {
		stamp = snapshot.UTC().Format("2006-01-02T1504Z")
	}
	c.Response().Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s_%s.csv"`, dataset, stamp))
	c.Response().WriteHeader(http.StatusOK)
	w := newCSVWriter(c.Response())
	if err := write(w); err != nil {
		return err
	}
	return w.Flush()
}

// wantsCSV reports whether the request asks for the CSV form of a table:
// the page's path with .csv, or format=csv.
func wantsCSV(c echo.Context) bool {
	return strings.HasSuffix(c.Request().URL.Path, ".csv") || c.QueryParam("format") == "csv"
}

// snapshotTime is when the events dataset was last read, the zero time
// when never.
func (h *Handler) snapshotTime(ctx context.Context, dataset string) (time.Time, error) {
	states, err := h.Store.Datasets(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if st := states[dataset]; st.LastSuccessAt != nil {
		return *st.LastSuccessAt, nil
	}
	return time.Time{}, nil
}
