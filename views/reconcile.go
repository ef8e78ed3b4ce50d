package views

import "fieldboard/rules"

// ReconciliationView is a month's earnings on the outcomes beside its
// invoice, on either page: OnInvoice on the invoice's, which then links
// the outcomes (OutcomesHref), else the invoice (InvoiceHref).
type ReconciliationView struct {
	rules.Reconciliation
	Month        string // YYYY-MM
	Name         string // "December 2026"
	OnInvoice    bool
	InvoiceHref  string
	OutcomesHref string
}

// reconcileLine is one line of the reconciliation's table: its sign
// ("", "−", "+", "="), what it is, and its figure.
type reconcileLine struct {
	Sign, Label, Hint, TestID string
	Worth                     rules.Worth
	Total                     bool
}

// reconcileLines are the table's lines, from the outcomes' earnings to
// the invoice's net; a line of completes another record followed only
// when there are some.
func reconcileLines(r rules.Reconciliation) []reconcileLine {
	lines := []reconcileLine{
		{Label: "Earned on the outcomes", Hint: "completes of the month still standing at its end", TestID: "rec-earned", Worth: r.Earned, Total: true},
		{Sign: "−", Label: "of them only a return reported", Hint: "unconfirmed: invoiced once a history import confirms them", TestID: "rec-unconfirmed", Worth: r.Unconfirmed},
		{Sign: "+", Label: "reversed within the month", Hint: "invoiced, then credited below", TestID: "rec-reversed-within", Worth: r.ReversedWithin},
	}
	if r.Superseded.Completes > 0 {
		lines = append(lines, reconcileLine{Sign: "+", Label: "followed by another record", Hint: "invoiced; the panelist's latest record is not this complete", TestID: "rec-superseded", Worth: r.Superseded})
	}
	return append(lines,
		reconcileLine{Sign: "=", Label: "Invoice gross", Hint: "every confirmed complete registered in the month", TestID: "rec-gross", Worth: r.Gross, Total: true},
		reconcileLine{Sign: "−", Label: "Credits", Hint: "every reversal registered in the month, at its complete's price", TestID: "rec-credits", Worth: r.Credits},
		reconcileLine{Label: "of which for earlier months' completes", Hint: "never earned in this month", TestID: "rec-earlier-credits", Worth: r.EarlierCredits},
		reconcileLine{Sign: "=", Label: "Invoice net", Hint: "what the invoice asks", TestID: "rec-net", Worth: r.Net, Total: true},
	)
}

// worthIn is a figure's amount in currency, "0.00" when it holds none.
func worthIn(w rules.Worth, currency string) string {
	return rules.FormatCents(w.Money[currency])
}

// relationText states how the lines relate, each currency apart.
func relationText(r rules.Reconciliation) string {
	followed := ""
	if r.Superseded.Completes > 0 {
		followed = " + followed by another record"
	}
	return "Each currency apart, never added: invoice gross = earned − only a return reported + reversed within the month" + followed +
		"; invoice net = gross − credits. So net = earned − only a return reported − credits for earlier months' completes" + followed + "."
}
