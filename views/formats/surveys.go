package formats

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync/atomic"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// LiveChecker decides one panelist, read with one version of the
// decisions, against its live subsamples: checks.Panelist.
type LiveChecker interface {
	EachLive(fn func(i int, pc checks.PanelistCheck))
	EachCandidate(after int64, fn func(i int, pc checks.PanelistCheck) bool) error
}

// SurveysPage asks for one page of a panelist's default answer: the
// subsamples they may enter, in the router's order.
type SurveysPage struct {
	Limit int   // entries at most, 1 or more
	After int64 // the subsample the previous page ended with; 0 for the first page
	// Next is the URL of the page after this one, given the subsample it
	// ends with; called only when there is one.
	Next func(after int64) string
}

// SurveysWriter writes a panelist's surveys (PanelistSurveysJSON) over
// thousands of live subsamples in about a millisecond. Each entry is what
// json.Marshal makes of Eligibility, in two halves encoded beforehand:
// what it says of the subsample, encoded once per version, and what it
// says of the panelist, a template per verdict with holes where the
// panelist's id, reasons and entry links go. An answer only fills the
// holes. Every template is checked against json.Marshal before it is
// used. The entries carry only the live entry links (the testing links
// are on the subsample's own page and answer) and no quota sentences (they
// are in GET /api/v1/eligibility).
//
// Make one per version of the decisions (NewSurveysWriter, kept with
// checks.Memo); it is safe for concurrent use.
type SurveysWriter struct {
	d *checks.Decisions
	// subsamples are the subsample halves, by place in EachLive's order,
	// without their braces; links the live entry link of each of their
	// locales, by locale, holes where the panelist's id goes (a nil
	// template when it must be encoded per panelist).
	subsamples [][]byte
	links      []map[string]*template
	// verdicts are the panelist halves, without braces, by verdictKey;
	// envelope the answer around the entries; paged the same, a page's
	// that has a next one (the next page's URL in its hole).
	verdicts [verdictKeys]*template
	envelope *template
	paged    *template
	// buffers are the buffers of answers sent, kept for the next ones: a
	// few, so a collection (which empties a sync.Pool, and an answer of a
	// megabyte brings one on often) does not make each answer grow its
	// buffers again from nothing.
	buffers chan *bytes.Buffer
	// kept is the capacity of the buffers kept, in bytes: at most
	// maxKeptBytes.
	kept atomic.Int64
}

// keptBuffers is how many buffers a SurveysWriter keeps, maxKept the
// largest it keeps (a rare huge answer's is not), and maxKeptBytes the
// capacity of all it keeps: what a version's buffers hold out of the
// collector's room whatever the supplier's size.
const (
	keptBuffers  = 8
	maxKept      = 4 << 20
	maxKeptBytes = 12 << 20
)

// SurveysAnswer is an answer written by SurveysWriter: its head, then
// its others (with all=true, the bulk of it, never copied into the head).
// Give it back with SurveysWriter.Release once sent.
type SurveysAnswer struct {
	head, others *bytes.Buffer
}

// WriteTo writes the answer to dst.
func (a *SurveysAnswer) WriteTo(dst io.Writer) (int64, error) {
	n, err := dst.Write(a.head.Bytes())
	if err != nil {
		return int64(n), err
	}
	m, err := dst.Write(a.others.Bytes())
	return int64(n + m), err
}

// template is JSON with holes: holes[i] goes at text[holes[i].at].
type template struct {
	text  []byte
	holes []holeAt
}

type holeAt struct {
	at   int
	kind hole
}

type hole uint8

const (
	holeID       hole = iota // the panelist id as a JSON string
	holeReasons              // the reasons, a JSON array
	holeLinks                // the entry links, a JSON array
	holeLinkID               // the panelist id, query-escaped, in an entry link
	holeMayEnter             // the entries the panelist may enter
	holeOthers               // the other entries
	holeNext                 // the next page's URL as a JSON string
)

