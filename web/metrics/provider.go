package metrics

import (
	"context"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/web/refresh"
)

// The provider endpoints, named by their templates, as the provider
// metrics label them.
const (
	endpointAllSubsamples    = "POST /supplier/v1/event/all"
	endpointLiveSubsamples   = "POST /supplier/v1/event/live-details"
	endpointQuotas           = "GET /supplier/v1/subsamples/{id}/quotas"
	endpointEligibilityRules = "GET /supplier/v1/subsamples/{id}/eligibility-rules"
	endpointQuestions        = "GET /supplier/v1/locales/{locale}/questions"
	endpointAnswers          = "GET /supplier/v1/locales/{locale}/questions/{questionId}/answers"
	endpointCountries        = "GET /supplier/v1/countries"
	endpointLocales          = "GET /supplier/v1/locales"
	endpointSurveyStatuses   = "GET /supplier/v1/survey-statuses"
)

// providerEndpoints are every endpoint Provider counts, whose failure
// counters New makes present at 0.
var providerEndpoints = []string{endpointAllSubsamples, endpointLiveSubsamples, endpointQuotas, endpointEligibilityRules, endpointQuestions, endpointAnswers, endpointCountries, endpointLocales, endpointSurveyStatuses}

// Provider wraps p so that each call is timed and counted per endpoint.
func (m *Metrics) Provider(p refresh.Provider) refresh.Provider { return observedProvider{p: p, m: m} }

// observedProvider is a refresh.Provider that times each call.
type observedProvider struct {
	p refresh.Provider
	m *Metrics
}

func (o observedProvider) AllSubsamples(ctx context.Context) ([]domain.SubsampleSummary, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.AllSubsamples(ctx)
	o.m.observeProvider(endpointAllSubsamples, start, err)
	return a, b, err
}

func (o observedProvider) LiveSubsamples(ctx context.Context) ([]domain.LiveSubsample, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.LiveSubsamples(ctx)
	o.m.observeProvider(endpointLiveSubsamples, start, err)
	return a, b, err
}

func (o observedProvider) Quotas(ctx context.Context, subsampleID int64) ([]domain.Quota, error) {
	start := time.Now()
	a, err := o.p.Quotas(ctx, subsampleID)
	o.m.observeProvider(endpointQuotas, start, err)
	return a, err
}

func (o observedProvider) EligibilityRules(ctx context.Context, subsampleID int64) (domain.EligibilityRules, error) {
	start := time.Now()
	a, err := o.p.EligibilityRules(ctx, subsampleID)
	o.m.observeProvider(endpointEligibilityRules, start, err)
	return a, err
}

func (o observedProvider) Questions(ctx context.Context, locale string) ([]domain.Question, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.Questions(ctx, locale)
	o.m.observeProvider(endpointQuestions, start, err)
	return a, b, err
}

func (o observedProvider) Answers(ctx context.Context, locale string, questionID int64) ([]domain.Answer, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.Answers(ctx, locale, questionID)
	o.m.observeProvider(endpointAnswers, start, err)
	return a, b, err
}

func (o observedProvider) Countries(ctx context.Context) ([]domain.Country, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.Countries(ctx)
	o.m.observeProvider(endpointCountries, start, err)
	return a, b, err
}

func (o observedProvider) Locales(ctx context.Context) ([]domain.Locale, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.Locales(ctx)
	o.m.observeProvider(endpointLocales, start, err)
	return a, b, err
}

func (o observedProvider) SurveyStatuses(ctx context.Context) ([]domain.SurveyStatus, []domain.MalformedElement, error) {
	start := time.Now()
	a, b, err := o.p.SurveyStatuses(ctx)
	o.m.observeProvider(endpointSurveyStatuses, start, err)
	return a, b, err
}
