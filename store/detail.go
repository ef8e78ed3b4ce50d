package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"fieldboard/rules/domain"
)

// liveSubsampleRow is one row of live_subsamples, as stored.
type liveSubsampleRow struct {
	SubsampleID         int64      `db:"subsample_id"`
	EventID             int64      `db:"event_id"`
	EventName           string     `db:"event_name"`
	Name                string     `db:"name"`
	Status              string     `db:"status"`
	JobBookID           *string    `db:"job_book_id"`
	BillingEntity       *string    `db:"billing_entity"`
	PrimaryManager      *string    `db:"primary_manager"`
	SecondaryManager    *string    `db:"secondary_manager"`
	ContactEmail        *string    `db:"contact_email"`
	GroupID             *int64     `db:"group_id"`
	AllowDesktop        bool       `db:"allow_desktop"`
	AllowMobile         bool       `db:"allow_mobile"`
	AllowTablet         bool       `db:"allow_tablet"`
	FieldStart          *time.Time `db:"field_start"`
	FieldEnd            *time.Time `db:"field_end"`
	APICompatible       bool       `db:"api_compatible"`
	RequiresFlash       bool       `db:"requires_flash"`
	ChildSurvey         *bool      `db:"child_survey"`
	CollectPII          bool       `db:"collect_pii"`
	FacialCoding        bool       `db:"facial_coding"`
	SampleCategoryID    *int64     `db:"sample_category_id"`
	SampleSubCategoryID *int64     `db:"sample_sub_category_id"`
	ResearchType        string     `db:"research_type"`
	ResearchTypeID      int64      `db:"research_type_id"`
	InterviewType       *int64     `db:"interview_type"`
	ExpectedLOI         *float64   `db:"expected_loi"`
	ExpectedIncidence   *float64   `db:"expected_incidence"`
	Currency            string     `db:"currency"`
	CPI                 float64    `db:"cpi"`
	AutoIncrement       *string    `db:"auto_increment"`
	FeasibilityID       *int64     `db:"feasibility_id"`
	Automation          *bool      `db:"automation"`
	MarketplaceEnabled  *bool      `db:"marketplace_enabled"`
	NeedRecontact       *bool      `db:"need_recontact"`
}

// LiveSubsample returns one live subsample of the current snapshot as
// live-details sent it: its properties with its categories, countries and
// locales in the provider's order. It returns ErrNotFound when the
// subsample is not live.
func (s *Store) LiveSubsample(ctx context.Context, subsampleID int64) (domain.LiveSubsample, error) {
	var r liveSubsampleRow
	err := s.reader.GetContext(ctx, &r, `
		SELECT subsample_id, event_id, event_name, name, status, job_book_id, billing_entity,
			primary_manager, secondary_manager, contact_email, group_id, allow_desktop, allow_mobile,
			allow_tablet, field_start, field_end, api_compatible, requires_flash, child_survey,
			collect_pii, facial_coding, sample_category_id, sample_sub_category_id, research_type,
			research_type_id, interview_type, expected_loi, expected_incidence, currency, cpi,
			auto_increment, feasibility_id, automation, marketplace_enabled, need_recontact
		FROM live_subsamples WHERE subsample_id = ?`, subsampleID)
	if err != nil {
		return domain.LiveSubsample{}, fmt.Errorf("live subsample %d: %w", subsampleID, notFound(err))
	}
	l := domain.LiveSubsample{
		EventID: r.EventID, EventName: r.EventName, SubsampleID: r.SubsampleID, SubsampleName: r.Name,
		SubsampleStatus: r.Status, JobBookID: r.JobBookID, BillingEntity: r.BillingEntity,
		PrimaryProjectManager: r.PrimaryManager, SecondaryProjectManager: r.SecondaryManager,
		ContactEmailAddress: r.ContactEmail, GroupID: r.GroupID,
		AllowDesktop: r.AllowDesktop, AllowMobile: r.AllowMobile, AllowTablet: r.AllowTablet,
		SurveyAPICompatibility: r.APICompatible, RequiresFlash: r.RequiresFlash, ChildSurvey: r.ChildSurvey,
		CollectPII: r.CollectPII, FacialCoding: r.FacialCoding,
		SampleCategoryID: r.SampleCategoryID, SampleSubCategoryID: r.SampleSubCategoryID,
		ResearchType: r.ResearchType, ResearchTypeID: r.ResearchTypeID, InterviewType: r.InterviewType,
		ExpectedClientLOI: r.ExpectedLOI, ExpectedIncidenceRate: r.ExpectedIncidence,
		TargetedCurrency: r.Currency, TargetedCPI: r.CPI, FeasibilityID: r.FeasibilityID,
		Automation: r.Automation, MarketplaceEnabled: r.MarketplaceEnabled, NeedRecontact: r.NeedRecontact,
	}
	if r.FieldStart != nil {
		l.FieldStartDate.Time = *r.FieldStart
	}
	if r.FieldEnd != nil {
		l.FieldEndDate.Time = *r.FieldEnd
	}
	if r.AutoIncrement != nil {
		l.CompletesAutoIncrementSchedule = json.RawMessage(*r.AutoIncrement)
	}

	if err := s.reader.SelectContext(ctx, &l.Categories, `
		SELECT main AS maincategory, main_id AS maincategoryid, generic AS genericcategory,
			generic_id AS genericcategoryid, category, category_id AS categoryid
		FROM live_categories WHERE subsample_id = ? ORDER BY position`, subsampleID); err != nil {
		return domain.LiveSubsample{}, fmt.Errorf("categories of live subsample %d: %w", subsampleID, err)
	}
	if err := s.reader.SelectContext(ctx, &l.Countries, `
		SELECT country_id AS id, code, name, region AS regionname
		FROM live_countries WHERE subsample_id = ? ORDER BY position`, subsampleID); err != nil {
		return domain.LiveSubsample{}, fmt.Errorf("countries of live subsample %d: %w", subsampleID, err)
	}
	if err := s.reader.SelectContext(ctx, &l.Locales, `
		SELECT locale AS name, live_link AS liveentrylink, testing_link AS testingentrylink
		FROM live_locales WHERE subsample_id = ? ORDER BY position`, subsampleID); err != nil {
		return domain.LiveSubsample{}, fmt.Errorf("locales of live subsample %d: %w", subsampleID, err)
	}
	return l, nil
}

