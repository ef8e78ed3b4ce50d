package formats

import (
	"fmt"
	"strings"
	"time"
)

// Every CSV download is named by FileName, in one pattern:
//
//	DATASET[_NAME-VALUE]..._STAMP.csv
//
// such as live-subsamples_country-FR_2026-11-26T1951Z.csv or
// targets_subsample-200006_2026-11-26T1951Z.csv. DATASET says what the rows
// are; each NAME-VALUE what they were narrowed to (a subsample, a
// panelist, a locale, a filter of the list), in the order given; STAMP is
// the time of the snapshot the answer was decided on, in UTC to the
// minute (yyyy-MM-ddTHHmmZ), or no-snapshot before the first. The lists
// of what happened (the change feed, the routing record) are read as they
// stand when asked: their stamp is that time.
//
// Names, values and the dataset keep ASCII letters, digits and dashes
// only (anything else becomes a dash), so that no value can break the
// Content-Disposition header or the file system.

// FileNameStamp is the layout of a file name's time.
const FileNameStamp = "2006-01-02T1504Z"

// maxFileNameValue bounds a value in a file name: a free-text filter may
// be long, and file systems cap names at 255 bytes.
const maxFileNameValue = 40

// FileName names a CSV download of dataset decided on the snapshot of
// snapshot (the zero time: none yet), narrowed to the name, value pairs of
// scope; pairs whose value is empty (no filter) are left out.
func FileName(dataset string, snapshot time.Time, scope ...string) string {
	var b strings.Builder
	b.WriteString(fileNamePart(dataset, 0))
	for i := 0; i+1 < len(scope); i += 2 {
		value := fileNamePart(scope[i+1], maxFileNameValue)
		if value == "" {
			continue
		}
		b.WriteString("_" + fileNamePart(scope[i], 0) + "-" + value)
	}
	stamp := "no-snapshot"
	if !snapshot.IsZero() {
		stamp = snapshot.UTC().Format(FileNameStamp)
	}
	b.WriteString("_" + stamp + ".csv")
	return b.String()
}

// Attachment is the Content-Disposition of a download named filename (as
// FileName makes it).
func Attachment(filename string) string {
	return fmt.Sprintf("attachment; filename=%q", filename)
}

// fileNamePart keeps the ASCII letters and digits of s, with a dash for
// each run of anything else (none at either end), cut to at most max
// bytes when max > 0.
func fileNamePart(s string, max int) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	out := b.String()
	if max > 0 && len(out) > max {
		out = strings.TrimRight(out[:max], "-")
	}
	return out
}
