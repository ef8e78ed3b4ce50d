package formats

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// EntryLinkJSON is one locale's entry links in the API. A link that is
// not a valid http(s) address is left out with the reason.
type EntryLinkJSON struct {
	Locale  string `json:"locale"`
	Live    string `json:"live,omitempty"`
	Testing string `json:"testing,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// EntryLinks shapes prepared entry links for the API, never nil.
func EntryLinks(links []checks.EntryLinks) []EntryLinkJSON {
	out := make([]EntryLinkJSON, len(links))
	for i, l := range links {
		out[i] = EntryLinkJSON{Locale: l.Locale, Live: l.Live, Testing: l.Testing, Problem: l.Problem()}
	}
	return out
}

// SubsampleJSON is one subsample in GET /api/v1/subsamples and
// `fieldboard subsamples`.
type SubsampleJSON struct {
	SubsampleID  int64           `json:"subsampleId"`
	EventID      int64           `json:"eventId"`
	Name         string          `json:"name"`
	EventName    string          `json:"eventName,omitempty"`
	Status       string          `json:"status"`
	Country      string          `json:"country"`
	CPI          *float64        `json:"cpi"`
	Currency     string          `json:"currency,omitempty"`
	LOI          *float64        `json:"loi"`
	Incidence    *float64        `json:"incidence"`
	EPC          *float64        `json:"epc"`       // expected earnings per entrant, in Currency; null when none
	EPCSource    string          `json:"epcSource"` // field, estimate, or "" (see rules.ExpectedEarnings)
	Sendability  rules.State     `json:"sendability"`
	Reasons      []string        `json:"reasons"`
	OpenQuotas   int             `json:"openQuotas"`
	ClosedQuotas int             `json:"closedQuotas"`
	EntryLinks   []EntryLinkJSON `json:"entryLinks"`
	Pacing       *PacingJSON     `json:"pacing"` // the total quota's pace; null when not live or no single total quota
}

// PacingJSON is a quota's pace (rules.Pace) in the API. With too little
// history the figures are null and TooLittleHistory says why.
type PacingJSON struct {
	CompletesPerHour *float64 `json:"completesPerHour"`
	Low              *float64 `json:"low"`
	High             *float64 `json:"high"`
	ProjectedFillAt  *string  `json:"projectedFillAt"` // RFC 3339, UTC; null when full or not within ten years at the rate
	AtRisk           bool     `json:"atRisk"`
	TooLittleHistory string   `json:"tooLittleHistory,omitempty"`
}

// Pacing shapes a pace for the API: rates to two decimals; nil for nil.
// A rate that is not a finite number leaves the pace without figures,
// TooLittleHistory saying so.
func Pacing(p *rules.Pacing) *PacingJSON {
	if p == nil {
		return nil
	}
	if !p.Known() {
		return &PacingJSON{TooLittleHistory: p.TooLittle}
	}
	if !isFinite(p.CompletesPerHour) || !isFinite(p.Low) || !isFinite(p.High) {
		return &PacingJSON{TooLittleHistory: "The pace could not be measured: its rate is not a finite number."}
	}
	round := func(v float64) *float64 { r := math.Round(v*100) / 100; return &r }
	j := &PacingJSON{CompletesPerHour: round(p.CompletesPerHour), Low: round(p.Low), High: round(p.High), AtRisk: p.AtRisk}
	if p.ProjectedFillAt != nil {
		at := OptTime(p.ProjectedFillAt)
		j.ProjectedFillAt = &at
	}
	return j
}

// PacingHeader is the header of the pace's columns in a CSV, whose cells
// PacingCells writes.
var PacingHeader = []string{"completesPerHour", "completesPerHourLow", "completesPerHourHigh", "projectedFillAt", "atRisk", "pacingNote"}

// PacingCells are p's cells under PacingHeader: figures empty and the note
// saying why when there are none; every cell empty for nil.
func PacingCells(p *rules.Pacing) []string {
	j := Pacing(p)
	if j == nil {
		return make([]string, len(PacingHeader))
	}
	fill := ""
	if j.ProjectedFillAt != nil {
		fill = *j.ProjectedFillAt
	}
	risk := ""
	if p.Known() {
		risk = strconv.FormatBool(j.AtRisk)
	}
	return []string{OptFloat(j.CompletesPerHour, 2), OptFloat(j.Low, 2), OptFloat(j.High, 2), fill, risk, j.TooLittleHistory}
}

// Subsample shapes a report for the JSON API.
func Subsample(r checks.SubsampleReport) SubsampleJSON {
	return SubsampleJSON{
		SubsampleID: r.SubsampleID, EventID: r.EventID, Name: r.Name, EventName: r.EventName,
		Status: r.Status, Country: r.CountryCode, CPI: Finite(r.CPI), Currency: r.Currency,
		LOI: Finite(r.ExpectedLOI), Incidence: Finite(r.ExpectedIR), EPC: EPCValue(r.EPC), EPCSource: string(r.EPC.Source),
		Sendability: r.Verdict.State, Reasons: NonNil(r.Verdict.Reasons),
		OpenQuotas: r.OpenCells, ClosedQuotas: r.ClosedCells,
		EntryLinks: EntryLinks(r.Links), Pacing: Pacing(r.Pacing),
	}
}

// Subsamples shapes reports for the JSON API.
func Subsamples(reports []checks.SubsampleReport) []SubsampleJSON {
	out := make([]SubsampleJSON, len(reports))
	for i, r := range reports {
		out[i] = Subsample(r)
	}
	return out
}

// subsamplesHeader is the header of the subsamples CSV.
var subsamplesHeader = []string{"subsampleId", "eventId", "name", "eventName", "status", "country", "cpi", "currency",
	"loi", "incidence", "epc", "epcSource", "sendability", "reasons", "openQuotas", "closedQuotas", "liveEntryLinks"}

// subsamplesCSVHeader is the subsamples CSV's header: the JSON's fields,
// the pace's as PacingHeader says.
var subsamplesCSVHeader = append(slices.Clone(subsamplesHeader), PacingHeader...)

// WriteSubsamplesCSV writes reports as CSV, the same fields as the JSON;
// entry links are "locale link" pairs joined with "; ".
func WriteSubsamplesCSV(w io.Writer, reports []checks.SubsampleReport) error {
	out := NewWriter(w)
	if err := out.Write(slices.Clone(subsamplesCSVHeader)...); err != nil {
		return err
	}
	for _, r := range reports {
		j := Subsample(r)
		var links []string
		for _, l := range j.EntryLinks {
			if l.Live != "" {
				links = append(links, l.Locale+" "+l.Live)
			}
		}
		cells := []string{Int(j.SubsampleID), Int(j.EventID), j.Name, j.EventName, j.Status, j.Country,
			OptFloat(j.CPI, 2), j.Currency, OptFloat(j.LOI, 0), OptFloat(j.Incidence, 0), OptFloat(j.EPC, 2), j.EPCSource, string(j.Sendability),
			strings.Join(j.Reasons, " "), strconv.Itoa(j.OpenQuotas), strconv.Itoa(j.ClosedQuotas), strings.Join(links, "; ")}
		err := out.Write(append(cells, PacingCells(r.Pacing)...)...)
		if err != nil {
			return err
		}
	}
	return out.Flush()
}

// EPCValue is the figure of e rounded to cents, or nil when there is none
// (or it is not a finite number).
func EPCValue(e rules.EPC) *float64 {
	if !e.Known() || !isFinite(e.Value) {
		return nil
	}
	v := math.Round(e.Value*100) / 100
	return &v
}

// Finite is v when it is a finite number, nil (unknown) otherwise: an
// answer shows a figure that is not a number as unknown, never as 0, and
// encoding/json refuses to write one.
func Finite(v *float64) *float64 {
	if v == nil || !isFinite(*v) {
		return nil
	}
	return v
}

// isFinite reports whether v is a number, neither infinite nor NaN.
func isFinite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// NonNil returns s, or an empty slice for nil: a JSON list is [], never
// null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Int formats an id or a count for a CSV cell.
func Int(v int64) string { return strconv.FormatInt(v, 10) }

// OptFloat formats an optional number with the given decimals (-1: as
// few as needed), "" when absent or not a finite number.
func OptFloat(v *float64, decimals int) string {
	if Finite(v) == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', decimals, 64)
}

// OptInt formats an optional whole number, "" when absent.
func OptInt(v *int64) string {
	if v == nil {
		return ""
	}
	return Int(*v)
}

// OptTime formats an optional time in RFC 3339, UTC, "" when absent.
func OptTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
