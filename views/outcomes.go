package views

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/checks/outcomes"
	"fieldboard/rules/domain"
)

// OutcomesView is /outcomes: the report of a period and the page of its
// rows shown.
type OutcomesView struct {
	Page
	Filter    OutcomesFilterForm
	Groupings []outcomes.Grouping
	Report    outcomes.Report
	Rows      []outcomes.Row // this page's
	Total     int            // rows in all
	PageNo    int
	Pages     int
	Prev      string
	Next      string
	CSVHref   string
	// TotalsCSVHref is the CSV of what the period earned per currency.
	TotalsCSVHref string
	// InvoiceHref is the invoice of the period's month, or the current
	// month's.
	InvoiceHref string
	// Reconciliation relates the period's earnings to its invoice, when
	// the period is one calendar month and nothing narrows it; else
	// MonthHref is the outcomes of MonthName, the month of the period's
	// last day, which do.
	Reconciliation       *ReconciliationView
	MonthHref, MonthName string
}

// OutcomesFilterForm holds the outcomes' filters as typed, to fill the
// form back in.
type OutcomesFilterForm struct {
	Group, From, To, Country, Event, Subsample string
}

// InvoiceView is a month's invoice.
type InvoiceView struct {
	Page
	Invoice            outcomes.InvoiceReport
	CSVHref            string
	PrevHref, NextHref string // the months before and after
	// Entities are the month's billing entities, to choose one; NoEntity
	// says that the entity asked for has nothing on the month's invoice.
	Entities []string
	NoEntity string
	// Reconciliation relates the invoice of every entity to the month's
	// outcomes; nil for one entity's.
	Reconciliation *ReconciliationView
}

// groupLabel names a grouping for the form.
func groupLabel(g outcomes.Grouping) string {
	switch g {
	case outcomes.BySubsample:
		return "subsample"
	case outcomes.ByEvent:
		return "event"
	case outcomes.ByCountry:
		return "country"
	case outcomes.ByDay:
		return "day"
	}
	return string(g)
}

// earnedText is what a group earned, per currency ("12.50 EUR + 3.00
// USD"), with the completes whose price is unknown said as such, never
// as 0; "–" when nothing was completed.
func earnedText(t rules.Tally) string {
	parts := []string{}
	if s := t.Earned.String(); s != "" {
		parts = append(parts, s)
	}
	if t.Unpriced > 0 {
		parts = append(parts, "unknown ("+plural(t.Unpriced, "complete")+")")
	}
	if len(parts) == 0 {
		if t.Completes > 0 {
			return "unknown"
		}
		return "–"
	}
	return strings.Join(parts, " + ")
}

// realizedConversion is a group's realized conversion as a percentage,
// or the note that says why there is none.
func realizedConversion(t rules.Tally) string {
	r := t.Realized()
	if !r.Known {
		return "too few"
	}
	return strconv.FormatFloat(r.Conversion, 'f', 1, 64) + " %"
}

// realizedEPC is a group's realized EPC, "–" when it has none (the note
// says why).
func realizedEPC(t rules.Tally) string {
	r := t.Realized()
	if !r.Known || !r.EPCKnown {
		return "–"
	}
	return Money(r.EPC, r.Currency)
}

// predictedEPC is the EPC the router ranks a subsample by, "–" for none.
func predictedEPC(r outcomes.Row) string {
	if s := r.Predicted.String(); s != "" {
		return s
	}
	return "–"
}

// providerConversion is the provider's conversion of a subsample, "–"
// for none.
func providerConversion(r outcomes.Row) string {
	if r.ProviderConversion == nil {
		return "–"
	}
	return Number(r.ProviderConversion, 1) + " %"
}

// groupHead is the header of the group column.
func groupHead(g outcomes.Grouping) string {
	switch g {
	case outcomes.ByEvent:
		return "Event"
	case outcomes.ByCountry:
		return "Country"
	case outcomes.ByDay:
		return "Day"
	}
	return "Subsample"
}

