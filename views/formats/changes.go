package formats

import (
	"time"

	"fieldboard/rules/domain"
)

// ChangeJSON is one event of the change feed. SubsampleName and EventName
// are the names the current snapshot gives them when the feed is read
// (domain.Change), left out when it has none (and from webhook messages,
// which carry the change as it was found).
type ChangeJSON struct {
	ID            int64             `json:"id"`
	At            time.Time         `json:"at"`
	Kind          domain.ChangeKind `json:"kind"`
	SubsampleID   int64             `json:"subsampleId"`
	EventID       int64             `json:"eventId"`
	Country       string            `json:"country"`
	QuotaID       string            `json:"quotaId,omitempty"`
	Before        string            `json:"before"`
	After         string            `json:"after"`
	SubsampleName string            `json:"subsampleName,omitempty"`
	EventName     string            `json:"eventName,omitempty"`
}

// ChangesPageJSON is a page of the feed for a script that polls it: the
// changes after the id it asked for, oldest first, and Next, the id to
// ask after next time (the last change's, or the one asked for when there
// is none).
type ChangesPageJSON struct {
	Changes []ChangeJSON `json:"changes"`
	Next    int64        `json:"next"`
}

// Change shapes one change for the API.
func Change(c domain.Change) ChangeJSON {
	return ChangeJSON{ID: c.ChangeID, At: c.At.UTC(), Kind: c.Kind, SubsampleID: c.SubsampleID, EventID: c.EventID, Country: c.Country,
		QuotaID: c.QuotaID, Before: c.Before, After: c.After, SubsampleName: c.SubsampleName, EventName: c.EventName}
}

// ChangesPage is the page of changes after since.
func ChangesPage(changes []domain.Change, since int64) ChangesPageJSON {
	out := ChangesPageJSON{Changes: make([]ChangeJSON, len(changes)), Next: since}
	for i, c := range changes {
		out.Changes[i] = Change(c)
		out.Next = c.ChangeID
	}
	return out
}

// WriteChangesCSV writes the feed as CSV, times as formatTime writes them;
// the names are the current snapshot's, empty when it has none, and the
// ids empty when the change is about none (our rules, a panelist's hold).
func WriteChangesCSV(w *Writer, changes []domain.Change, formatTime func(*time.Time) string) error {
	if err := w.Write("id", "at", "kind", "subsampleId", "eventId", "country", "quotaId", "before", "after", "subsampleName", "eventName"); err != nil {
		return err
	}
	for _, c := range changes {
		if err := w.Write(Int(c.ChangeID), formatTime(&c.At), string(c.Kind), idOrEmpty(c.SubsampleID), idOrEmpty(c.EventID), c.Country, c.QuotaID, c.Before, c.After,
			c.SubsampleName, c.EventName); err != nil {
			return err
		}
	}
	return nil
}

// idOrEmpty writes an id, or nothing for 0 (none).
func idOrEmpty(id int64) string {
	if id == 0 {
		return ""
	}
	return Int(id)
}
