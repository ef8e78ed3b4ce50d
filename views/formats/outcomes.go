package formats

import (
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks/outcomes"
)

// InvoiceColumns are the invoice CSV's columns, in order.
var InvoiceColumns = []string{"month", "billingEntity", "jobBookId", "eventId", "subsampleId", "currency", "cpi",
	"completes", "reversed", "amount", "estimated", "unconfirmedCompletes"}

// WriteInvoiceCSV writes a month's invoice, one line per billing entity,
// job number, event, subsample, currency and price (a CPI has at least
// two decimals, as amounts do: 7.60, 4.00, 2.345). A line whose price
// Fieldboard never saw has its currency, CPI and amount empty: unknown,
// never 0. unconfirmedCompletes are the line's completes only a return
// reported, not yet confirmed by a history import: not in completes, not
// invoiced. The page's download, the API's and `fieldboard report invoice`
// all write through it, so they agree byte for byte.
func WriteInvoiceCSV(w *Writer, inv outcomes.InvoiceReport) error {
	if err := w.Write(InvoiceColumns...); err != nil {
		return err
	}
	for _, l := range inv.Lines {
		currency, cpi, amount := "", "", ""
		if cents, known := l.Amount(); known {
			currency, cpi, amount = l.Currency, rules.FormatCPI(l.CPI), rules.FormatCents(cents)
		}
		if err := w.Write(inv.Month, l.BillingEntity, l.JobBookID, Int(l.EventID), Int(l.SubsampleID), currency, cpi,
			strconv.Itoa(l.Completes), strconv.Itoa(l.Reversed), amount, strconv.FormatBool(l.Estimated), strconv.Itoa(l.Unconfirmed)); err != nil {
			return err
		}
	}
	return nil
}

// AmountJSON is an amount in one currency.
type AmountJSON struct {
	Currency string  `json:"currency"`
	Amount   float64 `json:"amount"`
}

// Amounts shapes money per currency, currencies sorted.
func Amounts(m rules.Money) []AmountJSON {
	out := make([]AmountJSON, 0, len(m))
	for _, c := range m.Currencies() {
		out = append(out, AmountJSON{Currency: c, Amount: float64(m[c]) / 100})
	}
	return out
}

// InvoiceLineJSON is one line of the invoice; CPI and Amount are null
// when the price is unknown.
type InvoiceLineJSON struct {
	BillingEntity string   `json:"billingEntity"`
	JobBookID     string   `json:"jobBookId"`
	EventID       int64    `json:"eventId"`
	SubsampleID   int64    `json:"subsampleId"`
	Currency      string   `json:"currency"`
	CPI           *float64 `json:"cpi"`
	Completes     int      `json:"completes"`
	Reversed      int      `json:"reversed"`
	Amount        *float64 `json:"amount"`
	Estimated     bool     `json:"estimated"`
	// UnconfirmedCompletes only a return reported: not in Completes, not
	// invoiced.
	UnconfirmedCompletes int `json:"unconfirmedCompletes"`
}

// InvoiceTotalsJSON are totals per currency and the number of lines of
// unknown amount left out of them.
type InvoiceTotalsJSON struct {
	Amounts      []AmountJSON `json:"amounts"`
	UnknownLines int          `json:"unknownLines"`
}

// InvoiceJSON is a month's invoice for the API.
type InvoiceJSON struct {
	Month string            `json:"month"`
	From  time.Time         `json:"from"`
	To    time.Time         `json:"to"`
	Lines []InvoiceLineJSON `json:"lines"`
	// Totals are per currency; ByEntity per billing entity ("" for none
	// named), then per currency.
	Totals             InvoiceTotalsJSON            `json:"totals"`
	ByEntity           map[string]InvoiceTotalsJSON `json:"byBillingEntity"`
	ReversalsOfNothing int                          `json:"reversalsOfNothing"`
	// UnconfirmedCompletes are the month's completes only a return
	// reported, on no total.
	UnconfirmedCompletes int `json:"unconfirmedCompletes"`
}