// Hole markers: what a template holds where a hole is before it is cut.
// They survive json.Marshal and rules.EntryLink unchanged.
const (
	idMarker      = "FIELDBOARDxHOLExID"
	reasonsMarker = "FIELDBOARDxHOLExREASONS"
	linksMarker   = "FIELDBOARDxHOLExLINKS"
	linkMarker    = "FIELDBOARDxHOLExLINK"
	nextMarker    = "FIELDBOARDxHOLExNEXT"
	// probeID checks a template: filled for it, the template must give
	// what json.Marshal gives, escapes in the JSON and in the links
	// included.
	probeID = "P 1/x&<ü>"
)

// quotaVerdicts are the quota verdicts a template is made for.
var quotaVerdicts = [...]rules.QuotaVerdict{rules.QuotaFits, rules.QuotaFull, rules.QuotaOffTarget, rules.QuotaUnknown}

// verdictKeys counts the panelist halves: eligible, send, may enter and
// entry links listed, each yes or no, times the quota verdicts.
const verdictKeys = 16 * len(quotaVerdicts)

// NewSurveysWriter returns the writer of d's version, its templates made;
// an error when a subsample's half cannot be encoded.
func NewSurveysWriter(d *checks.Decisions) (*SurveysWriter, error) {
	n := d.LiveCount()
	envelope, err := envelopeTemplate()
	if err != nil {
		return nil, err
	}
	paged, err := pagedTemplate(envelope)
	if err != nil {
		return nil, err
	}
	w := &SurveysWriter{d: d, subsamples: make([][]byte, n), links: make([]map[string]*template, n),
		envelope: envelope, paged: paged, buffers: make(chan *bytes.Buffer, keptBuffers)}
	for i := range n {
		r := d.LiveReport(i)
		b, err := json.Marshal(subsampleVerdict(r))
		if err != nil {
			return nil, fmt.Errorf("encode subsample %d for a panelist's surveys: %w", r.SubsampleID, err)
		}
		w.subsamples[i] = b[1 : len(b)-1]
		w.links[i] = make(map[string]*template, len(r.Links))
		for _, l := range r.Links {
			w.links[i][l.Locale] = w.linksTemplate(r, l.Locale)
		}
	}
	for k := range w.verdicts {
		w.verdicts[k] = verdictTemplate(k)
	}
	return w, nil
}

// envelopeTemplate makes the answer around the entries, its holes in the
// order its fields are declared: the panelist id, the entries the
// panelist may enter, the others.
func envelopeTemplate() (*template, error) {
	b, err := json.Marshal(PanelistSurveysJSON{PanelistID: idMarker, MayEnter: nil, Others: []EligibilityJSON{}})
	if err != nil {
		return nil, fmt.Errorf("encode the envelope of a panelist's surveys: %w", err)
	}
	return cut(b, map[string]hole{`"` + idMarker + `"`: holeID, "null": holeMayEnter, "[]": holeOthers}), nil
}

// pagedTemplate makes the answer around a page's entries when a next
// page follows: the envelope's holes, then the next page's URL. Up to the
// entries it must be the envelope's, which a page starts with before it
// knows whether another follows.
func pagedTemplate(envelope *template) (*template, error) {
	b, err := json.Marshal(PanelistSurveysJSON{PanelistID: idMarker, MayEnter: nil, Others: []EligibilityJSON{}, Next: nextMarker})
	if err != nil {
		return nil, fmt.Errorf("encode the envelope of a page of a panelist's surveys: %w", err)
	}
	t := cut(b, map[string]hole{`"` + idMarker + `"`: holeID, "null": holeMayEnter, "[]": holeOthers, `"` + nextMarker + `"`: holeNext})
	at := envelope.holes[1].at
	if len(t.holes) != 4 || t.holes[1].at != at || !bytes.Equal(t.text[:at], envelope.text[:at]) {
		return nil, errors.New("the envelope of a page of a panelist's surveys does not start as the answer's")
	}
	return t, nil
}

// Write writes the answer with all=true for one panelist, decided by
// checker (of the writer's version of the decisions), and returns it: every
// live subsample, those the panelist may enter first in rank order, then
// the others with why not. Give it back with Release once sent; an error,
// the buffers given back, when an entry cannot be encoded.
func (w *SurveysWriter) Write(checker LiveChecker, panelistID string) (*SurveysAnswer, error) {
	return w.write(checker, panelistID, nil)
}

