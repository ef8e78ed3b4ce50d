package formats

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"slices"
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
			list, lines, err := ParsePanelistList(strings.NewReader(tt.in))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				defer list.Close()
				ids := slices.Collect(list.All())
				if !slices.Equal(ids, tt.want) || list.Len() != len(tt.want) || list.Err() != nil {
					t.Fatalf("got %q (Len %d, %v); want %q", ids, list.Len(), list.Err(), tt.want)
				}
				if again := slices.Collect(list.All()); !slices.Equal(again, ids) {
					t.Errorf("read again: %q, want %q", again, ids)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalidList) {
				t.Fatalf("error %v, want one containing %q that is ErrInvalidList", err, tt.wantErr)
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

// manyIDs is a list of n panelist ids as a file holds it, made as it is
// read so the test holds none of it.
type manyIDs struct {
	n, next int
	pending []byte
}

func (m *manyIDs) Read(p []byte) (int, error) {
	if len(m.pending) == 0 {
		switch {
		case m.next > m.n:
			return 0, io.EOF
		case m.next == 0:
			m.pending = []byte("panelistId\r\n")
		default:
			m.pending = fmt.Appendf(m.pending[:0], "P%09d\r\n", m.next)
		}
		m.next++
	}
	n := copy(p, m.pending)
	m.pending = m.pending[n:]
	return n, nil
}

// liveHeap is the heap still in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestPanelistListKeepsNoIDInMemory reads a list of 500,000 ids (6 MB):
// the checked list holds none of them in memory (they would take 16 MiB
// as strings), and gives them all back in order.
func TestPanelistListKeepsNoIDInMemory(t *testing.T) {
	const n = 500_000
	before := liveHeap()
	list, _, err := ParsePanelistList(&manyIDs{n: n})
	if err != nil {
		t.Fatal(err)
	}
	defer list.Close()
	if kept := liveHeap() - before; kept > 4<<20 {
		t.Errorf("a checked list of %d ids keeps %d MiB in memory; want it in its file", n, kept>>20)
	}
	i := 0
	for id := range list.All() {
		if i++; id != fmt.Sprintf("P%09d", i) {
			t.Fatalf("id %d read back as %q", i, id)
		}
	}
	if i != n || list.Len() != n || list.Err() != nil {
		t.Errorf("read back %d ids, Len %d, %v; want %d", i, list.Len(), list.Err(), n)
	}
}
