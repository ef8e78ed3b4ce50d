package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"sync"
	"sync/atomic"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// LiveChecker decides a panelist against every live subsample of one
// version of the decisions: checks.Service.EachLive.
type LiveChecker interface {
	EachLive(ctx context.Context, d *checks.Decisions, panelistID string, fn func(i int, pc checks.PanelistCheck)) error
}

// SurveysWriter writes a panelist's surveys (PanelistSurveysJSON) over
// thousands of live subsamples in about a millisecond. Each entry is what
// json.Marshal makes of Eligibility, made once per version, subsample and
// verdict as a template with holes where the panelist's id, reasons and
// link ids go; an answer fills the holes. The entries carry only the live
// entry links (the testing links are on the subsample's own page and
// answer) and no quota sentences (they are in GET /api/v1/eligibility).
//
// Make one per version of the decisions (NewSurveysWriter, kept with
// checks.Memo); it is safe for concurrent use.
type SurveysWriter struct {
	d       *checks.Decisions
	entries []surveyEntry // by place in EachLive's order
	buffers sync.Pool
}

// surveyEntry holds one live subsample's templates, one per verdict: the
// panelist's eligibility and quota verdict decide everything else of the
// entry but the holes.
type surveyEntry struct {
	templates [2 * len(quotaVerdicts)]atomic.Pointer[entryTemplate]
}

// quotaVerdicts are the quota verdicts a template is made for.
var quotaVerdicts = [...]rules.QuotaVerdict{rules.QuotaFits, rules.QuotaFull, rules.QuotaOffTarget, rules.QuotaUnknown}

// entryTemplate is one entry's JSON cut at its holes: parts[i] comes
// before holes[i], and the last part after the last hole. A template that
// could not be made (verified is false) is written by json.Marshal every
// time.
type entryTemplate struct {
	parts    [][]byte
	holes    []hole
	verified bool
}

type hole uint8

const (
	holeID      hole = iota // the panelist id as a JSON string
	holeReasons             // the reasons, a JSON array
	holeLinkID              // the panelist id, query-escaped, in an entry link
)

// Hole markers: what a template holds where a hole is before it is cut.
// They survive json.Marshal and rules.EntryLink unchanged.
const (
	idMarker      = "FIELDBOARDxHOLExID"
	reasonsMarker = "FIELDBOARDxHOLExREASONS"
	linkMarker    = "FIELDBOARDxHOLExLINK"
	// probeID checks a template: filled for it, the template must give
	// what json.Marshal gives, escapes in the JSON and in the link
	// included.
	probeID = "P 1/x&<ü>"
)