// WritePage writes one page of the default answer for one panelist: the
// subsamples they may enter, in the router's order
// (checks.Panelist.EachCandidate), after page.After, at most page.Limit,
// an empty others, and the next page's URL when another may-enter
// subsample follows. It decides the candidates of the panelist's country
// only up to the one after the page's last entry: a page costs its
// entries and the candidates between them, not the snapshot nor the pages
// before it. A page.After that is not among the candidates is
// checks.ErrNotCandidate. Release and errors as for Write.
func (w *SurveysWriter) WritePage(checker LiveChecker, panelistID string, page SurveysPage) (*SurveysAnswer, error) {
	if page.Limit < 1 {
		return nil, fmt.Errorf("a page of %d surveys", page.Limit)
	}
	return w.write(checker, panelistID, &page)
}

// write is Write without page, WritePage with it.
func (w *SurveysWriter) write(checker LiveChecker, panelistID string, page *SurveysPage) (*SurveysAnswer, error) {
	idJSON, err := json.Marshal(panelistID)
	if err != nil {
		return nil, fmt.Errorf("encode panelist id: %w", err)
	}
	linkID := []byte(url.QueryEscape(panelistID))
	out, others := w.buffer(), w.buffer()
	// The envelope's holes are the id, the entries the panelist may enter
	// and the others, in that order (TestSurveysEnvelope): the first
	// entries go straight into the answer's head, the others into its
	// others, which the end of the envelope follows.
	env := w.envelope.text
	atID, atMayEnter, atOthers := w.envelope.holes[0].at, w.envelope.holes[1].at, w.envelope.holes[2].at
	var nextJSON []byte // the next page's URL, when there is one (env is then w.paged's)
	out.Write(env[:atID])
	out.Write(idJSON)
	out.Write(env[atID:atMayEnter])
	out.WriteByte('[')
	entered := 0
	// failed is the first entry that could not be encoded; the others
	// are still walked, written to nothing that is sent.
	var failed error
	entry := func(i int, pc checks.PanelistCheck) {
		if failed != nil {
			return
		}
		b, n := others, others.Len()
		mayEnter := pc.MayEnter()
		if mayEnter {
			b, n = out, entered
			entered++
		}
		if n > 0 {
			b.WriteByte(',')
		}
		links, listed := w.links[i][pc.Panel.Locale]
		verdict := w.verdicts[verdictKey(pc, mayEnter, mayEnter && listed)]
		if verdict == nil {
			e, err := json.Marshal(w.slowEntry(pc, panelistID))
			if err != nil {
				failed = fmt.Errorf("encode subsample %d for panelist %s: %w", pc.SubsampleID, panelistID, err)
				return
			}
			b.Write(e)
			return
		}
		b.WriteByte('{')
		b.Write(w.subsamples[i])
		b.WriteByte(',')
		verdict.write(b, func(b *bytes.Buffer, h hole) {
			switch h {
			case holeID:
				b.Write(idJSON)
			case holeReasons:
				if err := writeReasons(b, pc); err != nil {
					failed = fmt.Errorf("encode the reasons of subsample %d for panelist %s: %w", pc.SubsampleID, panelistID, err)
				}
			case holeLinks:
				if links != nil {
					links.write(b, func(b *bytes.Buffer, _ hole) { b.Write(linkID) })
					return
				}
				e, err := json.Marshal(liveLinks(w.d.PanelistLinks(pc.SubsampleReport, pc.Panel.Locale, panelistID)))
				if err != nil {
					failed = fmt.Errorf("encode the entry links of subsample %d for panelist %s: %w", pc.SubsampleID, panelistID, err)
				}
				b.Write(e)
			}
		})
		b.WriteByte('}')
	}
	if page == nil {
		checker.EachLive(entry)
	} else {
		var last int64 // the page's last entry's subsample
		err := checker.EachCandidate(page.After, func(i int, pc checks.PanelistCheck) bool {
			if !pc.MayEnter() {
				return true
			}
			if entered == page.Limit { // one more than the page: there is a next
				next, err := json.Marshal(page.Next(last))
				if err != nil {
					failed = fmt.Errorf("encode the next page of panelist %s's surveys: %w", panelistID, err)
					return false
				}
				env, atOthers, nextJSON = w.paged.text, w.paged.holes[2].at, next
				return false
			}
			entry(i, pc)
			last = pc.SubsampleID
			return failed == nil
		})
		failed = cmp.Or(failed, err)
	}
	answer := &SurveysAnswer{head: out, others: others}
	if failed != nil {
		w.Release(answer)
		return nil, failed
	}
	out.WriteByte(']')
	out.Write(env[atMayEnter:atOthers])
	out.WriteByte('[')
	others.WriteByte(']')
	if nextJSON != nil {
		atNext := w.paged.holes[3].at
		others.Write(env[atOthers:atNext])
		others.Write(nextJSON)
		others.Write(env[atNext:])
	} else {
		others.Write(env[atOthers:])
	}
	return answer, nil
}

