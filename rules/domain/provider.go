package domain

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// The types below mirror the resources of the Supplier Sample Allocation API
// (../shared/supplier-api-spec.md): the client decodes them, the store
// keeps them and the rules decide on them.
//
// Decoding is tolerant on purpose. encoding/json matches object keys to
// struct tags case-insensitively, which is what the spec asks for where the
// provider spells the same key as Id or id, NumDays or numDays. Optional
// fields are pointers (nil when null or absent), unknown fields are ignored,
// and dates are zone-less local times that the client places in the
// provider's time zone once decoded (LocalTime.PlaceIn).

// Subsample status names as the provider spells them in event lists.
const (
	StatusPending        = "Pending"
	StatusLive           = "Live"
	StatusComplete       = "Complete"
	StatusCanceled       = "Canceled"
	StatusLiveForTesting = "Live for testing"
)

// Statuses are the subsample statuses a coordinator works with, in the
// order lists and filters show them (the spec's sixth, "Pending(do not
// use)", is not to be used).
var Statuses = []string{StatusLive, StatusLiveForTesting, StatusPending, StatusComplete, StatusCanceled}

// ParseStatus reads a subsample status as a filter takes it: any case,
// spaces around ignored, the canonical spelling returned. A name that is
// not one of Statuses is an error that lists them.
func ParseStatus(raw string) (string, error) {
	s := NormalizeStatus(raw)
	if !slices.Contains(Statuses, s) {
		return "", fmt.Errorf("status %q is not one of %s", raw, strings.Join(Statuses, ", "))
	}
	return s, nil
}

// NormalizeStatus returns the canonical spelling of a subsample status name.
// The survey-statuses endpoint says "live for testing" in lower case while the
// event endpoints say "Live for testing"; both mean status 6. Names that are
// not known are returned trimmed but otherwise unchanged.
func NormalizeStatus(name string) string {
	name = strings.TrimSpace(name)
	for _, known := range []string{StatusPending, StatusLive, StatusComplete, StatusCanceled, StatusLiveForTesting, "Pending(do not use)"} {
		if strings.EqualFold(name, known) {
			return known
		}
	}
	return name
}

// Country is the country of a subsample or an element of the countries list.
type Country struct {
	ID         int64  `json:"id"`
	Code       string `json:"code"`
	Name       string `json:"name"`
	RegionName string `json:"regionName"`
}

// SubsampleSummary is one element of POST /supplier/v1/event/all: a subsample
// the supplier has or had an allocation in, whatever its status.
type SubsampleSummary struct {
	EventID         int64     `json:"eventId"`
	BillingEntity   string    `json:"billingEntity"`
	SubsampleID     int64     `json:"subsampleId"`
	SubsampleStatus string    `json:"subsampleStatus"`
	SubsampleName   string    `json:"subsampleName"`
	Country         Country   `json:"country"`
	FieldStartDate  LocalTime `json:"fieldStartDate"`
	FieldEndDate    LocalTime `json:"fieldEndDate"`
}

// Category is one element of a live subsample's categories: the specific
// category with the generic and main categories that contain it.
type Category struct {
	MainCategory      string `json:"mainCategory"`
	MainCategoryID    int64  `json:"mainCategoryId"`
	GenericCategory   string `json:"genericCategory"`
	GenericCategoryID int64  `json:"genericCategoryId"`
	Category          string `json:"category"`
	CategoryID        int64  `json:"categoryId"`
}

// Locale of a live subsample, with its entry links.
type SubsampleLocale struct {
	Name             string `json:"name"`
	LiveEntryLink    string `json:"liveEntryLink"`
	TestingEntryLink string `json:"testingEntryLink"`
}

