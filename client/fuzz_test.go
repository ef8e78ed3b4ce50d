package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// The fuzz targets below feed arbitrary 2xx bodies to each of the nine
// endpoints through the whole client (call, decode, normalisation), with an
// in-memory transport so that an input costs microseconds. Every target
// checks the same contract:
//
//   - no panic, whatever the body or its Content-Type;
//   - an error is an *Error naming the endpoint and saying the body could
//     not be decoded, in one line of bounded length;
//   - a result is sane: no nil list at any level (a provider's null is an
//     empty list), status names normalised, dates placed in the provider's
//     zone, every number in its range (domain's OutOfBounds).
//
// Seeds: the fixtures of decode_test.go, the malformed bodies below, and a
// real body of the simulator in testdata/fuzz/<target>/simulator.

// maxDecodeErrorBytes bounds the message of a decode error: it is shown on
// the dashboard and stored with the refresh.
const maxDecodeErrorBytes = 400

// malformedBodies are seeds every endpoint gets: truncated, mistyped and
// oddly encoded JSON, and what a proxy sends instead.
var malformedBodies = []struct{ body, contentType string }{
	{"", "application/json"},
	{"null", "application/json"},
	{"{}", "application/json"},
	{"[]", "application/json"},
	{"[null]", "application/json"},
	{"[1, \"x\", true]", "application/json"},
	{"[{}]", "application/json"},
	{"[{", "application/json"},
	{"[{\"id\": 1.5}]", "application/json"},
	{"[{\"id\": 1e400}]", "application/json"},
	{"[{\"id\": 99999999999999999999}]", "application/json"},
	{"[{\"id\": -1, \"subsampleId\": \"123\"}]", "application/json"},
	{"[{\"fieldStartDate\": \"2026-13-45T25:61:61.000\"}]", "application/json"},
	{"[{\"fieldStartDate\": 20261120}]", "application/json"},
	{"[{\"fieldEndDate\": \"2026-11-20T09:30:00+14:00\"}]", "application/json"},
	{"[{\"subsampleStatus\": \"  LIVE FOR TESTING \"}]", "application/json"},
	{"[{\"questions\": [{\"answers\": null}, null]}]", "application/json"},
	{"{\"surveys\": [null, {\"returnCodes\": null}], \"events\": {}}", "application/json"},
	{"\xEF\xBB\xBF[]", "application/json"},
	{"[\"\xff\xfe\"]", "application/json"},
	{"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "application/json"},
	{"<html><body>Sign in</body></html>", "text/html; charset=utf-8"},
	{"Service temporarily unavailable", "text/plain"},
	{"[] trailing", "application/json"},
	{"[]", "application/json; charset=\"unterminated"},
	{"[{\"subsampleId\": 7, \"targetedCPI\": NaN}, {\"subsampleId\": 8}]", "application/json"},
	{"[{\"quotaId\": 1, \"tableId\": 1, \"quotaType\": \"counting\", \"remainingExclusive\": 9223372036854775807, \"remainingShared\": 10.0, \"questions\": [], " +
		"\"subsampleId\": 7, \"eventId\": 9007199254740993, \"subsampleStatus\": \"Live\"}]", "application/json"},
	{"[{\"id\": 1.0e2, \"quotaId\": -0.0, \"tableId\": 1E1}]", "application/json"},
	{"[{\"name\": \"[1,{\\\"a\\\":\"}, Infinity, -Infinity]", "application/json"},
}

// boundsOK fails for an element of list with a number outside its range.
func boundsOK[T bounded](what string, list []T) error {
	for i, e := range list {
		if why := e.OutOfBounds(); why != "" {
			return fmt.Errorf("%s[%d]: %s", what, i, why)
		}
	}
	return nil
}

// bodyTransport answers every request with status 200 and one body.
type bodyTransport struct {
	body        []byte
	contentType string
}

func (b bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {b.contentType}},
		Body:          io.NopCloser(bytes.NewReader(b.body)),
		ContentLength: int64(len(b.body)),
		Request:       req,
	}, nil
}