// buffer is an empty buffer, one kept if there is one.
func (w *SurveysWriter) buffer() *bytes.Buffer {
	select {
	case b := <-w.buffers:
		w.kept.Add(-int64(b.Cap()))
		b.Reset()
		return b
	default:
		return new(bytes.Buffer)
	}
}

// Release gives back the buffers of an answer for reuse.
func (w *SurveysWriter) Release(a *SurveysAnswer) {
	for _, b := range []*bytes.Buffer{a.head, a.others} {
		size := int64(b.Cap())
		if size > maxKept {
			continue
		}
		if w.kept.Add(size) > maxKeptBytes {
			w.kept.Add(-size)
			continue
		}
		select {
		case w.buffers <- b:
		default:
			w.kept.Add(-size)
		}
	}
}

// verdictKey is the place of pc's panelist half among the templates, -1
// for a quota verdict without one.
func verdictKey(pc checks.PanelistCheck, mayEnter, linksListed bool) int {
	k := -1
	for j, v := range quotaVerdicts {
		if pc.Quota == v {
			k = j
		}
	}
	if k < 0 {
		return -1
	}
	for _, yes := range []bool{pc.Eligible(), pc.Send(), mayEnter, linksListed} {
		k *= 2
		if yes {
			k++
		}
	}
	return k
}

// verdictTemplate makes the panelist half of verdictKey k: the verdict
// encoded by json.Marshal with markers in its holes, cut there. It is nil
// (the entry is then encoded whole) when it cannot be encoded or, filled
// for probeID, it would not give what json.Marshal gives.
func verdictTemplate(k int) *template {
	v := PanelistVerdictJSON{PanelistID: idMarker, Reasons: []ReasonJSON{{Kind: reasonsMarker}}}
	bits := k % 16
	v.Quota = quotaVerdicts[k/16]
	v.Eligible, v.Send, v.MayEnter = bits&8 != 0, bits&4 != 0, bits&2 != 0
	probe := v
	probe.PanelistID, probe.Reasons = probeID, []ReasonJSON{}
	if bits&1 != 0 {
		v.EntryLinks = []EntryLinkJSON{{Locale: linksMarker}}
		probe.EntryLinks = []EntryLinkJSON{{Locale: "x"}}
	}
	reasons, err1 := json.Marshal(v.Reasons)
	links, err2 := json.Marshal(v.EntryLinks)
	marked, err3 := json.Marshal(v)
	want, err4 := json.Marshal(probe)
	id, err5 := json.Marshal(probeID)
	probeLinks, err6 := json.Marshal(probe.EntryLinks)
	if errors.Join(err1, err2, err3, err4, err5, err6) != nil {
		return nil
	}
	markers := map[string]hole{`"` + idMarker + `"`: holeID, string(reasons): holeReasons}
	if v.EntryLinks != nil {
		markers[string(links)] = holeLinks
	}
	t := cut(marked[1:len(marked)-1], markers)
	if !t.checks(want[1:len(want)-1], map[hole]string{holeID: string(id), holeReasons: "[]", holeLinks: string(probeLinks)}) {
		return nil
	}
	return t
}