// LiveSubsample is one element of POST /supplier/v1/event/live-details.
// Fields the spec does not mark as required are pointers.
type LiveSubsample struct {
	EventID                 int64             `json:"eventId"`
	EventName               string            `json:"eventName"`
	Categories              []Category        `json:"categories"`
	JobBookID               *string           `json:"jobBookId"`
	BillingEntity           *string           `json:"billingEntity"`
	PrimaryProjectManager   *string           `json:"primaryProjectManager"`
	SecondaryProjectManager *string           `json:"secondaryProjectManager"`
	ContactEmailAddress     *string           `json:"contactEmailAddress"`
	GroupID                 *int64            `json:"groupId"`
	AllowDesktop            bool              `json:"allowDesktop"`
	AllowMobile             bool              `json:"allowMobile"`
	AllowTablet             bool              `json:"allowTablet"`
	SubsampleID             int64             `json:"subsampleId"`
	SubsampleStatus         string            `json:"subsampleStatus"`
	SubsampleName           string            `json:"subsampleName"`
	Countries               []Country         `json:"countries"`
	Locales                 []SubsampleLocale `json:"locales"`
	FieldStartDate          LocalTime         `json:"fieldStartDate"`
	FieldEndDate            LocalTime         `json:"fieldEndDate"`
	SurveyAPICompatibility  bool              `json:"surveyAPIcompatibility"`
	RequiresFlash           bool              `json:"requiresFlash"`
	ChildSurvey             *bool             `json:"childSurvey"`
	CollectPII              bool              `json:"collectPII"`
	FacialCoding            bool              `json:"facialCoding"`
	SampleCategoryID        *int64            `json:"sampleCategoryId"`
	SampleSubCategoryID     *int64            `json:"sampleSubCategoryId"`
	ResearchType            string            `json:"researchType"`
	ResearchTypeID          int64             `json:"researchTypeId"`
	InterviewType           *int64            `json:"interviewType"`
	ExpectedClientLOI       *float64          `json:"expectedClientLoi"`
	ExpectedIncidenceRate   *float64          `json:"expectedIncidenceRate"`
	TargetedCurrency        string            `json:"targetedCurrency"`
	TargetedCPI             float64           `json:"targetedCPI"`
	// CompletesAutoIncrementSchedule is kept as the provider sent it: the spec
	// names its four members but not their formats.
	CompletesAutoIncrementSchedule json.RawMessage `json:"completesAutoIncrementSchedule"`
	FeasibilityID                  *int64          `json:"feasibilityId"`
	Automation                     *bool           `json:"automation"`
	MarketplaceEnabled             *bool           `json:"marketplaceEnabled"`
	NeedRecontact                  *bool           `json:"needRecontact"`
}

// Quota is one element of GET /supplier/v1/subsamples/{id}/quotas.
type Quota struct {
	SubsampleStatus            string          `json:"subsampleStatus"`
	ActualClientIncidenceRate  float64         `json:"actualClientIncidenceRate"`
	ActualClientConversionRate float64         `json:"actualClientConversionRate"`
	ActualClientAbandonRate    float64         `json:"actualClientAbandonRate"`
	EstimatedIncidence         float64         `json:"estimatedIncidence"`
	Questions                  []QuotaQuestion `json:"questions"`
	RemainingExclusive         int64           `json:"remainingExclusive"`
	RemainingShared            int64           `json:"remainingShared"`
	ActualClientLOI            float64         `json:"actualClientLOI"`
	EstimatedLOI               float64         `json:"estimatedLOI"`
	AchievedInterviews         int64           `json:"achievedInterviews"`
	TableID                    int64           `json:"tableId"`
	TableName                  string          `json:"tableName"`
	QuotaID                    int64           `json:"quotaId"`
	QuotaName                  string          `json:"quotaName"`
	QuotaType                  string          `json:"quotaType"`
}

// Quota types observed in the provider's answers.
const (
	QuotaTypeCounting = "counting"
	QuotaTypeHard     = "hard"
)

// Remaining is the number of completes still needed on the quota, exclusive
// and shared allocation together (the spec's Quota sending rule). The
// client bounds both counts (MaxCompletes); a sum beyond 64 bits, of
// counts read before those bounds, stops at the largest or smallest
// int64 instead of wrapping to the other sign, so a cell with more than
// it can count is open, never full.
func (q Quota) Remaining() int64 {
	a, b := q.RemainingExclusive, q.RemainingShared
	switch {
	case a > 0 && b > math.MaxInt64-a:
		return math.MaxInt64
	case a < 0 && b < math.MinInt64-a:
		return math.MinInt64
	}
	return a + b
}

