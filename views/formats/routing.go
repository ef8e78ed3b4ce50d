package formats

import (
	"time"

	"fieldboard/rules/domain"
)

// WriteRoutingCSV writes the router's decisions (/routing.csv), in the
// order given, times as formatTime writes them; a subsample the decision
// did not name (id 0: no intended one, or none chosen) is an empty cell,
// as is a name the current snapshot does not give.
func WriteRoutingCSV(w *Writer, decisions []domain.RoutingDecision, formatTime func(*time.Time) string) error {
	if err := w.Write("at", "panelistId", "intendedSubsample", "chosenSubsample", "outcome", "reason", "intendedName", "chosenName"); err != nil {
		return err
	}
	for _, d := range decisions {
		if err := w.Write(formatTime(&d.At), d.PanelistID, optionalID(d.Intended), optionalID(d.Chosen), string(d.Outcome), d.Reason,
			d.IntendedName, d.ChosenName); err != nil {
			return err
		}
	}
	return nil
}

// optionalID is a subsample id for a CSV cell, empty for none (0).
func optionalID(id int64) string {
	if id == 0 {
		return ""
	}
	return Int(id)
}
