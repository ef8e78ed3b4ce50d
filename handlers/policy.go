package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
	"fieldboard/views/formats"
)

// PolicyChecks is what the policy page, API and the subsample page's
// pause button ask of the checks service: the supplier's own rules and
// their audit, and the changes of them.
type PolicyChecks interface {
	Policy(ctx context.Context) (domain.Policy, error)
	PolicyChanges(ctx context.Context, limit int) ([]domain.PolicyChange, error)
	SetRule(ctx context.Context, words []string, by, why string) (domain.PolicyRule, error)
	RemoveRule(ctx context.Context, id int64, by, why string) (domain.PolicyRule, error)
	RemoveRuleWords(ctx context.Context, words []string, by, why string) (domain.PolicyRule, error)
	// CapsOn reads our caps on a subsample and their counts now.
	CapsOn(ctx context.Context, subsampleID int64) ([]checks.CapState, error)
}

// policyChangesShown is how many changes of the audit the page lists
// (the CSV has them all).
const policyChangesShown = 100

// maxPolicyBody bounds the JSON body of the API's changes of a rule.
const maxPolicyBody = 16 << 10

// Policy answers GET /policy: the supplier's own rules in force, the
// forms to add one, and the audit below; /policy.csv the rules.
func (h *Handler) Policy(c echo.Context) error {
	if wantsCSV(c) {
		p, err := h.PolicyChecks.Policy(c.Request().Context())
		if err != nil {
			return err
		}
		return h.sendCSV(c, formats.FileName("policy", h.Now()), func(w *formats.Writer) error {
			return formats.WritePolicyCSV(w, p.Rules, h.csvTime)
		})
	}
	return h.renderPolicy(c, http.StatusOK, views.PolicyView{})
}

