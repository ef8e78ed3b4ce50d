package checks

import (
	"slices"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// Facts gathers what sendability is decided on (rules.Sendability) for
// one subsample of a snapshot and its quotas. It is the one builder of
// sendability facts: the checks decide the stored snapshot with it, and
// the refresher the snapshot it is about to write (States).
func Facts(row store.SubsampleRow, quotas []domain.Quota) rules.SubsampleFacts {
	f := rules.SubsampleFacts{
		Status:        row.Status,
		APICompatible: row.APICompatible,
		Currency:      row.Currency,
		Quotas:        quotas,
		QuotasLoaded:  row.QuotasOK != nil && *row.QuotasOK,
		QuotasError:   row.QuotasError,
		Malformed:     row.Malformed,
	}
	if row.CPI != nil {
		f.CPI = *row.CPI
	}
	if !row.Live {
		f.Unlisted, f.QuotasLoaded = true, false
		return f
	}
	if row.QuotasOK == nil {
		f.QuotasError = "not read yet"
	}
	// What each source said, so that a subsample counts as Live only when
	// all of them say so.
	if row.SummaryStatus != "" {
		f.Reported = append(f.Reported, rules.ReportedStatus{Source: "event/all", Status: row.SummaryStatus})
	}
	if row.LiveStatus != "" {
		f.Reported = append(f.Reported, rules.ReportedStatus{Source: "live-details", Status: row.LiveStatus})
	}
	if f.QuotasLoaded {
		var seen []string
		for _, q := range quotas {
			if q.SubsampleStatus != "" && !slices.Contains(seen, q.SubsampleStatus) {
				seen = append(seen, q.SubsampleStatus)
				f.Reported = append(f.Reported, rules.ReportedStatus{Source: "quotas", Status: q.SubsampleStatus})
			}
		}
	}
	return f
}

// States decides the sendability of every subsample of an events snapshot
// before it is written, so that the store can record what changed since
// the previous one. Each subsample is decided on what the snapshot will
// hold once written, by Facts, as the checks will decide it: a live
// subsample whose quotas were not fetched, or failed, is not decided on
// the quotas kept from before.
func States(snap store.EventsSnapshot) map[int64]store.SubsampleState {
	summaries, live, details := snap.Summaries, snap.Live, snap.Details
	malformed := make(map[int64]string, len(snap.Malformed))
	for _, m := range snap.Malformed {
		if m.SubsampleID != 0 {
			malformed[m.SubsampleID] = strings.TrimSpace(malformed[m.SubsampleID] + " " + m.Sentence())
		}
	}
	states := make(map[int64]store.SubsampleState, len(summaries)+len(malformed))
	summaryStatus := make(map[int64]string, len(summaries))
	for _, s := range summaries {
		row := store.SubsampleRow{SubsampleID: s.SubsampleID, EventID: s.EventID, Status: s.SubsampleStatus, SummaryStatus: s.SubsampleStatus,
			Malformed: malformed[s.SubsampleID]}
		summaryStatus[s.SubsampleID] = s.SubsampleStatus
		states[s.SubsampleID] = store.SubsampleState{Status: row.Status, Sendability: string(rules.Sendability(Facts(row, nil)).State)}
	}
	for _, l := range live {
		d, fetched := details[l.SubsampleID]
		read := fetched && d.QuotasErr == nil
		row := store.SubsampleRow{
			SubsampleID: l.SubsampleID, EventID: l.EventID, Status: l.SubsampleStatus, Live: true,
			SummaryStatus: summaryStatus[l.SubsampleID], LiveStatus: l.SubsampleStatus,
			APICompatible: l.SurveyAPICompatibility, CPI: &l.TargetedCPI, Currency: l.TargetedCurrency, QuotasOK: &read,
			Malformed: malformed[l.SubsampleID],
		}
		switch {
		case !fetched:
			row.QuotasError = "not fetched"
		case d.QuotasErr != nil:
			row.QuotasError = d.QuotasErr.Error()
		}
		states[l.SubsampleID] = store.SubsampleState{Status: row.Status, Sendability: string(rules.Sendability(Facts(row, d.Quotas)).State)}
	}
	// A subsample known only by its malformed elements is unknown.
	for id, why := range malformed {
		if _, ok := states[id]; !ok {
			states[id] = store.SubsampleState{Sendability: string(rules.Sendability(Facts(store.SubsampleRow{SubsampleID: id, Malformed: why}, nil)).State)}
		}
	}
	return states
}
