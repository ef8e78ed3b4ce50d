package handlers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// liveTarget is one live subsample prepared, once per snapshot, for
// checking panelists against it: what the check needs and the parts of its
// JSON answer that do not depend on the panelist.
type liveTarget struct {
	report *SubsampleReport
	target rules.Target
	rules  domain.EligibilityRules
	unread string           // rulesUnread of the subsample
	cells  rules.QuotaCells // its quotas, compiled for matching profiles
	// quotasUnread says why the quotas cannot be matched ("" when they can):
	// kept quotas from before a failed read are not matched against.
	quotasUnread string

	// fixedJSON is `"subsampleId":…,"eventId":…,"name":…,"sendability":…,
	// "sendabilityReasons":[…]`, without braces.
	fixedJSON []byte
	// linkParts is the JSON array of the live entry links, cut where the
	// panelist's id goes; nil when the links must be prepared per panelist.
	linkParts [][]byte
}

// idSentinel stands for the panelist's id in the prepared entry links. It
// survives rules.EntryLink's query-escaping and JSON unchanged.
const idSentinel = "FIELDBOARDxPANELISTxID"

// prepareTargets fills snap.targets and snap.book from the live
// subsamples of snap.rows and their reports.
func (snap *snapshot) prepareTargets() {
	snap.targets = snap.targets[:0]
	for i := range snap.rows {
		row := &snap.rows[i]
		if !row.Live {
			continue
		}
		t := liveTarget{
			report: &snap.reports[i],
			target: rules.Target{SubsampleID: row.SubsampleID, EventID: row.EventID},
			rules:  snap.rules[row.SubsampleID],
			unread: rules.RulesNotRead(row.RulesOK, row.RulesError),
			cells:  rules.CompileQuotas(snap.quotas[row.SubsampleID]),
		}
		t.quotasUnread = rules.QuotasNotRead(row.QuotasOK, row.QuotasError)
		t.fixedJSON = fixedJSON(t.report)
		t.linkParts = snap.linkParts(t.report)
		snap.targets = append(snap.targets, t)
	}
	slices.SortStableFunc(snap.targets, func(a, b liveTarget) int { return byEarnings(a.report.EPC, b.report.EPC) })
	targets := make([]rules.Target, len(snap.targets))
	ruleSets := make([]domain.EligibilityRules, len(snap.targets))
	snap.targetOf = make(map[int64]int, len(snap.targets))
	for i, t := range snap.targets {
		targets[i], ruleSets[i] = t.target, t.rules
		snap.targetOf[t.target.SubsampleID] = i
	}
	snap.book = rules.NewRuleBook(targets, ruleSets, snap.parents)
}

// byEarnings ranks subsamples for a panelist: the highest expected
// earnings per entrant first within a currency (figures in different
// currencies are never compared as numbers, so currencies form groups, in
// code order), those without a figure last.
func byEarnings(a, b rules.EPC) int {
	switch {
	case a.Known() != b.Known():
		if a.Known() {
			return -1
		}
		return 1
	case a.Currency != b.Currency:
		return strings.Compare(a.Currency, b.Currency)
	}
	return cmp.Compare(b.Value, a.Value)
}

// quotaVerdict is a panelist's quota verdict on t: unknown while t's
// quotas are not read.
func (t *liveTarget) quotaVerdict(p domain.Profile, now time.Time) rules.QuotaVerdict {
	if t.quotasUnread != "" {
		return rules.QuotaUnknown
	}
	return t.cells.Verdict(p, now)
}

// explainQuota says why a panelist's quota verdict on t is not fits.
func (t *liveTarget) explainQuota(p domain.Profile, now time.Time) []string {
	if t.quotasUnread != "" {
		return []string{t.quotasUnread}
	}
	return t.cells.Explain(p, now)
}

func fixedJSON(r *SubsampleReport) []byte {
	b, _ := json.Marshal(struct {
		SubsampleID        int64       `json:"subsampleId"`
		EventID            int64       `json:"eventId"`
		Name               string      `json:"name"`
		Currency           string      `json:"currency,omitempty"`
		EPC                *float64    `json:"epc"`
		EPCSource          string      `json:"epcSource"`
		Sendability        rules.State `json:"sendability"`
		SendabilityReasons []string    `json:"sendabilityReasons"`
	}{r.SubsampleID, r.EventID, r.Name, r.Currency, epcValue(r.EPC), string(r.EPC.Source), r.Verdict.State, nonNil(r.Verdict.Reasons)})
	return b[1 : len(b)-1]
}

// linkParts prepares the live entry links of r for any panelist: their
// JSON with the id's place cut out. It returns nil when a raw link holds
// the sentinel itself, and the links are then prepared per panelist.
func (snap *snapshot) linkParts(r *SubsampleReport) [][]byte {
	for _, l := range snap.links[r.SubsampleID] {
		if bytes.Contains([]byte(l.LiveEntryLink), []byte(idSentinel)) {
			return nil
		}
	}
	b, _ := json.Marshal(liveLinksOnly(snap.entryLinks(r.SubsampleRow, idSentinel)))
	return bytes.Split(b, []byte(idSentinel))
}

