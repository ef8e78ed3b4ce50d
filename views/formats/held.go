package formats

import (
	"strings"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
)

// HeldListJSON is the panelists held now (checks.Service.HeldPanelists),
// with how many by hand and for quality.
type HeldListJSON struct {
	ByHand     int                `json:"byHand"`
	ForQuality int                `json:"forQuality"`
	Held       []HeldPanelistJSON `json:"held"`
}

// HeldPanelistJSON is one panelist held now. Until is null for a hold by
// hand that lasts until released; a quality hold's is when it ends if no
// new reversal comes.
type HeldPanelistJSON struct {
	PanelistID string           `json:"panelistId"`
	Country    string           `json:"country"`
	Kind       string           `json:"kind"` // hand or quality
	Reason     string           `json:"reason"`
	Reversals  int              `json:"reversals"`
	Since      time.Time        `json:"since"`
	Until      *time.Time       `json:"until"`
	By         string           `json:"by,omitempty"`
	Why        string           `json:"why,omitempty"`
	Changes    []HoldChangeJSON `json:"changes"`
}

// HoldChangeJSON is one hold or release by hand of a panelist.
type HoldChangeJSON struct {
	At     time.Time `json:"at"`
	By     string    `json:"by"`
	Action string    `json:"action"` // hold or release
	After  string    `json:"after"`  // "held", "held until ...", "released"
	Why    string    `json:"why"`
}

// HeldCounts counts the held by kind.
func HeldCounts(held []checks.HeldPanelist) (byHand, forQuality int) {
	for _, h := range held {
		if h.Kind == checks.HeldByHand {
			byHand++
		} else {
			forQuality++
		}
	}
	return byHand, forQuality
}

// HeldList shapes the held list for the API.
func HeldList(held []checks.HeldPanelist) HeldListJSON {
	out := HeldListJSON{Held: make([]HeldPanelistJSON, len(held))}
	out.ByHand, out.ForQuality = HeldCounts(held)
	for i, h := range held {
		j := HeldPanelistJSON{PanelistID: h.PanelistID, Country: h.Country, Kind: h.Kind, Reason: h.Reason, Reversals: h.Reversals,
			Since: h.Since.UTC(), By: h.By, Why: h.Why, Changes: HoldChanges(h.Changes)}
		if h.Until != nil {
			until := h.Until.UTC()
			j.Until = &until
		}
		out.Held[i] = j
	}
	return out
}

// HoldChanges shapes a panelist's holds and releases by hand.
func HoldChanges(changes []domain.PolicyChange) []HoldChangeJSON {
	out := make([]HoldChangeJSON, len(changes))
	for i, c := range changes {
		out[i] = HoldChangeJSON{At: c.At.UTC(), By: c.By, Action: c.Action, After: c.After, Why: c.Why}
	}
	return out
}

// WriteHeldCSV writes the held list, times as formatTime writes them
// (until empty for a hold until released); changes are the holds and
// releases by hand, newest first, "TIME ACTION by NAME: WHY" joined by
// " | ".
func WriteHeldCSV(w *Writer, held []checks.HeldPanelist, formatTime func(*time.Time) string) error {
	if err := w.Write("panelistId", "country", "kind", "reason", "reversals", "since", "until", "by", "why", "changes"); err != nil {
		return err
	}
	for _, h := range held {
		changes := make([]string, len(h.Changes))
		for i, c := range h.Changes {
			changes[i] = formatTime(&c.At) + " " + c.Action + " by " + c.By
			if c.Why != "" {
				changes[i] += ": " + c.Why
			}
		}
		if err := w.Write(h.PanelistID, h.Country, h.Kind, h.Reason, Int(int64(h.Reversals)), formatTime(&h.Since), formatTime(h.Until),
			h.By, h.Why, strings.Join(changes, " | ")); err != nil {
			return err
		}
	}
	return nil
}
