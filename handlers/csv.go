package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views/formats"
)

// sendCSV answers with a CSV download named filename (formats.FileName:
// the dataset, what it was narrowed to and the time of the snapshot it
// comes from). write gets the writer with no rows written yet; it writes
// the header and the rows.
func (h *Handler) sendCSV(c echo.Context, filename string, write func(w *formats.Writer) error) error {
	c.Response().Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	c.Response().Header().Set(echo.HeaderContentDisposition, formats.Attachment(filename))
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
	return strings.HasSuffix(c.Request().URL.Path, ".csv") || filterValue(c.QueryParams(), "format") == "csv"
}

// snapshotTime is when dataset was last read, the zero time when never.
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

// subsampleSnapshotTime is when the quotas and rules that decide on a live
// subsample were read: by its own refresh when it had one since the
// events' (store.Fetch), else by the events'.
func (h *Handler) subsampleSnapshotTime(ctx context.Context, subsampleID int64) (time.Time, error) {
	at, err := h.snapshotTime(ctx, store.DatasetEvents)
	if err != nil {
		return at, err
	}
	if fetch, err := h.Store.FetchOf(ctx, subsampleID); err == nil {
		at = fetch.QuotasAt
	}
	return at, nil
}
