package store

import (
	"fmt"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// futureSlack is how far in the future a record may be registered (clocks
// differ; a day more is a mistake).
const futureSlack = 24 * time.Hour

// minRegisteredAt is the earliest registration time the store can keep:
// the driver reads DATETIME integers below 1e12 as seconds rather than
// milliseconds, so earlier times would not read back as written.
var minRegisteredAt = time.UnixMilli(1e12 + 1)

// parseHistoryFields validates the fields of one record, in HistoryHeader's
// order. It returns the record, or the reasons it is bad.
func parseHistoryFields(f *[7]string, loc *time.Location, latest time.Time) (historyRow, string) {
	var row historyRow
	var reasons []string
	fail := func(format string, args ...any) { reasons = append(reasons, fmt.Sprintf(format, args...)) }

	var err error
	if row.panelistID, err = domain.ParsePanelistID(f[0]); err != nil {
		fail("panelistId %v", err)
	}

	var ok bool
	if row.subsampleID, ok = parseID(f[1], 1); !ok {
		fail("subsampleId must be a positive integer, not %s", domain.QuoteField(f[1]))
	}
	if row.statusID, ok = parseID(f[2], 0); !ok || domain.ReturnCodeName(row.statusID) == "" {
		fail("statusId must be a respondent return code, %s, not %s", domain.ReturnCodesNamed(), domain.QuoteField(f[2]))
	}
	if at, err := domain.ParseLocalTime(strings.TrimSpace(f[3]), loc); err != nil {
		fail("registeredAt: %v", err)
	} else if at.After(latest) {
		fail("registeredAt %s is more than a day in the future", strings.TrimSpace(f[3]))
	} else if at.Before(minRegisteredAt) {
		fail("registeredAt %s is before %s, earlier than the history can hold", strings.TrimSpace(f[3]), minRegisteredAt.UTC().Format(time.DateOnly))
	} else {
		row.registeredAt = at.UnixMilli()
	}
	if row.eventID, ok = parseID(f[4], 1); !ok {
		fail("eventId must be a positive integer, not %s", domain.QuoteField(f[4]))
	}
	if row.categoryID, ok = parseID(f[5], 0); !ok {
		fail("categoryId must be an integer of 0 or more (0 when unknown), not %s", domain.QuoteField(f[5]))
	}
	if row.researchTypeID, ok = parseID(f[6], 0); !ok {
		fail("researchTypeId must be an integer of 0 or more (0 when unknown), not %s", domain.QuoteField(f[6]))
	}
	if reasons != nil {
		return historyRow{}, strings.Join(reasons, "; ")
	}
	return row, ""
}

// jsonHistoryRecord is one element of a JSON history file.
type jsonHistoryRecord struct {
	PanelistID     jsonScalar `json:"panelistId"`
	SubsampleID    jsonScalar `json:"subsampleId"`
	StatusID       jsonScalar `json:"statusId"`
	RegisteredAt   jsonScalar `json:"registeredAt"`
	EventID        jsonScalar `json:"eventId"`
	CategoryID     jsonScalar `json:"categoryId"`
	ResearchTypeID jsonScalar `json:"researchTypeId"`
}

// texts makes jsonHistoryRecord a jsonRecord.
func (e *jsonHistoryRecord) texts(record []string) string {
	return jsonTexts(record, historyFields[:], e.PanelistID, e.SubsampleID, e.StatusID, e.RegisteredAt,
		e.EventID, e.CategoryID, e.ResearchTypeID)
}