// NewSurveysWriter returns the writer of d's version.
func NewSurveysWriter(d *checks.Decisions) *SurveysWriter {
	return &SurveysWriter{d: d, entries: make([]surveyEntry, d.LiveCount()),
		buffers: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
}

// Write writes the answer for one panelist and returns it; give it back
// with Release once sent.
func (w *SurveysWriter) Write(ctx context.Context, checker LiveChecker, panelistID string) (*bytes.Buffer, error) {
	idJSON, _ := json.Marshal(panelistID)
	linkID := []byte(url.QueryEscape(panelistID))
	others := w.buffers.Get().(*bytes.Buffer)
	defer w.Release(others)
	others.Reset()
	out := w.buffers.Get().(*bytes.Buffer)
	out.Reset()
	out.WriteString(`{"panelistId":`)
	out.Write(idJSON)
	out.WriteString(`,"mayEnter":[`)
	entered := 0
	reasons := reasonWriter{}
	err := checker.EachLive(ctx, w.d, panelistID, func(i int, pc checks.PanelistCheck) {
		b, n := others, others.Len()
		if pc.MayEnter() {
			b, n = out, entered
			entered++
		}
		if n > 0 {
			b.WriteByte(',')
		}
		t := w.template(i, pc)
		if !t.verified {
			e, _ := json.Marshal(w.slowEntry(pc, panelistID))
			b.Write(e)
			return
		}
		for j, part := range t.parts {
			b.Write(part)
			if j == len(t.holes) {
				break
			}
			switch t.holes[j] {
			case holeID:
				b.Write(idJSON)
			case holeReasons:
				reasons.write(b, pc)
			case holeLinkID:
				b.Write(linkID)
			}
		}
	})
	if err != nil {
		w.Release(out)
		return nil, err
	}
	out.WriteString(`],"others":[`)
	out.Write(others.Bytes())
	out.WriteString(`]}`)
	return out, nil
}

// Release gives back a buffer of Write for reuse.
func (w *SurveysWriter) Release(b *bytes.Buffer) {
	if b.Cap() <= 4<<20 { // a rare huge answer is not kept
		w.buffers.Put(b)
	}
}

// template returns the template of live subsample i for pc's verdict,
// making it the first time.
func (w *SurveysWriter) template(i int, pc checks.PanelistCheck) *entryTemplate {
	k := -1
	for j, v := range quotaVerdicts {
		if pc.Quota == v {
			k = j
		}
	}
	if k < 0 {
		return &entryTemplate{} // a verdict without a template: json.Marshal
	}
	if pc.Eligible() {
		k += len(quotaVerdicts)
	}
	slot := &w.entries[i].templates[k]
	if t := slot.Load(); t != nil {
		return t
	}
	t := w.makeTemplate(pc)
	slot.Store(t)
	return t
}

// slowEntry is the entry of pc for a panelist, as a template fills it.
func (w *SurveysWriter) slowEntry(pc checks.PanelistCheck, panelistID string) EligibilityJSON {
	if pc.MayEnter() {
		pc.PanelistLinks = w.d.EntryLinks(pc.SubsampleReport, panelistID)
		for i := range pc.PanelistLinks {
			pc.PanelistLinks[i].Testing = ""
		}
	}
	return Eligibility(pc, panelistID)
}

// makeTemplate encodes pc's entry with markers in its holes and cuts it
// there. It keeps the template only when, filled for probeID, it gives
// what json.Marshal gives for probeID: a provider's text that holds a
// marker, or a link the id is not simply spliced into, makes it unverified.
func (w *SurveysWriter) makeTemplate(pc checks.PanelistCheck) *entryTemplate {
	marked := w.slowEntry(pc, linkMarker)
	marked.PanelistID = idMarker
	marked.Reasons = []ReasonJSON{{Kind: reasonsMarker}}
	b, err := json.Marshal(marked)
	if err != nil {
		return &entryTemplate{}
	}
	reasonsJSON, _ := json.Marshal(marked.Reasons)
	markers := []struct {
		text []byte
		hole hole
	}{{[]byte(`"` + idMarker + `"`), holeID}, {reasonsJSON, holeReasons}, {[]byte(linkMarker), holeLinkID}}
	t := &entryTemplate{}
	for {
		at, which := -1, 0
		for j, m := range markers {
			if k := bytes.Index(b, m.text); k >= 0 && (at < 0 || k < at) {
				at, which = k, j
			}
		}
		if at < 0 {
			break
		}
		t.parts = append(t.parts, b[:at])
		t.holes = append(t.holes, markers[which].hole)
		b = b[at+len(markers[which].text):]
	}
	t.parts = append(t.parts, b)

	// Check it against json.Marshal, filled for probeID with no reasons.
	var filled bytes.Buffer
	probeJSON, _ := json.Marshal(probeID)
	for j, part := range t.parts {
		filled.Write(part)
		if j < len(t.holes) {
			switch t.holes[j] {
			case holeID:
				filled.Write(probeJSON)
			case holeReasons:
				filled.WriteString("[]")
			case holeLinkID:
				filled.WriteString(url.QueryEscape(probeID))
			}
		}
	}
	probe := w.slowEntry(pc, probeID)
	probe.Reasons = []ReasonJSON{}
	want, _ := json.Marshal(probe)
	t.verified = bytes.Equal(filled.Bytes(), want)
	return t
}

// reasonWriter writes an entry's reasons as JSON, encoding each distinct
// exclusion once: one record often excludes from hundreds of subsamples
// through the same entry.
type reasonWriter map[rules.Exclusion][]byte

func (rw reasonWriter) write(w *bytes.Buffer, pc checks.PanelistCheck) {
	if pc.Eligible() {
		w.WriteString(`[]`)
		return
	}
	w.WriteByte('[')
	if pc.RulesUnread != "" {
		b, _ := json.Marshal(rulesUnread(pc.RulesUnread))
		w.Write(b)
	}
	for i, e := range pc.Eligibility.Exclusions {
		if i > 0 || pc.RulesUnread != "" {
			w.WriteByte(',')
		}
		e.Index = 0 // not part of the answer
		b, ok := rw[e]
		if !ok {
			b, _ = json.Marshal(exclusion(e))
			rw[e] = b
		}
		w.Write(b)
	}
	w.WriteByte(']')
}
