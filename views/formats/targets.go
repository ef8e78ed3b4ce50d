package formats

// A send list is `panelistId,entryLink` in CSV, or a JSON array of
// TargetJSON. In the CSV every cell is neutralised, the panelist id
// included: a send list is opened in spreadsheets and mail tools, and its
// ids come from a profile file, not from the caller (the JSON gives them
// as they are).

// TargetJSON is one line of a send list. InviteLink is the panelist's
// invitation link for the subsample (it chooses again when clicked), set
// when the server or command has a public URL.
type TargetJSON struct {
	PanelistID string `json:"panelistId"`
	EntryLink  string `json:"entryLink"`
	InviteLink string `json:"inviteLink,omitempty"`
}

// WriteTargetsHeader writes the header of a send list's CSV, with the
// inviteLink column when invites is set.
func WriteTargetsHeader(w *Writer, invites bool) error {
	if invites {
		return w.Write("panelistId", "entryLink", "inviteLink")
	}
	return w.Write("panelistId", "entryLink")
}

// WriteTarget writes one line of a send list's CSV, as its header says.
func WriteTarget(w *Writer, t TargetJSON, invites bool) error {
	if invites {
		return w.Write(t.PanelistID, t.EntryLink, t.InviteLink)
	}
	return w.Write(t.PanelistID, t.EntryLink)
}