// fuzzEndpoint runs one endpoint's fuzz target: call decodes body through
// the endpoint, sane checks a result and says what is wrong with it.
func fuzzEndpoint[T any](f *testing.F, endpoint string, fixture string, call func(*Client, context.Context) (T, error), sane func(T) error) {
	f.Helper()
	f.Add([]byte(fixture), "application/json;charset=UTF-8")
	for _, m := range malformedBodies {
		f.Add([]byte(m.body), m.contentType)
	}
	loc, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		c, err := New(Config{BaseURL: "http://provider.test", Location: loc, MaxAttempts: 1,
			HTTPClient: &http.Client{Transport: bodyTransport{body, contentType}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := call(c, ctx)
		if err != nil {
			checkDecodeError(t, endpoint, err)
			return
		}
		if err := sane(got); err != nil {
			t.Fatalf("%s decoded %q into an insane result: %v", endpoint, body, err)
		}
	})
}

// checkDecodeError fails t unless err is the clear error of an
// undecodable body of endpoint.
func checkDecodeError(t *testing.T, endpoint string, err error) {
	t.Helper()
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *client.Error", err, err)
	}
	if ce.Endpoint != endpoint || ce.StatusCode != http.StatusOK || ce.Attempts != 1 {
		t.Errorf("error names %q, status %d, %d attempts; want %q, 200, 1", ce.Endpoint, ce.StatusCode, ce.Attempts, endpoint)
	}
	msg := err.Error()
	var malformed *MalformedListError
	if !strings.HasPrefix(msg, endpoint+": decoding ") && !(errors.As(err, &malformed) && strings.HasPrefix(msg, endpoint+": ") && strings.Contains(msg, "could not be read")) {
		t.Errorf("error %q does not say which endpoint it could not decode", msg)
	}
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error %q is not one line", msg)
	}
	if len(msg) > maxDecodeErrorBytes {
		t.Errorf("error is %d bytes long, more than %d: %.200q…", len(msg), maxDecodeErrorBytes, msg)
	}
}

// Checks of a decoded result, shared by the endpoints.

func listOK[T any](what string, s []T) error {
	if s == nil {
		return fmt.Errorf("%s is nil, want an empty list", what)
	}
	return nil
}

func statusOK(what, name string) error {
	if domain.NormalizeStatus(name) != name {
		return fmt.Errorf("%s %q is not normalised (%q)", what, name, domain.NormalizeStatus(name))
	}
	return nil
}

// placedOK checks that a date left the zone it is decoded in: it is either
// absent, in the provider's zone, or in the zone it carried.
func placedOK(what string, t domain.LocalTime) error {
	// A time still on the decoder's wall clock moves when placed in
	// another zone; a placed one stays where it is.
	if !t.IsZero() && !t.PlaceIn(time.FixedZone("elsewhere", 3600)).Equal(t.Time) {
		return fmt.Errorf("%s %v was not placed in the provider's zone", what, t.Time)
	}
	return nil
}

// listing is what a list endpoint that reads element by element gives:
// the elements read and the ones dropped as malformed.
type listing[T any] struct {
	items     []T
	malformed []domain.MalformedElement
}

func listCall[T any](call func(*Client, context.Context) ([]T, []domain.MalformedElement, error)) func(*Client, context.Context) (listing[T], error) {
	return func(c *Client, ctx context.Context) (listing[T], error) {
		items, malformed, err := call(c, ctx)
		return listing[T]{items, malformed}, err
	}
}

// malformedOK checks the dropped elements of list: each says which and
// why, in one line of bounded length.
func malformedOK(list string, ms []domain.MalformedElement) error {
	var err error
	for _, m := range ms {
		msg := m.String()
		switch {
		case m.List != list || m.Index < 0 || m.SubsampleID < 0:
			err = errors.Join(err, fmt.Errorf("malformed element %+v does not name its place in %s", m, list))
		case strings.TrimSpace(m.Reason) == "":
			err = errors.Join(err, fmt.Errorf("malformed element %+v says not why", m))
		case strings.ContainsAny(msg, "\r\n") || len(msg) > maxDecodeErrorBytes:
			err = errors.Join(err, fmt.Errorf("malformed element %.200q is not one bounded line", msg))
		}
	}
	return err
}

func FuzzDecodeAllSubsamples(f *testing.F) {
	fuzzEndpoint(f, "POST /supplier/v1/event/all", allSubsamplesJSON, listCall((*Client).AllSubsamples),
		func(l listing[domain.SubsampleSummary]) error {
			got := l.items
			err := errors.Join(listOK("subsamples", got), boundsOK("subsamples", got), malformedOK(domain.ListEventAll, l.malformed))
			for i, s := range got {
				err = errors.Join(err,
					statusOK(fmt.Sprintf("[%d].subsampleStatus", i), s.SubsampleStatus),
					placedOK(fmt.Sprintf("[%d].fieldStartDate", i), s.FieldStartDate),
					placedOK(fmt.Sprintf("[%d].fieldEndDate", i), s.FieldEndDate))
			}
			return err
		})
}

func FuzzDecodeLiveSubsamples(f *testing.F) {
	fuzzEndpoint(f, "POST /supplier/v1/event/live-details", liveDetailsJSON, listCall((*Client).LiveSubsamples),
		func(l listing[domain.LiveSubsample]) error {
			got := l.items
			err := errors.Join(listOK("subsamples", got), boundsOK("subsamples", got), malformedOK(domain.ListLiveDetails, l.malformed))
			for i, s := range got {
				at := func(field string) string { return fmt.Sprintf("[%d].%s", i, field) }
				err = errors.Join(err,
					statusOK(at("subsampleStatus"), s.SubsampleStatus),
					listOK(at("categories"), s.Categories),
					listOK(at("countries"), s.Countries),
					listOK(at("locales"), s.Locales),
					placedOK(at("fieldStartDate"), s.FieldStartDate),
					placedOK(at("fieldEndDate"), s.FieldEndDate))
			}
			return err
		})
}

