package handlers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"fieldboard/handlers/htmx"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// SubsampleChecks is what a subsample's page and downloads ask of the
// checks service: the subsample as the snapshot holds it, its quotas'
// pace, and whether it is live.
type SubsampleChecks interface {
	Subsample(ctx context.Context, subsampleID int64) (checks.SubsampleParts, error)
	QuotaPacing(ctx context.Context, parts checks.SubsampleParts) (map[int64]checks.QuotaPace, error)
	MustBeLive(ctx context.Context, subsampleID int64) error
}

// Subsample answers GET /subsamples/:id: everything Fieldboard knows of one
// subsample. A subsample of the event list that live-details does not list
// gets a page too, saying it is not live.
func (h *Handler) Subsample(c echo.Context) error {
	ctx := c.Request().Context()
	id, parts, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	still, err := h.subsampleStill(ctx, parts)
	if err != nil {
		return err
	}
	v := still.view
	v.Page = h.page(fmt.Sprintf("Subsample %d", id), "live")
	if v.Refresh, err = h.subsampleRefreshView(ctx, id); err != nil {
		return err
	}
	if v.Routing.Clicks, v.Routing.Redirects, err = h.Store.RoutingCounts(ctx, id, h.Now().Add(-24*time.Hour)); err != nil {
		return err
	}
	if parts.Live {
		if err := h.fillLiveParts(ctx, &v, parts, still); err != nil {
			return err
		}
	}
	v.Ours, v.OurPriority, v.PausedByUs = parts.Ours, parts.Priority, parts.PausedByUs
	if h.PolicyChecks != nil {
		if v.Caps, err = h.PolicyChecks.CapsOn(ctx, id); err != nil {
			return err
		}
	}
	return Render(c, http.StatusOK, views.SubsamplePage(v))
}

// subsampleOf reads the :id of the request and the subsample it names: 400
// for an id that is not a positive whole number, 404 for one the current
// snapshot does not hold.
func (h *Handler) subsampleOf(c echo.Context) (int64, checks.SubsampleParts, error) {
	id, err := parseID("Subsample id", c.Param("id"))
	if err != nil {
		return 0, checks.SubsampleParts{}, err
	}
	parts, err := h.SubsampleChecks.Subsample(c.Request().Context(), id)
	if err != nil {
		return 0, checks.SubsampleParts{}, subsampleNotFound(err, id)
	}
	return id, parts, nil
}

// fillLiveParts paces a live subsample's quotas on the clock and draws
// the trend of its total quota.
func (h *Handler) fillLiveParts(ctx context.Context, v *views.SubsampleView, parts checks.SubsampleParts, still *subsampleStill) error {
	v.Quotas = slices.Clone(v.Quotas) // the still ones are shared
	pacing, err := h.SubsampleChecks.QuotaPacing(ctx, parts)
	if err != nil {
		return err
	}
	withPacing(v.Quotas, pacing)
	withCellTrends(v.Page, v.Quotas, pacing)
	fillTotalTrend(v, still, pacing)
	return nil
}

// withPacing gives each quota view its pace, where it has one.
func withPacing(quotas []views.QuotaView, pacing map[int64]checks.QuotaPace) {
	for i := range quotas {
		if qp, ok := pacing[quotas[i].QuotaID]; ok {
			quotas[i].Pacing = &qp.Pacing
		}
	}
}

// withCellTrends gives each hard cell its trend with the pace's
// projection, for its sparkline (the total quota's is the page's large
// chart).
func withCellTrends(p views.Page, quotas []views.QuotaView, pacing map[int64]checks.QuotaPace) {
	for i := range quotas {
		if qp, ok := pacing[quotas[i].QuotaID]; ok && !quotas[i].Total {
			quotas[i].Trend, quotas[i].Projection = trendOf(p, qp.Points, qp.Pacing)
		}
	}
}

// trendOf draws stored counts as a trend, with the pace's projection from
// the last reading to where the quota fills, when it projects one.
func trendOf(p views.Page, points []store.QuotaPoint, pace rules.Pacing) ([]views.TrendPoint, *views.TrendProjection) {
	trend := make([]views.TrendPoint, len(points))
	for i, pt := range points {
		trend[i] = views.TrendPoint{At: pt.At, When: p.Timestamp(pt.At), Value: pt.Achieved}
	}
	if pace.ProjectedFillAt == nil || len(points) == 0 {
		return trend, nil
	}
	return trend, &views.TrendProjection{Start: pace.AsOf, End: *pace.ProjectedFillAt,
		Value: points[len(points)-1].Achieved + pace.Remaining, When: p.Timestamp(*pace.ProjectedFillAt)}
}

// fillTotalTrend draws the stored counts of the subsample's total quota
// (the whole retention, not only pacing's window), and its pace's
// projection when it has one.
func fillTotalTrend(v *views.SubsampleView, still *subsampleStill, pacing map[int64]checks.QuotaPace) {
	if still.total == nil {
		return
	}
	v.HasTotal = true
	if pace, ok := pacing[still.total.QuotaID]; ok {
		v.Pacing = &pace.Pacing
		v.Trend, v.Projection = trendOf(v.Page, still.totalHistory, pace.Pacing)
		return
	}
	v.Trend, _ = trendOf(v.Page, still.totalHistory, rules.Pacing{})
}

