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
// segment of their path: each reads its table as rows under a header.
var referenceTables = map[string]func(ctx context.Context, st *store.Store) ([][]string, error){
	"countries.csv": countriesCSV,
	"locales.csv":   localesCSV,
	"statuses.csv":  statusesCSV,
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
	rows, err := read(ctx, h.Store)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("reference-"+strings.TrimSuffix(table, ".csv"), snapshot), func(w *formats.Writer) error {
		for _, r := range rows {
			if err := w.Write(r...); err != nil {
				return err
			}
		}
		return nil
	})
}

func countriesCSV(ctx context.Context, st *store.Store) ([][]string, error) {
	countries, err := st.Countries(ctx)
	if err != nil {
		return nil, err
	}
	rows := [][]string{{"id", "code", "name", "region"}}
	for _, c := range countries {
		rows = append(rows, []string{formats.Int(c.ID), c.Code, c.Name, c.RegionName})
	}
	return rows, nil
}

func localesCSV(ctx context.Context, st *store.Store) ([][]string, error) {
	locales, err := st.Locales(ctx)
	if err != nil {
		return nil, err
	}
	rows := [][]string{{"id", "locale", "name", "translation", "countryCode", "countryName", "countryDefault"}}
	for _, l := range locales {
		countryDefault := ""
		if l.CountryDefault {
			countryDefault = "default"
		}
		rows = append(rows, []string{formats.Int(l.ID), l.Locale, l.Name, l.NameTranslation, l.CountryCode, l.CountryName, countryDefault})
	}
	return rows, nil
}

func statusesCSV(ctx context.Context, st *store.Store) ([][]string, error) {
	statuses, err := st.SurveyStatuses(ctx)
	if err != nil {
		return nil, err
	}
	rows := [][]string{{"id", "name"}}
	for _, s := range statuses {
		rows = append(rows, []string{formats.Int(s.ID), s.StatusName})
	}
	return rows, nil
}
