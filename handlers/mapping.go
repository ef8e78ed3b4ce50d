package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// The supplier's own profile codes and its mapping to the provider's ids:
// the API's imports and read, and the section of /profiling with its two
// upload forms.

// APIImportMapping answers POST /api/v1/profiles/mapping: the supplier's
// whole mapping as CSV (`code,value,questionId,answerId,country`),
// replacing the stored one; 409 while no question library is stored.
func (h *Handler) APIImportMapping(c echo.Context) error {
	return apiImport(c, "mapping", "profiles mapping", func(ctx context.Context, body io.Reader, asJSON bool) (store.MappingImportReport, error) {
		if asJSON {
			return store.MappingImportReport{}, echo.NewHTTPError(http.StatusUnsupportedMediaType, "Send the mapping as text/csv.")
		}
		report, err := h.Store.ImportMappingCSV(ctx, body)
		if errors.Is(err, store.ErrNoLibrary) {
			return report, echo.NewHTTPError(http.StatusConflict, noLibrary)
		}
		report.Errors = formats.NonNil(report.Errors)
		return report, err
	})
}

// noLibrary is what a mapping import says before the first refresh.
const noLibrary = "No question library is stored yet: a mapping is checked against it. Import the mapping after the first refresh."

// APIImportOwnProfiles answers POST /api/v1/profiles/own: profiles in
// the supplier's own codes as CSV (`panelistId,code,value`) or a JSON
// array of the same fields, translated by the stored mapping.
func (h *Handler) APIImportOwnProfiles(c echo.Context) error {
	return apiImport(c, "profiles", "profiles", func(ctx context.Context, body io.Reader, asJSON bool) (report store.OwnProfileImportReport, err error) {
		if asJSON {
			report, err = h.Store.ImportOwnProfilesJSON(ctx, body)
		} else {
			report, err = h.Store.ImportOwnProfilesCSV(ctx, body)
		}
		report.Errors = formats.NonNil(report.Errors)
		return report, err
	})
}

// APIProfileMapping answers GET /api/v1/profiles/mapping: the stored
// mapping and the own codes no row covers.
func (h *Handler) APIProfileMapping(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := h.Store.ProfileMapping(ctx)
	if err != nil {
		return err
	}
	unmapped, err := h.Store.UnmappedCodes(ctx)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.NewMappingJSON(rows, unmapped))
}

// Profiling answers GET /profiling: for now the mapping section alone in
// the layout (the profiling page takes the section in).
func (h *Handler) Profiling(c echo.Context) error {
	v, err := h.mappingView(c.Request().Context())
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, h.mappingPage(v))
}

func (h *Handler) mappingPage(v views.MappingView) templ.Component {
	return views.MappingPage(h.page("Profiling", "profiling"), v)
}

// UploadMapping answers POST /profiling/mapping: the mapping import
// form. htmx gets the outcome alone; a plain form post gets the page.
func (h *Handler) UploadMapping(c echo.Context) error {
	var result views.MappingImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file of the mapping to import.", func(r io.Reader) (err error) {
		result.Report, err = h.Store.ImportMappingCSV(c.Request().Context(), r)
		return err
	})
	if errors.Is(err, store.ErrNoLibrary) {
		status, rejected, err = http.StatusConflict, noLibrary, nil
	}
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	return pageOrFragment(c, status, views.MappingImportOutcome(result), func() (templ.Component, error) {
		v, err := h.mappingView(c.Request().Context())
		v.MappingImport = &result
		return h.mappingPage(v), err
	})
}

// UploadOwnProfiles answers POST /profiling/own: the import form of
// profiles in the supplier's own codes, rendered as UploadMapping.
func (h *Handler) UploadOwnProfiles(c echo.Context) error {
	var result views.OwnImportResult
	name, status, rejected, err := importForm(c, "Choose a CSV file of profiles in your codes to import.", func(r io.Reader) (err error) {
		result.Report, err = h.Store.ImportOwnProfilesCSV(c.Request().Context(), r)
		return err
	})
	if err != nil {
		return err
	}
	result.FileName, result.Err = name, rejected
	return pageOrFragment(c, status, views.OwnImportOutcome(result), func() (templ.Component, error) {
		v, err := h.mappingView(c.Request().Context())
		v.OwnImport = &result
		return h.mappingPage(v), err
	})
}

// mappingView builds the mapping section: the stored mapping per code,
// each row's question and answer in the words of a locale of the library
// (the country's default locale, else another of its locales; for a
// general row, any locale whose library has the question), and the
// unmapped codes.
func (h *Handler) mappingView(ctx context.Context) (views.MappingView, error) {
	var v views.MappingView
	rows, err := h.Store.ProfileMapping(ctx)
	if err != nil {
		return v, err
	}
	if v.Unmapped, err = h.Store.UnmappedCodes(ctx); err != nil {
		return v, err
	}
	fetched, err := h.Store.LibraryLocales(ctx)
	if err != nil {
		return v, err
	}
	var stored []string // locales with a library, in order
	for locale, at := range fetched {
		if !at.IsZero() {
			stored = append(stored, locale)
		}
	}
	slices.Sort(stored)
	v.Library = len(stored) > 0
	locales, err := h.Store.Locales(ctx)
	if err != nil {
		return v, err
	}
	defaults := map[string]string{}
	for _, l := range locales {
		if l.CountryDefault {
			defaults[domain.LocaleCountry(l.Locale)] = l.Locale
		}
	}
	// The words of each locale a row may be read in, for the questions
	// of the mapping.
	var questionIDs []int64
	for _, r := range rows {
		if r.QuestionID != domain.AgeRangeQuestionID && !slices.Contains(questionIDs, r.QuestionID) {
			questionIDs = append(questionIDs, r.QuestionID)
		}
	}
	type words struct {
		questions map[int64]domain.Question
		answers   map[int64]map[int64]domain.Answer
	}
	library := map[string]words{}
	if len(rows) > 0 {
		for _, locale := range stored {
			qs, as, err := h.Store.Library(ctx, locale, questionIDs)
			if err != nil {
				return v, err
			}
			library[locale] = words{qs, as}
		}
	}
	// candidates are the locales a row is read in, best first.
	candidates := func(country string) []string {
		if country == "" {
			return stored
		}
		var out []string
		if d := defaults[country]; d != "" && slices.Contains(stored, d) {
			out = append(out, d)
		}
		for _, l := range stored {
			if domain.LocaleCountry(l) == country && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
		return out
	}
	for _, r := range rows {
		t := views.MappingTarget{Value: r.Value, Country: r.Country, QuestionID: r.QuestionID, AnswerID: r.AnswerID,
			Age: r.QuestionID == domain.AgeRangeQuestionID}
		for _, locale := range candidates(r.Country) {
			q, ok := library[locale].questions[r.QuestionID]
			if !ok {
				continue
			}
			t.Locale, t.Question = locale, q.Text
			t.Answer = library[locale].answers[r.QuestionID][r.AnswerID].Text
			break
		}
		if n := len(v.Codes); n == 0 || v.Codes[n-1].Code != r.Code {
			v.Codes = append(v.Codes, views.MappingCode{Code: r.Code})
		}
		last := &v.Codes[len(v.Codes)-1]
		last.Rows = append(last.Rows, t)
	}
	return v, nil
}
