package formats

import (
	"slices"
	"strconv"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
)

// Quota is one line of a subsample's quotas CSV: the quota as the
// provider sent it, what remains of it (never below 0) and whether it is
// open, its conditions as sentences (handlers.ConditionText) and its pace
// (nil for a quota that has none).
type Quota struct {
	domain.Quota
	Remaining  int64
	Open       bool
	Conditions []string
	Pacing     *rules.Pacing
}

// quotasHeader is the header of a subsample's quotas CSV.
var quotasHeader = append([]string{"quotaId", "tableId", "tableName", "quotaName", "quotaType", "achieved",
	"remainingExclusive", "remainingShared", "remaining", "open", "conditions"}, PacingHeader...)

// WriteQuotasCSV writes a live subsample's quota table
// (/subsamples/{id}/quotas.csv) in the order given (the handler puts the
// total quota first, as the page does); conditions are joined with " and ".
func WriteQuotasCSV(w *Writer, quotas []Quota) error {
	if err := w.Write(slices.Clone(quotasHeader)...); err != nil {
		return err
	}
	for _, q := range quotas {
		cells := []string{Int(q.QuotaID), Int(q.TableID), q.TableName, q.QuotaName, q.QuotaType,
			Int(q.AchievedInterviews), Int(q.RemainingExclusive), Int(q.RemainingShared),
			Int(q.Remaining), strconv.FormatBool(q.Open), strings.Join(q.Conditions, " and ")}
		if err := w.Write(append(cells, PacingCells(q.Pacing)...)...); err != nil {
			return err
		}
	}
	return nil
}

// WriteVerdictCSV writes a subsample's sendability verdict
// (/subsamples/{id}/verdict.csv): one line per rule checked, in the
// verdict's (the spec's) order, each repeating the verdict's state.
func WriteVerdictCSV(w *Writer, subsampleID int64, v rules.Verdict) error {
	if err := w.Write("subsampleId", "sendability", "rule", "outcome", "detail"); err != nil {
		return err
	}
	for _, check := range v.Checks {
		if err := w.Write(Int(subsampleID), string(v.State), check.Rule, string(check.Outcome), check.Detail); err != nil {
			return err
		}
	}
	return nil
}

// WriteEntryLinksCSV writes a subsample's entry links
// (/subsamples/{id}/links.csv), one line per locale, with what is wrong
// with them (checks.EntryLinks.Problem), "" when nothing.
func WriteEntryLinksCSV(w *Writer, subsampleID int64, links []checks.EntryLinks) error {
	if err := w.Write("subsampleId", "locale", "liveEntryLink", "testingEntryLink", "problem"); err != nil {
		return err
	}
	for _, l := range links {
		if err := w.Write(Int(subsampleID), l.Locale, l.Live, l.Testing, l.Problem()); err != nil {
			return err
		}
	}
	return nil
}
