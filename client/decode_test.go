package client

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Amsterdam without relying on the host's zoneinfo

	"fieldboard/rules/domain"
)

// serveJSON starts a server answering method and escaped path with body, and
// a client for it placed in loc.
func serveJSON(t *testing.T, method, path, body string, loc *time.Location) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method || r.URL.EscapedPath() != path {
			t.Errorf("request %s %s, want %s %s", r.Method, r.URL.EscapedPath(), method, path)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL, Location: loc, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func amsterdam(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func ptr[T any](v T) *T { return &v }

// mustJSON shows v with its pointers followed, for failure messages.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The fixtures below are written from the field tables of the spec; each
// carries what the spec says varies.

const allSubsamplesJSON = `[
  {"eventId": 5001, "billingEntity": "", "subsampleId": 90001, "subsampleStatus": "Live",
   "subsampleName": "NL wave 3", "country": {"id": 150, "code": "NL", "name": "Netherlands", "regionName": ""},
   "fieldStartDate": "2026-11-20T09:30:00.000", "fieldEndDate": "2026-07-01T12:00:00.000",
   "unknownField": {"nested": [1, 2]}},
  {"eventId": 5001, "billingEntity": "Acme Research BV", "subsampleId": 90002, "subsampleStatus": "live for testing",
   "subsampleName": "BE wave 3", "country": {"id": 21, "code": "BE", "name": "Belgium", "regionName": "Europe"},
   "fieldStartDate": null}
]`

const liveDetailsJSON = `[
  {
    "eventId": 5001, "eventName": "Snack tracker",
    "categories": [{"mainCategory": "Food", "mainCategoryId": 1, "genericCategory": "Snacks", "genericCategoryId": 12,
                    "category": "Crisps", "categoryId": 123}],
    "jobBookId": "JB-77", "billingEntity": "", "primaryProjectManager": "Ann Field",
    "secondaryProjectManager": "Bo Manager", "contactEmailAddress": "ann@example.com", "groupId": 4,
    "allowDesktop": true, "allowMobile": true, "allowTablet": false,
    "subsampleId": 90001, "subsampleStatus": "Live", "subsampleName": "NL wave 3",
    "countries": [{"id": 150, "code": "NL", "name": "Netherlands", "regionName": "Europe", "isPanelProduct": true, "panelOptIn": false}],
    "locales": [{"name": "nl-nl", "liveEntryLink": "https://entry.example/s?p=tok&rType=1&id=",
                 "testingEntryLink": "https://entry.example/t?p=tok&id="}],
    "fieldStartDate": "2026-11-20T09:30:00.000", "fieldEndDate": "2026-12-20T18:00:00.000",
    "surveyAPIcompatibility": true, "requiresFlash": false, "childSurvey": false, "collectPII": false,
    "facialCoding": false, "sampleCategoryId": 2, "sampleSubCategoryId": 3,
    "researchType": "Tracker", "researchTypeId": 7, "interviewType": 1,
    "expectedClientLoi": 12.5, "expectedIncidenceRate": 40,
    "targetedCurrency": "EUR", "targetedCPI": 1.75,
    "completesAutoIncrementSchedule": {"interviews": 10, "recurrence": "daily", "startTime": "08:00", "endTime": "20:00"},
    "feasibilityId": 808, "automation": true, "marketplaceEnabled": false, "needRecontact": false,
    "isSampled": true, "IsPottential": false, "isCricital": false, "isMatching": true, "isNewRecruit": false,
    "somethingNew": "ignored"
  },
  {
    "eventId": 5002, "eventName": "Diary", "categories": null,
    "jobBookId": null, "billingEntity": null, "primaryProjectManager": null, "secondaryProjectManager": null,
    "contactEmailAddress": null, "groupId": null,
    "allowDesktop": true, "allowMobile": false, "allowTablet": false,
    "subsampleId": 90003, "subsampleStatus": "Live for testing", "subsampleName": "DE diary",
    "countries": [{"id": 276, "code": "DE", "name": "Germany", "regionName": "Europe"}],
    "locales": null,
    "fieldStartDate": "2026-11-20T09:30:00.000", "fieldEndDate": "2026-11-21T09:30:00.000",
    "surveyAPIcompatibility": false, "requiresFlash": false, "collectPII": true, "facialCoding": false,
    "researchType": "Diary", "researchTypeId": 9, "interviewType": null,
    "expectedClientLoi": null, "expectedIncidenceRate": null,
    "targetedCurrency": "EUR", "targetedCPI": 0,
    "completesAutoIncrementSchedule": null, "feasibilityId": null
  }
]`

const quotasJSON = `[
  {"subsampleStatus": "live for testing", "actualClientIncidenceRate": 35.5, "actualClientConversionRate": 20,
   "actualClientAbandonRate": 4.25, "estimatedIncidence": 40, "questions": [],
   "remainingExclusive": 30, "remainingShared": 12, "actualClientLOI": 11.5, "estimatedLOI": 12,
   "achievedInterviews": 158, "tableId": 1, "tableName": "Total Quota", "quotaId": 11,
   "quotaName": "Total", "quotaType": "counting", "extra": true},
  {"subsampleStatus": "Live", "questions": [
     {"id": -1, "operator": "OR", "locale": null, "answers": [{"rangeStart": "18", "rangeEnd": "34"}]},
     {"id": 43, "operator": "OR", "locale": null, "answers": [{"id": 58}, {"id": 59}]}
   ],
   "remainingExclusive": 0, "remainingShared": 5, "achievedInterviews": 20,
   "tableId": 2, "tableName": "Age x Gender", "quotaId": 21, "quotaName": "Young", "quotaType": "hard"},
  {"subsampleStatus": "Live", "questions": null, "tableId": 3, "tableName": "Empty", "quotaId": 31,
   "quotaName": "Nulls", "quotaType": "hard", "remainingExclusive": 0, "remainingShared": 0}
]`

// Both key spellings in one response: Id/id and NumDays/numDays.
const eligibilityJSON = `{
  "surveys": [{"Id": 90000, "numDays": 0, "returnCodes": [3, 82]},
              {"id": 90005, "NumDays": 30, "returnCodes": [3]}],
  "researchTypes": [{"id": 9, "NumDays": 14, "returnCodes": [2, 3]},
                    {"Id": 0, "numDays": 0, "returnCodes": [0]}],
  "categories": [{"mainCategoryId": 1, "genericCategoryId": null, "specificCategoryId": 123, "NumDays": 7, "returnCodes": [3]}],
  "events": [{"Id": 5001, "name": "Snack tracker", "numDays": 0, "returnCodes": [0]}, {"Id": 0, "numDays": 0, "returnCodes": null}],
  "unknown": []
}`

const questionsJSON = `[
  {"type": "Range", "translation": "", "id": -1, "name": "agerange", "text": "agerange"},
  {"type": "Single Punch", "translation": "Wat is uw geslacht?", "id": 43, "name": "GENDER", "text": "What is your gender?", "priority": 1}
]`

const answersJSON = `[
  {"type": "singlePunch", "translation": "Man", "isExclusive": false, "id": 58, "name": "Male", "text": "Male"},
  {"type": "singlePunch", "translation": "", "isExclusive": true, "id": 60, "name": "NULL VALUE", "text": "NULL VALUE"}
]`

const countriesJSON = `[{"id": 150, "code": "NL", "name": "Netherlands", "regionName": "Europe"},
  {"id": 840, "code": "US", "name": "United States", "regionName": ""}]`

const localesJSON = `[{"id": 12, "countryId": 150, "name": "Dutch (Netherlands)", "nameTranslation": "",
  "locale": "nl-nl", "shortLocale": "nl", "countryDefault": true, "countryName": "Netherlands",
  "countryCode": "nl", "regionName": "", "extra": 1}]`

const statusesJSON = `[{"id": 1, "statusName": "Pending"}, {"id": 2, "statusName": "Pending(do not use)"},
  {"id": 3, "statusName": "Live"}, {"id": 4, "statusName": "Complete"}, {"id": 5, "statusName": "Canceled"},
  {"id": 6, "statusName": "live for testing"}]`

func TestDecode(t *testing.T) {
	ams := amsterdam(t)
	ctx := context.Background()
	tests := []struct {
		name         string
		method, path string
		body         string
		loc          *time.Location
		check        func(t *testing.T, c *Client)
	}{
		{
			name: "event/all: empty billingEntity kept, unknown fields ignored, dates in the provider zone",
			path: "/supplier/v1/event/all", method: http.MethodPost, body: allSubsamplesJSON, loc: ams,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.AllSubsamples(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 2 {
					t.Fatalf("got %d subsamples, want 2", len(got))
				}
				a, b := got[0], got[1]
				if a.EventID != 5001 || a.SubsampleID != 90001 || a.BillingEntity != "" || a.Country.Code != "NL" || a.Country.ID != 150 {
					t.Errorf("first = %+v", a)
				}
				// 2026-11-20T09:30 in Amsterdam (CET, +01:00) is 08:30Z.
				if want := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC); !a.FieldStartDate.Equal(want) {
					t.Errorf("fieldStartDate = %v, want the instant %v", a.FieldStartDate, want)
				}
				if a.FieldStartDate.Location() != ams {
					t.Errorf("fieldStartDate zone = %v, want %v", a.FieldStartDate.Location(), ams)
				}
				// Summer time: +02:00.
				if want := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC); !a.FieldEndDate.Equal(want) {
					t.Errorf("fieldEndDate = %v, want the instant %v", a.FieldEndDate, want)
				}
				if b.SubsampleStatus != domain.StatusLiveForTesting || b.BillingEntity != "Acme Research BV" {
					t.Errorf("second = %+v", b)
				}
				if !b.FieldStartDate.IsZero() || !b.FieldEndDate.IsZero() {
					t.Errorf("null and absent dates = %v, %v; want zero", b.FieldStartDate, b.FieldEndDate)
				}
			},
		},
		{
			name: "event/all: zone-less dates default to UTC",
			path: "/supplier/v1/event/all", method: http.MethodPost, body: allSubsamplesJSON,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.AllSubsamples(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if want := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC); !got[0].FieldStartDate.Equal(want) || got[0].FieldStartDate.Location() != time.UTC {
					t.Errorf("fieldStartDate = %v, want %v", got[0].FieldStartDate, want)
				}
			},
		},
		{
			name: "event/all: null is an empty list",
			path: "/supplier/v1/event/all", method: http.MethodPost, body: `null`,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.AllSubsamples(ctx)
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
		{
			name: "live-details: every field, then nulls and absent optional fields",
			path: "/supplier/v1/event/live-details", method: http.MethodPost, body: liveDetailsJSON, loc: ams,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.LiveSubsamples(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 2 {
					t.Fatalf("got %d subsamples, want 2", len(got))
				}
				full, sparse := got[0], got[1]
				if full.EventName != "Snack tracker" || full.SubsampleStatus != domain.StatusLive || !full.SurveyAPICompatibility ||
					full.TargetedCPI != 1.75 || full.TargetedCurrency != "EUR" || full.ResearchTypeID != 7 ||
					!full.AllowDesktop || !full.AllowMobile || full.AllowTablet {
					t.Errorf("required fields = %+v", full)
				}
				if want := (domain.Category{MainCategory: "Food", MainCategoryID: 1, GenericCategory: "Snacks", GenericCategoryID: 12, Category: "Crisps", CategoryID: 123}); len(full.Categories) != 1 || full.Categories[0] != want {
					t.Errorf("categories = %+v, want [%+v]", full.Categories, want)
				}
				if len(full.Locales) != 1 || full.Locales[0].Name != "nl-nl" || full.Locales[0].LiveEntryLink != "https://entry.example/s?p=tok&rType=1&id=" {
					t.Errorf("locales = %+v", full.Locales)
				}
				if len(full.Countries) != 1 || full.Countries[0].Code != "NL" {
					t.Errorf("countries = %+v", full.Countries)
				}
				if full.BillingEntity == nil || *full.BillingEntity != "" {
					t.Errorf("billingEntity = %v, want a pointer to the empty string", full.BillingEntity)
				}
				if full.JobBookID == nil || *full.JobBookID != "JB-77" || full.GroupID == nil || *full.GroupID != 4 ||
					full.ExpectedClientLOI == nil || *full.ExpectedClientLOI != 12.5 || full.FeasibilityID == nil || *full.FeasibilityID != 808 ||
					full.NeedRecontact == nil || *full.NeedRecontact || full.Automation == nil || !*full.Automation {
					t.Errorf("optional fields = %+v", full)
				}
				if len(full.CompletesAutoIncrementSchedule) == 0 {
					t.Error("completesAutoIncrementSchedule lost")
				}
				if want := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC); !full.FieldStartDate.Equal(want) {
					t.Errorf("fieldStartDate = %v, want the instant %v", full.FieldStartDate, want)
				}

				if sparse.SubsampleStatus != domain.StatusLiveForTesting || sparse.TargetedCPI != 0 || sparse.SurveyAPICompatibility {
					t.Errorf("sparse required fields = %+v", sparse)
				}
				if sparse.JobBookID != nil || sparse.BillingEntity != nil || sparse.PrimaryProjectManager != nil ||
					sparse.SecondaryProjectManager != nil || sparse.ContactEmailAddress != nil || sparse.GroupID != nil ||
					sparse.ChildSurvey != nil || sparse.SampleCategoryID != nil || sparse.SampleSubCategoryID != nil ||
					sparse.InterviewType != nil || sparse.ExpectedClientLOI != nil || sparse.ExpectedIncidenceRate != nil ||
					sparse.FeasibilityID != nil || sparse.Automation != nil || sparse.MarketplaceEnabled != nil ||
					sparse.NeedRecontact != nil {
					t.Errorf("null or absent optional fields are not nil: %+v", sparse)
				}
				if sparse.Categories == nil || len(sparse.Categories) != 0 || sparse.Locales == nil || len(sparse.Locales) != 0 {
					t.Errorf("null arrays = %#v, %#v; want empty slices", sparse.Categories, sparse.Locales)
				}
			},
		},
		{
			name: "live-details: null is an empty list",
			path: "/supplier/v1/event/live-details", method: http.MethodPost, body: `null`,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.LiveSubsamples(ctx)
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
		{
			name: "quotas: total quota, range and id answers, status normalised",
			path: "/supplier/v1/subsamples/90001/quotas", method: http.MethodGet, body: quotasJSON,
			check: func(t *testing.T, c *Client) {
				got, err := c.Quotas(ctx, 90001)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 3 {
					t.Fatalf("got %d quotas, want 3", len(got))
				}
				total, hard, nulls := got[0], got[1], got[2]
				if !total.IsTotal() || total.Remaining() != 42 || total.AchievedInterviews != 158 || total.ActualClientAbandonRate != 4.25 {
					t.Errorf("total quota = %+v", total)
				}
				if total.SubsampleStatus != domain.StatusLiveForTesting {
					t.Errorf("subsampleStatus = %q, want %q", total.SubsampleStatus, domain.StatusLiveForTesting)
				}
				if hard.IsTotal() || hard.QuotaType != domain.QuotaTypeHard || len(hard.Questions) != 2 {
					t.Fatalf("hard quota = %+v", hard)
				}
				age := hard.Questions[0]
				if age.ID != domain.AgeRangeQuestionID || age.Operator != "OR" || age.Locale != nil || len(age.Answers) != 1 ||
					!age.Answers[0].IsRange() || *age.Answers[0].RangeStart != "18" || *age.Answers[0].RangeEnd != "34" || age.Answers[0].ID != nil {
					t.Errorf("range question = %+v", age)
				}
				gender := hard.Questions[1]
				if gender.ID != 43 || len(gender.Answers) != 2 || gender.Answers[0].IsRange() ||
					gender.Answers[0].ID == nil || *gender.Answers[0].ID != 58 || *gender.Answers[1].ID != 59 {
					t.Errorf("id question = %+v", gender)
				}
				if nulls.Questions == nil || len(nulls.Questions) != 0 {
					t.Errorf("null questions = %#v, want an empty slice", nulls.Questions)
				}
			},
		},
		{
			name: "quotas: null is an empty list",
			path: "/supplier/v1/subsamples/7/quotas", method: http.MethodGet, body: `null`,
			check: func(t *testing.T, c *Client) {
				got, err := c.Quotas(ctx, 7)
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
		{
			name: "eligibility-rules: Id/id and NumDays/numDays denote the same field",
			path: "/supplier/v1/subsamples/90001/eligibility-rules", method: http.MethodGet, body: eligibilityJSON,
			check: func(t *testing.T, c *Client) {
				got, err := c.EligibilityRules(ctx, 90001)
				if err != nil {
					t.Fatal(err)
				}
				want := domain.EligibilityRules{
					Surveys: []domain.SurveyRule{
						{ID: ptr[int64](90000), NumDays: 0, ReturnCodes: []int64{3, 82}},
						{ID: ptr[int64](90005), NumDays: 30, ReturnCodes: []int64{3}},
					},
					ResearchTypes: []domain.ResearchTypeRule{
						{ID: ptr[int64](9), NumDays: 14, ReturnCodes: []int64{2, 3}},
						{ID: ptr[int64](0), NumDays: 0, ReturnCodes: []int64{0}},
					},
					Categories: []domain.CategoryRule{
						{MainCategoryID: ptr[int64](1), SpecificCategoryID: ptr[int64](123), NumDays: 7, ReturnCodes: []int64{3}},
					},
					Events: []domain.EventRule{
						{ID: ptr[int64](5001), Name: ptr("Snack tracker"), NumDays: 0, ReturnCodes: []int64{0}},
						{ID: ptr[int64](0), NumDays: 0, ReturnCodes: []int64{}},
					},
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got  %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
				}
				if got.Events[1].ReturnCodes == nil {
					t.Error("null returnCodes of an entry that does not apply decoded to nil, want an empty slice")
				}
			},
		},
		{
			name: "questions: the agerange question and unknown fields",
			path: "/supplier/v1/locales/nl-nl/questions", method: http.MethodGet, body: questionsJSON,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Questions(ctx, "nl-nl")
				if err != nil {
					t.Fatal(err)
				}
				want := []domain.Question{
					{Type: "Range", ID: -1, Name: "agerange", Text: "agerange"},
					{Type: "Single Punch", Translation: "Wat is uw geslacht?", ID: 43, Name: "GENDER", Text: "What is your gender?"},
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %+v, want %+v", got, want)
				}
			},
		},
		{
			name: "questions: the locale is path-escaped",
			path: "/supplier/v1/locales/pt%2Fbr%20x/questions", method: http.MethodGet, body: `null`,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Questions(ctx, "pt/br x")
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
		{
			name: "answers: the NULL VALUE entry is kept",
			path: "/supplier/v1/locales/nl-nl/questions/43/answers", method: http.MethodGet, body: answersJSON,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Answers(ctx, "nl-nl", 43)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 2 || got[0].IsNullValue() || !got[1].IsNullValue() || !got[1].IsExclusive || got[1].ID != 60 || got[0].Translation != "Man" {
					t.Errorf("got %+v", got)
				}
			},
		},
		{
			name: "answers: null is an empty list",
			path: "/supplier/v1/locales/nl-nl/questions/-1/answers", method: http.MethodGet, body: `null`,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Answers(ctx, "nl-nl", -1)
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
		{
			name: "countries: empty regionName",
			path: "/supplier/v1/countries", method: http.MethodGet, body: countriesJSON,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Countries(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := []domain.Country{{ID: 150, Code: "NL", Name: "Netherlands", RegionName: "Europe"}, {ID: 840, Code: "US", Name: "United States"}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %+v, want %+v", got, want)
				}
			},
		},
		{
			name: "locales: every field, unknown ignored",
			path: "/supplier/v1/locales", method: http.MethodGet, body: localesJSON,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Locales(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := []domain.Locale{{ID: 12, CountryID: 150, Name: "Dutch (Netherlands)", Locale: "nl-nl", ShortLocale: "nl",
					CountryDefault: true, CountryName: "Netherlands", CountryCode: "nl"}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %+v, want %+v", got, want)
				}
			},
		},
		{
			name: "survey-statuses: live for testing in lower case is normalised",
			path: "/supplier/v1/survey-statuses", method: http.MethodGet, body: statusesJSON,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.SurveyStatuses(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want := []domain.SurveyStatus{{ID: 1, StatusName: domain.StatusPending}, {ID: 2, StatusName: "Pending(do not use)"},
					{ID: 3, StatusName: domain.StatusLive}, {ID: 4, StatusName: domain.StatusComplete}, {ID: 5, StatusName: domain.StatusCanceled},
					{ID: 6, StatusName: domain.StatusLiveForTesting}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %+v, want %+v", got, want)
				}
			},
		},
		{
			name: "countries: null is an empty list",
			path: "/supplier/v1/countries", method: http.MethodGet, body: ` null `,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Countries(ctx)
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
		{
			name: "locales: an empty array stays empty",
			path: "/supplier/v1/locales", method: http.MethodGet, body: `[]`,
			check: func(t *testing.T, c *Client) {
				got, _, err := c.Locales(ctx)
				if err != nil || got == nil || len(got) != 0 {
					t.Errorf("got %#v, %v; want an empty, non-nil slice", got, err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, serveJSON(t, tt.method, tt.path, tt.body, tt.loc))
		})
	}
}

// TestDecodeDoubtIsMalformed: the spec says the two spellings of a key
// (Id/id, NumDays/numDays) "denote the same field", so both given with
// different values contradict each other; such a key anywhere in an
// answer (nested in an eligibility entry, a quota's question or answer, a
// live subsample's locale) makes its element malformed, as a key twice at
// the top of an element already did; so does an eligibility entry that
// applies with no returnCodes ("every entry has numDays ... and
// returnCodes"). The same key twice with the same value, and an entry
// that does not apply, are read.
func TestDecodeDoubtIsMalformed(t *testing.T) {
	ctx := context.Background()
	rules := func(entries string) string {
		return `{"surveys": [` + entries + `], "researchTypes": [], "categories": [], "events": []}`
	}
	quota := func(questions string) string {
		return `[{"quotaId": 1, "tableId": 1, "tableName": "Total Quota", "quotaType": "counting", "remainingExclusive": 3, "remainingShared": 0, "questions": []},
		  {"quotaId": 2, "tableId": 2, "quotaType": "hard", "remainingExclusive": 3, "remainingShared": 0, "questions": [` + questions + `]}]`
	}
	tests := []struct {
		name, path, body string
		err              string // "" when the answer is read
	}{
		{"eligibility: Id and id with different values contradict: the rules are not read",
			"eligibility-rules", rules(`{"Id": 9001, "id": 1234, "numDays": 0, "returnCodes": [3]}`),
			"the eligibility rules could not be read: surveys[0].id appears twice, with different values"},
		{"eligibility: numDays 0 and NumDays 3 contradict: the rules are not read",
			"eligibility-rules", rules(`{"id": 9001, "numDays": 0, "NumDays": 3, "returnCodes": [3]}`),
			"surveys[0].NumDays appears twice, with different values"},
		{"eligibility: numDays and numDayſ (a long s, which encoding/json reads as the same field) contradict: the rules are not read",
			"eligibility-rules", rules(`{"id": 9001, "numDays": 0, "numDayſ": 3, "returnCodes": [3]}`),
			"surveys[0].numDayſ appears twice, with different values"},
		{"eligibility: surveys and ſurveys contradict: the rules are not read, not emptied",
			"eligibility-rules", `{"surveys": [{"id": 9001, "numDays": 0, "returnCodes": [3]}], "ſurveys": [], "researchTypes": [], "categories": [], "events": []}`,
			"ſurveys appears twice, with different values"},
		{"quotas: remainingShared and remainingſhared contradict: the quotas are not read, a full cell never reads as open",
			"quotas", `[{"quotaId": 1, "tableId": 1, "tableName": "Total Quota", "quotaType": "counting", "remainingExclusive": 3, "remainingShared": 0, "questions": []},
		  {"quotaId": 2, "tableId": 2, "quotaType": "hard", "remainingExclusive": 0, "remainingShared": 0, "remainingſhared": 5, "questions": [{"id": 12, "operator": "OR", "answers": [{"id": 1}]}]}]`,
			"remainingſhared appears twice"},
		{"eligibility: the same value written twice differently ([3] and [ 3 ]) is one value: read",
			"eligibility-rules", rules(`{"Id": 9001, "id": 9001, "numDays": 0, "returnCodes": [3], "ReturnCodes": [ 3 ]}`), ""},
		{"eligibility: the same key twice with the same value is read",
			"eligibility-rules", rules(`{"Id": 9001, "id": 9001, "numDays": 0, "returnCodes": [3]}`), ""},
		{"eligibility: an entry that applies with returnCodes null is not read",
			"eligibility-rules", rules(`{"id": 9001, "numDays": 0, "returnCodes": null}`),
			"surveys[0] applies but has no returnCodes: which statuses it excludes is not known"},
		{"eligibility: an entry that applies without returnCodes is not read",
			"eligibility-rules", rules(`{"id": 9001, "numDays": 0}`), "surveys[0] applies but has no returnCodes"},
		{"eligibility: a category entry that applies by its specific id without returnCodes is not read",
			"eligibility-rules", `{"surveys": [], "researchTypes": [], "categories": [{"mainCategoryId": null, "specificCategoryId": 12, "numDays": 0}], "events": []}`,
			"categories[0] applies but has no returnCodes"},
		{"eligibility: an entry that does not apply (id 0) may lack returnCodes: it excludes nobody anyway",
			"eligibility-rules", rules(`{"id": 0, "numDays": 0}`), ""},
		{"quotas: an answer's id twice with different values makes the subsample's quotas unreadable",
			"quotas", quota(`{"id": 12, "operator": "OR", "answers": [{"id": 1, "ID": 2}]}`),
			"questions[0].answers[0].ID appears twice"},
		{"quotas: a question's operator twice with different values makes the quotas unreadable",
			"quotas", quota(`{"id": 12, "operator": "OR", "Operator": "NOT", "answers": [{"id": 1}]}`),
			"questions[0].Operator appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/supplier/v1/subsamples/90001/" + tt.path
			c := serveJSON(t, http.MethodGet, path, tt.body, nil)
			var err error
			if tt.path == "quotas" {
				_, err = c.Quotas(ctx, 90001)
			} else {
				_, err = c.EligibilityRules(ctx, 90001)
			}
			if tt.err == "" {
				if err != nil {
					t.Fatalf("error %v; want the answer read", err)
				}
				return
			}
			var bad *MalformedListError
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &bad) {
				t.Fatalf("error %v; want a *MalformedListError saying %q", err, tt.err)
			}
		})
	}

	// live-details: a key twice deep in an element costs that element only.
	var list []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(liveDetailsJSON), &list); err != nil {
		t.Fatal(err)
	}
	list[0]["locales"] = json.RawMessage(`[{"name": "nl-nl", "liveEntryLink": "https://a.example/s?p=1&id=", "LiveEntryLink": "https://evil.example.net/s?p=1&id="}]`)
	body, _ := json.Marshal(list)
	c := serveJSON(t, http.MethodPost, "/supplier/v1/event/live-details", string(body), nil)
	got, malformed, err := c.LiveSubsamples(ctx)
	if err != nil || len(malformed) != 1 || malformed[0].SubsampleID != 90001 || !strings.Contains(malformed[0].Reason, "locales[0].LiveEntryLink appears twice") {
		t.Errorf("live-details with a locale's link twice: kept %d, malformed %+v, %v; want the element malformed, its subsample named", len(got), malformed, err)
	}
}

// TestDecodeMalformedElements: an element of event/all, live-details or
// quotas with a field of the wrong type, or without a field the decision
// needs, is dropped and reported with its place, its subsample when its id
// can be read, and why; the other elements are kept. A list of nothing but
// malformed elements, and any malformed quota, fail the call.
func TestDecodeMalformedElements(t *testing.T) {
	ctx := context.Background()
	summary := func(fields string) string {
		return `{"subsampleStatus": "Live", "country": {"id": 150, "code": "NL"}` + fields + `}`
	}
	good := summary(`, "subsampleId": 11, "eventId": 1`)
	live := func(drop, add string) string {
		// The fixture's first element, less drop, plus add.
		var list []map[string]json.RawMessage
		if err := json.Unmarshal([]byte(liveDetailsJSON), &list); err != nil {
			t.Fatal(err)
		}
		m := list[0]
		delete(m, drop)
		if add != "" {
			var extra map[string]json.RawMessage
			if err := json.Unmarshal([]byte(add), &extra); err != nil {
				t.Fatal(err)
			}
			maps.Copy(m, extra)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	tests := []struct {
		name, path string
		body       string
		kept       int
		want       []domain.MalformedElement // Reason is matched as a substring
		err        string
	}{
		{"event/all: a wrong type costs its element only", "/supplier/v1/event/all",
			`[` + good + `,` + summary(`, "subsampleId": 12, "eventId": "7"`) + `]`, 1,
			[]domain.MalformedElement{{List: "event/all", Index: 1, SubsampleID: 12, Reason: "eventId is a string, not a whole number"}}, ""},
		{"event/all: a missing status, and an unreadable id", "/supplier/v1/event/all",
			`[` + good + `,{"eventId": 1, "subsampleId": 13},` + summary(`, "subsampleId": "x14", "eventId": 1`) + `]`, 1,
			[]domain.MalformedElement{
				{List: "event/all", Index: 1, SubsampleID: 13, Reason: "subsampleStatus is missing"},
				{List: "event/all", Index: 2, Reason: "subsampleId is a string, not a whole number"},
			}, ""},
		{"event/all: null and a number are not elements", "/supplier/v1/event/all",
			`[null, 5, ` + good + `]`, 1,
			[]domain.MalformedElement{{List: "event/all", Index: 0, Reason: "it is null, not an object"}, {List: "event/all", Index: 1, Reason: "it is a number, not an object"}}, ""},
		{"event/all: a null required field is missing", "/supplier/v1/event/all",
			`[` + good + `,` + summary(`, "subsampleId": 15, "eventId": null`) + `]`, 1,
			[]domain.MalformedElement{{List: "event/all", Index: 1, SubsampleID: 15, Reason: "eventId is missing"}}, ""},
		{"event/all: one element, malformed, is dropped and named", "/supplier/v1/event/all",
			`[{"subsampleId": 16}]`, 0, []domain.MalformedElement{{List: "event/all", Index: 0, SubsampleID: 16, Reason: "eventId is missing"}}, ""},
		{"event/all: nothing readable, not even an id, fails the call", "/supplier/v1/event/all",
			`[{"eventId": 1}, null]`, 0, nil, "2 of 2 elements of event/all could not be read; element 1: subsampleId is missing"},
		{"event/all: a key twice in another case, with another value", "/supplier/v1/event/all",
			`[` + good + `,` + summary(`, "subsampleId": 17, "eventId": 1, "SubsampleStatus": "Complete"`) + `]`, 1,
			[]domain.MalformedElement{{List: "event/all", Index: 1, SubsampleID: 17, Reason: "SubsampleStatus appears twice"}}, ""},
		{"event/all: a subsample listed twice alike is kept once", "/supplier/v1/event/all",
			`[` + good + `,` + good + `]`, 1, nil, ""},
		{"event/all: a subsample listed twice differently is malformed twice", "/supplier/v1/event/all",
			`[` + good + `,` + summary(`, "subsampleId": 11, "eventId": 2`) + `]`, 0,
			[]domain.MalformedElement{
				{List: "event/all", Index: 0, SubsampleID: 11, Reason: "subsample 11 is listed 2 times, differently"},
				{List: "event/all", Index: 1, SubsampleID: 11, Reason: "subsample 11 is listed 2 times, differently"},
			}, ""},
		{"live-details: a required field missing", "/supplier/v1/event/live-details",
			`[` + live("targetedCPI", "") + `,` + live("", `{"subsampleId": 90002}`) + `]`, 1,
			[]domain.MalformedElement{{List: "live-details", Index: 0, SubsampleID: 90001, Reason: "targetedCPI is missing"}}, ""},
		{"live-details: needRecontact may be absent; an unreadable date names its field", "/supplier/v1/event/live-details",
			`[` + live("needRecontact", "") + `,` + live("", `{"subsampleId": 90002, "fieldEndDate": "soon"}`) + `]`, 1,
			[]domain.MalformedElement{{List: "live-details", Index: 1, SubsampleID: 90002, Reason: "fieldEndDate: date:"}}, ""},
		{"live-details: a category without its id", "/supplier/v1/event/live-details",
			`[` + live("", `{"categories": [{"mainCategoryId": 1, "genericCategoryId": 2, "category": "Crisps"}]}`) + `]`, 0,
			[]domain.MalformedElement{{List: "live-details", Index: 0, SubsampleID: 90001, Reason: "category 1 has no categoryId"}}, ""},
		{"live-details: null lists are empty, a string is not a list", "/supplier/v1/event/live-details",
			`[` + live("", `{"categories": null, "locales": null}`) + `,` + live("", `{"subsampleId": 90002, "locales": "nl-nl"}`) + `]`, 1,
			[]domain.MalformedElement{{List: "live-details", Index: 1, SubsampleID: 90002, Reason: "locales is a string, not a list"}}, ""},
		{"quotas: one malformed cell fails the subsample's quotas", "/supplier/v1/subsamples/90001/quotas",
			`[{"quotaId": 1, "tableId": 1, "quotaType": "counting", "remainingExclusive": 3, "remainingShared": 0, "questions": []},
			  {"quotaId": 2, "tableId": 2, "quotaType": "hard", "remainingExclusive": 3, "questions": []}]`, 0, nil,
			"quotas element 2 of 2 could not be read: remainingShared is missing"},
		{"quotas: a cell without its table", "/supplier/v1/subsamples/90001/quotas",
			`[{"quotaId": 1, "quotaType": "hard", "remainingExclusive": 3, "remainingShared": 0, "questions": []}]`, 0, nil,
			"tableId is missing"},
		{"quotas: a cell without its id", "/supplier/v1/subsamples/90001/quotas",
			`[{"tableId": 1, "quotaType": "hard", "remainingExclusive": 3, "remainingShared": 0, "questions": []}]`, 0, nil,
			"quotaId is missing"},
		{"quotas: a quota id given twice", "/supplier/v1/subsamples/90001/quotas",
			`[{"quotaId": 1, "tableId": 1, "tableName": "Total Quota", "quotaType": "counting", "remainingExclusive": 3, "remainingShared": 0, "questions": []},
			  {"quotaId": 1, "tableId": 2, "quotaType": "hard", "remainingExclusive": 0, "remainingShared": 0, "questions": []}]`, 0, nil,
			"the quotas could not be read: quota id 1 is given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := http.MethodPost
			if strings.Contains(tt.path, "quotas") {
				method = http.MethodGet
			}
			c := serveJSON(t, method, tt.path, tt.body, nil)
			var kept int
			var malformed []domain.MalformedElement
			var err error
			switch {
			case strings.HasSuffix(tt.path, "all"):
				var got []domain.SubsampleSummary
				got, malformed, err = c.AllSubsamples(ctx)
				kept = len(got)
			case strings.HasSuffix(tt.path, "live-details"):
				var got []domain.LiveSubsample
				got, malformed, err = c.LiveSubsamples(ctx)
				kept = len(got)
			default:
				var got []domain.Quota
				got, err = c.Quotas(ctx, 90001)
				kept = len(got)
			}
			if tt.err != "" {
				var bad *MalformedListError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &bad) {
					t.Fatalf("error %v; want a *MalformedListError saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kept != tt.kept || len(malformed) != len(tt.want) {
				t.Fatalf("kept %d, dropped %+v; want %d kept, %d dropped", kept, malformed, tt.kept, len(tt.want))
			}
			for i, w := range tt.want {
				m := malformed[i]
				if m.List != w.List || m.Index != w.Index || m.SubsampleID != w.SubsampleID || !strings.Contains(m.Reason, w.Reason) {
					t.Errorf("dropped %+v; want %+v", m, w)
				}
			}
		})
	}
}

// TestReferenceListsLoseOnlyTheirMalformedElements: the library and the
// reference lists are read element by element, as the event lists are:
// an element with an id past int64, a literal JSON does not know, an id
// of 1e400 or a list in place of an object is left out and named (list,
// place, why), and the rest is read; a list nothing of which can be read
// fails the call.
func TestReferenceListsLoseOnlyTheirMalformedElements(t *testing.T) {
	ctx := context.Background()
	type call func(c *Client) (kept int, malformed []domain.MalformedElement, err error)
	lists := []struct {
		name, path, list, good string
		call                   call
	}{
		{"questions", "/supplier/v1/locales/es-us/questions", "es-us questions", `{"id": 43, "name": "GENDER"}`,
			func(c *Client) (int, []domain.MalformedElement, error) {
				got, bad, err := c.Questions(ctx, "es-us")
				return len(got), bad, err
			}},
		{"answers", "/supplier/v1/locales/es-us/questions/43/answers", "answers of es-us question 43", `{"id": 58, "name": "Male"}`,
			func(c *Client) (int, []domain.MalformedElement, error) {
				got, bad, err := c.Answers(ctx, "es-us", 43)
				return len(got), bad, err
			}},
		{"countries", "/supplier/v1/countries", ListCountries, `{"id": 7, "code": "NL", "name": "Netherlands"}`,
			func(c *Client) (int, []domain.MalformedElement, error) {
				got, bad, err := c.Countries(ctx)
				return len(got), bad, err
			}},
		{"locales", "/supplier/v1/locales", ListLocales, `{"id": 9, "countryId": 7, "locale": "nl-nl", "countryDefault": true}`,
			func(c *Client) (int, []domain.MalformedElement, error) {
				got, bad, err := c.Locales(ctx)
				return len(got), bad, err
			}},
		{"survey statuses", "/supplier/v1/survey-statuses", ListSurveyStatuses, `{"id": 3, "statusName": "Live"}`,
			func(c *Client) (int, []domain.MalformedElement, error) {
				got, bad, err := c.SurveyStatuses(ctx)
				return len(got), bad, err
			}},
	}
	bad := []struct{ name, element, reason string }{
		{"an id past int64", `{"id": 9223372036854775808, "name": "x"}`, "id is the number 9223372036854775808, not a whole number"},
		{"an id past its range", `{"id": 100000000000000000, "name": "x"}`, "id 100000000000000000 is outside"},
		{"a -Infinity literal", `{"id": -Infinity, "name": "x"}`, "it is not valid JSON"},
		{"an id of 1e400", `{"id": 1e400, "name": "x"}`, "id is the number 1e400"},
		{"a list for an object", `[1, 2]`, "it is a list, not an object"},
	}
	for _, l := range lists {
		for _, b := range bad {
			t.Run(l.name+" with "+b.name, func(t *testing.T) {
				c := serveJSON(t, http.MethodGet, l.path, "["+l.good+", "+b.element+", "+l.good+"]", nil)
				kept, malformed, err := l.call(c)
				if err != nil || kept != 2 {
					t.Fatalf("kept %d, %v; want the two good elements read", kept, err)
				}
				if len(malformed) != 1 || malformed[0].List != l.list || malformed[0].Index != 1 || !strings.Contains(malformed[0].Reason, b.reason) {
					t.Errorf("dropped %+v; want %s element 2 named, its reason saying %q", malformed, l.list, b.reason)
				}

				c = serveJSON(t, http.MethodGet, l.path, "["+b.element+"]", nil)
				var list *MalformedListError
				if _, _, err := l.call(c); !errors.As(err, &list) || list.List != l.list {
					t.Errorf("a list of nothing but %s: %v; want the call failed as a malformed list", b.name, err)
				}
			})
		}
		if l.name == "questions" || l.name == "answers" {
			// The library's elements are known by their ids: a question
			// without one would be asked for the answers of question 0.
			for _, b := range []struct{ name, element, reason string }{
				{"no id", `{"name": "x"}`, "id is missing"},
				{"an id of 0", `{"id": 0, "name": "x"}`, "id is 0"},
				{"an id of 0.0", `{"id": 0.0, "name": "x"}`, "id is 0"},
			} {
				t.Run(l.name+" with "+b.name, func(t *testing.T) {
					c := serveJSON(t, http.MethodGet, l.path, "["+l.good+", "+b.element+"]", nil)
					kept, malformed, err := l.call(c)
					if err != nil || kept != 1 || len(malformed) != 1 || !strings.Contains(malformed[0].Reason, b.reason) {
						t.Errorf("kept %d, dropped %+v, %v; want the element with %s dropped, saying %q", kept, malformed, err, b.name, b.reason)
					}
				})
			}
		}
		// No element of these lists is about a subsample: a subsampleId
		// in one does not make a list of nothing readable news.
		t.Run(l.name+" with a subsampleId in its only element", func(t *testing.T) {
			c := serveJSON(t, http.MethodGet, l.path, `[{"subsampleId": 5, "id": "x"}]`, nil)
			var list *MalformedListError
			if _, malformed, err := l.call(c); !errors.As(err, &list) {
				t.Errorf("dropped %v, %v; want the call failed as a malformed list", malformed, err)
			}
		})
	}
}
