package handlers

import (
	"encoding/csv"
	"io"
)

// csvWriter writes RFC 4180 CSV whose cells are safe to open in a
// spreadsheet: a cell that begins with =, +, -, @, tab or carriage return
// is prefixed with a single quote (OWASP's advice against formula
// injection), since names come from outside systems.
type csvWriter struct{ w *csv.Writer }

func newCSVWriter(w io.Writer) *csvWriter { return &csvWriter{w: csv.NewWriter(w)} }

// Write writes one row.
func (c *csvWriter) Write(cells ...string) error {
	for i, cell := range cells {
		cells[i] = safeCell(cell)
	}
	return c.w.Write(cells)
}

// Flush flushes the rows written so far and reports any write error.
func (c *csvWriter) Flush() error {
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
