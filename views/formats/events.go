package formats

import (
	"time"

	"fieldboard/rules"
	"fieldboard/store"
)

// EventSubsample is one line of the events CSV: a subsample, its verdict,
// and Event, the name the events page gives its event (its live details'
// name when one of its subsamples is live, else its first subsample's;
// not the row's own EventName, empty for a subsample that is not live).
type EventSubsample struct {
	Event string
	store.SubsampleRow
	Verdict rules.Verdict
}

// WriteEventsCSV writes the events CSV (/events.csv): one line per
// subsample shown, in the page's order, times as formatTime writes them
// (the handler's is the dashboard's time zone). Sendability is empty for a
// subsample that is not live, as on the page, whatever its verdict holds.
func WriteEventsCSV(w *Writer, rows []EventSubsample, formatTime func(*time.Time) string) error {
	if err := w.Write("eventId", "eventName", "subsampleId", "subsampleName", "status", "country", "fieldStart", "fieldEnd", "sendability"); err != nil {
		return err
	}
	for _, s := range rows {
		sendability := ""
		if s.Live {
			sendability = string(s.Verdict.State)
		}
		if err := w.Write(Int(s.EventID), s.Event, Int(s.SubsampleID), s.Name, s.Status, s.CountryCode,
			formatTime(s.FieldStart), formatTime(s.FieldEnd), sendability); err != nil {
			return err
		}
	}
	return nil
}
