// Package formats writes and reads what Fieldboard's answers look like
// outside a page, the same from the web and from the command line: CSV
// whose cells are safe in a spreadsheet, the JSON shapes of the API and of
// `fieldboard subsamples`, and the list of panelist ids a bulk check
// reads. Every CSV is laid out here, one Write...CSV function each (its
// header and the cells of a row); handlers and commands only pick the
// rows, the file name and where to write. It decides nothing: the checks
// service does (the bulk check's and the surveys' writers ask it as they
// write), and this package only writes its answers.
package formats

import (
	"bufio"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Writer writes RFC 4180 CSV whose cells are safe to open in a
// spreadsheet, since names come from outside systems:
//   - a cell that begins with =, +, -, @ (or their full-width forms ＝ ＋
//     － ＠, which some spreadsheets read as the same), tab or carriage
//     return is prefixed with a single quote (OWASP's advice against
//     formula injection);
//   - a cell holding a separator any common spreadsheet locale splits on
//     (comma, semicolon, tab), a quote or a line break is quoted, so that
//     "x;=1+1" stays one cell that begins with x wherever it is opened.
//
// Every CSV Fieldboard serves or prints goes through it but the profile
// file (WriteProfilesCSV), which is for importing, not for a spreadsheet.
// Lines end in "\n", as encoding/csv's do.
type Writer struct{ w *bufio.Writer }

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write writes one row.
func (c *Writer) Write(cells ...string) error {
	for i, cell := range cells {
		c.cell(i, safeCell(cell))
	}
	return c.end()
}

// WriteKeyed writes one row whose first cell is a key the caller gave us,
// such as a panelist id, echoed byte for byte (quoted when it must be) so
// the answer joins back to its input; the other cells are neutralised as
// Write does.
func (c *Writer) WriteKeyed(key string, cells ...string) error {
	c.cell(0, key)
	for i, cell := range cells {
		c.cell(i+1, safeCell(cell))
	}
	return c.end()
}

// Flush flushes the rows written so far and reports any write error.
func (c *Writer) Flush() error { return c.w.Flush() }

// cell writes the i-th cell of a row, quoted when it must be.
func (c *Writer) cell(i int, s string) {
	if i > 0 {
		c.w.WriteByte(',')
	}
	if !needsQuotes(s) {
		c.w.WriteString(s)
		return
	}
	c.w.WriteByte('"')
	c.w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	c.w.WriteByte('"')
}

// end ends a row; the writer's error, once there is one, stays.
func (c *Writer) end() error {
	_, err := c.w.WriteString("\n")
	return err
}

// needsQuotes reports whether a cell must be quoted: it holds a separator
// of some spreadsheet locale, a quote or a line break, begins with a space
// (which a reader may trim), or is `\.` (which ends data in PostgreSQL's
// COPY, as encoding/csv also guards).
func needsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, ",;\t\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// safeCell prefixes a cell a spreadsheet would take for a formula with a
// single quote. A negative number written plainly (-1.50, a credit on an
// invoice) is no formula and stays a number.
func safeCell(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	switch r {
	case '=', '+', '@', '\t', '\r', '＝', '＋', '－', '＠':
		return "'" + s
	case '-':
		if !plainNumber(s[1:]) {
			return "'" + s
		}
	}
	return s
}

// plainNumber reports whether s is digits, with at most one decimal point
// between digits: 1, 1.50; not 1e5, .5, 1+1 or "".
func plainNumber(s string) bool {
	whole, fraction, dotted := strings.Cut(s, ".")
	return allDigits(whole) && (!dotted || allDigits(fraction))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
