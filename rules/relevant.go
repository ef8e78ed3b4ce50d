package rules

import (
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// RelevantHistory names the history records that can exclude a panelist
// from target, so a bulk check reads only those: records whose status is
// one of Statuses and that lie on one of the subsamples, research types,
// events or (specific) categories the applicable entries name, plus any
// record on target itself, on its event or on a subsample the provider
// groups in its event (unique respondents, SubsampleID, EventID and
// EventSubsampleIDs), plus every record whose status is one of
// AnyOf (the quality hold's, on any subsample); with UnknownCategories, records whose category
// was never seen too (they match a generic or main entry). An entry that
// does not apply (0 or null id, placeholder codes) names nothing; a generic
// or main category entry names every specific category under it.
//
// HeldBy, when set, says that of the records of AnyOf only those of a
// subsample on which the panelist has a record of a status in HeldBy
// registered at or after HeldSince can matter (the quality hold's:
// QualityHoldPolicy.Relevant). A reader may still read them all: what
// can matter is among them.
type RelevantHistory struct {
	SubsampleID       int64
	EventID           int64
	EventSubsampleIDs []int64
	Statuses          []int64
	SubsampleIDs      []int64
	ResearchTypeIDs   []int64
	EventIDs          []int64
	CategoryIDs       []int64
	UnknownCategories bool
	AnyOf             []int64
	HeldBy            []int64
	HeldSince         time.Time
}

// Relevant returns the history that can matter for target under rules,
// the records WithTopics completes from topics included: those on
// subsamples of a research type or a category an entry names, or that
// the provider groups in the target's event or an event an entry names.
func Relevant(target Target, rules domain.EligibilityRules, parents domain.CategoryParents, topics domain.SubsampleTopics) RelevantHistory {
	r := RelevantHistory{SubsampleID: target.SubsampleID, EventID: target.EventID}
	addCodes := func(codes []int64) {
		for _, c := range codes {
			if c != 0 && !slices.Contains(r.Statuses, c) {
				r.Statuses = append(r.Statuses, c)
			}
		}
	}
	add := func(ids *[]int64, id int64, codes []int64) {
		if id == 0 || !hasRealCode(codes) {
			return
		}
		if !slices.Contains(*ids, id) {
			*ids = append(*ids, id)
		}
		addCodes(codes)
	}
	for _, e := range rules.Surveys {
		add(&r.SubsampleIDs, idOf(e.ID), e.ReturnCodes)
	}
	// A record of an unknown (0) research type, category or event may be
	// any entry's (fieldMatches), whichever it names.
	unknown := func(ids *[]int64, id int64, codes []int64) {
		if id != 0 && hasRealCode(codes) && !slices.Contains(*ids, 0) {
			*ids = append(*ids, 0)
		}
	}
	for _, e := range rules.ResearchTypes {
		id := idOf(e.ID)
		add(&r.ResearchTypeIDs, id, e.ReturnCodes)
		unknown(&r.ResearchTypeIDs, id, e.ReturnCodes)
		for sub, t := range topics.All() {
			if id != 0 && t.ResearchTypeID == id {
				add(&r.SubsampleIDs, sub, e.ReturnCodes)
			}
		}
	}
	for _, e := range rules.Events {
		id := idOf(e.ID)
		add(&r.EventIDs, id, e.ReturnCodes)
		unknown(&r.EventIDs, id, e.ReturnCodes)
		for sub, t := range topics.All() {
			if id != 0 && slices.Contains(t.EventIDs, id) {
				add(&r.SubsampleIDs, sub, e.ReturnCodes)
			}
		}
	}
	if target.EventID != 0 {
		for sub, t := range topics.All() {
			if sub != target.SubsampleID && slices.Contains(t.EventIDs, target.EventID) {
				r.EventSubsampleIDs = append(r.EventSubsampleIDs, sub)
			}
		}
		slices.Sort(r.EventSubsampleIDs)
	}
	for i := range rules.Categories {
		e := &rules.Categories[i]
		level, id := categoryLevel(e)
		unknown(&r.CategoryIDs, id, e.ReturnCodes)
		if level == matchSpecificCategory {
			add(&r.CategoryIDs, id, e.ReturnCodes)
			continue
		}
		for specific := range parents {
			if fieldMatches(&domain.HistoryRecord{CategoryID: specific}, level, id, parents) {
				add(&r.CategoryIDs, specific, e.ReturnCodes)
			}
		}
		if id != 0 && hasRealCode(e.ReturnCodes) {
			r.UnknownCategories = true
			addCodes(e.ReturnCodes)
		}
	}
	for i := range rules.Categories {
		e := &rules.Categories[i]
		level, id := categoryLevel(e)
		for sub, t := range topics.All() {
			for _, c := range t.CategoryIDs {
				if id != 0 && fieldMatches(&domain.HistoryRecord{CategoryID: c}, level, id, parents) {
					add(&r.SubsampleIDs, sub, e.ReturnCodes)
					break
				}
			}
		}
	}
	return r
}