func FuzzDecodeQuotas(f *testing.F) {
	quotas := func(c *Client, ctx context.Context) ([]domain.Quota, error) { return c.Quotas(ctx, 90001) }
	fuzzEndpoint(f, "GET /supplier/v1/subsamples/90001/quotas", quotasJSON, quotas,
		func(got []domain.Quota) error {
			err := errors.Join(listOK("quotas", got), boundsOK("quotas", got))
			for i, q := range got {
				err = errors.Join(err,
					statusOK(fmt.Sprintf("[%d].subsampleStatus", i), q.SubsampleStatus),
					listOK(fmt.Sprintf("[%d].questions", i), q.Questions))
				for j, question := range q.Questions {
					err = errors.Join(err, listOK(fmt.Sprintf("[%d].questions[%d].answers", i, j), question.Answers))
				}
			}
			return err
		})
}

func FuzzDecodeEligibilityRules(f *testing.F) {
	eligibility := func(c *Client, ctx context.Context) (domain.EligibilityRules, error) {
		return c.EligibilityRules(ctx, 90001)
	}
	fuzzEndpoint(f, "GET /supplier/v1/subsamples/90001/eligibility-rules", eligibilityJSON, eligibility,
		func(got domain.EligibilityRules) error {
			err := errors.Join(listOK("surveys", got.Surveys), listOK("researchTypes", got.ResearchTypes),
				listOK("categories", got.Categories), listOK("events", got.Events), boundsOK("rules", []domain.EligibilityRules{got}))
			for i, r := range got.Surveys {
				err = errors.Join(err, listOK(fmt.Sprintf("surveys[%d].returnCodes", i), r.ReturnCodes))
			}
			for i, r := range got.ResearchTypes {
				err = errors.Join(err, listOK(fmt.Sprintf("researchTypes[%d].returnCodes", i), r.ReturnCodes))
			}
			for i, r := range got.Categories {
				err = errors.Join(err, listOK(fmt.Sprintf("categories[%d].returnCodes", i), r.ReturnCodes))
			}
			for i, r := range got.Events {
				err = errors.Join(err, listOK(fmt.Sprintf("events[%d].returnCodes", i), r.ReturnCodes))
			}
			return err
		})
}

func FuzzDecodeQuestions(f *testing.F) {
	questions := func(c *Client, ctx context.Context) ([]domain.Question, []domain.MalformedElement, error) {
		return c.Questions(ctx, "nl-nl")
	}
	fuzzEndpoint(f, "GET /supplier/v1/locales/nl-nl/questions", questionsJSON, listCall(questions),
		func(l listing[domain.Question]) error {
			return errors.Join(listOK("questions", l.items), boundsOK("questions", l.items), malformedOK("nl-nl questions", l.malformed))
		})
}

func FuzzDecodeAnswers(f *testing.F) {
	answers := func(c *Client, ctx context.Context) ([]domain.Answer, []domain.MalformedElement, error) {
		return c.Answers(ctx, "nl-nl", 43)
	}
	fuzzEndpoint(f, "GET /supplier/v1/locales/nl-nl/questions/43/answers", answersJSON, listCall(answers),
		func(l listing[domain.Answer]) error {
			return errors.Join(listOK("answers", l.items), boundsOK("answers", l.items), malformedOK("answers of nl-nl question 43", l.malformed))
		})
}

func FuzzDecodeCountries(f *testing.F) {
	fuzzEndpoint(f, "GET /supplier/v1/countries", countriesJSON, listCall((*Client).Countries),
		func(l listing[domain.Country]) error {
			return errors.Join(listOK("countries", l.items), boundsOK("countries", l.items), malformedOK(ListCountries, l.malformed))
		})
}

func FuzzDecodeLocales(f *testing.F) {
	fuzzEndpoint(f, "GET /supplier/v1/locales", localesJSON, listCall((*Client).Locales),
		func(l listing[domain.Locale]) error {
			return errors.Join(listOK("locales", l.items), boundsOK("locales", l.items), malformedOK(ListLocales, l.malformed))
		})
}

func FuzzDecodeSurveyStatuses(f *testing.F) {
	fuzzEndpoint(f, "GET /supplier/v1/survey-statuses", statusesJSON, listCall((*Client).SurveyStatuses),
		func(l listing[domain.SurveyStatus]) error {
			err := errors.Join(listOK("statuses", l.items), boundsOK("statuses", l.items), malformedOK(ListSurveyStatuses, l.malformed))
			for i, s := range l.items {
				err = errors.Join(err, statusOK(fmt.Sprintf("[%d].statusName", i), s.StatusName))
			}
			return err
		})
}