// totalOf is the subsample's one total quota; nil when it has none or
// several (none of them is then the one).
func totalOf(quotas []domain.Quota) *domain.Quota {
	var total *domain.Quota
	for i := range quotas {
		if quotas[i].IsTotal() {
			if total != nil {
				return nil
			}
			total = &quotas[i]
		}
	}
	return total
}

// quotaLibraryFor reads, from the first of the subsample's locales that has a
// question library, the questions and answers the quotas' conditions use.
// Without one the library is empty and conditions fall back to ids.
func (h *Handler) quotaLibraryFor(ctx context.Context, parts checks.SubsampleParts, locales []domain.SubsampleLocale) (QuotaLibrary, error) {
	var ids []int64
	for _, q := range parts.Quotas {
		for _, cond := range q.Questions {
			if !slices.Contains(ids, cond.ID) {
				ids = append(ids, cond.ID)
			}
		}
	}
	for _, l := range locales {
		locale := strings.ToLower(strings.TrimSpace(l.Name))
		if _, ok := parts.LibraryLocales[locale]; !ok {
			continue
		}
		lib := QuotaLibrary{Locale: locale}
		var err error
		if lib.Questions, lib.Answers, err = h.Store.Library(ctx, locale, ids); err != nil {
			return QuotaLibrary{}, err
		}
		return lib, nil
	}
	return QuotaLibrary{}, nil
}

// QuotaLibrary is the part of one locale's question library that
// translates quota conditions: questions by id, answers by question id and
// answer id. The zero value is an empty library.
type QuotaLibrary struct {
	Locale    string
	Questions map[int64]domain.Question
	Answers   map[int64]map[int64]domain.Answer
}

// QuotaViews prepares quotas for the page and the CSV: the total quota
// first, the others in the provider's order, each with its conditions as
// sentences.
func QuotaViews(quotas []domain.Quota, lib QuotaLibrary) []views.QuotaView {
	out := make([]views.QuotaView, 0, len(quotas))
	for _, total := range []bool{true, false} {
		for _, q := range quotas {
			if q.IsTotal() != total {
				continue
			}
			qv := views.QuotaView{Quota: q, Total: total, Remaining: max(q.Remaining(), 0)}
			qv.Open = qv.Remaining > 0
			for _, cond := range q.Questions {
				qv.Conditions = append(qv.Conditions, ConditionText(cond, lib))
			}
			out = append(out, qv)
		}
	}
	return out
}

// ConditionText writes one quota condition as a coordinator reads it,
// through the locale's question library: "GENDER (Are you...?): Female or
// Male"; an age range as "Age 18–34". Answers are joined by the
// condition's operator (OR). What the library lacks is named by its id
// ("question 1234: answer 5 or 6"), so a missing library never hides a
// condition.
func ConditionText(q domain.QuotaQuestion, lib QuotaLibrary) string {
	var parts []string
	ages := q.ID == domain.AgeRangeQuestionID
	byID := false // the last part named an answer by its id
	for _, a := range q.Answers {
		switch {
		case a.IsRange():
			parts, byID = append(parts, conditionRange(a)), false
		case a.ID != nil:
			text, known := conditionAnswer(lib.Answers[q.ID][*a.ID])
			switch {
			case known:
				parts, byID = append(parts, text), false
			case byID: // "answer 5 or 6"
				parts = append(parts, strconv.FormatInt(*a.ID, 10))
			default:
				parts, byID = append(parts, "answer "+strconv.FormatInt(*a.ID, 10)), true
			}
		}
	}
	op := " or "
	if o := strings.TrimSpace(q.Operator); o != "" && !strings.EqualFold(o, "OR") {
		op = " " + strings.ToLower(o) + " "
	}
	values := strings.Join(parts, op)
	if len(parts) == 0 {
		values = "no answers listed"
	}
	if ages && len(parts) > 0 && allRangeAnswers(q.Answers) {
		return "Age " + values
	}
	return conditionQuestion(q.ID, lib) + ": " + values
}

// conditionQuestion names a question (rules.QuestionLabel), or by its
// id when the library lacks it.
func conditionQuestion(id int64, lib QuotaLibrary) string {
	if label := rules.QuestionLabel(lib.Questions[id]); label != "" {
		return label
	}
	if id == domain.AgeRangeQuestionID {
		return "Age"
	}
	return "question " + strconv.FormatInt(id, 10)
}

// conditionAnswer names an answer (rules.AnswerLabel); known is false
// when the library has no word for it.
func conditionAnswer(a domain.Answer) (text string, known bool) {
	text = rules.AnswerLabel(a)
	return text, text != ""
}

