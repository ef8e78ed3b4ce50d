package formats

import (
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// WriteRoutingCSV writes the router's decisions (/routing.csv), in the
// order given, times as formatTime writes them; a subsample the decision
// did not name (id 0: no intended one, or none chosen) is an empty cell,
// as is a name the current snapshot does not give. After them: the hop,
// the decision a hop followed, and the send's return (status name, time,
// redirect or post, flag), empty while none came back.
func WriteRoutingCSV(w *Writer, decisions []domain.RoutingDecision, formatTime func(*time.Time) string) error {
	if err := w.Write("at", "panelistId", "intendedSubsample", "chosenSubsample", "outcome", "reason", "intendedName", "chosenName",
		"hop", "afterDecision", "returnStatus", "returnedAt", "returnVia", "returnFlag"); err != nil {
		return err
	}
	for _, d := range decisions {
		if err := w.Write(formatTime(&d.At), d.PanelistID, optionalID(d.Intended), optionalID(d.Chosen), string(d.Outcome), d.Reason,
			d.IntendedName, d.ChosenName, Int(int64(d.Hop)), optionalID(d.After), returnStatus(d.ReturnStatus), formatTime(d.ReturnedAt), d.ReturnVia, d.ReturnFlag); err != nil {
			return err
		}
	}
	return nil
}

// returnStatus is a send's return status for a CSV cell, by name
// (complete, screenout, quotafull; the code for another), empty while none
// came back.
func returnStatus(id int64) string {
	if id == 0 {
		return ""
	}
	if name := rules.ReturnStatusName(id); name != "" {
		return name
	}
	return Int(id)
}

// optionalID is a subsample id for a CSV cell, empty for none (0).
func optionalID(id int64) string {
	if id == 0 {
		return ""
	}
	return Int(id)
}