// Invoice shapes a month's invoice for the API.
func Invoice(inv outcomes.InvoiceReport) InvoiceJSON {
	out := InvoiceJSON{Month: inv.Month, From: inv.From.UTC(), To: inv.To.UTC(), Lines: make([]InvoiceLineJSON, len(inv.Lines)),
		Totals: invoiceTotals(inv.Totals), ByEntity: map[string]InvoiceTotalsJSON{}, ReversalsOfNothing: inv.ReversalsOfNothing,
		UnconfirmedCompletes: inv.Unconfirmed}
	for i, l := range inv.Lines {
		j := InvoiceLineJSON{BillingEntity: l.BillingEntity, JobBookID: l.JobBookID, EventID: l.EventID, SubsampleID: l.SubsampleID,
			Completes: l.Completes, Reversed: l.Reversed, Estimated: l.Estimated, UnconfirmedCompletes: l.Unconfirmed}
		if cents, known := l.Amount(); known {
			cpi, amount := l.CPI, float64(cents)/100
			j.Currency, j.CPI, j.Amount = l.Currency, Finite(&cpi), &amount
		}
		out.Lines[i] = j
	}
	for entity, t := range inv.ByEntity {
		out.ByEntity[entity] = invoiceTotals(t)
	}
	return out
}

func invoiceTotals(t rules.InvoiceTotals) InvoiceTotalsJSON {
	return InvoiceTotalsJSON{Amounts: Amounts(t.Amounts), UnknownLines: t.UnknownLines}
}

// OutcomeColumns are the outcomes CSV's columns, in order.
var OutcomeColumns = []string{"group", "subsampleId", "eventId", "name", "country", "day",
	"entrants", "finalEntrants", "inSurvey", "completes", "unconfirmedCompletes", "tooFast", "screenOuts", "quotaFulls", "abandons", "reversed", "reversalsOfNothing",
	"redirects", "wrongSends", "wrongSendsByReturn", "sentScreenOuts", "earned", "earnedCurrency", "unpricedCompletes", "estimatedCompletes",
	"realizedConversion", "realizedEpc", "realizedEpcCurrency", "predictedEpc", "predictedEpcCurrency", "providerConversion", "note"}

// WriteOutcomesCSV writes a period's outcomes, one line per group and
// nothing else, so that a spreadsheet's sum of a column is the period's
// total (the totals per currency are WriteOutcomeTotalsCSV's file). Every
// amount is a plain number with its currency in the next column. A group
// that earned in one currency has earned and earnedCurrency; one that
// earned in several has both empty, its note naming the currencies (the
// page and the JSON answer give each amount); a group with no priced
// complete has both empty. A realized figure under the threshold is empty, its
// note saying why. completes count those only a return reported too
// (unconfirmedCompletes, until a history import confirms them; tooFast
// the records of returns flagged too fast), and wrongSends (the quota
// fulls on cells judged open) those of returns (wrongSendsByReturn);
// sentScreenOuts are the screen-outs of Fieldboard's sends, no wrong
// sends.
func WriteOutcomesCSV(w *Writer, rep outcomes.Report) error {
	if err := w.Write(OutcomeColumns...); err != nil {
		return err
	}
	for _, r := range rep.Rows {
		realized := r.Realized()
		conversion, epc, epcCurrency := "", "", ""
		if realized.Known {
			conversion = strconv.FormatFloat(realized.Conversion, 'f', 1, 64)
			if realized.EPCKnown {
				epc, epcCurrency = strconv.FormatFloat(realized.EPC, 'f', 2, 64), realized.Currency
			}
		}
		earned, earnedCurrency, note := "", "", realized.Why
		if currencies := r.Earned.Currencies(); len(currencies) == 1 {
			earned, earnedCurrency = rules.FormatCents(r.Earned[currencies[0]]), currencies[0]
		} else if len(currencies) > 1 {
			several := "earned in " + strings.Join(currencies, " and ")
			if note == several { // the realized EPC's reason, said once
				note = ""
			}
			note = joinNotes(note, several+", never added: the page and the JSON answer give each amount")
		}
		predicted, predictedCurrency := "", ""
		if r.Predicted.Known() && isFinite(r.Predicted.Value) {
			predicted, predictedCurrency = strconv.FormatFloat(r.Predicted.Value, 'f', 2, 64), r.Predicted.Currency
		}
		day := ""
		if !r.Day.IsZero() {
			day = r.Day.Format(time.DateOnly)
		}
		if err := w.Write(r.Key, optID(r.SubsampleID), optID(r.EventID), r.Name, r.Country, day,
			strconv.Itoa(r.Entrants), strconv.Itoa(r.Final()), strconv.Itoa(r.InSurvey), strconv.Itoa(r.Completes),
			strconv.Itoa(r.UnconfirmedCompletes), strconv.Itoa(r.TooFast),
			strconv.Itoa(r.ScreenOuts), strconv.Itoa(r.QuotaFulls), strconv.Itoa(r.Abandons), strconv.Itoa(r.Reversed),
			strconv.Itoa(r.ReversalsOfNothing), strconv.Itoa(r.Redirects), strconv.Itoa(r.WrongSends), strconv.Itoa(r.WrongSendsByReturn),
			strconv.Itoa(r.SentScreenOuts), earned, earnedCurrency,
			strconv.Itoa(r.Unpriced), strconv.Itoa(r.Estimated), conversion, epc, epcCurrency,
			predicted, predictedCurrency, OptFloat(r.ProviderConversion, 1), note); err != nil {
			return err
		}
	}
	return nil
}

