package formats

import (
	"strings"
	"testing"
)

func TestParsePanelistList(t *testing.T) {
	tests := []struct {
		name, in  string
		want      []string
		wantErr   string
		wantLines []int
	}{
		{"ids", "panelistId\nP1\n P2 \n", []string{"P1", "P2"}, "", nil},
		{"BOM and CRLF", "\uFEFFpanelistId\r\nP1\r\n", []string{"P1"}, "", nil},
		{"empty file", "", nil, "empty", nil},
		{"header only", "panelistId\n", nil, "no panelist ids", nil},
		{"wrong header", "id\nP1\n", nil, "header", nil},
		{"bare quote in the first field", "panelistId\na\"b\n", nil, "bad line", []int{2}},
		{"unclosed quote", "panelistId\nP1\n\"abc\n", nil, "bad line", []int{3}},
		{"two columns and a blank id", "panelistId\nP1,P2\n\" \"\nP3\n", nil, "2 bad line", []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, lines, err := ParsePanelistList(strings.NewReader(tt.in))
			if tt.wantErr == "" {
				if err != nil || strings.Join(ids, ",") != strings.Join(tt.want, ",") {
					t.Fatalf("got %q, %v; want %q", ids, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if len(lines) != len(tt.wantLines) {
				t.Fatalf("line errors %+v, want lines %v", lines, tt.wantLines)
			}
			for i, l := range lines {
				if l.Line != tt.wantLines[i] {
					t.Errorf("line error %d at line %d, want %d (%s)", i, l.Line, tt.wantLines[i], l.Reason)
				}
			}
		})
	}
}
