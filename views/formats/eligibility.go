package formats

import (
	"strconv"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
)

// ReasonJSON is one reason a panelist may not enter a subsample.
type ReasonJSON struct {
	Kind   string                `json:"kind"` // panel, rulesUnread, surveys, researchTypes, categories, events or uniqueEvent
	Rule   string                `json:"rule,omitempty"`
	Reason string                `json:"reason"`
	Record *domain.HistoryRecord `json:"record,omitempty"`
}

// EligibilityJSON answers whether a panelist may enter a subsample: GET
// /api/v1/eligibility, and each entry of a panelist's surveys. Its two
// halves are encoded apart by the surveys' writer: what it says of the
// subsample whoever asks, and what it says of the panelist.
type EligibilityJSON struct {
	SubsampleVerdictJSON
	PanelistVerdictJSON
}

// SubsampleVerdictJSON is what an EligibilityJSON says of the subsample.
type SubsampleVerdictJSON struct {
	SubsampleID        int64       `json:"subsampleId"`
	EventID            int64       `json:"eventId"`
	Name               string      `json:"name"`
	Currency           string      `json:"currency,omitempty"`
	EPC                *float64    `json:"epc"`
	EPCSource          string      `json:"epcSource"`
	Sendability        rules.State `json:"sendability"`
	SendabilityReasons []string    `json:"sendabilityReasons"`
}

// PanelistVerdictJSON is what an EligibilityJSON says of the panelist.
type PanelistVerdictJSON struct {
	PanelistID string `json:"panelistId"`
	Eligible   bool   `json:"eligible"`
	// Quota is the panelist's quota verdict (fits, quota_full, off_target,
	// unknown); QuotaReasons explain one other than fits, where given.
	Quota        rules.QuotaVerdict `json:"quota"`
	QuotaReasons []string           `json:"quotaReasons,omitempty"`
	// Send: sendable, eligible and surely in an open cell (the send list).
	Send       bool            `json:"send"`
	MayEnter   bool            `json:"mayEnter"`
	Reasons    []ReasonJSON    `json:"reasons"`
	EntryLinks []EntryLinkJSON `json:"entryLinks,omitempty"`
}

// Eligibility shapes one panelist's check for the API. The entry links
// are given only when the panelist may enter.
func Eligibility(p checks.PanelistCheck, panelistID string) EligibilityJSON {
	out := EligibilityJSON{SubsampleVerdictJSON: subsampleVerdict(p.SubsampleReport), PanelistVerdictJSON: PanelistVerdictJSON{
		PanelistID: panelistID, Eligible: p.Eligible(), Quota: p.Quota, QuotaReasons: p.QuotaWhy,
		Send: p.Send(), MayEnter: p.MayEnter(), Reasons: reasons(p),
	}}
	if out.MayEnter {
		out.EntryLinks = EntryLinks(p.PanelistLinks)
	}
	return out
}

// subsampleVerdict is what an EligibilityJSON says of r.
func subsampleVerdict(r *checks.SubsampleReport) SubsampleVerdictJSON {
	return SubsampleVerdictJSON{SubsampleID: r.SubsampleID, EventID: r.EventID, Name: r.Name,
		Currency: r.Currency, EPC: EPCValue(r.EPC), EPCSource: string(r.EPC.Source),
		Sendability: r.Verdict.State, SendabilityReasons: NonNil(r.Verdict.Reasons)}
}

// reasons are why the panelist is not eligible, never nil: their country
// or language first, then rules that could not be read, then exclusions.
func reasons(p checks.PanelistCheck) []ReasonJSON {
	out := []ReasonJSON{}
	if !p.Panel.Fits {
		out = append(out, panelReason(p.Panel.Reason))
	}
	if p.RulesUnread != "" {
		out = append(out, rulesUnread(p.RulesUnread))
	}
	for _, e := range p.Eligibility.Exclusions {
		out = append(out, exclusion(&e))
	}
	if p.Capped != "" {
		out = append(out, ReasonJSON{Kind: "ourCap", Reason: p.Capped})
	}
	return out
}

// panelReason is the reason given when the panelist's country or
// language does not fit (rules.FitPanel).
func panelReason(why string) ReasonJSON { return ReasonJSON{Kind: "panel", Reason: why} }

// rulesUnread is the reason given when a subsample's rules could not be
// read.
func rulesUnread(why string) ReasonJSON { return ReasonJSON{Kind: "rulesUnread", Reason: why} }

// exclusion is one exclusion as the API gives it, its record e's.
// The quality hold names no one record: it counts the panelist's
// reversals.
func exclusion(e *rules.Exclusion) ReasonJSON {
	if e.Kind == rules.KindQualityHold {
		return ReasonJSON{Kind: e.Kind, Reason: e.Reason}
	}
	return ReasonJSON{Kind: e.Kind, Rule: e.Rule, Reason: e.Reason, Record: &e.Record}
}

// PanelistSurveysJSON lists the subsamples a panelist may enter now, with
// their live entry links filled for the panelist, and the others with why
// not: GET /api/v1/panelists/{id}/surveys, written by SurveysWriter.
type PanelistSurveysJSON struct {
	PanelistID string            `json:"panelistId"`
	MayEnter   []EligibilityJSON `json:"mayEnter"`
	Others     []EligibilityJSON `json:"others"`
	// Next is the URL (path and query) of the next page of the default
	// answer, left out on its last page and with all=true.
	Next string `json:"next,omitempty"`
}

// WritePanelistSurveysCSV writes one panelist's check against every live
// subsample (/panelists.csv?panelist=P), one line per check in the order
// given: the fields of Eligibility, with every reason the panelist may not
// enter in why (the subsample's sendability reasons first, then
// Eligibility's Reasons), the quota's in quotaWhy, and the live entry
// links as "locale link" pairs joined with "; ".
func WritePanelistSurveysCSV(w *Writer, panelistID string, surveys []checks.PanelistCheck) error {
	if err := w.Write("panelistId", "subsampleId", "name", "country", "cpi", "currency", "epc", "epcSource", "sendability", "eligible", "quota", "send", "mayEnter", "why", "quotaWhy", "liveEntryLinks"); err != nil {
		return err
	}
	for _, pc := range surveys {
		j := Eligibility(pc, panelistID)
		var why, links []string
		why = append(why, j.SendabilityReasons...)
		for _, r := range j.Reasons {
			why = append(why, r.Reason)
		}
		for _, l := range j.EntryLinks {
			links = append(links, l.Locale+" "+l.Live)
		}
		if err := w.Write(panelistID, Int(pc.SubsampleID), pc.Name, pc.CountryCode, OptFloat(rules.KnownCPI(pc.CPI, pc.Currency), 2), pc.Currency,
			OptFloat(j.EPC, 2), j.EPCSource, string(j.Sendability), strconv.FormatBool(j.Eligible), string(j.Quota),
			strconv.FormatBool(j.Send), strconv.FormatBool(j.MayEnter),
			strings.Join(why, " "), strings.Join(j.QuotaReasons, " "), strings.Join(links, "; ")); err != nil {
			return err
		}
	}
	return nil
}