// SubsampleSummary returns a subsample's entry in the event list
// (event/all), or ErrNotFound when the event list does not hold it.
func (s *Store) SubsampleSummary(ctx context.Context, subsampleID int64) (domain.SubsampleSummary, error) {
	var r struct {
		SubsampleID   int64      `db:"subsample_id"`
		EventID       int64      `db:"event_id"`
		Name          string     `db:"name"`
		Status        string     `db:"status"`
		BillingEntity string     `db:"billing_entity"`
		CountryID     int64      `db:"country_id"`
		CountryCode   string     `db:"country_code"`
		CountryName   string     `db:"country_name"`
		CountryRegion string     `db:"country_region"`
		FieldStart    *time.Time `db:"field_start"`
		FieldEnd      *time.Time `db:"field_end"`
	}
	err := s.reader.GetContext(ctx, &r, `
		SELECT subsample_id, event_id, name, status, billing_entity, country_id, country_code,
			country_name, country_region, field_start, field_end
		FROM subsamples WHERE subsample_id = ?`, subsampleID)
	if err != nil {
		return domain.SubsampleSummary{}, fmt.Errorf("event list entry of subsample %d: %w", subsampleID, notFound(err))
	}
	out := domain.SubsampleSummary{
		EventID: r.EventID, BillingEntity: r.BillingEntity, SubsampleID: r.SubsampleID,
		SubsampleStatus: r.Status, SubsampleName: r.Name,
		Country: domain.Country{ID: r.CountryID, Code: r.CountryCode, Name: r.CountryName, RegionName: r.CountryRegion},
	}
	if r.FieldStart != nil {
		out.FieldStartDate.Time = *r.FieldStart
	}
	if r.FieldEnd != nil {
		out.FieldEndDate.Time = *r.FieldEnd
	}
	return out, nil
}

// Library returns the questions among questionIDs that a locale's library
// holds, by id, with their answers by question id and answer id. Questions
// the library lacks are simply absent.
func (s *Store) Library(ctx context.Context, locale string, questionIDs []int64) (map[int64]domain.Question, map[int64]map[int64]domain.Answer, error) {
	questions := make(map[int64]domain.Question)
	answers := make(map[int64]map[int64]domain.Answer)
	if len(questionIDs) == 0 {
		return questions, answers, nil
	}
	var qs []domain.Question
	if err := s.reader.SelectContext(ctx, &qs, `
		SELECT question_id AS id, type, name, text, translation FROM questions
		WHERE locale = ? AND question_id IN (`+idList(questionIDs)+`)`, locale); err != nil {
		return nil, nil, fmt.Errorf("questions of %s: %w", locale, err)
	}
	for _, q := range qs {
		questions[q.ID] = q
	}
	var as []struct {
		QuestionID int64 `db:"question_id"`
		domain.Answer
	}
	if err := s.reader.SelectContext(ctx, &as, `
		SELECT question_id, answer_id AS id, type, name, text, translation, is_exclusive AS isexclusive
		FROM answers WHERE locale = ? AND question_id IN (`+idList(questionIDs)+`)`, locale); err != nil {
		return nil, nil, fmt.Errorf("answers of %s: %w", locale, err)
	}
	for _, a := range as {
		if answers[a.QuestionID] == nil {
			answers[a.QuestionID] = make(map[int64]domain.Answer)
		}
		answers[a.QuestionID][a.ID] = a.Answer
	}
	return questions, answers, nil
}
