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
		{"-1.50", "-1.50"}, // a credit on an invoice: a number, not a formula
		{"-3", "-3"},
		{"-1+2", "'-1+2"},
		{"-1.5.0", "'-1.5.0"},
		{"-1e5", "'-1e5"},
		{"-.5", "'-.5"},
		{"-1.", "'-1."},
		{"-", "'-"},
		{"--1", "'--1"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"", ""},
		{"plain, with \"quotes\"\nand a line", "plain, with \"quotes\"\nand a line"},
		{"a=b", "a=b"},
		{"＝1+2", "'＝1+2"}, // full-width forms some spreadsheets read as the ASCII ones
		{"＋1", "'＋1"},
		{"－1", "'－1"},
		{"＠SUM(A1)", "'＠SUM(A1)"},
		{"x;=1+1;", "x;=1+1;"}, // quoted below, so it stays one cell beginning with x
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

// TestCSVWriterQuotesEverySeparator: a cell holding a separator that some
// spreadsheet locale splits on (comma, semicolon, tab), a quote or a line
// break is quoted, so it cannot be split into a cell that begins with =.
func TestCSVWriterQuotesEverySeparator(t *testing.T) {
	tests := []struct{ in, want string }{
		{"x;=1+1;", `"x;=1+1;"`},
		{"a,b", `"a,b"`},
		{"a\tb", "\"a\tb\""},
		{`say "hi"`, `"say ""hi"""`},
		{"two\nlines", "\"two\nlines\""},
		{" lead", `" lead"`},
		{`\.`, `"\."`},
		{"plain", "plain"},
		{"", ""},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		w := NewWriter(&buf)
		if err := w.WriteKeyed(tt.in, "end"); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), tt.want+",end\n"; got != want {
			t.Errorf("WriteKeyed(%q) wrote %q, want %q", tt.in, got, want)
		}
	}
}

// TestSendListNeutralisesIDs: issue 14, item 5: a profile imported with the
// id =HYPERLINK(...) must not come out of a send list as a live formula.
func TestSendListNeutralisesIDs(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := WriteTarget(w, TargetJSON{PanelistID: `=HYPERLINK("https://evil.test","x")`, EntryLink: "https://e.test/s?p=a&id=x"}, false); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), `"'=HYPERLINK(""https://evil.test"",""x"")",https://e.test/s?p=a&id=x`+"\n"; got != want {
		t.Errorf("send list line %q, want %q", got, want)
	}
}