// conditionRange writes a range answer as "18–34", "65 or more" or "up to
// 17", read as quota matching reads it (rules.ReadAgeBand); one
// it cannot read is written as the provider sent it.
func conditionRange(a domain.QuotaAnswer) string {
	band, ok := rules.ReadAgeBand(a)
	switch {
	case !ok:
		var from, to string
		if a.RangeStart != nil {
			from = strings.TrimSpace(*a.RangeStart)
		}
		if a.RangeEnd != nil {
			to = strings.TrimSpace(*a.RangeEnd)
		}
		return strconv.Quote(from) + " to " + strconv.Quote(to) + " (not understood)"
	case band.NoUpper:
		return strconv.Itoa(band.From) + " or more"
	case band.NoLower:
		return "up to " + strconv.Itoa(band.To)
	}
	return strconv.Itoa(band.From) + "–" + strconv.Itoa(band.To)
}

func allRangeAnswers(answers []domain.QuotaAnswer) bool {
	for _, a := range answers {
		if !a.IsRange() {
			return false
		}
	}
	return true
}

// SubsampleQuotasCSV answers GET /subsamples/:id/quotas.csv: the quota
// table of a live subsample, total quota first, conditions as sentences
// joined with " and ".
func (h *Handler) SubsampleQuotasCSV(c echo.Context) error {
	ctx := c.Request().Context()
	id, parts, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	if !parts.Live {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Subsample %d is not live in the current snapshot, so its quotas are not read.", id))
	}
	still, err := h.subsampleStill(ctx, parts)
	if err != nil {
		return err
	}
	at, err := h.subsampleSnapshotTime(ctx, id)
	if err != nil {
		return err
	}
	pacing, err := h.SubsampleChecks.QuotaPacing(ctx, parts)
	if err != nil {
		return err
	}
	rows := slices.Clone(still.view.Quotas)
	withPacing(rows, pacing)
	lines := make([]formats.Quota, len(rows))
	for i, q := range rows {
		lines[i] = formats.Quota{Quota: q.Quota, Remaining: q.Remaining, Open: q.Open, Conditions: q.Conditions, Pacing: q.Pacing}
	}
	return h.sendCSV(c, formats.FileName("subsample-quotas", at, "subsample", formats.Int(id)), func(w *formats.Writer) error {
		return formats.WriteQuotasCSV(w, lines)
	})
}

// RefreshSubsample answers POST /subsamples/:id/refresh: it reads the
// subsample's quotas and eligibility rules again (joining a refresh already
// running) and shows its progress. Without htmx it sends the browser back
// to the page.
func (h *Handler) RefreshSubsample(c echo.Context) error {
	id, parts, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	if !parts.Live {
		return echo.NewHTTPError(http.StatusConflict, fmt.Sprintf("Subsample %d is not live, so it has no quotas or rules to read.", id))
	}
	h.Refresher.Start(id, false)
	return fragmentOr(c, http.StatusOK, func() (templ.Component, error) {
		r, err := h.subsampleRefreshView(c.Request().Context(), id)
		return views.SubsampleRefreshPanel(h.page("Refresh", ""), r), err
	}, func() error { return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/subsamples/%d", id)) })
}

// SubsampleRefreshProgress answers GET /subsamples/:id/refresh/progress,
// which the refresh panel polls while a refresh runs. The htmx poll that
// sees it finished (none running, here or on another instance) gets
// HX-Refresh, so the page reloads with fresh figures.
func (h *Handler) SubsampleRefreshProgress(c echo.Context) error {
	id, _, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	r, err := h.subsampleRefreshView(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return renderPolled(c, http.StatusOK, r.Progress.Running, htmx.HeaderRefresh, "true", func(ended bool) templ.Component {
		r.Reloading = ended
		return views.SubsampleRefreshPanel(h.page("Refresh", ""), r)
	})
}

func (h *Handler) subsampleRefreshView(ctx context.Context, id int64) (views.SubsampleRefreshView, error) {
	p, err := h.refreshProgress(ctx)
	return views.SubsampleRefreshView{SubsampleID: id, Progress: p}, err
}

// SubsampleVerdictCSV answers GET /subsamples/{id}/verdict.csv: each
// sendability rule's outcome, in the spec's order.
func (h *Handler) SubsampleVerdictCSV(c echo.Context) error {
	id, report, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	at, err := h.snapshotTime(c.Request().Context(), store.DatasetEvents)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("subsample-verdict", at, "subsample", formats.Int(id)), func(w *formats.Writer) error {
		return formats.WriteVerdictCSV(w, id, report.Verdict)
	})
}

// SubsampleLinksCSV answers GET /subsamples/{id}/links.csv: the entry links
// per locale, prepared as the page shows them.
func (h *Handler) SubsampleLinksCSV(c echo.Context) error {
	id, report, err := h.subsampleOf(c)
	if err != nil {
		return err
	}
	at, err := h.snapshotTime(c.Request().Context(), store.DatasetEvents)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("subsample-links", at, "subsample", formats.Int(id)), func(w *formats.Writer) error {
		return formats.WriteEntryLinksCSV(w, id, report.Links)
	})
}
