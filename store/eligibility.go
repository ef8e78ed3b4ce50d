package store

import (
	"context"
	"encoding/json"
	"fmt"

	"fieldboard/rules/domain"
)

// Eligibility rule kinds, named after the arrays of the provider's
// eligibility-rules object.
const (
	RuleSurveys       = "surveys"
	RuleResearchTypes = "researchTypes"
	RuleCategories    = "categories"
	RuleEvents        = "events"
)

// ruleRow is one entry of one of the four arrays, flattened for storage.
type ruleRow struct {
	Kind               string  `db:"kind"`
	RefID              *int64  `db:"ref_id"`
	Name               *string `db:"name"`
	MainCategoryID     *int64  `db:"main_category_id"`
	GenericCategoryID  *int64  `db:"generic_category_id"`
	SpecificCategoryID *int64  `db:"specific_category_id"`
	NumDays            int64   `db:"num_days"`
	ReturnCodes        []int64 `db:"-"`
	ReturnCodesJSON    string  `db:"return_codes"`
}

func ruleRows(r domain.EligibilityRules) []ruleRow {
	var rows []ruleRow
	for _, e := range r.Surveys {
		rows = append(rows, ruleRow{Kind: RuleSurveys, RefID: e.ID, NumDays: e.NumDays, ReturnCodes: e.ReturnCodes})
	}
	for _, e := range r.ResearchTypes {
		rows = append(rows, ruleRow{Kind: RuleResearchTypes, RefID: e.ID, NumDays: e.NumDays, ReturnCodes: e.ReturnCodes})
	}
	for _, e := range r.Categories {
		rows = append(rows, ruleRow{Kind: RuleCategories, MainCategoryID: e.MainCategoryID,
			GenericCategoryID: e.GenericCategoryID, SpecificCategoryID: e.SpecificCategoryID,
			NumDays: e.NumDays, ReturnCodes: e.ReturnCodes})
	}
	for _, e := range r.Events {
		rows = append(rows, ruleRow{Kind: RuleEvents, RefID: e.ID, Name: e.Name, NumDays: e.NumDays, ReturnCodes: e.ReturnCodes})
	}
	for i := range rows {
		if rows[i].ReturnCodes == nil {
			rows[i].ReturnCodes = []int64{}
		}
	}
	return rows
}

// EligibilityRulesOf returns the eligibility rules of a live subsample as
// the provider sent them, in their original order.
func (s *Store) EligibilityRulesOf(ctx context.Context, subsampleID int64) (domain.EligibilityRules, error) {
	if subsampleID == 0 {
		return domain.EligibilityRules{}, nil
	}
	rules, err := allEligibilityRules(ctx, s.reader, subsampleID)
	if err != nil {
		return domain.EligibilityRules{}, err
	}
	return rules[subsampleID], nil
}

// appendTo adds the entry to the array of rules it belongs to.
func (r ruleRow) appendTo(rules *domain.EligibilityRules) error {
	var codes []int64
	if err := json.Unmarshal([]byte(r.ReturnCodesJSON), &codes); err != nil {
		return fmt.Errorf("return codes: %w", err)
	}
	switch r.Kind {
	case RuleSurveys:
		rules.Surveys = append(rules.Surveys, domain.SurveyRule{ID: r.RefID, NumDays: r.NumDays, ReturnCodes: codes})
	case RuleResearchTypes:
		rules.ResearchTypes = append(rules.ResearchTypes, domain.ResearchTypeRule{ID: r.RefID, NumDays: r.NumDays, ReturnCodes: codes})
	case RuleCategories:
		rules.Categories = append(rules.Categories, domain.CategoryRule{MainCategoryID: r.MainCategoryID,
			GenericCategoryID: r.GenericCategoryID, SpecificCategoryID: r.SpecificCategoryID,
			NumDays: r.NumDays, ReturnCodes: codes})
	case RuleEvents:
		rules.Events = append(rules.Events, domain.EventRule{ID: r.RefID, Name: r.Name, NumDays: r.NumDays, ReturnCodes: codes})
	default:
		return fmt.Errorf("unknown rule kind %q", r.Kind)
	}
	return nil
}
