package formats

import (
	"slices"
	"strconv"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

// liveHeader is the header of the live list's CSV: the columns of the
// page's table and more, then the pace's (PacingHeader), then ourRules:
// the sentences of our own rules that refuse the subsample, whatever the
// provider's say of it; empty when none does.
var liveHeader = append([]string{"subsampleId", "eventId", "name", "eventName", "sendability", "reasons", "status", "apiCompatible",
	"cpi", "currency", "epc", "epcSource", "loi", "incidence", "devices", "researchType", "categories", "countries", "locales",
	"fieldStart", "fieldEnd", "totalAchieved", "totalRemaining"}, append(slices.Clone(PacingHeader), "ourRules")...)

// WriteLiveCSV writes the live list's CSV (/live.csv): one line per row,
// in the order given, reasons joined with a space and devices as the page
// shows them (Devices). The handler picks the rows: every one the filters
// keep, not only a page.
func WriteLiveCSV(w *Writer, rows []checks.LiveRow) error {
	if err := w.Write(slices.Clone(liveHeader)...); err != nil {
		return err
	}
	for _, r := range rows {
		cells := []string{Int(r.SubsampleID), Int(r.EventID), r.Name, r.EventName, string(r.Verdict.State),
			strings.Join(r.Verdict.Reasons, " "), r.Status, strconv.FormatBool(r.APICompatible),
			cpiCell(r.CPI, r.Currency), r.Currency, OptFloat(EPCValue(r.EPC), 2), string(r.EPC.Source),
			OptFloat(r.ExpectedLOI, 0), OptFloat(r.ExpectedIncidence, 0),
			Devices(r.LiveRow), r.ResearchType, r.Categories, r.Countries, r.Locales,
			OptTime(r.FieldStart), OptTime(r.FieldEnd), OptInt(r.TotalAchieved), OptInt(r.TotalRemaining)}
		ours := make([]string, len(r.Ours))
		for i, o := range r.Ours {
			ours[i] = o.Reason
		}
		if err := w.Write(append(append(cells, PacingCells(r.Pacing)...), strings.Join(ours, " "))...); err != nil {
			return err
		}
	}
	return nil
}

// cpiCell is a price's CPI cell: empty when the price is unknown
// (rules.PriceKnown), never a 0.
func cpiCell(cpi float64, currency string) string {
	if !rules.PriceKnown(cpi, currency) {
		return ""
	}
	return strconv.FormatFloat(cpi, 'f', 2, 64)
}

// Devices lists the devices a subsample allows, "none" when none: the
// live list's page and its CSV write them alike.
func Devices(r store.LiveRow) string {
	var d []string
	if r.AllowDesktop {
		d = append(d, "desktop")
	}
	if r.AllowMobile {
		d = append(d, "mobile")
	}
	if r.AllowTablet {
		d = append(d, "tablet")
	}
	if len(d) == 0 {
		return "none"
	}
	return strings.Join(d, ", ")
}
