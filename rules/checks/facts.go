package checks

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// Facts gathers what sendability is decided on (rules.Sendability) for
// one subsample of a snapshot and its quotas, at now. It is the one
// builder of sendability facts: the checks decide the stored snapshot with
// it, at the clock, and the refresher the snapshot it is about to write
// (States), at the end of its read.
func Facts(row store.SubsampleRow, quotas []domain.Quota, now time.Time) rules.SubsampleFacts {
	f := rules.SubsampleFacts{
		Now:           now,
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
	f.FieldStart, f.FieldEnd = row.FieldStart, row.FieldEnd
	// event/all lists every subsample with an allocation: one live-details
	// alone lists is a disagreement.
	f.NotInEventAll = row.SummaryStatus == ""
	if !f.NotInEventAll {
		f.Said = saidOf(row)
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

// saidOf is what event/all and live-details each said of a subsample
// both list, of the fields that decide besides its status: its event, its
// country (live-details' every country, once each, in upper case) and its
// field end (in UTC, to the second).
func saidOf(row store.SubsampleRow) []rules.Said {
	var countries []string
	for _, c := range row.LiveCountries {
		if c = strings.ToUpper(strings.TrimSpace(c)); c != "" && !slices.Contains(countries, c) {
			countries = append(countries, c)
		}
	}
	return []rules.Said{
		{Field: "event", EventAll: idOrEmpty(row.EventID), LiveDetails: idOrEmpty(row.LiveEventID)},
		{Field: "country", EventAll: strings.ToUpper(strings.TrimSpace(row.CountryCode)), LiveDetails: strings.Join(countries, ", ")},
		{Field: "field end", EventAll: timeOrEmpty(row.SummaryFieldEnd), LiveDetails: timeOrEmpty(row.LiveFieldEnd)},
	}
}

func idOrEmpty(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

func timeOrEmpty(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 Jan 2006 15:04:05 UTC")
}

// Unreadable says, for each subsample that a malformed element of
// event/all or live-details is about, or may be about, why it is not
// decided on. An element that names its subsample gives that subsample
// its sentence. One whose subsample id could not be read may be any
// subsample the list does not list readably: of event/all, any live-details
// lists that event/all does not; of live-details, any event/all says is
// Live or Live for testing that live-details does not. Each of those is
// not decided on either: the element lost may be the one that says it is
// closed.
func Unreadable(summaries []domain.SubsampleSummary, live []domain.LiveSubsample, malformed []domain.MalformedElement) map[int64]string {
	why := map[int64]string{}
	add := func(id int64, sentence string) { why[id] = strings.TrimSpace(why[id] + " " + sentence) }
	unnamed := map[string]int{}
	for _, m := range malformed {
		if m.SubsampleID != 0 {
			add(m.SubsampleID, m.Sentence())
		} else {
			unnamed[m.List]++
		}
	}
	mayBe := func(list string, n int, where string) string {
		return fmt.Sprintf("The provider's %s answer held %d element(s) that could not be read, not even their subsample id; this subsample, %s, may be one of them, and is not decided on until a refresh reads them.", list, n, where)
	}
	if n := unnamed[domain.ListEventAll]; n > 0 {
		listed := make(map[int64]bool, len(summaries))
		for _, s := range summaries {
			listed[s.SubsampleID] = true
		}
		for _, l := range live {
			if !listed[l.SubsampleID] {
				add(l.SubsampleID, mayBe(domain.ListEventAll, n, "listed by live-details but not readably by event/all"))
			}
		}
	}
	if n := unnamed[domain.ListLiveDetails]; n > 0 {
		listed := make(map[int64]bool, len(live))
		for _, l := range live {
			listed[l.SubsampleID] = true
		}
		for _, s := range summaries {
			if (s.SubsampleStatus == domain.StatusLive || s.SubsampleStatus == domain.StatusLiveForTesting) && !listed[s.SubsampleID] {
				add(s.SubsampleID, mayBe(domain.ListLiveDetails, n, "Live in event/all but not readably in live-details"))
			}
		}
	}
	return why
}

// States decides the sendability of every subsample of an events snapshot
// before it is written, so that the store can record what changed since
// the previous one. Each subsample is decided on what the snapshot will
// hold once written, by Facts, as the checks will decide it: a live
// subsample whose quotas were not fetched, or failed, is not decided on
// the quotas kept from before.
//
// A live subsample whose quotas were read is paced as the live list will
// pace it once the snapshot is written: its total quota's stored history
// (totals, from Store.TotalQuotaTracks as the write begins, on the
// snapshot it replaces) and the count this snapshot read.
func States(snap store.EventsSnapshot, totals map[int64]store.QuotaTrack) map[int64]store.SubsampleState {
	live, details, malformed := snap.Live, snap.Details, snap.Unreadable
	// The states are the snapshot's as it was read: at the end of its run.
	now := snap.FinishedAt
	states := make(map[int64]store.SubsampleState, len(snap.Summaries)+len(malformed))
	summaries := make(map[int64]store.SubsampleRow, len(snap.Summaries))
	for _, s := range snap.Summaries {
		row := store.SubsampleRow{SubsampleID: s.SubsampleID, EventID: s.EventID, Status: s.SubsampleStatus, SummaryStatus: s.SubsampleStatus,
			CountryCode: s.Country.Code, FieldStart: timeOrNil(s.FieldStartDate.Time), FieldEnd: timeOrNil(s.FieldEndDate.Time),
			SummaryFieldEnd: timeOrNil(s.FieldEndDate.Time), Malformed: malformed[s.SubsampleID]}
		summaries[s.SubsampleID] = row
		states[s.SubsampleID] = store.SubsampleState{Status: row.Status, Sendability: string(rules.Sendability(Facts(row, nil, now)).State),
			EventID: s.EventID, Country: s.Country.Code, FieldEnd: timeOrNil(s.FieldEndDate.Time)}
	}
	for _, l := range live {
		d, fetched := details[l.SubsampleID]
		read := fetched && d.QuotasErr == nil
		// As the stored snapshot will read it (store.SubsampleRow):
		// event/all's event and country when it lists the subsample,
		// live-details' field period, else event/all's.
		row := summaries[l.SubsampleID]
		if row.SummaryStatus == "" {
			row.SubsampleID, row.EventID, row.Malformed = l.SubsampleID, l.EventID, malformed[l.SubsampleID]
			if len(l.Countries) > 0 {
				row.CountryCode = l.Countries[0].Code
			}
		}
		row.Status, row.Live, row.LiveStatus, row.LiveEventID = l.SubsampleStatus, true, l.SubsampleStatus, l.EventID
		row.APICompatible, row.CPI, row.Currency, row.QuotasOK = l.SurveyAPICompatibility, &l.TargetedCPI, l.TargetedCurrency, &read
		row.FieldStart = cmp.Or(timeOrNil(l.FieldStartDate.Time), row.FieldStart)
		row.FieldEnd = cmp.Or(timeOrNil(l.FieldEndDate.Time), row.FieldEnd)
		row.LiveFieldEnd = timeOrNil(l.FieldEndDate.Time)
		for _, c := range l.Countries {
			row.LiveCountries = append(row.LiveCountries, c.Code)
		}
		if read {
			row.QuotasAt = &d.FetchedAt
		}
		switch {
		case !fetched:
			row.QuotasError = "not fetched"
		case d.QuotasErr != nil:
			row.QuotasError = d.QuotasErr.Error()
		}
		// The field end as the live list reads it: live-details', else
		// event/all's.
		st := store.SubsampleState{Status: row.Status, Sendability: string(rules.Sendability(Facts(row, d.Quotas, now)).State),
			EventID: l.EventID, Country: states[l.SubsampleID].Country, CPI: row.CPI, Currency: l.TargetedCurrency,
			FieldEnd: cmp.Or(timeOrNil(l.FieldEndDate.Time), states[l.SubsampleID].FieldEnd), QuotasRead: read}
		if st.Country == "" && len(l.Countries) > 0 {
			st.Country = l.Countries[0].Code
		}
		if read {
			st.ClosedQuotas = closedQuotas(d.Quotas)
			if total, ok := onlyTotal(d.Quotas); ok {
				p := paceWithRead(totals[l.SubsampleID], total, d.FetchedAt, st.FieldEnd)
				st.AtRisk, st.OnPace = p.Risk(st.FieldEnd), p.OnPace(st.FieldEnd)
			}
		}
		states[l.SubsampleID] = st
	}
	// A subsample known only by its malformed elements is unknown.
	for id, why := range malformed {
		if _, ok := states[id]; !ok {
			states[id] = store.SubsampleState{Sendability: string(rules.Sendability(Facts(store.SubsampleRow{SubsampleID: id, Malformed: why}, nil, now)).State)}
		}
	}
	return states
}

// closedQuotas are the ids of the quotas with nothing remaining, sorted:
// what the change feed compares for quota.closed and quota.reopened.
func closedQuotas(quotas []domain.Quota) []string {
	var closed []string
	for _, q := range quotas {
		if q.Remaining() <= 0 {
			closed = append(closed, strconv.FormatInt(q.QuotaID, 10))
		}
	}
	slices.Sort(closed)
	return closed
}

// timeOrNil is t, nil when it is zero (the provider gave none).
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
