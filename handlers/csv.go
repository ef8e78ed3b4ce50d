package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/views/formats"
)

// sendCSV answers with a CSV download named after the dataset and the time
// of the snapshot it comes from, such as
// "live-subsamples_2026-11-22T1405Z.csv". write gets the writer with no
// rows written yet; it writes the header and the rows.
func (h *Handler) sendCSV(c echo.Context, dataset string, snapshot time.Time, write func(w *formats.Writer) error) error {
	stamp := "no-snapshot"
	if !snapshot.IsZero() {
		stamp = snapshot.UTC().Format("2006-01-02T1504Z")
	}
	c.Response().Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s_%s.csv"`, dataset, stamp))
	c.Response().WriteHeader(http.StatusOK)
	w := formats.NewWriter(c.Response())
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