// PolicyChangesCSV answers GET /policy/changes.csv: the whole audit,
// newest first.
func (h *Handler) PolicyChangesCSV(c echo.Context) error {
	changes, err := h.PolicyChecks.PolicyChanges(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	return h.sendCSV(c, formats.FileName("policy-changes", h.Now()), func(w *formats.Writer) error {
		return formats.WritePolicyChangesCSV(w, changes, h.csvTime)
	})
}

// renderPolicy renders the page with v's message, error or form.
func (h *Handler) renderPolicy(c echo.Context, status int, v views.PolicyView) error {
	ctx := c.Request().Context()
	p, err := h.PolicyChecks.Policy(ctx)
	if err != nil {
		return err
	}
	changes, err := h.PolicyChecks.PolicyChanges(ctx, policyChangesShown)
	if err != nil {
		return err
	}
	v.Page = h.page("Our rules", "policy")
	v.Rules, v.Changes = p.Rules, changes
	return Render(c, status, views.PolicyPage(v))
}

// AddPolicyRule answers POST /policy: the form's fields (kind, and what
// that kind takes) are written as a rule's words and put in force, set by
// the viewer for the form's why. A rule refused is a 422 whose message
// says why, the form keeping what was typed. With back=/subsamples/ID
// (the subsample page's pause button), a rule put in force goes back
// there.
func (h *Handler) AddPolicyRule(c echo.Context) error {
	form := policyForm(c)
	words, err := policyWords(form)
	if err == nil {
		var r domain.PolicyRule
		r, err = h.PolicyChecks.SetRule(c.Request().Context(), words, views.ViewerOf(c.Request().Context()).Name, form.Why)
		if err == nil {
			if back := backToSubsample(c); back != "" {
				return c.Redirect(http.StatusSeeOther, back)
			}
			return h.renderPolicy(c, http.StatusOK, views.PolicyView{Message: capitalise(views.PolicyRuleSentence(r)) + " is in force."})
		}
	}
	if errors.Is(err, checks.ErrBadRule) || errors.Is(err, errBadForm) {
		return h.renderPolicy(c, http.StatusUnprocessableEntity, views.PolicyView{Err: "Not in force: " + refusal(err), Form: form})
	}
	return err
}

// ResumeSubsample answers POST /policy/resume: our pause of the subsample
// (the form's target) is removed, by the viewer for the form's why.
func (h *Handler) ResumeSubsample(c echo.Context) error {
	target := strings.TrimSpace(c.FormValue("target"))
	_, err := h.PolicyChecks.RemoveRuleWords(c.Request().Context(), []string{"pause", "subsample", target}, views.ViewerOf(c.Request().Context()).Name, c.FormValue("why"))
	return h.afterRemove(c, err, "Our pause of subsample "+target+" is removed: the subsample is judged by the provider's rules and our others again.")
}

// RemovePolicyRule answers POST /policy/{id}/remove: the rule is taken
// out of force, by the viewer for the form's why.
func (h *Handler) RemovePolicyRule(c echo.Context) error {
	id, err := parseID("Rule id", c.Param("id"))
	if err != nil {
		return err
	}
	r, err := h.PolicyChecks.RemoveRule(c.Request().Context(), id, views.ViewerOf(c.Request().Context()).Name, c.FormValue("why"))
	return h.afterRemove(c, err, capitalise(views.PolicyRuleSentence(r))+" is removed.")
}

// afterRemove answers a removal that ended in err: back to the subsample
// page or the page with done; a rule not in force is a 404, a bad why a
// 422, each saying so on the page.
func (h *Handler) afterRemove(c echo.Context, err error, done string) error {
	switch {
	case err == nil:
		if back := backToSubsample(c); back != "" {
			return c.Redirect(http.StatusSeeOther, back)
		}
		return h.renderPolicy(c, http.StatusOK, views.PolicyView{Message: done})
	case errors.Is(err, store.ErrNotFound):
		return h.renderPolicy(c, http.StatusNotFound, views.PolicyView{Err: "Not removed: that rule is not in force (someone may have removed it already)."})
	case errors.Is(err, checks.ErrBadRule):
		return h.renderPolicy(c, http.StatusUnprocessableEntity, views.PolicyView{Err: "Not removed: " + refusal(err)})
	}
	return err
}

// backToSubsample is the form's back field when it is a subsample's page
// ("/subsamples/12"), else "": no other address is followed.
func backToSubsample(c echo.Context) string {
	back := c.FormValue("back")
	id, ok := strings.CutPrefix(back, "/subsamples/")
	if !ok {
		return ""
	}
	if n, err := strconv.ParseInt(id, 10, 64); err != nil || n < 1 || strconv.FormatInt(n, 10) != id {
		return ""
	}
	return back
}

// errBadForm is a form that writes no rule; its message says why.
var errBadForm = errors.New("refused")

// refusal is the message of a refused rule, without the sentinel's word,
// capitalised and ended with a full stop.
func refusal(err error) string {
	msg := strings.TrimPrefix(err.Error(), checks.ErrBadRule.Error()+": ")
	return capitalise(strings.TrimSuffix(msg, ".")) + "."
}

// policyForm reads the add form's fields.
func policyForm(c echo.Context) views.PolicyForm {
	f := views.PolicyForm{Kind: c.FormValue("kind"), Amount: c.FormValue("amount"), Currency: c.FormValue("currency"),
		Scope: c.FormValue("scope"), Target: c.FormValue("target"), Unit: c.FormValue("unit"), Per: c.FormValue("per"),
		Rule: c.FormValue("rule"), Why: c.FormValue("why")}
	if params, err := c.FormParams(); err == nil {
		f.Devices = params["device"]
	}
	return f
}

// APIPolicy answers GET /api/v1/policy: the rules in force and the holds
// by hand.
func (h *Handler) APIPolicy(c echo.Context) error {
	p, err := h.PolicyChecks.Policy(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.Policy(p))
}

// APIPolicyChanges answers GET /api/v1/policy/changes?limit=N: the
// audit, newest first, at most limit (default 100, at most 1,000).
func (h *Handler) APIPolicyChanges(c echo.Context) error {
	limit := defaultChangesLimit
	raw, err := queryValue(c, "limit")
	if err != nil {
		return err
	}
	if raw != "" {
		if limit, err = strconv.Atoi(raw); err != nil || limit < 1 || limit > maxChangesLimit {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("limit %q is not a whole number from 1 to %d", raw, maxChangesLimit))
		}
	}
	changes, err := h.PolicyChecks.PolicyChanges(c.Request().Context(), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, formats.PolicyChangesPage{Changes: formats.PolicyChanges(changes)})
}

