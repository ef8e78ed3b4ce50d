package domain

import (
	"iter"
	"strconv"
	"strings"
	"time"
)

// Respondent return codes, the statuses a history record may hold (the
// spec's "Respondent return codes").
const (
	ReturnInSurvey             = 2
	ReturnComplete             = 3
	ReturnScreenOut            = 82
	ReturnQuotaFull            = 83
	ReturnAbandon              = 92
	ReturnErroneousComplete    = 98
	ReturnPotentiallyUnengaged = 99
)

// ReturnCodes are the respondent return codes, in order.
var ReturnCodes = [...]int64{ReturnInSurvey, ReturnComplete, ReturnScreenOut, ReturnQuotaFull, ReturnAbandon, ReturnErroneousComplete, ReturnPotentiallyUnengaged}

// ReturnCodesNamed lists the respondent return codes with their names,
// for a sentence: "2 (In survey), 3 (Complete), …, 99 (Potentially
// unengaged)".
func ReturnCodesNamed() string {
	var b strings.Builder
	for i, id := range ReturnCodes {
		switch {
		case i == len(ReturnCodes)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(id, 10) + " (" + ReturnCodeName(id) + ")")
	}
	return b.String()
}

// ReturnCodeName names a respondent status id, "" for an unknown one.
func ReturnCodeName(id int64) string {
	switch id {
	case ReturnInSurvey:
		return "In survey"
	case ReturnComplete:
		return "Complete"
	case ReturnScreenOut:
		return "Screen out"
	case ReturnQuotaFull:
		return "Quota full"
	case ReturnAbandon:
		return "Abandon"
	case ReturnErroneousComplete:
		return "Erroneous complete"
	case ReturnPotentiallyUnengaged:
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

// CategoryParents gives, for a specific category id, its generic and main
// category ids: the category tree, as seen in live details.
type CategoryParents map[int64]CategoryPath

// CategoryPath is where a specific category sits: its generic and main
// categories. Contradiction, when not "", says why they are not
// understood: the provider named the category under two of them.
type CategoryPath struct {
	GenericID, MainID int64
	Contradiction     string
}

// SubsampleTopics is what each subsample was seen to be about, by
// subsample id, kept across refreshes: read-only once made
// (TopicsOf). Every decided snapshot holds one for tens of thousands of
// subsamples, so it holds no pointer per subsample for the collector to
// scan: a map of pointer-free places into one array of ids.
type SubsampleTopics struct {
	of  map[int64]topicsAt
	ids []int64 // the categories, then the events, of each subsample
}

// topicsAt is one subsample's topics in SubsampleTopics: its categories
// are ids[from:events], its events ids[events:to].
type topicsAt struct {
	researchTypeID   int64
	from, events, to int
}

// TopicsOf holds topics as SubsampleTopics; it keeps none of their
// slices.
func TopicsOf(topics map[int64]Topics) SubsampleTopics {
	out := SubsampleTopics{of: make(map[int64]topicsAt, len(topics))}
	for id, t := range topics {
		at := topicsAt{researchTypeID: t.ResearchTypeID, from: len(out.ids)}
		out.ids = append(out.ids, t.CategoryIDs...)
		at.events = len(out.ids)
		out.ids = append(out.ids, t.EventIDs...)
		at.to = len(out.ids)
		out.of[id] = at
	}
	return out
}

// Of is what the subsample was seen to be about, and whether it was
// seen. The slices are shared: read-only.
func (s SubsampleTopics) Of(subsampleID int64) (Topics, bool) {
	at, ok := s.of[subsampleID]
	if !ok {
		return Topics{}, false
	}
	return s.topics(at), true
}

func (s SubsampleTopics) topics(at topicsAt) Topics {
	t := Topics{ResearchTypeID: at.researchTypeID}
	if at.events > at.from {
		t.CategoryIDs = s.ids[at.from:at.events:at.events]
	}
	if at.to > at.events {
		t.EventIDs = s.ids[at.events:at.to:at.to]
	}
	return t
}

// All are every subsample seen with its topics, in no order; the slices
// are shared: read-only.
func (s SubsampleTopics) All() iter.Seq2[int64, Topics] {
	return func(yield func(int64, Topics) bool) {
		for id, at := range s.of {
			if !yield(id, s.topics(at)) {
				return
			}
		}
	}
}

// Len is how many subsamples were seen.
func (s SubsampleTopics) Len() int { return len(s.of) }

// Topics are a subsample's research type and specific categories, and
// the events the provider groups it in (EventIDs: event/all's and
// live-details', of the current snapshot; none for a subsample it does not
// list).
type Topics struct {
	ResearchTypeID int64
	CategoryIDs    []int64
	EventIDs       []int64
}
