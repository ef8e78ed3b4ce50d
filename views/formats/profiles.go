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

// ownProfileHeader and mappingHeader are the headers of a profile file in
// the supplier's own codes (domain.OwnProfileRecord) and of its mapping
// file (domain.MappingRow), as the domain types name them.
const (
	ownProfileHeader = "panelistId,code,value"
	mappingHeader    = "code,value,questionId,answerId,country"
)

// WriteOwnProfilesCSV writes a profile file in the supplier's own codes
// (ownProfileHeader, one record a line), as `fieldboard profiles generate
// --own` prints it. Like WriteProfilesCSV, it is an import file written by
// encoding/csv, every cell as it is.
func WriteOwnProfilesCSV(w io.Writer, records iter.Seq[domain.OwnProfileRecord]) error {
	out := csv.NewWriter(w)
	if err := out.Write(strings.Split(ownProfileHeader, ",")); err != nil {
		return err
	}
	for r := range records {
		if err := out.Write([]string{r.PanelistID, r.Code, r.Value}); err != nil {
			return err
		}
	}
	out.Flush()
	return out.Error()
}

// WriteMappingCSV writes a mapping file (mappingHeader, one row a line), as
// `fieldboard profiles generate --mapping` prints it: the answer id is
// empty for a row of the age question, which has none, and the country
// empty for a row that holds in every country. An import file, written by
// encoding/csv like WriteProfilesCSV.
func WriteMappingCSV(w io.Writer, rows []domain.MappingRow) error {
	out := csv.NewWriter(w)
	if err := out.Write(strings.Split(mappingHeader, ",")); err != nil {
		return err
	}
	for _, r := range rows {
		answer := ""
		if r.AnswerID != 0 {
			answer = strconv.FormatInt(r.AnswerID, 10)
		}
		if err := out.Write([]string{r.Code, r.Value, strconv.FormatInt(r.QuestionID, 10), answer, r.Country}); err != nil {
			return err
		}
	}
	out.Flush()
	return out.Error()
}
