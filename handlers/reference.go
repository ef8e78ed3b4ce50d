package handlers

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// Reference answers GET /reference: the provider's countries, locales and
// subsample statuses.
func (h *Handler) Reference(c echo.Context) error {
	ctx := c.Request().Context()
	v := views.ReferenceView{Page: h.page("Reference", "reference")}
	var err error
	if v.FetchedAt, err = h.snapshotTime(ctx, store.DatasetReference); err != nil {
		return err
	}
	if v.Countries, err = h.Store.Countries(ctx); err != nil {
		return err
	}
	if v.Locales, err = h.Store.Locales(ctx); err != nil {
		return err
	}
	if v.Statuses, err = h.Store.SurveyStatuses(ctx); err != nil {
		return err
	}
	return Render(c, http.StatusOK, views.ReferencePage(v))
}

// referenceTables are the CSV downloads of the reference page, by the last
// segment of their path: each reads its table and returns what writes it,
// so that a failing read is an error page rather than a cut file.
var referenceTables = map[string]func(ctx context.Context, st *store.Store) (func(w *formats.Writer) error, error){
	"countries.csv": func(ctx context.Context, st *store.Store) (func(w *formats.Writer) error, error) {
		countries, err := st.Countries(ctx)
		return func(w *formats.Writer) error { return formats.WriteCountriesCSV(w, countries) }, err
	},
	"locales.csv": func(ctx context.Context, st *store.Store) (func(w *formats.Writer) error, error) {
		locales, err := st.Locales(ctx)
		return func(w *formats.Writer) error { return formats.WriteLocalesCSV(w, locales) }, err
	},
	"statuses.csv": func(ctx context.Context, st *store.Store) (func(w *formats.Writer) error, error) {
		statuses, err := st.SurveyStatuses(ctx)
		return func(w *formats.Writer) error { return formats.WriteStatusesCSV(w, statuses) }, err
	},
}

// ReferenceCSV answers GET /reference/:table for countries.csv,
// locales.csv and statuses.csv; any other table is 404.
func (h *Handler) ReferenceCSV(c echo.Context) error {
	table := c.Param("table")
	read, ok := referenceTables[table]
	if !ok {
		return echo.NewHTTPError(http.StatusNotFound, "No such reference table: they are countries.csv, locales.csv and statuses.csv.")
	}
	ctx := c.Request().Context()
	snapshot, err := h.snapshotTime(ctx, store.DatasetReference)
	if err != nil {
		return err
	}
	// Read before the first byte is sent, so that a failing read is an
	// error page rather than a cut file.
	write, err := read(ctx, h.Store)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("reference-"+strings.TrimSuffix(table, ".csv"), snapshot), write)
}
