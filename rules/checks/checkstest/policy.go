package checkstest

import (
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// Alt is a second live subsample of the United States, of its own event,
// priced below Target: the router's second choice for P-open, where it
// goes when our rules keep it out of Target.
const Alt int64 = 12

// AltEvent is Alt's event.
const AltEvent int64 = 3

// WithAlt is an edit for Build: Target described in full (its length,
// incidence, devices, research type, category and billing entity), so
// that each kind of our own rules has something to refuse it on, and Alt
// beside it.
func WithAlt(snap *store.EventsSnapshot) {
	loi, ir, entity := 25.0, 20.0, "Acme Research"
	for i := range snap.Live {
		l := &snap.Live[i]
		l.ExpectedClientLOI, l.ExpectedIncidenceRate, l.BillingEntity = &loi, &ir, &entity
		l.AllowMobile, l.ResearchType, l.ResearchTypeID = true, "Consumer", 5
		l.Categories = []domain.Category{{MainCategory: "Food", MainCategoryID: 100, GenericCategory: "Drinks", GenericCategoryID: 110, Category: "Coffee", CategoryID: 111}}
	}
	alt := snap.Live[0]
	alt.EventID, alt.EventName, alt.SubsampleID, alt.SubsampleName, alt.TargetedCPI = AltEvent, "Other", Alt, "Alt", 1
	altLOI, altIR := 10.0, 30.0
	alt.ExpectedClientLOI, alt.ExpectedIncidenceRate, alt.BillingEntity, alt.Categories, alt.ResearchType, alt.ResearchTypeID = &altLOI, &altIR, nil, nil, "", 0
	alt.AllowMobile, alt.AllowDesktop = true, true
	alt.Locales = []domain.SubsampleLocale{{Name: "en-us", LiveEntryLink: "https://e.test/s12?id=", TestingEntryLink: "https://e.test/t12?id="}}
	snap.Live = append(snap.Live, alt)
	snap.Summaries = append(snap.Summaries, domain.SubsampleSummary{EventID: AltEvent, SubsampleID: Alt, SubsampleStatus: domain.StatusLive, SubsampleName: "Alt", Country: snap.Summaries[0].Country})
	snap.Details[Alt] = store.SubsampleDetail{FetchedAt: ReadAt, Quotas: []domain.Quota{{SubsampleStatus: domain.StatusLive, QuotaID: 21, TableID: 1,
		TableName: "Total Quota", QuotaName: "Total", QuotaType: domain.QuotaTypeCounting, RemainingExclusive: 50}}}
}
