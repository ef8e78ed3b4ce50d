package handlers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// SearchQuestions returns the questions whose name, text or translation
// contains q, in any case; all of them when q is empty.
func SearchQuestions(questions []domain.Question, q string) []domain.Question {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return questions
	}
	var out []domain.Question
	for _, question := range questions {
		if strings.Contains(strings.ToLower(question.Name), q) ||
			strings.Contains(strings.ToLower(question.Text), q) ||
			strings.Contains(strings.ToLower(question.Translation), q) {
			out = append(out, question)
		}
	}
	return out
}

// libraryLocales lists the locales with a library stored, by code.
func (h *Handler) libraryLocales(ctx context.Context) ([]views.LibraryLocale, error) {
	fetched, err := h.Store.LibraryLocales(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]views.LibraryLocale, 0, len(fetched))
	for code, at := range fetched {
		out = append(out, views.LibraryLocale{Code: code, FetchedAt: at})
	}
	slices.SortFunc(out, func(a, b views.LibraryLocale) int { return strings.Compare(a.Code, b.Code) })
	return out, nil
}

// pickLocale finds the locale asked for among those stored, in any case;
// the first when none is asked for. It answers 404 for a locale without a
// library.
func pickLocale(locales []views.LibraryLocale, raw string) (views.LibraryLocale, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		if len(locales) == 0 {
			return views.LibraryLocale{}, nil
		}
		return locales[0], nil
	}
	for _, l := range locales {
		if strings.EqualFold(l.Code, raw) {
			return l, nil
		}
	}
	return views.LibraryLocale{}, echo.NewHTTPError(http.StatusNotFound,
		fmt.Sprintf("No question library is stored for locale %q: the library is read for the locales the live subsamples use.", raw))
}

// Library answers GET /library and /library.csv: the standard questions
// of one locale (param locale, the first stored by default) that match the
// search q.
func (h *Handler) Library(c echo.Context) error {
	ctx := c.Request().Context()
	locales, err := h.libraryLocales(ctx)
	if err != nil {
		return err
	}
	locale, err := pickLocale(locales, filterValue(c.QueryParams(), "locale"))
	if err != nil {
		return err
	}
	q := filterValue(c.QueryParams(), "q")
	result := views.LibraryResult{Locale: locale.Code, FetchedAt: locale.FetchedAt, Q: q,
		CSVHref: withQuery("/library.csv", "locale", locale.Code, "q", q)}
	if locale.Code != "" {
		all, err := h.Store.Questions(ctx, locale.Code)
		if err != nil {
			return err
		}
		result.Total, result.Questions = len(all), SearchQuestions(all, q)
	}
	if wantsCSV(c) {
		snapshot, err := h.snapshotTime(ctx, store.DatasetLibrary)
		if err != nil {
			return err
		}
		return h.sendCSV(c, formats.FileName("library", snapshot, "locale", locale.Code, "q", q), func(w *formats.Writer) error {
			return formats.WriteQuestionsCSV(w, locale.Code, result.Questions)
		})
	}
	p := h.page("Question library", "library")
	return pageOrFragment(c, http.StatusOK, views.LibraryTable(p, result), func() (templ.Component, error) {
		return views.LibraryPage(views.LibraryView{Page: p, Locales: locales, Q: q, Result: result}), nil
	})
}

// LibraryAnswers answers GET /library/:locale/questions/:qid/answers and
// its .csv: the answers of one question of a locale. htmx gets the table
// alone, to show under the question.
func (h *Handler) LibraryAnswers(c echo.Context) error {
	ctx := c.Request().Context()
	qid, err := strconv.ParseInt(c.Param("qid"), 10, 64)
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("Question id %q is not a number.", c.Param("qid")))
	}
	locales, err := h.libraryLocales(ctx)
	if err != nil {
		return err
	}
	raw, err := pathParam(c, "locale")
	if err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, "The locale is not a valid URL path segment.")
	}
	if strings.TrimSpace(raw) == "" { // pickLocale would take the first locale
		return echo.NewHTTPError(http.StatusNotFound, "Name a locale: a question's answers are at /library/{locale}/questions/{id}/answers.")
	}
	locale, err := pickLocale(locales, raw)
	if err != nil {
		return err
	}
	questions, err := h.Store.Questions(ctx, locale.Code)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(questions, func(q domain.Question) bool { return q.ID == qid })
	if i < 0 {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Question %d is not in the library of %s.", qid, locale.Code))
	}
	answers, err := h.Store.Answers(ctx, locale.Code, qid)
	if err != nil {
		return err
	}
	v := views.LibraryAnswersView{Locale: locale.Code, Question: questions[i], Answers: answers,
		CSVHref: views.AnswersPath(locale.Code, qid) + ".csv"}
	if wantsCSV(c) {
		// The CSV carries the page's Vary header too: one cache rule
		// for the page, its fragment and its download.
		varyOnFragment(c)
		snapshot, err := h.snapshotTime(ctx, store.DatasetLibrary)
		if err != nil {
			return err
		}
		return h.sendCSV(c, formats.FileName("library-answers", snapshot, "locale", locale.Code, "question", formats.Int(qid)), func(w *formats.Writer) error {
			return formats.WriteAnswersCSV(w, locale.Code, qid, answers)
		})
	}
	fragment := v
	fragment.Fragment = true
	return pageOrFragment(c, http.StatusOK, views.LibraryAnswers(fragment), func() (templ.Component, error) {
		p := h.page(fmt.Sprintf("Answers of %s (%s)", questions[i].Name, locale.Code), "library")
		return views.LibraryAnswersPage(p, v), nil
	})
}
