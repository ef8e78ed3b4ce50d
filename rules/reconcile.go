package rules

import (
	"slices"
	"time"

	"fieldboard/rules/domain"
)

// Worth is a number of completes and what they are worth per currency,
// each at the price in effect when it was registered. Unpriced of them
// have a price Fieldboard never saw: counted, never in Money (unknown,
// never 0).
type Worth struct {
	Completes int
	Money     Money
	Unpriced  int
}

// add adds one complete at p.
func (w *Worth) add(p Price) {
	w.Completes++
	if !p.Known {
		w.Unpriced++
		return
	}
	if w.Money == nil {
		w.Money = Money{}
	}
	w.Money.Add(p.Currency, AmountCents(1, p.CPI))
}

// Reconciliation relates what a month earned on the outcomes (Tally's
// Earned: the completes still standing at the month's end) to the
// month's invoice (Gross, Credits, Net), per currency, in two
// equations that hold in completes exactly:
//
//	Gross = Earned − Unconfirmed + ReversedWithin + Superseded
//	Net   = Gross − Credits,  Credits = ReversedWithin + EarlierCredits
//
// so Net = Earned − Unconfirmed − EarlierCredits + Superseded. In money
// they hold to the cent when every CPI is in whole cents; with finer
// CPIs the invoice rounds each line once and Earned each complete, and
// Balanced says they part.
type Reconciliation struct {
	From, To time.Time
	// Earned are the completes registered in the month that are their
	// panelist's latest record on the subsample at the month's end
	// (Tally.AddPanelist, as /outcomes counts them), returns' included.
	Earned Worth
	// Unconfirmed are the Earned completes only a return reported: not
	// invoiced until a history import confirms them.
	Unconfirmed Worth
	// ReversedWithin are the imported completes of the month that a
	// verdict of the month reversed: invoiced, credited the same month,
	// never earned.
	ReversedWithin Worth
	// Superseded are the imported completes of the month that are not
	// the latest record at its end and no verdict of the month reversed
	// (another record of the panelist followed): invoiced, not earned.
	Superseded Worth
	// EarlierCredits are the verdicts of the month reversing a complete
	// registered before it, at that complete's price: credited, never in
	// Earned (whose completes are the month's).
	EarlierCredits Worth
	// Gross, Credits and Net are the invoice's (InvoiceWorth).
	Gross, Credits, Net Worth
}

// NewReconciliation starts the reconciliation of [from, to).
func NewReconciliation(from, to time.Time) *Reconciliation {
	return &Reconciliation{From: from, To: to}
}

// AddPanelist adds one panelist's records on one subsample, every status,
// those registered before the month's end (earlier months' included), as
// the outcomes' scan hands them over; unconfirmed reports whether only a
// return reported a record; prices is the subsample's price history,
// oldest first. The invoice's figures come from its lines (AddInvoice).
func (r *Reconciliation) AddPanelist(records []domain.HistoryRecord, unconfirmed func(domain.HistoryRecord) bool, prices []domain.PricePoint) {
	records = sortedRecords(records)
	var t Tally
	t.AddPanelist(records, prices, r.From, r.To)
	r.Earned.Completes += t.Completes
	r.Earned.Unpriced += t.Unpriced
	if len(t.Earned) > 0 {
		if r.Earned.Money == nil {
			r.Earned.Money = Money{}
		}
		r.Earned.Money.AddAll(t.Earned)
	}
	in := func(at time.Time) bool { return !at.Before(r.From) && at.Before(r.To) }
	latest := -1
	for i, rec := range records {
		if rec.RegisteredAt.Before(r.To) {
			latest = i
		}
	}
	if latest >= 0 && t.Completes == 1 && unconfirmed(records[latest]) {
		r.Unconfirmed.add(PriceAt(prices, records[latest].RegisteredAt))
	}
	// The invoice's records: the imported completes and verdicts, paired
	// as Invoice.AddPanelist pairs them.
	var imported []domain.HistoryRecord
	standing := -1
	for i, rec := range records {
		if rec.StatusID != domain.ReturnComplete && !IsVerdict(rec.StatusID) || unconfirmed(rec) {
			continue
		}
		if i == latest && t.Completes == 1 {
			standing = len(imported)
		}
		imported = append(imported, rec)
	}
	reversed := map[int]bool{}
	for _, rv := range reversals(imported) {
		if rv.complete < 0 || !in(imported[rv.verdict].RegisteredAt) {
			continue
		}
		c := imported[rv.complete]
		reversed[rv.complete] = true
		if in(c.RegisteredAt) {
			r.ReversedWithin.add(PriceAt(prices, c.RegisteredAt))
		} else {
			r.EarlierCredits.add(PriceAt(prices, c.RegisteredAt))
		}
	}
	for i, rec := range imported {
		if rec.StatusID == domain.ReturnComplete && in(rec.RegisteredAt) && i != standing && !reversed[i] {
			r.Superseded.add(PriceAt(prices, rec.RegisteredAt))
		}
	}
}

// AddInvoice sets the invoice's figures from the month's lines (all of
// them: the outcomes know no billing entity): Gross every complete at
// its line's price, Credits every reversal, Net their difference, each
// line's amount as the invoice writes it (InvoiceLine.Amount).
func (r *Reconciliation) AddInvoice(lines []InvoiceLine) {
	for _, l := range lines {
		r.Gross.Completes += l.Completes
		r.Credits.Completes += l.Reversed
		r.Net.Completes += l.Completes - l.Reversed
		if !l.Known {
			r.Gross.Unpriced += l.Completes
			r.Credits.Unpriced += l.Reversed
			r.Net.Unpriced += l.Completes - l.Reversed
			continue
		}
		for _, w := range []*Worth{&r.Gross, &r.Credits, &r.Net} {
			if w.Money == nil {
				w.Money = Money{}
			}
		}
		r.Gross.Money.Add(l.Currency, AmountCents(l.Completes, l.CPI))
		r.Credits.Money.Add(l.Currency, AmountCents(l.Reversed, l.CPI))
		cents, _ := l.Amount()
		r.Net.Money.Add(l.Currency, cents)
	}
}

// Currencies are every currency of the reconciliation's figures, sorted.
func (r Reconciliation) Currencies() []string {
	all := Money{}
	for _, w := range r.figures() {
		for c := range w.Money {
			all[c] += 0
		}
	}
	return all.Currencies()
}

// Unpriced reports whether some figure counts completes of unknown price.
func (r Reconciliation) Unpriced() bool {
	return slices.ContainsFunc(r.figures(), func(w Worth) bool { return w.Unpriced != 0 })
}

func (r Reconciliation) figures() []Worth {
	return []Worth{r.Earned, r.Unconfirmed, r.ReversedWithin, r.Superseded, r.EarlierCredits, r.Gross, r.Credits, r.Net}
}

// Balanced reports whether the reconciliation's equations hold, in
// completes (priced and not) and in every currency to the cent.
func (r Reconciliation) Balanced() bool {
	gross := func(f func(Worth) int64) bool {
		return f(r.Gross) == f(r.Earned)-f(r.Unconfirmed)+f(r.ReversedWithin)+f(r.Superseded) &&
			f(r.Credits) == f(r.ReversedWithin)+f(r.EarlierCredits) &&
			f(r.Net) == f(r.Gross)-f(r.Credits)
	}
	if !gross(func(w Worth) int64 { return int64(w.Completes) }) || !gross(func(w Worth) int64 { return int64(w.Unpriced) }) {
		return false
	}
	for _, c := range r.Currencies() {
		if !gross(func(w Worth) int64 { return w.Money[c] }) {
			return false
		}
	}
	return true
}