// invoiceAmount is a line's amount with its currency, "unknown" when its
// price never was seen.
func invoiceAmount(l rules.InvoiceLine) string {
	cents, known := l.Amount()
	if !known {
		return "unknown"
	}
	return rules.FormatCents(cents) + " " + l.Currency
}

// invoiceCPI is a line's price, "unknown" when never seen.
func invoiceCPI(l rules.InvoiceLine) string {
	if !l.Known {
		return "unknown"
	}
	return rules.FormatCPI(l.CPI) + " " + l.Currency
}

// totalsText is an invoice's totals per currency, and its lines of
// unknown amount.
func totalsText(t rules.InvoiceTotals) string {
	s := t.Amounts.String()
	if t.UnknownLines > 0 {
		if s != "" {
			s += " + "
		}
		s += "unknown (" + plural(t.UnknownLines, "line") + ")"
	}
	if s == "" {
		return "nothing"
	}
	return s
}

// hasUnnamedEntity reports whether some line has no billing entity.
func hasUnnamedEntity(lines []rules.InvoiceLine) bool {
	for _, l := range lines {
		if l.BillingEntity == "" {
			return true
		}
	}
	return false
}

// entityHref is the invoice of month for one billing entity alone.
func entityHref(month, entity string) string {
	return "/outcomes/invoice?month=" + url.QueryEscape(month) + "&entity=" + url.QueryEscape(entity)
}

// sortedEntities are an invoice's billing entities, sorted.
func sortedEntities(m map[string]rules.InvoiceTotals) []string {
	out := make([]string, 0, len(m))
	for e := range m {
		out = append(out, e)
	}
	sort.Strings(out)
	return out
}

// verdictName names a reversing verdict.
func verdictName(status int64) string {
	switch status {
	case domain.ReturnErroneousComplete:
		return "98 Erroneous complete"
	case domain.ReturnPotentiallyUnengaged:
		return "99 Potentially unengaged"
	}
	return Itoa(status)
}

// cellsText lists a quota full's cells: "Age: 18-24 (quota 12), quota 13".
func cellsText(cells []outcomes.Cell) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = "quota " + Itoa(c.QuotaID)
		if c.Name != "" {
			parts[i] = c.Name + " (" + parts[i] + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// daysChart is the chart of completes and reversals per day, placed in
// trendArea: a polyline each, the largest count on the left, the first
// and last day below.
type daysChart struct {
	Completes, Reversed string // polyline points
	MaxLabel            string
	FirstLabel          string
	LastLabel           string
	MaxY, MinY          string
	Summary             string
}

// newDaysChart scales days (oldest first) to the chart: one step of x a
// day, counts on y from 0 to the largest.
func newDaysChart(days []outcomes.Day) daysChart {
	var c daysChart
	if len(days) == 0 {
		return c
	}
	hi, completes, reversed := 1, 0, 0
	for _, d := range days {
		hi = max(hi, d.Completes, d.Reversed)
		completes += d.Completes
		reversed += d.Reversed
	}
	area := trendArea
	xOf := func(i int) float64 {
		if len(days) == 1 {
			return area.Left
		}
		return area.Left + float64(i)/float64(len(days)-1)*(area.Right-area.Left)
	}
	yOf := func(v int) float64 { return area.Bottom - float64(v)/float64(hi)*(area.Bottom-area.Top) }
	cs, rs := make([]string, len(days)), make([]string, len(days))
	for i, d := range days {
		cs[i] = coord(xOf(i)) + "," + coord(yOf(d.Completes))
		rs[i] = coord(xOf(i)) + "," + coord(yOf(d.Reversed))
	}
	c.Completes, c.Reversed = strings.Join(cs, " "), strings.Join(rs, " ")
	c.MaxLabel, c.MaxY, c.MinY = Itoa(hi), coord(yOf(hi)), coord(yOf(0))
	c.FirstLabel = days[0].Day.Format("2 Jan")
	if len(days) > 1 {
		c.LastLabel = days[len(days)-1].Day.Format("2 Jan")
	}
	c.Summary = plural(completes, "complete") + " and " + plural(reversed, "reversal") + " over " + plural(len(days), "day") +
		", at most " + Itoa(hi) + " a day"
	return c
}