// APISetPolicyRule answers POST /api/v1/policy with {"rule": "max-loi
// 20", "why": "..."}: the rule is put in force, set by the caller (the
// token's or user's name), and answered with a 201. A rule refused is a
// 422 saying why; a body that is not that JSON a 400.
func (h *Handler) APISetPolicyRule(c echo.Context) error {
	var body struct {
		Rule string `json:"rule"`
		Why  string `json:"why"`
	}
	if err := decodePolicyBody(c, &body); err != nil {
		return err
	}
	r, err := h.PolicyChecks.SetRule(c.Request().Context(), ruleWords(body.Rule), views.ViewerOf(c.Request().Context()).Name, body.Why)
	if errors.Is(err, checks.ErrBadRule) {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, refusal(err))
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, formats.PolicyRule(r))
}

// APIRemovePolicyRule answers POST /api/v1/policy/{id}/remove with
// {"why": "..."} (or no body): the rule is taken out of force, by the
// caller, and answered as it was. A rule not in force is a 404.
func (h *Handler) APIRemovePolicyRule(c echo.Context) error {
	id, err := parseID("Rule id", c.Param("id"))
	if err != nil {
		return err
	}
	var body struct {
		Why string `json:"why"`
	}
	if err := decodePolicyBody(c, &body); err != nil {
		return err
	}
	r, err := h.PolicyChecks.RemoveRule(c.Request().Context(), id, views.ViewerOf(c.Request().Context()).Name, body.Why)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("Rule %d is not in force.", id))
	case errors.Is(err, checks.ErrBadRule):
		return echo.NewHTTPError(http.StatusUnprocessableEntity, refusal(err))
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, formats.PolicyRule(r))
}

// decodePolicyBody reads a small JSON object into out; an empty body
// leaves out as it is.
func decodePolicyBody(c echo.Context, out any) error {
	dec := json.NewDecoder(http.MaxBytesReader(c.Response(), c.Request().Body, maxPolicyBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil && !errors.Is(err, io.EOF) {
		return echo.NewHTTPError(http.StatusBadRequest, "The body is not the JSON object this route takes: "+err.Error())
	}
	return nil
}

// policyWords writes the add form's fields as the rule's words
// (rules.ParsePolicyRule reads them, and says what is wrong): each kind's
// form has its own fields; kind "rule" is the words as typed.
func policyWords(f views.PolicyForm) ([]string, error) {
	var words []string
	switch f.Kind {
	case "min-cpi", "min-epc":
		words = []string{f.Kind, f.Amount, f.Currency}
	case "max-loi", "min-incidence":
		words = []string{f.Kind, f.Amount}
	case "devices":
		if len(f.Devices) == 0 {
			return nil, fmt.Errorf("%w: tick at least one device the panel answers on", errBadForm)
		}
		words = []string{f.Kind, strings.Join(f.Devices, ",")}
	case "block":
		words = []string{f.Kind, f.Scope, f.Target}
	case "cap":
		if f.Scope == "panelist" {
			words = []string{f.Kind, "panelist", "sends", f.Amount, "per", "day"}
		} else {
			words = []string{f.Kind, "subsample", f.Target, f.Unit, f.Amount, "per", f.Per}
		}
	case "priority":
		amount := strings.TrimSpace(f.Amount)
		if amount != "" && amount[0] >= '1' && amount[0] <= '9' {
			amount = "+" + amount // a number typed without a sign raises
		}
		words = []string{f.Kind, f.Scope, f.Target, amount}
	case "pause":
		words = []string{f.Kind, "subsample", f.Target}
	case "rule":
		return ruleWords(f.Rule), nil
	default:
		return nil, fmt.Errorf("%w: %q is not a kind of rule this page adds", errBadForm, f.Kind)
	}
	out := words[:0]
	for _, w := range words { // an empty field is left out: the grammar then says what is missing
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out, nil
}

// ruleWords splits a rule typed in one line into its words, a block's
// value the rest of the line (rules.JoinBlockValue).
func ruleWords(line string) []string {
	return rules.JoinBlockValue(strings.Fields(line))
}
