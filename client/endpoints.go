package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"fieldboard/rules/domain"
)

// The nine endpoints of the spec. Each returns an *Error on failure. Lists
// are never nil: a provider's null stands for an empty list, at the top level
// and inside the resources alike.

// emptyObject is the request body of the two POST endpoints: no filters.
const emptyObject = "{}"

// AllSubsamples lists every subsample the supplier has or had an allocation
// in, whatever its status (POST /supplier/v1/event/all, no filters).
// Elements that cannot be read are left out and returned as malformed (see
// decodeElements); when nothing can be read the call fails.
func (c *Client) AllSubsamples(ctx context.Context) ([]domain.SubsampleSummary, []domain.MalformedElement, error) {
	l := elements[domain.SubsampleSummary]{list: domain.ListEventAll, required: summaryRequired, keyed: true, redact: c.redact}
	if err := c.call(ctx, http.MethodPost, "/supplier/v1/event/all", []byte(emptyObject), &l); err != nil {
		return nil, nil, err
	}
	out := nonNil(l.items)
	for i := range out {
		s := &out[i]
		s.SubsampleStatus = domain.NormalizeStatus(s.SubsampleStatus)
		s.FieldStartDate = s.FieldStartDate.PlaceIn(c.loc)
		s.FieldEndDate = s.FieldEndDate.PlaceEndIn(c.loc)
	}
	return out, l.malformed, nil
}

// LiveSubsamples lists the subsamples open to the supplier in status Live or
// Live for testing, with their properties and entry links
// (POST /supplier/v1/event/live-details). Elements that cannot be read, or
// lack a field the spec marks required, are left out and returned as
// malformed; when nothing can be read the call fails.
func (c *Client) LiveSubsamples(ctx context.Context) ([]domain.LiveSubsample, []domain.MalformedElement, error) {
	l := elements[domain.LiveSubsample]{list: domain.ListLiveDetails, required: liveRequired, check: checkCategories, keyed: true, redact: c.redact}
	if err := c.call(ctx, http.MethodPost, "/supplier/v1/event/live-details", []byte(emptyObject), &l); err != nil {
		return nil, nil, err
	}
	out := nonNil(l.items)
	for i := range out {
		s := &out[i]
		s.SubsampleStatus = domain.NormalizeStatus(s.SubsampleStatus)
		s.FieldStartDate = s.FieldStartDate.PlaceIn(c.loc)
		s.FieldEndDate = s.FieldEndDate.PlaceEndIn(c.loc)
		s.Categories = nonNil(s.Categories)
		s.Countries = nonNil(s.Countries)
		s.Locales = nonNil(s.Locales)
		for j := range s.Locales {
			s.Locales[j].Name = panelLocale(s.Locales[j].Name)
		}
	}
	return out, l.malformed, nil
}

// Quotas lists the quotas of a subsample with the completes still needed
// (GET /supplier/v1/subsamples/{id}/quotas). One malformed element fails
// the call with a *MalformedListError: the subsample cannot be decided on
// the other cells, as the one dropped may be the closed one.
func (c *Client) Quotas(ctx context.Context, subsampleID int64) ([]domain.Quota, error) {
	l := elements[domain.Quota]{list: domain.ListQuotas, required: quotaRequired, strict: true, unique: uniqueQuotaIDs, redact: c.redact}
	if err := c.call(ctx, http.MethodGet, subsamplePath(subsampleID, "quotas"), nil, &l); err != nil {
		return nil, err
	}
	out := nonNil(l.items)
	for i := range out {
		q := &out[i]
		q.SubsampleStatus = domain.NormalizeStatus(q.SubsampleStatus)
		q.Questions = nonNil(q.Questions)
		for j := range q.Questions {
			q.Questions[j].Answers = nonNil(q.Questions[j].Answers)
		}
	}
	return out, nil
}

// EligibilityRules returns the exclusion rules of a subsample
// (GET /supplier/v1/subsamples/{id}/eligibility-rules). The provider's Id/id
// and NumDays/numDays spellings both decode; both given with different
// values, or an entry that applies without returnCodes, fail the call
// with a *MalformedListError (see eligibilityRules).
func (c *Client) EligibilityRules(ctx context.Context, subsampleID int64) (domain.EligibilityRules, error) {
	var body eligibilityRules
	if err := c.call(ctx, http.MethodGet, subsamplePath(subsampleID, "eligibility-rules"), nil, &body); err != nil {
		return domain.EligibilityRules{}, err
	}
	out := body.rules
	out.Surveys = nonNil(out.Surveys)
	for i := range out.Surveys {
		out.Surveys[i].ReturnCodes = nonNil(out.Surveys[i].ReturnCodes)
	}
	out.ResearchTypes = nonNil(out.ResearchTypes)
	for i := range out.ResearchTypes {
		out.ResearchTypes[i].ReturnCodes = nonNil(out.ResearchTypes[i].ReturnCodes)
	}
	out.Categories = nonNil(out.Categories)
	for i := range out.Categories {
		out.Categories[i].ReturnCodes = nonNil(out.Categories[i].ReturnCodes)
	}
	out.Events = nonNil(out.Events)
	for i := range out.Events {
		out.Events[i].ReturnCodes = nonNil(out.Events[i].ReturnCodes)
	}
	return out, nil
}