// IsTotal reports whether q is the subsample's total quota: quotaType
// counting, table name Total Quota and no conditions.
func (q Quota) IsTotal() bool {
	return strings.EqualFold(q.QuotaType, QuotaTypeCounting) &&
		strings.EqualFold(strings.TrimSpace(q.TableName), "Total Quota") &&
		len(q.Questions) == 0
}

// QuotaQuestion is one condition of a quota: the panelist's answer to
// question ID must be one of Answers (operator OR). ID is -1 for the age
// range question.
type QuotaQuestion struct {
	ID       int64         `json:"id"`
	Operator string        `json:"operator"`
	Locale   *string       `json:"locale"`
	Answers  []QuotaAnswer `json:"answers"`
}

// QuotaAnswer is either a reference to an answer of the library (ID set) or
// a range (RangeStart and RangeEnd set, as strings the way the provider
// sends them).
type QuotaAnswer struct {
	ID         *int64  `json:"id,omitempty"`
	RangeStart *string `json:"rangeStart,omitempty"`
	RangeEnd   *string `json:"rangeEnd,omitempty"`
}

// IsRange reports whether the answer is a range rather than an answer id.
func (a QuotaAnswer) IsRange() bool { return a.RangeStart != nil || a.RangeEnd != nil }

// EligibilityRules is the response of GET /supplier/v1/subsamples/{id}/eligibility-rules.
type EligibilityRules struct {
	Surveys       []SurveyRule       `json:"surveys"`
	ResearchTypes []ResearchTypeRule `json:"researchTypes"`
	Categories    []CategoryRule     `json:"categories"`
	Events        []EventRule        `json:"events"`
}

// SurveyRule excludes respondents with a history on subsample ID.
// The provider spells the keys Id or id, NumDays or numDays.
type SurveyRule struct {
	ID          *int64  `json:"id"`
	NumDays     int64   `json:"numDays"`
	ReturnCodes []int64 `json:"returnCodes"`
}

// ResearchTypeRule excludes respondents with a history on surveys of
// research type ID.
type ResearchTypeRule struct {
	ID          *int64  `json:"id"`
	NumDays     int64   `json:"numDays"`
	ReturnCodes []int64 `json:"returnCodes"`
}

// CategoryRule excludes respondents with a history in a topic; the most
// specific non-null, non-zero level is the one compared.
type CategoryRule struct {
	MainCategoryID     *int64  `json:"mainCategoryId"`
	GenericCategoryID  *int64  `json:"genericCategoryId"`
	SpecificCategoryID *int64  `json:"specificCategoryId"`
	NumDays            int64   `json:"numDays"`
	ReturnCodes        []int64 `json:"returnCodes"`
}

// EventRule excludes respondents with a history on any subsample of event ID.
type EventRule struct {
	ID          *int64  `json:"id"`
	Name        *string `json:"name"`
	NumDays     int64   `json:"numDays"`
	ReturnCodes []int64 `json:"returnCodes"`
}

// Question is one standard question of a locale's library.
type Question struct {
	Type        string `json:"type"`
	Translation string `json:"translation"`
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Text        string `json:"text"`
}

// AgeRangeQuestionID is the id of the library's range question, agerange.
const AgeRangeQuestionID = -1

// Answer is one answer of a library question.
type Answer struct {
	Type        string `json:"type"`
	Translation string `json:"translation"`
	IsExclusive bool   `json:"isExclusive"`
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Text        string `json:"text"`
}

// IsNullValue reports whether the answer is the provider's NULL VALUE entry.
func (a Answer) IsNullValue() bool { return strings.EqualFold(strings.TrimSpace(a.Name), "NULL VALUE") }

// Locale is one element of GET /supplier/v1/locales.
type Locale struct {
	ID              int64  `json:"id"`
	CountryID       int64  `json:"countryId"`
	Name            string `json:"name"`
	NameTranslation string `json:"nameTranslation"`
	Locale          string `json:"locale"`
	ShortLocale     string `json:"shortLocale"`
	CountryDefault  bool   `json:"countryDefault"`
	CountryName     string `json:"countryName"`
	CountryCode     string `json:"countryCode"`
	RegionName      string `json:"regionName"`
}

// SurveyStatus is one element of GET /supplier/v1/survey-statuses.
type SurveyStatus struct {
	ID         int64  `json:"id"`
	StatusName string `json:"statusName"`
}
