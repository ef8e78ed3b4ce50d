package formats

import (
	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// NextSurveysJSON is the next-survey answer (GET /api/v1/panelists/{id}/next):
// the surveys the panelist would be sent to now, best first.
type NextSurveysJSON struct {
	PanelistID string           `json:"panelistId"`
	Surveys    []NextSurveyJSON `json:"surveys"`
}

// NextSurveyJSON is one survey of the answer. EPC, CPI and LOI are null
// when the provider gave no figure; EPC and CPI are in Currency.
type NextSurveyJSON struct {
	SubsampleID int64    `json:"subsampleId"`
	EventID     int64    `json:"eventId"`
	EntryLink   string   `json:"entryLink"`
	EPC         *float64 `json:"epc"`
	Currency    string   `json:"currency"`
	CPI         *float64 `json:"cpi"`
	LOI         *float64 `json:"loi"`
}

// NextSurveys is the answer for the routes of one panelist.
func NextSurveys(panelistID string, routes []checks.Route) NextSurveysJSON {
	out := NextSurveysJSON{PanelistID: panelistID, Surveys: make([]NextSurveyJSON, len(routes))}
	for i, r := range routes {
		out.Surveys[i] = NextSurveyJSON{SubsampleID: r.SubsampleID, EventID: r.EventID, EntryLink: r.EntryLink,
			EPC: EPCValue(r.EPC), Currency: r.Currency, CPI: rules.KnownCPI(r.CPI, r.Currency), LOI: r.ExpectedLOI}
	}
	return out
}
