package rules

import (
	"math"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// Kinds of exclusion: the four arrays of the eligibility rules, and the
// unique-respondents-within-an-event rule (spec rule 5).
const (
	KindSurveys       = "surveys"
	KindResearchTypes = "researchTypes"
	KindCategories    = "categories"
	KindEvents        = "events"
	KindUniqueEvent   = "uniqueEvent"
)

// Target is the subsample a panelist is checked for.
type Target struct{ SubsampleID, EventID int64 }

// Exclusion is one reason a panelist may not enter: the rule kind, the rule
// entry as a sentence, and the history record that triggered it.
type Exclusion struct {
	Kind   string               // KindSurveys, KindResearchTypes, KindCategories, KindEvents, KindUniqueEvent or KindQualityHold
	Index  int                  // position of the entry in its array; -1 for KindUniqueEvent and KindQualityHold
	Rule   string               // the entry as a sentence
	Record domain.HistoryRecord // the record that matched (the most recent one)
	Reason string               // one sentence naming both
}

// EligibilityResult says whether a panelist may enter a subsample, and if
// not, every reason why.
type EligibilityResult struct {
	Eligible   bool
	Exclusions []Exclusion
}

// Eligibility checks one panelist's history against a subsample's
// eligibility rules (the spec's "Eligibility rules") and against the
// unique-respondents-within-an-event rule (spec rule 5).
//
// history is the records of one panelist; the caller selects them (the
// PanelistID of the records is not looked at).
//
// An entry applies only when its id (for categories, one of its three ids)
// is neither 0 nor null and its returnCodes hold a status other than the
// placeholder 0. A record matches an entry when it is on the entry's
// subsample, research type, category or event, its StatusID is in
// returnCodes, and it was registered at or after now - numDays×24h: a
// record exactly numDays days old still matches, and numDays 0 (or a
// negative numDays, which the spec does not define; excluding is the safe
// side) means no time limit. A record registered after now matches too:
// the supplier's and the provider's clocks may disagree, and a future date
// is still a history.
//
// Categories compare the most specific non-null, non-zero level of the
// entry: specificCategoryId against the record's CategoryID; else
// genericCategoryId against parents[CategoryID].GenericID; else
// mainCategoryId against parents[CategoryID].MainID. A record whose
// category is not known (0), not in parents, or in parents with a
// Contradiction cannot be ruled out by a generic or main entry: it
// matches it. A record whose research type, category or event is not
// known (0) matches every research type, category or event entry.
//
// Every entry of every array is applied; the result holds one Exclusion per
// entry that excludes, with the most recent matching record, in the order
// surveys, researchTypes, categories, events, then the unique-event rule
// (spec rule 5, "respondents are unique across the event"): any record,
// whatever its status and date, on the target itself or on any other
// subsample of the target's event excludes, the most recent one named.
// When the target's EventID is 0 (not known), only records on the target
// itself do.
//
// When nothing excludes, Eligibility allocates nothing.
func Eligibility(target Target, rules domain.EligibilityRules, history []domain.HistoryRecord, parents domain.CategoryParents, now time.Time) EligibilityResult {
	var out []Exclusion
	for i := range rules.Surveys {
		r := &rules.Surveys[i]
		if id := idOf(r.ID); id != 0 {
			if m := mostRecent(history, matchSubsample, id, nil, r.ReturnCodes, r.NumDays, now); m >= 0 {
				out = append(out, exclusion(KindSurveys, i, surveySentence(id, r.NumDays, r.ReturnCodes), history[m], r.NumDays, now))
			}
		}
	}
	for i := range rules.ResearchTypes {
		r := &rules.ResearchTypes[i]
		if id := idOf(r.ID); id != 0 {
			if m := mostRecent(history, matchResearchType, id, nil, r.ReturnCodes, r.NumDays, now); m >= 0 {
				out = append(out, exclusion(KindResearchTypes, i, researchTypeSentence(id, r.NumDays, r.ReturnCodes), history[m], r.NumDays, now))
			}
		}
	}
	for i := range rules.Categories {
		r := &rules.Categories[i]
		if level, id := categoryLevel(r); id != 0 {
			if m := mostRecent(history, level, id, parents, r.ReturnCodes, r.NumDays, now); m >= 0 {
				out = append(out, categoryExclusion(level, i, categorySentence(level, id, r.NumDays, r.ReturnCodes), history[m], parents, r.NumDays, now))
			}
		}
	}
	for i := range rules.Events {
		r := &rules.Events[i]
		if id := idOf(r.ID); id != 0 {
			if m := mostRecent(history, matchEvent, id, nil, r.ReturnCodes, r.NumDays, now); m >= 0 {
				out = append(out, exclusion(KindEvents, i, eventSentence(id, r.Name, r.NumDays, r.ReturnCodes), history[m], r.NumDays, now))
			}
		}
	}
	if m := sameEvent(target, history); m >= 0 {
		out = append(out, uniqueEventExclusion(target, history[m]))
	}
	return EligibilityResult{Eligible: len(out) == 0, Exclusions: out}
}

// uniqueEventExclusion is the unique-respondents rule's exclusion by rec.
func uniqueEventExclusion(target Target, rec domain.HistoryRecord) Exclusion {
	reason := recordPhrase(rec) + " of the same event " + strconv.FormatInt(rec.EventID, 10) +
		" on " + dateOf(rec) + " (respondents must be unique within an event)."
	if rec.SubsampleID == target.SubsampleID {
		reason = recordPhrase(rec) + " itself on " + dateOf(rec) +
			" (respondents are not sent again: they must be unique within an event)."
	}
	return Exclusion{Kind: KindUniqueEvent, Index: -1, Rule: UniqueEventRule(target.EventID), Record: rec, Reason: reason}
}

// UniqueEventRule is spec rule 5 for one event as a sentence, for pages
// that list the rules a subsample is under besides its eligibility rules.
func UniqueEventRule(eventID int64) string {
	return "Excludes panelists with any history on another subsample of event " +
		strconv.FormatInt(eventID, 10) + ", or on this one: respondents must be unique within an event."
}

// RuleSentence is one entry of the eligibility rules as a sentence.
type RuleSentence struct {
	Kind    string // KindSurveys, KindResearchTypes, KindCategories or KindEvents
	Index   int    // position of the entry in its array
	Applies bool   // false for placeholder entries, which exclude nobody
	Text    string
}

// DescribeRules returns every entry of rules as a sentence (for the
// subsample page), in the order surveys, researchTypes, categories, events.
// Entries that do not apply (0 or null id, returnCodes empty or only the
// placeholder 0) have Applies false and a sentence beginning "ignored: ".
func DescribeRules(rules domain.EligibilityRules) []RuleSentence {
	n := len(rules.Surveys) + len(rules.ResearchTypes) + len(rules.Categories) + len(rules.Events)
	if n == 0 {
		return nil
	}
	out := make([]RuleSentence, 0, n)
	add := func(kind string, i int, id int64, codes []int64, what, text string) {
		switch {
		case id == 0:
			out = append(out, RuleSentence{Kind: kind, Index: i,
				Text: "ignored: " + what + " entry " + strconv.Itoa(i+1) + " has no id (0 or null), a placeholder that applies to nothing."})
		case !hasRealCode(codes):
			out = append(out, RuleSentence{Kind: kind, Index: i,
				Text: "ignored: " + what + " entry " + strconv.Itoa(i+1) + " names no status to exclude (returnCodes " + codesList(codes) + "), so it excludes nobody."})
		default:
			out = append(out, RuleSentence{Kind: kind, Index: i, Applies: true, Text: text})
		}
	}
	for i, r := range rules.Surveys {
		id := idOf(r.ID)
		add(KindSurveys, i, id, r.ReturnCodes, "survey", surveySentence(id, r.NumDays, r.ReturnCodes))
	}
	for i, r := range rules.ResearchTypes {
		id := idOf(r.ID)
		add(KindResearchTypes, i, id, r.ReturnCodes, "research type", researchTypeSentence(id, r.NumDays, r.ReturnCodes))
	}
	for i := range rules.Categories {
		r := &rules.Categories[i]
		level, id := categoryLevel(r)
		add(KindCategories, i, id, r.ReturnCodes, "category", categorySentence(level, id, r.NumDays, r.ReturnCodes))
	}
	for i, r := range rules.Events {
		id := idOf(r.ID)
		add(KindEvents, i, id, r.ReturnCodes, "event", eventSentence(id, r.Name, r.NumDays, r.ReturnCodes))
	}
	return out
}

// match says which field of a history record an entry's id is compared with.
type match int

const (
	matchSubsample match = iota
	matchResearchType
	matchEvent
	matchSpecificCategory
	matchGenericCategory
	matchMainCategory
)

// idOf reads an optional id; null is 0, the placeholder.
func idOf(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id
}

// categoryLevel is the most specific non-null, non-zero level of a
// category entry and its id; id 0 when none is set.
func categoryLevel(r *domain.CategoryRule) (match, int64) {
	if id := idOf(r.SpecificCategoryID); id != 0 {
		return matchSpecificCategory, id
	}
	if id := idOf(r.GenericCategoryID); id != 0 {
		return matchGenericCategory, id
	}
	return matchMainCategory, idOf(r.MainCategoryID)
}

// mostRecent returns the index of the most recent record matching the
// entry (the first of equally recent ones), or -1. It allocates nothing.
func mostRecent(history []domain.HistoryRecord, field match, id int64, parents domain.CategoryParents, codes []int64, numDays int64, now time.Time) int {
	if !hasRealCode(codes) {
		return -1
	}
	limited, cutoff := windowStart(numDays, now)
	best := -1
	for i := range history {
		rec := &history[i]
		if !fieldMatches(rec, field, id, parents) || !hasCode(codes, rec.StatusID) {
			continue
		}
		if limited && rec.RegisteredAt.Before(cutoff) {
			continue
		}
		if best < 0 || rec.RegisteredAt.After(history[best].RegisteredAt) {
			best = i
		}
	}
	return best
}

// windowStart is the earliest registration an entry of numDays still
// counts; limited is false when there is no time limit.
func windowStart(numDays int64, now time.Time) (limited bool, cutoff time.Time) {
	const maxDays = int64(math.MaxInt64 / int64(24*time.Hour))
	if numDays <= 0 || numDays > maxDays {
		return false, time.Time{}
	}
	return true, now.Add(-time.Duration(numDays) * 24 * time.Hour)
}

func fieldMatches(rec *domain.HistoryRecord, field match, id int64, parents domain.CategoryParents) bool {
	switch field {
	case matchSubsample:
		return rec.SubsampleID == id
	case matchResearchType:
		// A record whose research type is not known (0, and its
		// subsample never seen: WithTopics) may be of the entry's: it
		// matches, never silently not (the reason says so: exclusion).
		return rec.ResearchTypeID == id || rec.ResearchTypeID == 0
	case matchEvent:
		return rec.EventID == id || rec.EventID == 0
	case matchSpecificCategory:
		return rec.CategoryID == id || rec.CategoryID == 0
	case matchGenericCategory, matchMainCategory:
		p, ok := parents[rec.CategoryID]
		if !ok || p.Contradiction != "" {
			// A category not known (0), never seen, or named under two
			// parents might be under the entry's: it matches until it is
			// seen, and seen alike, never silently not (the reason says
			// so: categoryExclusion).
			return true
		}
		if field == matchGenericCategory {
			return p.GenericID == id
		}
		return p.MainID == id
	}
	return false
}

// hasCode reports whether status is one of codes; the placeholder 0 never is.
func hasCode(codes []int64, status int64) bool {
	if status == 0 {
		return false
	}
	for _, c := range codes {
		if c == status {
			return true
		}
	}
	return false
}

// hasRealCode reports whether codes name any status besides the placeholder 0.
func hasRealCode(codes []int64) bool {
	for _, c := range codes {
		if c != 0 {
			return true
		}
	}
	return false
}

// sameEvent returns the index of the most recent record on the target or
// on another subsample of its event, or -1.
func sameEvent(target Target, history []domain.HistoryRecord) int {
	best := -1
	for i := range history {
		rec := &history[i]
		if rec.SubsampleID != target.SubsampleID && (target.EventID == 0 || rec.EventID != target.EventID) {
			continue
		}
		if best < 0 || rec.RegisteredAt.After(history[best].RegisteredAt) {
			best = i
		}
	}
	return best
}

// exclusion builds the Exclusion of an entry that matched rec. Only called
// when something excludes, so sentences cost nothing otherwise.
func exclusion(kind string, index int, rule string, rec domain.HistoryRecord, numDays int64, now time.Time) Exclusion {
	reason := recordPhrase(rec)
	switch kind {
	case KindResearchTypes:
		reason += " (" + knownOrNot("research type", rec.ResearchTypeID) + ")"
	case KindCategories:
		reason += " (" + knownOrNot("category", rec.CategoryID) + ")"
	case KindEvents:
		reason += " (" + knownOrNot("event", rec.EventID) + ")"
	}
	reason += " on " + dateOf(rec)
	switch limited, _ := windowStart(numDays, now); {
	case rec.RegisteredAt.After(now):
		reason += " (dated after now, counted as recent)"
	case limited:
		reason += " (within " + daysPhrase(numDays) + ")"
	default:
		reason += " (no time limit)"
	}
	return Exclusion{Kind: kind, Index: index, Rule: rule, Record: rec, Reason: reason + "."}
}

// knownOrNot is "research type 7", or, for 0, why a record of an unknown
// one excludes: it may be the entry's.
func knownOrNot(what string, id int64) string {
	if id != 0 {
		return what + " " + strconv.FormatInt(id, 10)
	}
	return what + " not known: the record gives none and nothing seen of its subsample says, so it may be this entry's, and it excludes until it is known"
}

// categoryExclusion is exclusion for a category entry at level: a record
// whose category's parents were never seen matches a generic or main entry
// (it might be under it), and the reason says that is why.
func categoryExclusion(level match, index int, rule string, rec domain.HistoryRecord, parents domain.CategoryParents, numDays int64, now time.Time) Exclusion {
	e := exclusion(KindCategories, index, rule, rec, numDays, now)
	p, seen := parents[rec.CategoryID]
	if seen && p.Contradiction != "" && level != matchSpecificCategory {
		e.Reason = "The category tree contradicts itself: " + p.Contradiction + ", so " +
			strings.TrimSuffix(e.Reason, ".") + " might fall under this entry: it excludes until the provider names its parents alike."
	}
	if !seen && level != matchSpecificCategory && rec.CategoryID != 0 {
		e.Reason = "Category " + strconv.FormatInt(rec.CategoryID, 10) + "'s parents are unknown, so " +
			strings.TrimSuffix(e.Reason, ".") + " might fall under this entry: it excludes until the category is seen."
	}
	return e
}

// recordPhrase is "Complete on subsample 123".
func recordPhrase(rec domain.HistoryRecord) string {
	return statusName(rec.StatusID) + " on subsample " + strconv.FormatInt(rec.SubsampleID, 10)
}

func dateOf(rec domain.HistoryRecord) string {
	if rec.RegisteredAt.IsZero() {
		return "an unknown date"
	}
	return rec.RegisteredAt.Format(time.DateOnly)
}

func surveySentence(id, numDays int64, codes []int64) string {
	return excludesWith(codes) + " on subsample " + strconv.FormatInt(id, 10) + " " + periodPhrase(numDays) + "."
}

func researchTypeSentence(id, numDays int64, codes []int64) string {
	return excludesWith(codes) + " on any survey of research type " + strconv.FormatInt(id, 10) + " " + periodPhrase(numDays) + "."
}

func categorySentence(level match, id, numDays int64, codes []int64) string {
	where := " in category "
	switch level {
	case matchGenericCategory:
		where = " in any category of generic category "
	case matchMainCategory:
		where = " in any category of main category "
	}
	return excludesWith(codes) + where + strconv.FormatInt(id, 10) + " " + periodPhrase(numDays) + "."
}

func eventSentence(id int64, name *string, numDays int64, codes []int64) string {
	event := "event " + strconv.FormatInt(id, 10)
	if name != nil && strings.TrimSpace(*name) != "" {
		event += " (" + strings.TrimSpace(*name) + ")"
	}
	return excludesWith(codes) + " on any subsample of " + event + " " + periodPhrase(numDays) + "."
}

// excludesWith is "Excludes panelists with status Complete or Screen out".
func excludesWith(codes []int64) string {
	var names []string
	for _, c := range codes {
		if c != 0 {
			names = append(names, statusName(c))
		}
	}
	var b strings.Builder
	b.WriteString("Excludes panelists with status ")
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(n)
	}
	return b.String()
}

// statusName names a return code, "status 45" for an unknown one.
func statusName(code int64) string {
	if name := domain.ReturnCodeName(code); name != "" {
		return name
	}
	return "status " + strconv.FormatInt(code, 10)
}

// periodPhrase is "at any time" or "in the last 30 days".
func periodPhrase(numDays int64) string {
	if numDays <= 0 {
		return "at any time"
	}
	return "in the last " + daysPhrase(numDays)
}

func daysPhrase(n int64) string {
	if n == 1 {
		return "1 day"
	}
	return strconv.FormatInt(n, 10) + " days"
}

// codesList writes returnCodes as "[0]" or "[]".
func codesList(codes []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, c := range codes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(c, 10))
	}
	b.WriteByte(']')
	return b.String()
}
