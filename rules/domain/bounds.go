package domain

import (
	"fmt"
	"strconv"
)

// The ranges the provider's numbers are read into (docs/rules.md, "What the
// provider's answers must hold"). A value outside its range makes its
// element malformed, as a value of the wrong type does: an "unlimited"
// sentinel such as 9223372036854775807 would otherwise overflow the first
// sum, in Go or in SQL, and a price near the float maximum make every
// product infinite.
const (
	// MaxCompletes bounds a quota's remainingExclusive, remainingShared
	// (each from -MaxCompletes, a cell achieved beyond its target) and
	// achievedInterviews (from 0): a billion completes is more than any
	// panel holds people, and sums of a million such counts stay far from
	// the 64-bit limit.
	MaxCompletes = 1_000_000_000
	// MaxID bounds every id (subsample, event, quota, table, category,
	// research type, question, answer, status, country): 2^53-1, the
	// largest integer every JSON reader, doubles included, holds exactly.
	MaxID = 1<<53 - 1
	// MaxCPI bounds a price per interview, in the currency's units, from 0:
	// a billion covers the currencies of the smallest units.
	MaxCPI = 1e9
	// MaxLOIMinutes bounds a length of interview, in minutes, from 0: a day.
	MaxLOIMinutes = 24 * 60
	// MaxRate bounds an incidence, conversion or abandon rate, a
	// percentage, from 0.
	MaxRate = 100
	// MaxNumDays bounds an eligibility entry's numDays, from 0 (forever):
	// a hundred years, well inside what a time.Duration holds.
	MaxNumDays = 36_600
	// MaxReturnCodes bounds the returnCodes of one eligibility entry; each
	// code is a status id, from 0 (the placeholder) to MaxID.
	MaxReturnCodes = 1_000
	// MaxLocales bounds the locales of one live subsample, a target of
	// one country or locale: more languages than any survey is translated
	// into, and each locale's library is a read of its own.
	MaxLocales = 100
	// MaxLinkBytes bounds an entry link: a longer one is not a link a
	// survey platform hands out, and is never shortened, which would break
	// it.
	MaxLinkBytes = 8 << 10
)

// bounds collects the first value found outside its range.
type bounds struct{ why string }

func (b *bounds) int(field string, v, lo, hi int64) {
	if b.why == "" && (v < lo || v > hi) {
		b.why = fmt.Sprintf("%s %d is outside %d to %d", field, v, lo, hi)
	}
}

func (b *bounds) id(field string, v int64) { b.int(field, v, 0, MaxID) }

func (b *bounds) optID(field string, v *int64) {
	if v != nil {
		b.id(field, *v)
	}
}

func (b *bounds) float(field string, v, lo, hi float64) {
	if b.why == "" && !(v >= lo && v <= hi) {
		b.why = fmt.Sprintf("%s %s is outside %s to %s", field, formatNumber(v), formatNumber(lo), formatNumber(hi))
	}
}

func (b *bounds) optFloat(field string, v *float64, lo, hi float64) {
	if v != nil {
		b.float(field, *v, lo, hi)
	}
}