// joinNotes joins two sentences of a note, either of which may be empty.
func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// OutcomeTotalColumns are the outcomes totals CSV's columns, in order.
var OutcomeTotalColumns = []string{"currency", "earned", "unpricedCompletes"}

// WriteOutcomeTotalsCSV writes what a period's outcomes earned, one line
// per currency (sorted), never summed across currencies, each with
// unpricedCompletes 0; then, when some completes have a price Fieldboard
// never saw, one line with currency and earned empty (unknown, never 0)
// counting them. A column's sum is thus its total.
func WriteOutcomeTotalsCSV(w *Writer, rep outcomes.Report) error {
	if err := w.Write(OutcomeTotalColumns...); err != nil {
		return err
	}
	for _, c := range rep.Total.Earned.Currencies() {
		if err := w.Write(c, rules.FormatCents(rep.Total.Earned[c]), "0"); err != nil {
			return err
		}
	}
	if rep.Total.Unpriced > 0 {
		return w.Write("", "", strconv.Itoa(rep.Total.Unpriced))
	}
	return nil
}

// optID writes an id, "" for 0 (a group that has none).
func optID(id int64) string {
	if id == 0 {
		return ""
	}
	return Int(id)
}

// OutcomeJSON is one group's outcomes for the API. Realized figures are
// null under the threshold (TooFew says so) or when the earnings cannot
// be divided (several currencies, an unknown price).
type OutcomeJSON struct {
	Key           string `json:"group"`
	SubsampleID   int64  `json:"subsampleId,omitempty"`
	EventID       int64  `json:"eventId,omitempty"`
	Name          string `json:"name,omitempty"`
	Country       string `json:"country,omitempty"`
	Day           string `json:"day,omitempty"`
	Entrants      int    `json:"entrants"`
	FinalEntrants int    `json:"finalEntrants"`
	InSurvey      int    `json:"inSurvey"`
	Completes     int    `json:"completes"`
	// UnconfirmedCompletes of Completes only a return reported; TooFast
	// records of returns flagged too fast.
	UnconfirmedCompletes int          `json:"unconfirmedCompletes"`
	TooFast              int          `json:"tooFast"`
	ScreenOuts           int          `json:"screenOuts"`
	QuotaFulls           int          `json:"quotaFulls"`
	Abandons             int          `json:"abandons"`
	Reversed             int          `json:"reversed"`
	ReversalsOfNothing   int          `json:"reversalsOfNothing"`
	Redirects            int          `json:"redirects"`
	WrongSends           int          `json:"wrongSends"`
	WrongSendsByReturn   int          `json:"wrongSendsByReturn"`
	SentScreenOuts       int          `json:"sentScreenOuts"`
	Earned               []AmountJSON `json:"earned"`
	UnpricedCompletes    int          `json:"unpricedCompletes"`
	EstimatedCompletes   int          `json:"estimatedCompletes"`
	RealizedConversion   *float64     `json:"realizedConversion"`
	RealizedEPC          *AmountJSON  `json:"realizedEpc"`
	PredictedEPC         *AmountJSON  `json:"predictedEpc,omitempty"`
	ProviderConversion   *float64     `json:"providerConversion,omitempty"`
	Note                 string       `json:"note,omitempty"`
}

