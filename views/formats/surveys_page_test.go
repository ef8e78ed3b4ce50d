package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// candidates is a LiveChecker of n candidates in the router's order, the
// subsample at place i with id 100+i, which the panelist may enter when
// may(i); it counts the candidates it decided.
type candidates struct {
	reports []*checks.SubsampleReport
	may     func(i int) bool
	decided int
}

func newCandidates(n int, may func(int) bool) *candidates {
	c := &candidates{may: may}
	for i := range n {
		c.reports = append(c.reports, &checks.SubsampleReport{SubsampleRow: store.SubsampleRow{SubsampleID: int64(100 + i)},
			Verdict: rules.Verdict{State: rules.Sendable}})
	}
	return c
}

func (c *candidates) EachLive(func(int, checks.PanelistCheck)) {
	panic("a page decides candidates only")
}

func (c *candidates) EachCandidate(after int64, fn func(int, checks.PanelistCheck) bool) error {
	from := 0
	if after != 0 {
		from = slices.IndexFunc(c.reports, func(r *checks.SubsampleReport) bool { return r.SubsampleID == after }) + 1
		if from == 0 {
			return checks.ErrNotCandidate
		}
	}
	for i := from; i < len(c.reports); i++ {
		c.decided++
		pc := checks.PanelistCheck{SubsampleReport: c.reports[i], Panel: rules.PanelFit{Fits: true}, Quota: rules.QuotaFits,
			Eligibility: rules.EligibilityResult{Eligible: c.may(i)}}
		if !fn(i, pc) {
			break
		}
	}
	return nil
}

// writerOf is the writer of the candidates' subsamples, as NewSurveysWriter
// makes it of decisions holding them.
func writerOf(t *testing.T, c *candidates) *SurveysWriter {
	t.Helper()
	env, err := envelopeTemplate()
	if err != nil {
		t.Fatal(err)
	}
	paged, err := pagedTemplate(env)
	if err != nil {
		t.Fatal(err)
	}
	w := &SurveysWriter{envelope: env, paged: paged, buffers: make(chan *bytes.Buffer, keptBuffers)}
	for _, r := range c.reports {
		b, err := json.Marshal(subsampleVerdict(r))
		if err != nil {
			t.Fatal(err)
		}
		w.subsamples = append(w.subsamples, b[1:len(b)-1])
		w.links = append(w.links, map[string]*template{})
	}
	for k := range w.verdicts {
		w.verdicts[k] = verdictTemplate(k)
	}
	return w
}

// TestSurveysPageDecidesUpToItsEnd: a page decides the candidates up to
// the one after its last entry, not the rest; it lists at most its limit
// of those the panelist may enter, in the candidates' order, and names the
// next page only when one the panelist may enter follows; a page after a
// subsample starts after it.
func TestSurveysPageDecidesUpToItsEnd(t *testing.T) {
	even := func(i int) bool { return i%2 == 0 } // 100, 102, ... of 40
	for _, tc := range []struct {
		name        string
		n           int
		may         func(int) bool
		limit       int
		after       int64
		want        []int64
		next        string
		wantDecided int
	}{
		{"the first page", 40, even, 3, 0, []int64{100, 102, 104}, "after=104", 7},
		{"the next page", 40, even, 3, 104, []int64{106, 108, 110}, "after=110", 8},
		{"the last page, full", 40, even, 3, 132, []int64{134, 136, 138}, "", 7},
		{"the last page, short", 40, even, 3, 134, []int64{136, 138}, "", 5},
		{"one at a time", 40, even, 1, 0, []int64{100}, "after=100", 3},
		{"nothing to enter", 40, func(int) bool { return false }, 3, 0, nil, "", 40},
		{"fewer than a page", 4, func(int) bool { return true }, 20, 0, []int64{100, 101, 102, 103}, "", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCandidates(tc.n, tc.may)
			w := writerOf(t, c)
			answer, err := w.WritePage(c, "P1", SurveysPage{Limit: tc.limit, After: tc.after, Next: func(after int64) string { return fmt.Sprintf("after=%d", after) }})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := answer.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			var got PanelistSurveysJSON
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatalf("%v:\n%s", err, b.String())
			}
			var ids []int64
			for _, e := range got.MayEnter {
				ids = append(ids, e.SubsampleID)
			}
			if !slices.Equal(ids, tc.want) || got.Next != tc.next || got.Others == nil || len(got.Others) != 0 {
				t.Errorf("listed %v, next %q, others %v; want %v, next %q, none", ids, got.Next, got.Others, tc.want, tc.next)
			}
			if c.decided != tc.wantDecided {
				t.Errorf("decided %d candidates, want %d: up to the one after the page's last entry", c.decided, tc.wantDecided)
			}
		})
	}
	c := newCandidates(5, even)
	if _, err := writerOf(t, c).WritePage(c, "P1", SurveysPage{Limit: 2, After: 999, Next: func(int64) string { return "" }}); !errors.Is(err, checks.ErrNotCandidate) {
		t.Errorf("after a subsample that is no candidate: %v, want ErrNotCandidate", err)
	}
}

// TestSurveysWriterKeepsBoundedBuffers: the buffers a writer keeps for
// the next answers hold maxKeptBytes at most, however many answers of
// a few MiB are given back, and one taken again leaves room for another.
func TestSurveysWriterKeepsBoundedBuffers(t *testing.T) {
	w := &SurveysWriter{buffers: make(chan *bytes.Buffer, keptBuffers)}
	big := func() *bytes.Buffer { return bytes.NewBuffer(make([]byte, 0, 3<<20)) }
	for range keptBuffers {
		w.Release(&SurveysAnswer{head: big(), others: big()})
	}
	if kept := w.kept.Load(); kept > maxKeptBytes || len(w.buffers) == 0 {
		t.Fatalf("kept %d bytes in %d buffers, want some, and %d bytes at most", kept, len(w.buffers), maxKeptBytes)
	}
	held := int64(0)
	for len(w.buffers) > 0 {
		held += int64(w.buffer().Cap())
	}
	if kept := w.kept.Load(); kept != 0 || held > maxKeptBytes {
		t.Errorf("after taking every buffer back: %d bytes counted as kept, %d were held; want 0 and %d at most", kept, held, maxKeptBytes)
	}
}