func (b *bounds) link(field, link string) {
	if b.why == "" && len(link) > MaxLinkBytes {
		b.why = fmt.Sprintf("%s is %d bytes long, more than %d", field, len(link), MaxLinkBytes)
	}
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// OutOfBounds names the first number of s outside its range, or "".
func (s SubsampleSummary) OutOfBounds() string {
	var b bounds
	b.id("eventId", s.EventID)
	b.id("subsampleId", s.SubsampleID)
	b.id("country.id", s.Country.ID)
	return b.why
}

// OutOfBounds names the first number of s outside its range, or an entry
// link longer than MaxLinkBytes; "" when there is none.
func (s LiveSubsample) OutOfBounds() string {
	var b bounds
	b.id("eventId", s.EventID)
	b.id("subsampleId", s.SubsampleID)
	b.id("researchTypeId", s.ResearchTypeID)
	b.optID("groupId", s.GroupID)
	b.optID("sampleCategoryId", s.SampleCategoryID)
	b.optID("sampleSubCategoryId", s.SampleSubCategoryID)
	b.optID("interviewType", s.InterviewType)
	b.optID("feasibilityId", s.FeasibilityID)
	for i, c := range s.Categories {
		p := "categories[" + strconv.Itoa(i) + "]."
		b.id(p+"mainCategoryId", c.MainCategoryID)
		b.id(p+"genericCategoryId", c.GenericCategoryID)
		b.id(p+"categoryId", c.CategoryID)
	}
	for i, c := range s.Countries {
		b.id("countries["+strconv.Itoa(i)+"].id", c.ID)
	}
	b.float("targetedCPI", s.TargetedCPI, 0, MaxCPI)
	b.optFloat("expectedClientLoi", s.ExpectedClientLOI, 0, MaxLOIMinutes)
	b.optFloat("expectedIncidenceRate", s.ExpectedIncidenceRate, 0, MaxRate)
	if b.why == "" && len(s.Locales) > MaxLocales {
		b.why = fmt.Sprintf("it lists %d locales, more than %d", len(s.Locales), MaxLocales)
	}
	for i, l := range s.Locales {
		b.link(fmt.Sprintf("locales[%d].liveEntryLink", i), l.LiveEntryLink)
		b.link(fmt.Sprintf("locales[%d].testingEntryLink", i), l.TestingEntryLink)
	}
	return b.why
}

// OutOfBounds names the first number of q outside its range, or "".
func (q Quota) OutOfBounds() string {
	var b bounds
	b.id("quotaId", q.QuotaID)
	b.id("tableId", q.TableID)
	b.int("remainingExclusive", q.RemainingExclusive, -MaxCompletes, MaxCompletes)
	b.int("remainingShared", q.RemainingShared, -MaxCompletes, MaxCompletes)
	b.int("achievedInterviews", q.AchievedInterviews, 0, MaxCompletes)
	b.float("actualClientIncidenceRate", q.ActualClientIncidenceRate, 0, MaxRate)
	b.float("actualClientConversionRate", q.ActualClientConversionRate, 0, MaxRate)
	b.float("actualClientAbandonRate", q.ActualClientAbandonRate, 0, MaxRate)
	b.float("estimatedIncidence", q.EstimatedIncidence, 0, MaxRate)
	b.float("actualClientLOI", q.ActualClientLOI, 0, MaxLOIMinutes)
	b.float("estimatedLOI", q.EstimatedLOI, 0, MaxLOIMinutes)
	for i, question := range q.Questions {
		p := "questions[" + strconv.Itoa(i) + "]"
		if question.ID != AgeRangeQuestionID {
			b.id(p+".id", question.ID)
		}
		for j, a := range question.Answers {
			b.optID(p+".answers["+strconv.Itoa(j)+"].id", a.ID)
		}
	}
	return b.why
}

// OutOfBounds names the first number of r outside its range, or an entry
// with more than MaxReturnCodes codes; "" when there is none.
func (r EligibilityRules) OutOfBounds() string {
	var b bounds
	entry := func(name string, i int, numDays int64, codes []int64, ids ...*int64) {
		p := name + "[" + strconv.Itoa(i) + "]"
		for _, id := range ids {
			b.optID(p+".id", id)
		}
		b.int(p+".numDays", numDays, 0, MaxNumDays)
		if b.why == "" && len(codes) > MaxReturnCodes {
			b.why = fmt.Sprintf("%s has %d returnCodes, more than %d", p, len(codes), MaxReturnCodes)
		}
		for _, c := range codes {
			b.id(p+".returnCodes", c)
		}
	}
	for i, e := range r.Surveys {
		entry("surveys", i, e.NumDays, e.ReturnCodes, e.ID)
	}
	for i, e := range r.ResearchTypes {
		entry("researchTypes", i, e.NumDays, e.ReturnCodes, e.ID)
	}
	for i, e := range r.Categories {
		entry("categories", i, e.NumDays, e.ReturnCodes, e.MainCategoryID, e.GenericCategoryID, e.SpecificCategoryID)
	}
	for i, e := range r.Events {
		entry("events", i, e.NumDays, e.ReturnCodes, e.ID)
	}
	return b.why
}

// OutOfBounds names q's id when it is outside its range (the age range
// question is -1), or "".
func (q Question) OutOfBounds() string {
	var b bounds
	if q.ID != AgeRangeQuestionID {
		b.id("id", q.ID)
	}
	return b.why
}

// OutOfBounds names a's id when it is outside its range, or "".
func (a Answer) OutOfBounds() string {
	var b bounds
	b.id("id", a.ID)
	return b.why
}

// OutOfBounds names c's id when it is outside its range, or "".
func (c Country) OutOfBounds() string {
	var b bounds
	b.id("id", c.ID)
	return b.why
}

// OutOfBounds names the first of l's ids outside its range, or "".
func (l Locale) OutOfBounds() string {
	var b bounds
	b.id("id", l.ID)
	b.id("countryId", l.CountryID)
	return b.why
}

// OutOfBounds names s's id when it is outside its range, or "".
func (s SurveyStatus) OutOfBounds() string {
	var b bounds
	b.id("id", s.ID)
	return b.why
}
