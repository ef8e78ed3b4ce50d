package refresh

import (
	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// statesOf decides the sendability of every subsample of a snapshot, so
// the store can record what changed since the previous refresh.
func statesOf(summaries []domain.SubsampleSummary, live []domain.LiveSubsample, details map[int64]store.SubsampleDetail) map[int64]store.SubsampleState {
	states := make(map[int64]store.SubsampleState, len(summaries))
	for _, s := range summaries {
		v := rules.Sendability(rules.SubsampleFacts{Status: s.SubsampleStatus, Unlisted: true})
		states[s.SubsampleID] = store.SubsampleState{Status: s.SubsampleStatus, Sendability: string(v.State)}
	}
	for _, l := range live {
		d, fetched := details[l.SubsampleID]
		f := rules.SubsampleFacts{
			Status: l.SubsampleStatus, APICompatible: l.SurveyAPICompatibility, CPI: l.TargetedCPI, Currency: l.TargetedCurrency,
			Quotas: d.Quotas, QuotasLoaded: fetched && d.QuotasErr == nil,
		}
		if d.QuotasErr != nil {
			f.QuotasError = d.QuotasErr.Error()
		}
		states[l.SubsampleID] = store.SubsampleState{Status: l.SubsampleStatus, Sendability: string(rules.Sendability(f).State)}
	}
	return states
}
