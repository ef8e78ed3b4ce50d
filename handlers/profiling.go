package handlers

import (
	"context"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// ProfilingChecks is what the profiling page, its CSV, the API's and a
// subsample's coverage ask of the checks service: the profiling advice on
// the current snapshot, computed once per version.
type ProfilingChecks interface {
	Profiling(ctx context.Context) (checks.ProfilingReport, error)
	Mapping(ctx context.Context) (checks.MappingReport, error)
}

// Profiling answers GET /profiling and /profiling.csv: the questions to
// ask the panel next, best first, and the coverage of every hard table of
// every sendable subsample, narrowed to a country by ?country=. An htmx
// request gets the ranking and the coverage alone; the CSV holds the
// ranking (formats.WriteProfilingCSV).
func (h *Handler) Profiling(c echo.Context) error {
	ctx := c.Request().Context()
	country, err := profilingCountry(c)
	if err != nil {
		return err
	}
	all, err := h.ProfilingChecks.Profiling(ctx)
	if err != nil {
		return err
	}
	rep := all.Of(country)
	if wantsCSV(c) {
		return h.profilingCSV(c, rep, country)
	}
	page, err := pageParam(c.QueryParams())
	if err != nil {
		return err
	}
	v := h.profilingView(country, page, rep)
	return pageOrFragment(c, http.StatusOK, views.ProfilingBody(v), func() (templ.Component, error) {
		return h.profilingPage(ctx, v)
	})
}

// coveragePageSize is how many hard tables one page of /profiling covers:
// the whole coverage runs to thousands of tables over a large panel's
// subsamples, the API and the CLI give it whole.
const coveragePageSize = 50

// profilingView is the /profiling page of the advice narrowed to country,
// its coverage at page number page, without its mapping section.
func (h *Handler) profilingView(country string, page int, rep checks.ProfilingReport) views.ProfilingView {
	var query []string
	if country != "" {
		query = []string{"country", country}
	}
	v := views.ProfilingView{Page: h.page("What to profile next", "profiling"), Country: country, Countries: rep.Countries,
		Questions: rep.Questions, CoverageTotal: len(rep.Coverage), CSVHref: withQuery("/profiling.csv", query...)}
	v.CoveragePages = pageCount(len(rep.Coverage), coveragePageSize)
	v.CoveragePageNo = min(page, v.CoveragePages)
	_, v.CoveragePrev, v.CoverageNext = pageLinks("/profiling", query, v.CoveragePageNo, len(rep.Coverage), coveragePageSize)
	from := pageOffset(v.CoveragePageNo, coveragePageSize)
	v.Coverage = rep.Coverage[min(from, len(rep.Coverage)):min(from+coveragePageSize, len(rep.Coverage))]
	return v
}

// profilingPage is the whole /profiling page of v, its mapping section
// read afresh around an upload's outcome (already in v.Mapping).
func (h *Handler) profilingPage(ctx context.Context, v views.ProfilingView) (templ.Component, error) {
	var err error
	if v.Mapping.MappingReport, err = h.ProfilingChecks.Mapping(ctx); err != nil {
		return nil, err
	}
	return views.ProfilingPage(v), nil
}

// profilingUploadPage is /profiling as a plain form post's answer: every
// country, the coverage's first page, and mapping's upload outcome.
func (h *Handler) profilingUploadPage(ctx context.Context, mapping views.MappingView) (templ.Component, error) {
	rep, err := h.ProfilingChecks.Profiling(ctx)
	if err != nil {
		return nil, err
	}
	v := h.profilingView("", 1, rep)
	v.Mapping = mapping
	return h.profilingPage(ctx, v)
}

// profilingCSV answers with the ranking as CSV, named after the country
// it was narrowed to.
func (h *Handler) profilingCSV(c echo.Context, rep checks.ProfilingReport, country string) error {
	snapshot, err := h.snapshotTime(c.Request().Context(), store.DatasetEvents)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("profiling", snapshot, "country", country), func(w *formats.Writer) error {
		return formats.WriteProfilingCSV(w, rep.Questions)
	})
}

// APIProfiling answers GET /api/v1/profiling: the profiling advice as
// JSON, the ranking's rows named as the CSV's columns; ?country= narrows
// it to one country; with format=csv (or Accept: text/csv) the page's CSV.
func (h *Handler) APIProfiling(c echo.Context) error {
	asCSV, err := apiWantsCSV(c)
	if err != nil {
		return err
	}
	country, err := profilingCountry(c)
	if err != nil {
		return err
	}
	rep, err := h.ProfilingChecks.Profiling(c.Request().Context())
	if err != nil {
		return err
	}
	rep = rep.Of(country)
	if asCSV {
		return h.profilingCSV(c, rep, country)
	}
	return c.JSON(http.StatusOK, formats.Profiling(rep.Questions, rep.Coverage))
}

// SubsampleCoverage answers GET /subsamples/{id}/coverage, the part of a
// subsample's page that says, per hard table, how many of its country's
// panelists it can decide: htmx loads it after the page, as the profiling
// advice scans the panel once per snapshot version. A browser that opens
// the URL is sent to /profiling.
func (h *Handler) SubsampleCoverage(c echo.Context) error {
	id, parts, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	return fragmentOr(c, http.StatusOK, func() (templ.Component, error) {
		sendable := parts.Verdict.State == rules.Sendable
		if !sendable {
			return views.SubsampleCoverage(nil, false), nil
		}
		rep, err := h.ProfilingChecks.Profiling(c.Request().Context())
		if err != nil {
			return nil, err
		}
		return views.SubsampleCoverage(rep.OfSubsample(id), true), nil
	}, func() error {
		return c.Redirect(http.StatusSeeOther, "/profiling")
	})
}

// profilingCountry reads the country filter: "" for every country; a
// value that is not a country code is a 400.
func profilingCountry(c echo.Context) (string, error) {
	raw, err := queryValue(c, "country")
	if err != nil || raw == "" {
		return "", err
	}
	country, err := domain.ParseCountry(raw)
	if err != nil {
		return "", echo.NewHTTPError(http.StatusBadRequest, "Country: "+err.Error()+".")
	}
	return country, nil
}