// linksTemplate makes the live entry link of r's locale with a hole where
// the panelist's id goes; nil when it cannot be (a raw link holds a
// marker, or it cannot be encoded), and is then encoded per panelist.
func (w *SurveysWriter) linksTemplate(r *checks.SubsampleReport, locale string) *template {
	marked, err1 := json.Marshal(liveLinks(w.d.PanelistLinks(r, locale, linkMarker)))
	want, err2 := json.Marshal(liveLinks(w.d.PanelistLinks(r, locale, probeID)))
	if errors.Join(err1, err2) != nil {
		return nil
	}
	t := cut(marked, map[string]hole{linkMarker: holeLinkID})
	if !t.checks(want, map[hole]string{holeLinkID: url.QueryEscape(probeID)}) {
		return nil
	}
	return t
}

// slowEntry is the entry of pc for a panelist, as the templates write it.
func (w *SurveysWriter) slowEntry(pc checks.PanelistCheck, panelistID string) EligibilityJSON {
	if pc.MayEnter() {
		pc.PanelistLinks = w.d.PanelistLinks(pc.SubsampleReport, pc.Panel.Locale, panelistID)
		for i := range pc.PanelistLinks {
			pc.PanelistLinks[i].Testing = ""
		}
	}
	return Eligibility(pc, panelistID)
}

// liveLinks shapes entry links for a panelist's surveys: the live ones
// only.
func liveLinks(links []checks.EntryLinks) []EntryLinkJSON {
	out := EntryLinks(links)
	for i := range out {
		out[i].Testing = ""
	}
	return out
}

// cut makes a template of b, cutting out each marker it holds.
func cut(b []byte, markers map[string]hole) *template {
	t := &template{text: make([]byte, 0, len(b))}
	for {
		at, which := -1, ""
		for m := range markers {
			if k := bytes.Index(b, []byte(m)); k >= 0 && (at < 0 || k < at) {
				at, which = k, m
			}
		}
		if at < 0 {
			break
		}
		t.text = append(t.text, b[:at]...)
		t.holes = append(t.holes, holeAt{at: len(t.text), kind: markers[which]})
		b = b[at+len(which):]
	}
	t.text = append(t.text, b...)
	return t
}

// checks reports whether t, its holes filled with values, gives want.
func (t *template) checks(want []byte, values map[hole]string) bool {
	var b bytes.Buffer
	t.write(&b, func(b *bytes.Buffer, h hole) { b.WriteString(values[h]) })
	return bytes.Equal(b.Bytes(), want)
}

// write writes t to b, with fill writing each hole.
func (t *template) write(b *bytes.Buffer, fill func(*bytes.Buffer, hole)) {
	from := 0
	for _, h := range t.holes {
		b.Write(t.text[from:h.at])
		fill(b, h.kind)
		from = h.at
	}
	b.Write(t.text[from:])
}

// writeReasons writes pc's reasons to w as JSON, in the order reasons
// gives them (appendReason); an error, w left part written, when one
// cannot be encoded.
func writeReasons(w *bytes.Buffer, pc checks.PanelistCheck) error {
	if pc.Eligible() && pc.Capped == "" {
		w.WriteString(`[]`)
		return nil
	}
	w.WriteByte('[')
	n := 0
	reason := func(r ReasonJSON) error {
		if n++; n > 1 {
			w.WriteByte(',')
		}
		return appendReason(w, r)
	}
	if !pc.Panel.Fits {
		if err := reason(panelReason(pc.Panel.Reason)); err != nil {
			return err
		}
	}
	if pc.RulesUnread != "" {
		if err := reason(rulesUnread(pc.RulesUnread)); err != nil {
			return err
		}
	}
	for k := range pc.Eligibility.Exclusions {
		if err := reason(exclusion(&pc.Eligibility.Exclusions[k])); err != nil {
			return err
		}
	}
	if pc.Capped != "" {
		if err := reason(ReasonJSON{Kind: "ourCap", Reason: pc.Capped}); err != nil {
			return err
		}
	}
	w.WriteByte(']')
	return nil
}
