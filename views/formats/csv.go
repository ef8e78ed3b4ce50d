// Package formats writes and reads what Fieldboard's answers look like
// outside a page, the same from the web and from the command line: CSV
// whose cells are safe in a spreadsheet, the JSON shapes of the API and of
// `fieldboard subsamples`, the bulk check's and the send list's CSV, and
// the list of panelist ids a bulk check reads. It decides nothing: the
// checks service does (the bulk check's and the surveys' writers ask it as
// they write), and this package only writes its answers.
package formats

import (
	"encoding/csv"
	"io"
)

// Writer writes RFC 4180 CSV whose cells are safe to open in a
// spreadsheet: a cell that begins with =, +, -, @, tab or carriage return
// is prefixed with a single quote (OWASP's advice against formula
// injection), since names come from outside systems. Every CSV Fieldboard
// serves or prints goes through it.
type Writer struct{ w *csv.Writer }

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: csv.NewWriter(w)} }

// Write writes one row.
func (c *Writer) Write(cells ...string) error {
	for i, cell := range cells {
		cells[i] = safeCell(cell)
	}
	return c.w.Write(cells)
}

// WriteKeyed writes one row whose first cell is a key the caller gave us,
// such as a panelist id, echoed byte for byte so the answer joins back to
// its input; the other cells are neutralised as Write does.
func (c *Writer) WriteKeyed(key string, cells ...string) error {
	for i, cell := range cells {
		cells[i] = safeCell(cell)
	}
	return c.w.Write(append([]string{key}, cells...))
}

// Flush flushes the rows written so far and reports any write error.
func (c *Writer) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

func safeCell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
