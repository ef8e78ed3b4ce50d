// Package rules decides: which subsamples may be sent to (sendability),
// which entry link a panelist gets, and whether a panelist's history
// excludes them from a subsample (eligibility). It is pure: data in,
// decisions out, the time passed in. Every decision is a value with the
// reasons behind it, so pages, CSV and JSON explain themselves from it.
package rules

import "time"

// Respondent return codes, the statuses a history record may hold (the
// spec's "Respondent return codes").
const (
	StatusInSurvey             = 2
	StatusComplete             = 3
	StatusScreenOut            = 82
	StatusQuotaFull            = 83
	StatusAbandon              = 92
	StatusErroneousComplete    = 98
	StatusPotentiallyUnengaged = 99
)

// ReturnCodeName names a respondent status id, "" for an unknown one.
func ReturnCodeName(id int64) string {
	switch id {
	case StatusInSurvey:
		return "In survey"
	case StatusComplete:
		return "Complete"
	case StatusScreenOut:
		return "Screen out"
	case StatusQuotaFull:
		return "Quota full"
	case StatusAbandon:
		return "Abandon"
	case StatusErroneousComplete:
		return "Erroneous complete"
	case StatusPotentiallyUnengaged:
		return "Potentially unengaged"
	}
	return ""
}

// HistoryRecord is one entry of the supplier's respondent history: a
// panelist reached a final status on a subsample (spec rule 4).
type HistoryRecord struct {
	PanelistID     string    `json:"panelistId" db:"panelist_id"`
	SubsampleID    int64     `json:"subsampleId" db:"subsample_id"`
	StatusID       int64     `json:"statusId" db:"status_id"`
	RegisteredAt   time.Time `json:"registeredAt" db:"registered_at"`
	EventID        int64     `json:"eventId" db:"event_id"`
	CategoryID     int64     `json:"categoryId" db:"category_id"` // the specific category
	ResearchTypeID int64     `json:"researchTypeId" db:"research_type_id"`
}
