package formats

import (
	"encoding/csv"
	"io"
	"iter"
	"strconv"
	"strings"

	"fieldboard/rules/domain"
	"fieldboard/store"
)

// WriteProfilesCSV writes a profile file (store.ProfileHeader, one record
// a line), as `fieldboard profiles generate` prints it for `fieldboard
// profiles import`. It is an import file, not a spreadsheet's: it is
// written by encoding/csv, not Writer, so that every cell reads back as
// written (the age question's id, -1, is not neutralised into '-1).
func WriteProfilesCSV(w io.Writer, records iter.Seq[domain.ProfileRecord]) error {
	out := csv.NewWriter(w)
	if err := out.Write(strings.Split(store.ProfileHeader, ",")); err != nil {
		return err
	}
	for r := range records {
		if err := out.Write([]string{r.PanelistID, strconv.FormatInt(r.QuestionID, 10), r.Value}); err != nil {
			return err
		}
	}
	out.Flush()
	return out.Error()
}
