package formats

import "slices"

// A send list is `panelistId,entryLink` in CSV, or a JSON array of
// TargetJSON. In the CSV every cell is neutralised, the panelist id
// included: a send list is opened in spreadsheets and mail tools, and its
// ids come from a profile file, not from the caller (the JSON gives them
// as they are).

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
	return w.Write(panelistID, entryLink)
}