// Questions lists the standard questions of a locale such as "en-us"
// (GET /supplier/v1/locales/{locale}/questions). Like every reference
// list, it is read element by element (referenceList): an element that
// cannot be read is left out and returned as malformed, and only a list
// nothing of which can be read fails the call.
func (c *Client) Questions(ctx context.Context, locale string) ([]domain.Question, []domain.MalformedElement, error) {
	if locale == "" {
		return nil, nil, errors.New("questions: empty locale")
	}
	path := "/supplier/v1/locales/" + url.PathEscape(locale) + "/questions"
	return referenceList[domain.Question](ctx, c, domain.Clip(locale, maxListLocaleBytes)+" questions", path, libraryRequired, nonZeroID)
}

// Answers lists the answers of one library question in a locale
// (GET /supplier/v1/locales/{locale}/questions/{questionId}/answers),
// the NULL VALUE entry included (see domain.Answer.IsNullValue), read
// element by element as Questions is.
func (c *Client) Answers(ctx context.Context, locale string, questionID int64) ([]domain.Answer, []domain.MalformedElement, error) {
	if locale == "" {
		return nil, nil, errors.New("answers: empty locale")
	}
	id := strconv.FormatInt(questionID, 10)
	path := "/supplier/v1/locales/" + url.PathEscape(locale) + "/questions/" + id + "/answers"
	return referenceList[domain.Answer](ctx, c, "answers of "+domain.Clip(locale, maxListLocaleBytes)+" question "+id, path, libraryRequired, nonZeroID)
}

// Countries lists all countries (GET /supplier/v1/countries), read
// element by element as Questions is.
func (c *Client) Countries(ctx context.Context) ([]domain.Country, []domain.MalformedElement, error) {
	return referenceList[domain.Country](ctx, c, ListCountries, "/supplier/v1/countries", nil, nil)
}

// Locales lists all locales (GET /supplier/v1/locales), read element by
// element as Questions is, each code written as a panel locale is.
func (c *Client) Locales(ctx context.Context) ([]domain.Locale, []domain.MalformedElement, error) {
	out, malformed, err := referenceList[domain.Locale](ctx, c, ListLocales, "/supplier/v1/locales", nil, nil)
	for i := range out {
		out[i].Locale = panelLocale(out[i].Locale)
	}
	return out, malformed, err
}

// panelLocale writes a locale code of the provider as a panel locale is
// written (domain.ParseLocale: en_US is en-us), so that the two compare;
// a code that is not in the language-country form is kept as sent.
func panelLocale(code string) string {
	if l, err := domain.ParseLocale(code); err == nil && l != "" {
		return l
	}
	return code
}

// SurveyStatuses lists the subsample statuses (GET /supplier/v1/survey-statuses),
// read element by element as Questions is, names normalised: the
// provider's "live for testing" becomes StatusLiveForTesting.
func (c *Client) SurveyStatuses(ctx context.Context) ([]domain.SurveyStatus, []domain.MalformedElement, error) {
	out, malformed, err := referenceList[domain.SurveyStatus](ctx, c, ListSurveyStatuses, "/supplier/v1/survey-statuses", nil, nil)
	for i := range out {
		out[i].StatusName = domain.NormalizeStatus(out[i].StatusName)
	}
	return out, malformed, err
}

// The names of the reference lists in their malformed elements; a
// library list is named by its locale ("es-us questions", "answers of
// es-us question 12").
const (
	ListCountries      = "countries"
	ListLocales        = "locales"
	ListSurveyStatuses = "survey-statuses"
)

// maxListLocaleBytes bounds the locale a library list's name quotes: the
// locale is ours to ask for, but comes from the provider's live-details.
const maxListLocaleBytes = 20

// referenceList reads a list of the reference data or of the library
// (GET path) element by element (elements[T]): an element that is not an
// object, holds a bad literal or a value of the wrong type, or an id out
// of its range (T's OutOfBounds) is left out and returned as malformed;
// strings are capped. No element names a subsample, so a list nothing of
// which can be read fails the call as a *MalformedListError.
func referenceList[T any](ctx context.Context, c *Client, list, path string, required requiredFields, check func(map[string]json.RawMessage) string) ([]T, []domain.MalformedElement, error) {
	l := elements[T]{list: list, required: required, check: check, redact: c.redact}
	if err := c.call(ctx, http.MethodGet, path, nil, &l); err != nil {
		return nil, nil, err
	}
	return nonNil(l.items), l.malformed, nil
}

func subsamplePath(id int64, resource string) string {
	return "/supplier/v1/subsamples/" + strconv.FormatInt(id, 10) + "/" + resource
}

// nonNil turns the nil slice a JSON null or absent array decodes to into an
// empty one.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
