package formats

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCSVWriterNeutralisesFormulas(t *testing.T) {
	tests := []struct{ in, want string }{
		{"=1+2", "'=1+2"},
		{"+4412345", "'+4412345"},
		{"-P1", "'-P1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"", ""},
		{"plain, with \"quotes\"\nand a line", "plain, with \"quotes\"\nand a line"},
		{"a=b", "a=b"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		if err := w.Write(tt.in, "end"); err != nil { // a second cell, so an empty one is not an empty line
			t.Fatal(err)
		}
		if err := w.WriteKeyed(tt.in, tt.in); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		r := csv.NewReader(&buf)
		r.FieldsPerRecord = -1
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("%q: written CSV does not read back: %v", tt.in, err)
		}
		if rows[0][0] != tt.want {
			t.Errorf("Write(%q) = %q, want %q", tt.in, rows[0][0], tt.want)
		}
		if rows[1][0] != tt.in || rows[1][1] != tt.want {
			t.Errorf("WriteKeyed(%q) = %q, want the key as given and the cell %q", tt.in, rows[1], tt.want)
		}
	}
}
