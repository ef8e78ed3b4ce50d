package formats

import "slices"

// A send list is `panelistId,entryLink` in CSV, or a JSON array of
// TargetJSON. In the CSV the entry link is neutralised like every cell and
// the panelist id is echoed as the profile file gave it, as in the API's
// bulk check answer.

// TargetJSON is one line of a send list.
type TargetJSON struct {
	PanelistID string `json:"panelistId"`
	EntryLink  string `json:"entryLink"`
}

var targetsHeader = []string{"panelistId", "entryLink"}

// WriteTargetsHeader writes the header of a send list's CSV.
func WriteTargetsHeader(w *Writer) error { return w.Write(slices.Clone(targetsHeader)...) }

// WriteTarget writes one line of a send list's CSV.
func WriteTarget(w *Writer, panelistID, entryLink string) error {
	return w.WriteKeyed(panelistID, entryLink)
}