// DayJSON is one day's completes and reversals.
type DayJSON struct {
	Day       string `json:"day"`
	Completes int    `json:"completes"`
	Reversed  int    `json:"reversed"`
}

// OutcomesJSON is a period's outcomes for the API.
type OutcomesJSON struct {
	From            time.Time            `json:"from"`
	To              time.Time            `json:"to"`
	Group           string               `json:"groupBy"`
	Rows            []OutcomeJSON        `json:"rows"`
	Total           OutcomeJSON          `json:"total"`
	Days            []DayJSON            `json:"days"`
	FullOnOpenCells []FullOnOpenCellJSON `json:"quotaFullsOnCellsJudgedOpen"`
}

// FullOnOpenCellJSON is a quota full on a subsample Fieldboard sent the
// panelist to, judging every cell they fell in open.
type FullOnOpenCellJSON struct {
	PanelistID  string     `json:"panelistId"`
	SubsampleID int64      `json:"subsampleId"`
	SentAt      time.Time  `json:"sentAt"`
	At          time.Time  `json:"at"`
	Cells       []CellJSON `json:"cells"`
}

// CellJSON is a quota cell; Name is empty once the subsample's quotas are
// no longer in the snapshot.
type CellJSON struct {
	QuotaID int64  `json:"quotaId"`
	Name    string `json:"name,omitempty"`
}

// Outcomes shapes a period's outcomes for the API.
func Outcomes(rep outcomes.Report) OutcomesJSON {
	out := OutcomesJSON{From: rep.From.UTC(), To: rep.To.UTC(), Group: string(rep.Group), Rows: make([]OutcomeJSON, len(rep.Rows)),
		Total: outcome(rep.Total), Days: make([]DayJSON, len(rep.Days)), FullOnOpenCells: make([]FullOnOpenCellJSON, len(rep.FullOnOpenCells))}
	for i, m := range rep.FullOnOpenCells {
		j := FullOnOpenCellJSON{PanelistID: m.PanelistID, SubsampleID: m.SubsampleID, SentAt: m.SentAt.UTC(), At: m.At.UTC(), Cells: make([]CellJSON, len(m.Cells))}
		for k, c := range m.Cells {
			j.Cells[k] = CellJSON{QuotaID: c.QuotaID, Name: c.Name}
		}
		out.FullOnOpenCells[i] = j
	}
	for i, r := range rep.Rows {
		out.Rows[i] = outcome(r)
	}
	for i, d := range rep.Days {
		out.Days[i] = DayJSON{Day: d.Day.Format(time.DateOnly), Completes: d.Completes, Reversed: d.Reversed}
	}
	return out
}

func outcome(r outcomes.Row) OutcomeJSON {
	j := OutcomeJSON{Key: r.Key, SubsampleID: r.SubsampleID, EventID: r.EventID, Name: r.Name, Country: r.Country,
		Entrants: r.Entrants, FinalEntrants: r.Final(), InSurvey: r.InSurvey, Completes: r.Completes, ScreenOuts: r.ScreenOuts,
		QuotaFulls: r.QuotaFulls, Abandons: r.Abandons, Reversed: r.Reversed, ReversalsOfNothing: r.ReversalsOfNothing,
		UnconfirmedCompletes: r.UnconfirmedCompletes, TooFast: r.TooFast, WrongSendsByReturn: r.WrongSendsByReturn,
		SentScreenOuts: r.SentScreenOuts,
		Redirects:      r.Redirects, WrongSends: r.WrongSends, Earned: Amounts(r.Earned), UnpricedCompletes: r.Unpriced,
		EstimatedCompletes: r.Estimated, ProviderConversion: Finite(r.ProviderConversion)}
	if !r.Day.IsZero() {
		j.Day = r.Day.Format(time.DateOnly)
	}
	realized := r.Realized()
	j.Note = realized.Why
	if realized.Known {
		conversion := realized.Conversion
		j.RealizedConversion = &conversion
		if realized.EPCKnown {
			j.RealizedEPC = &AmountJSON{Currency: realized.Currency, Amount: realized.EPC}
		}
	}
	if r.Predicted.Known() && isFinite(r.Predicted.Value) {
		j.PredictedEPC = &AmountJSON{Currency: r.Predicted.Currency, Amount: r.Predicted.Value}
	}
	return j
}