// liveLinksOnly drops the testing links: a panelist is sent to the live
// one, and the subsample's own pages and API carry both.
func liveLinksOnly(links []EntryLinks) []EntryLinks {
	out := make([]EntryLinks, len(links))
	for i, l := range links {
		out[i] = EntryLinks{Locale: l.Locale, Live: l.Live, Problem: l.Problem}
	}
	return out
}

var surveyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// PanelistSurveysJSON writes the answer of GET /api/v1/panelists/{id}/surveys
// (a PanelistSurveysJSON, whose entries carry only the live entry links)
// and returns it; put it back with ReleaseJSON once written. The parts
// that do not depend on the panelist were encoded with the snapshot, so
// an answer over thousands of subsamples is mostly copying.
func (c *Checker) PanelistSurveysJSON(ctx context.Context, panelistID string) (*bytes.Buffer, error) {
	snap, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	idJSON, _ := json.Marshal(panelistID)
	escaped := []byte(url.QueryEscape(panelistID)) // only characters JSON keeps as they are
	others := surveyBuffers.Get().(*bytes.Buffer)
	defer ReleaseJSON(others)
	others.Reset()
	out := surveyBuffers.Get().(*bytes.Buffer)
	out.Reset()
	out.WriteString(`{"panelistId":`)
	out.Write(idJSON)
	out.WriteString(`,"mayEnter":[`)
	mayEnter := 0
	reasons := reasonWriter{}
	err = c.eachCheck(ctx, panelistID, snap, func(t *liveTarget, _ domain.Profile, pc PanelistCheck) {
		w, n := others, others.Len()
		enter := pc.MayEnter()
		if enter {
			w, n = out, mayEnter
			mayEnter++
		}
		if n > 0 {
			w.WriteByte(',')
		}
		w.WriteString(`{"panelistId":`)
		w.Write(idJSON)
		w.WriteByte(',')
		w.Write(t.fixedJSON)
		w.WriteString(`,"eligible":`)
		w.WriteString(strconv.FormatBool(pc.Eligible()))
		w.WriteString(`,"quota":"`)
		w.WriteString(string(pc.Quota))
		w.WriteString(`","send":`)
		w.WriteString(strconv.FormatBool(pc.Send()))
		w.WriteString(`,"mayEnter":`)
		w.WriteString(strconv.FormatBool(enter))
		w.WriteString(`,"reasons":`)
		reasons.write(w, pc)
		if enter {
			w.WriteString(`,"entryLinks":`)
			writeLinks(w, t, pc, panelistID, escaped, snap)
		}
		w.WriteByte('}')
	})
	if err != nil {
		ReleaseJSON(out)
		return nil, err
	}
	out.WriteString(`],"others":[`)
	out.Write(others.Bytes())
	out.WriteString(`]}`)
	return out, nil
}

// writeLinks writes the live entry links of t filled for the panelist.
func writeLinks(w *bytes.Buffer, t *liveTarget, pc PanelistCheck, panelistID string, escaped []byte, snap *snapshot) {
	if t.linkParts == nil {
		b, _ := json.Marshal(liveLinksOnly(snap.entryLinks(pc.SubsampleRow, panelistID)))
		w.Write(b)
		return
	}
	for i, part := range t.linkParts {
		if i > 0 {
			w.Write(escaped)
		}
		w.Write(part)
	}
}

// ReleaseJSON returns a buffer of PanelistSurveysJSON for reuse.
func ReleaseJSON(b *bytes.Buffer) {
	if b.Cap() <= 4<<20 { // a rare huge answer is not kept
		surveyBuffers.Put(b)
	}
}

// reasonWriter writes the reasons of PanelistCheck.reasons as JSON,
// encoding each distinct exclusion once: one record often excludes from
// hundreds of subsamples through the same entry.
type reasonWriter map[rules.Exclusion][]byte

func (rw reasonWriter) write(w *bytes.Buffer, pc PanelistCheck) {
	if pc.Eligible() {
		w.WriteString(`[]`)
		return
	}
	w.WriteByte('[')
	if pc.RulesUnread != "" {
		b, _ := json.Marshal(ReasonJSON{Kind: "rulesUnread", Reason: pc.RulesUnread})
		w.Write(b)
	}
	for i, e := range pc.Eligibility.Exclusions {
		if i > 0 || pc.RulesUnread != "" {
			w.WriteByte(',')
		}
		e.Index = 0 // not part of the answer
		b, ok := rw[e]
		if !ok {
			b, _ = json.Marshal(exclusionJSON(e))
			rw[e] = b
		}
		w.Write(b)
	}
	w.WriteByte(']')
}
