package formats

import (
	"math"
	"strconv"

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
			EPC: EPCValue(r.EPC), Currency: r.Currency, CPI: Finite(rules.KnownCPI(r.CPI, r.Currency)), LOI: Finite(r.ExpectedLOI)}
	}
	return out
}

// AppendNextSurveys appends the answer for the routes of one panelist to
// b, byte for byte what encoding/json's Encoder writes of NextSurveys
// (HTML characters escaped, a newline at the end), without reflection or
// an allocation per field: every next-survey answer pays for it. It
// reports false, having appended nothing, when it cannot write one of the
// values as the Encoder would (a figure that is not a finite number, a
// string that is not plain printable ASCII); the caller then encodes
// NextSurveys.
func AppendNextSurveys(b []byte, panelistID string, routes []checks.Route) ([]byte, bool) {
	start := len(b)
	fail := func() ([]byte, bool) { return b[:start], false }
	var ok bool
	b = append(b, `{"panelistId":`...)
	if b, ok = appendJSONString(b, panelistID); !ok {
		return fail()
	}
	b = append(b, `,"surveys":[`...)
	for i, r := range routes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"subsampleId":`...)
		b = strconv.AppendInt(b, r.SubsampleID, 10)
		b = append(b, `,"eventId":`...)
		b = strconv.AppendInt(b, r.EventID, 10)
		b = append(b, `,"entryLink":`...)
		if b, ok = appendJSONString(b, r.EntryLink); !ok {
			return fail()
		}
		b = append(b, `,"epc":`...)
		var epc *float64
		if r.EPC.Known() && isFinite(r.EPC.Value) {
			v := math.Round(r.EPC.Value*100) / 100 // EPCValue's, kept on the stack
			epc = &v
		}
		if b, ok = appendJSONFloat(b, epc); !ok {
			return fail()
		}
		b = append(b, `,"currency":`...)
		if b, ok = appendJSONString(b, r.Currency); !ok {
			return fail()
		}
		b = append(b, `,"cpi":`...)
		if b, ok = appendJSONFloat(b, Finite(rules.KnownCPI(r.CPI, r.Currency))); !ok {
			return fail()
		}
		b = append(b, `,"loi":`...)
		if b, ok = appendJSONFloat(b, Finite(r.ExpectedLOI)); !ok {
			return fail()
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...), true
}

// appendJSONString appends s as encoding/json writes a string, HTML
// characters escaped; false for a string with a byte outside printable
// ASCII, which it leaves to encoding/json.
func appendJSONString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f:
			return b, false
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '<' || c == '>' || c == '&':
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"'), true
}

// appendJSONFloat appends *f as encoding/json writes a float64, null for
// nil; false for a value that is not finite, which encoding/json refuses.
func appendJSONFloat(b []byte, f *float64) ([]byte, bool) {
	if f == nil {
		return append(b, "null"...), true
	}
	v := *f
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return b, false
	}
	// encoding/json's floatEncoder: ES6's format, the exponent's leading
	// zero dropped.
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
