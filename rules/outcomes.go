package rules

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules/domain"
)

// This file holds what the sending produced: the outcome of each
// panelist on a subsample, the price of a complete, the monthly invoice
// and the quality hold. Every figure is built from the supplier's history
// records and the price history Fieldboard kept, never from the
// provider's own counts.
//
// Records of one panelist on one subsample are ordered by registration
// time; records registered in the same instant are ordered by status id,
// so a verdict (98, 99) registered in the same second as its complete
// (3) follows it, and a final status follows "In survey" (2).

// MinFinalEntrants is the number of final entrants below which a realized
// conversion or EPC is "too few" to compare with the prediction: under 20
// the share of one panelist is over 5 percentage points.
const MinFinalEntrants = 20

// Money is amounts per currency, in hundredths of the currency's unit.
// Amounts in different currencies are kept apart: nothing adds them.
type Money map[string]int64

// Add adds cents in currency.
func (m Money) Add(currency string, cents int64) { m[currency] += cents }

// AddAll adds every amount of other.
func (m Money) AddAll(other Money) {
	for c, v := range other {
		m[c] += v
	}
}

// Currencies are the currencies m holds, sorted.
func (m Money) Currencies() []string {
	out := make([]string, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// String writes "12.50 EUR + 3.00 USD", currencies sorted, "" when m
// holds nothing.
func (m Money) String() string {
	parts := make([]string, 0, len(m))
	for _, c := range m.Currencies() {
		parts = append(parts, strings.TrimSpace(FormatCents(m[c])+" "+c))
	}
	return strings.Join(parts, " + ")
}

// FormatCents writes hundredths as a decimal with two places: 1250 is
// "12.50", -5 is "-0.05".
func FormatCents(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// FormatCPI writes a price with at least two decimals, more only when
// it has them: 7.6 is "7.60", 4 is "4.00", 2.345 is "2.345" (never
// rounded, so a line's amount can be checked by hand).
func FormatCPI(cpi float64) string {
	s := strconv.FormatFloat(cpi, 'f', -1, 64)
	dot := strings.IndexByte(s, '.')
	switch {
	case strings.ContainsAny(s, "eEIN"): // not a finite decimal; never a price
		return s
	case dot < 0:
		return s + ".00"
	case len(s)-dot-1 < 2:
		return s + strings.Repeat("0", 2-(len(s)-dot-1))
	}
	return s
}

// AmountCents is n × cpi in hundredths, computed on the CPI's shortest
// decimal form (so 3 × 0.1 is exactly 0.30) and rounded half away from
// zero to two decimals.
func AmountCents(n int, cpi float64) int64 {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(cpi, 'f', -1, 64))
	if !ok {
		return 0
	}
	r.Mul(r, big.NewRat(int64(n)*100, 1))
	num, den := new(big.Int).Set(r.Num()), r.Denom()
	neg := num.Sign() < 0
	num.Abs(num)
	// round half away from zero: (|num| * 2 + den) / (2 * den)
	num.Mul(num, big.NewInt(2)).Add(num, den)
	q := num.Quo(num, new(big.Int).Mul(den, big.NewInt(2)))
	if neg {
		q.Neg(q)
	}
	return q.Int64()
}

// Price is what one complete is worth: the subsample's CPI in its
// currency. Known is false when Fieldboard never saw a price of the
// subsample (the amount is unknown, never 0); Estimated when the complete
// came before the first price seen, which it then takes.
type Price struct {
	Currency  string
	CPI       float64
	Known     bool
	Estimated bool
}

// Priced reports whether p is an amount a stake can count: a known CPI
// in a named currency. A CPI without a currency is not: its money would
// land in no currency, so its part of a stake is unknown, never 0.
func (p Price) Priced() bool { return p.Known && strings.TrimSpace(p.Currency) != "" }

// PriceAt is the price in effect at: the latest point of points (one
// subsample's price history, oldest first) from at or before it; the
// first point, estimated, when at is before every point; unknown when
// there is none.
func PriceAt(points []domain.PricePoint, at time.Time) Price {
	if len(points) == 0 {
		return Price{}
	}
	i, _ := slices.BinarySearchFunc(points, at, func(p domain.PricePoint, t time.Time) int {
		if p.From.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return Price{Currency: points[0].Currency, CPI: points[0].CPI, Known: true, Estimated: true}
	}
	p := points[i-1]
	return Price{Currency: p.Currency, CPI: p.CPI, Known: true}
}

// recordOrder orders records by registration time, then status id (see
// the file comment).
func recordOrder(a, b domain.HistoryRecord) int {
	if c := a.RegisteredAt.Compare(b.RegisteredAt); c != 0 {
		return c
	}
	return cmp.Compare(a.StatusID, b.StatusID)
}

// IsVerdict reports whether status is one of the provider's later
// verdicts on a complete: 98 "Erroneous complete" or 99 "Potentially
// unengaged".
func IsVerdict(status int64) bool {
	return status == domain.ReturnErroneousComplete || status == domain.ReturnPotentiallyUnengaged
}

// reversal pairs a verdict with the complete it reverses (complete is
// -1 for a verdict with no complete before it: a reversal of nothing).
type reversal struct{ verdict, complete int }

// reversals pairs the verdicts of one panelist's records on one
// subsample (sorted by recordOrder) with the completes they reverse: a
// verdict reverses the latest complete before it unless another verdict
// came between them, so a complete is reversed at most once, by the first
// verdict after it.
func reversals(records []domain.HistoryRecord) []reversal {
	var out []reversal
	open := -1 // the latest complete, while no verdict has followed it
	for i, r := range records {
		switch {
		case r.StatusID == domain.ReturnComplete:
			open = i
		case IsVerdict(r.StatusID):
			out = append(out, reversal{verdict: i, complete: open})
			open = -1
		}
	}
	return out
}

// Reversing is the verdicts among records (one panelist's on one
// subsample, in recordOrder) that reverse a complete, paired as on the
// invoice and by the hold: what a chart of reversals counts.
func Reversing(records []domain.HistoryRecord) []domain.HistoryRecord {
	var out []domain.HistoryRecord
	for _, rv := range reversals(records) {
		if rv.complete >= 0 {
			out = append(out, records[rv.verdict])
		}
	}
	return out
}

// completesAndVerdicts groups a panelist's completes and verdicts by
// subsample, the records the hold and a panelist's list of completes
// pair (each group in history's order).
func completesAndVerdicts(history []domain.HistoryRecord) map[int64][]domain.HistoryRecord {
	out := map[int64][]domain.HistoryRecord{}
	for _, r := range history {
		if r.StatusID == domain.ReturnComplete || IsVerdict(r.StatusID) {
			out[r.SubsampleID] = append(out[r.SubsampleID], r)
		}
	}
	return out
}

// sortedRecords returns records in recordOrder, copying only when they
// are not in it already.
func sortedRecords(records []domain.HistoryRecord) []domain.HistoryRecord {
	if slices.IsSortedFunc(records, recordOrder) {
		return records
	}
	out := slices.Clone(records)
	slices.SortStableFunc(out, recordOrder)
	return out
}

// Tally is what the sending produced on one subsample in a period.
// Each entrant (a panelist with a record registered in the period) counts
// once, by their outcome: their latest record registered before the
// period's end.
type Tally struct {
	Entrants   int
	InSurvey   int // latest status 2: not final
	Completes  int // latest status 3
	ScreenOuts int // 82
	QuotaFulls int // 83
	Abandons   int // 92
	// Reversed: latest status 98 or 99, with a complete of theirs there
	// before it.
	Reversed int
	// ReversalsOfNothing: latest status 98 or 99 with no complete before
	// it: shown, never credited.
	ReversalsOfNothing int
	// Other: a latest status the spec does not list.
	Other int
	// Earned is the completes' worth, each at the price in effect when
	// it was registered, per currency.
	Earned Money
	// Estimated completes took the first price seen, being older than
	// it; Unpriced completes have no known price and are not in Earned.
	Estimated, Unpriced int
}

// Final is the number of final entrants: those whose outcome is not "In
// survey".
func (o Tally) Final() int { return o.Entrants - o.InSurvey }

// AddPanelist adds one panelist's records on the subsample (any order,
// any time) to the outcome of the period [from, to); prices is the
// subsample's price history, oldest first. A panelist with no record
// registered in the period adds nothing.
func (o *Tally) AddPanelist(records []domain.HistoryRecord, prices []domain.PricePoint, from, to time.Time) {
	records = sortedRecords(records)
	last := -1
	for i, r := range records {
		if r.RegisteredAt.Before(to) {
			last = i
		}
	}
	if last < 0 || records[last].RegisteredAt.Before(from) {
		return
	}
	o.Entrants++
	latest := records[last]
	switch s := latest.StatusID; {
	case s == domain.ReturnInSurvey:
		o.InSurvey++
	case s == domain.ReturnComplete:
		o.Completes++
		p := PriceAt(prices, latest.RegisteredAt)
		switch {
		case !p.Known:
			o.Unpriced++
			return
		case p.Estimated:
			o.Estimated++
		}
		if o.Earned == nil {
			o.Earned = Money{}
		}
		o.Earned.Add(p.Currency, AmountCents(1, p.CPI))
	case s == domain.ReturnScreenOut:
		o.ScreenOuts++
	case s == domain.ReturnQuotaFull:
		o.QuotaFulls++
	case s == domain.ReturnAbandon:
		o.Abandons++
	case IsVerdict(s):
		if slices.ContainsFunc(records[:last], func(r domain.HistoryRecord) bool { return r.StatusID == domain.ReturnComplete }) {
			o.Reversed++
		} else {
			o.ReversalsOfNothing++
		}
	default:
		o.Other++
	}
}

// Add adds another outcome's counts, as when grouping subsamples.
func (o *Tally) Add(other Tally) {
	o.Entrants += other.Entrants
	o.InSurvey += other.InSurvey
	o.Completes += other.Completes
	o.ScreenOuts += other.ScreenOuts
	o.QuotaFulls += other.QuotaFulls
	o.Abandons += other.Abandons
	o.Reversed += other.Reversed
	o.ReversalsOfNothing += other.ReversalsOfNothing
	o.Other += other.Other
	o.Estimated += other.Estimated
	o.Unpriced += other.Unpriced
	if len(other.Earned) > 0 {
		if o.Earned == nil {
			o.Earned = Money{}
		}
		o.Earned.AddAll(other.Earned)
	}
}

// Realized is the conversion and EPC the outcome shows, or why it shows
// none.
type Realized struct {
	// Conversion is completes / final entrants, as a percentage.
	Conversion float64
	// EPC is earned / final entrants in Currency; EPCKnown is false when
	// the earnings are in more than one currency or some complete's price
	// is unknown.
	EPC      float64
	Currency string
	EPCKnown bool
	// Known is false under MinFinalEntrants; Why says so.
	Known bool
	Why   string
}

// Realized is the outcome's realized conversion and EPC.
func (o Tally) Realized() Realized {
	final := o.Final()
	if final < MinFinalEntrants {
		return Realized{Why: fmt.Sprintf("too few: %s, %d needed", countOf(final, "final entrant", "final entrants"), MinFinalEntrants)}
	}
	r := Realized{Known: true, Conversion: 100 * float64(o.Completes) / float64(final)}
	switch {
	case o.Unpriced > 0:
		r.Why = countOf(o.Unpriced, "complete has", "completes have") + " no known price"
	case len(o.Earned) > 1:
		r.Why = "earned in " + strings.Join(o.Earned.Currencies(), " and ")
	case o.Completes == 0:
		r.EPCKnown = true
	default:
		for c, v := range o.Earned {
			r.Currency, r.EPC, r.EPCKnown = c, float64(v)/100/float64(final), true
		}
	}
	return r
}

// MonthRange is the calendar month "YYYY-MM" in loc, as [from, to); a
// month outside FirstYear and LastYear is refused.
func MonthRange(month string, loc *time.Location) (from, to time.Time, err error) {
	t, err := time.ParseInLocation("2006-01", month, loc)
	if err != nil {
		return from, to, fmt.Errorf("%q is not a month like 2026-11", domain.Clip(month, 20))
	}
	if t.Year() < FirstYear || t.Year() > LastYear {
		return from, to, fmt.Errorf("%q is out of range: %s", month, yearRange)
	}
	return t, t.AddDate(0, 1, 0), nil
}

// MonthOf is the calendar month "YYYY-MM" in loc that [from, to) is
// exactly, ok false when it is not one.
func MonthOf(from, to time.Time, loc *time.Location) (month string, ok bool) {
	f := from.In(loc)
	first := time.Date(f.Year(), f.Month(), 1, 0, 0, 0, 0, loc)
	if !first.Equal(from) || !first.AddDate(0, 1, 0).Equal(to) {
		return "", false
	}
	return first.Format("2006-01"), true
}

// InvoiceKey is one line of the invoice: a subsample's completes at one
// price, for one billing entity and job number. An unknown price has
// Known false and no currency or CPI.
type InvoiceKey struct {
	domain.InvoiceParty
	SubsampleID int64
	Currency    string
	CPI         float64
	Known       bool
}

// InvoiceLine is the completes and reversals of one invoice key in the
// month.
type InvoiceLine struct {
	InvoiceKey
	Completes int
	Reversed  int
	// Unconfirmed are the completes registered in the month that only a
	// return reported (the respondent's redirect or the survey's post),
	// which no history import has confirmed yet: not in Completes, never
	// invoiced, since a respondent who sees the return address could claim
	// a complete they never made.
	Unconfirmed int
	// Estimated: some complete of the line (or reversed by it) took the
	// first price seen, being older than it.
	Estimated bool
}

// Amount is (completes - reversed) × CPI in hundredths; known is false
// when the price is unknown.
func (l InvoiceLine) Amount() (cents int64, known bool) {
	if !l.Known {
		return 0, false
	}
	return AmountCents(l.Completes-l.Reversed, l.CPI), true
}

// Invoice is the invoice of one month: every complete registered in the
// month, at its price, whatever came after it; and every reversal
// registered in the month, as a credit at its complete's price (which may
// be an earlier month's), so a month that is over never changes.
type Invoice struct {
	From, To time.Time
	lines    map[InvoiceKey]*InvoiceLine
	// ReversalsOfNothing are the verdicts registered in the month with no
	// complete before them: shown, never credited. ReversalsOfNothingBy
	// counts them per billing entity.
	ReversalsOfNothing   int
	ReversalsOfNothingBy map[string]int
}

// NewInvoice starts the invoice of [from, to).
func NewInvoice(from, to time.Time) *Invoice {
	return &Invoice{From: from, To: to, lines: map[InvoiceKey]*InvoiceLine{}, ReversalsOfNothingBy: map[string]int{}}
}

// AddPanelist adds one panelist's records on one subsample (any order;
// those registered before the month's end, including earlier months',
// for the completes a reversal reverses); prices is the subsample's price
// history, oldest first.
func (inv *Invoice) AddPanelist(party domain.InvoiceParty, subsampleID int64, records []domain.HistoryRecord, prices []domain.PricePoint) {
	records = sortedRecords(records)
	in := func(t time.Time) bool { return !t.Before(inv.From) && t.Before(inv.To) }
	line := func(at time.Time) *InvoiceLine {
		p := PriceAt(prices, at)
		k := InvoiceKey{InvoiceParty: party, SubsampleID: subsampleID, Currency: p.Currency, CPI: p.CPI, Known: p.Known}
		l := inv.lines[k]
		if l == nil {
			l = &InvoiceLine{InvoiceKey: k}
			inv.lines[k] = l
		}
		l.Estimated = l.Estimated || p.Estimated
		return l
	}
	for _, r := range records {
		if r.StatusID == domain.ReturnComplete && in(r.RegisteredAt) {
			line(r.RegisteredAt).Completes++
		}
	}
	for _, rv := range reversals(records) {
		if !in(records[rv.verdict].RegisteredAt) {
			continue
		}
		if rv.complete < 0 {
			inv.ReversalsOfNothing++
			inv.ReversalsOfNothingBy[party.BillingEntity]++
			continue
		}
		line(records[rv.complete].RegisteredAt).Reversed++
	}
}

// AddUnconfirmed adds a complete registered at that only a return
// reported to its line's Unconfirmed, when it is in the month; prices is
// the subsample's price history, oldest first. Its record is not among
// the records AddPanelist is given: it is not invoiced and reverses
// nothing.
func (inv *Invoice) AddUnconfirmed(party domain.InvoiceParty, subsampleID int64, at time.Time, prices []domain.PricePoint) {
	if at.Before(inv.From) || !at.Before(inv.To) {
		return
	}
	p := PriceAt(prices, at)
	k := InvoiceKey{InvoiceParty: party, SubsampleID: subsampleID, Currency: p.Currency, CPI: p.CPI, Known: p.Known}
	l := inv.lines[k]
	if l == nil {
		l = &InvoiceLine{InvoiceKey: k}
		inv.lines[k] = l
	}
	l.Unconfirmed++
}

// Lines are the invoice's lines by billing entity, job number, event,
// subsample, currency and CPI (unknown prices last).
func (inv *Invoice) Lines() []InvoiceLine {
	out := make([]InvoiceLine, 0, len(inv.lines))
	for _, l := range inv.lines {
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b InvoiceLine) int {
		return cmp.Or(
			cmp.Compare(a.BillingEntity, b.BillingEntity),
			cmp.Compare(a.JobBookID, b.JobBookID),
			cmp.Compare(a.EventID, b.EventID),
			cmp.Compare(a.SubsampleID, b.SubsampleID),
			compareBool(!a.Known, !b.Known),
			cmp.Compare(a.Currency, b.Currency),
			cmp.Compare(a.CPI, b.CPI),
		)
	})
	return out
}

// InvoiceTotals are an invoice's amounts per currency, and the count of
// lines whose amount is unknown (not in Amounts).
type InvoiceTotals struct {
	Amounts      Money
	UnknownLines int
}

// TotalsOf sums lines per currency, and per billing entity. A line
// holding only unconfirmed completes invoices nothing: it is in no total.
func TotalsOf(lines []InvoiceLine) (all InvoiceTotals, byEntity map[string]InvoiceTotals) {
	all = InvoiceTotals{Amounts: Money{}}
	byEntity = map[string]InvoiceTotals{}
	for _, l := range lines {
		if l.Completes == 0 && l.Reversed == 0 {
			continue
		}
		e, ok := byEntity[l.BillingEntity]
		if !ok {
			e = InvoiceTotals{Amounts: Money{}}
		}
		if cents, known := l.Amount(); known {
			all.Amounts.Add(l.Currency, cents)
			e.Amounts.Add(l.Currency, cents)
		} else {
			all.UnknownLines++
			e.UnknownLines++
		}
		byEntity[l.BillingEntity] = e
	}
	return all, byEntity
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// QualityHoldPolicy is when a panelist is held for quality: at least
// Reversals reversed completes registered in the last Days days. Either
// at 0 turns the hold off.
type QualityHoldPolicy struct{ Reversals, Days int }

// DefaultQualityHold holds a panelist with 3 reversed completes in 90
// days.
var DefaultQualityHold = QualityHoldPolicy{Reversals: 3, Days: 90}

// Off reports whether the policy holds nobody.
func (p QualityHoldPolicy) Off() bool { return p.Reversals <= 0 || p.Days <= 0 }

// ReversalStatuses are the complete and the verdicts on it: all that
// QualityHold and the invoice read. A scan that reads only the records
// that can matter for a subsample reads every record of these too
// (RelevantHistory.AnyOf) while the hold is on.
var ReversalStatuses = []int64{domain.ReturnComplete, domain.ReturnErroneousComplete, domain.ReturnPotentiallyUnengaged}

// Relevant returns r with the records the hold reads at now added, while
// it is on: the completes and verdicts (ReversalStatuses, AnyOf) of the
// subsamples on which the panelist has a verdict registered since a day
// before the hold's window (HeldBy, HeldSince). Only a verdict in the
// window counts, with the complete it reverses on its subsample, so the
// completes and verdicts of the other subsamples cannot change what
// QualityHold decides; the day before the window spares the readers a
// question of how finely each database keeps a time (QualityHold decides
// on the records to the nanosecond).
func (p QualityHoldPolicy) Relevant(r RelevantHistory, now time.Time) RelevantHistory {
	if p.Off() {
		return r
	}
	r.AnyOf = ReversalStatuses
	r.HeldBy = []int64{domain.ReturnErroneousComplete, domain.ReturnPotentiallyUnengaged}
	if limited, cutoff := windowStart(int64(p.Days), now); limited {
		r.HeldSince = cutoff.Add(-24 * time.Hour)
	}
	return r
}

// KindQualityHold is the kind of the exclusion a quality hold adds.
const KindQualityHold = "qualityHold"

// QualityHold says why a panelist is held for quality ("" when not): at
// least p.Reversals reversals (a 98 or 99 reversing a complete of the
// same subsample, paired as on the invoice) registered in the last
// p.Days days before now, the window's first instant included. history
// is every record of the panelist, any order (or at least every record
// of ReversalStatuses).
func QualityHold(history []domain.HistoryRecord, p QualityHoldPolicy, now time.Time) string {
	return qualityHold(history, p, nil, now)
}

// qualityHold is QualityHold counting only the reversals registered after
// released, when it is not nil: a release by hand lifts the hold the
// reversals before it made.
func qualityHold(history []domain.HistoryRecord, p QualityHoldPolicy, released *time.Time, now time.Time) string {
	if p.Off() {
		return ""
	}
	_, cutoff := windowStart(int64(p.Days), now)
	if released != nil && !released.Before(cutoff) {
		cutoff = released.Add(time.Nanosecond)
	}
	// Each reversal counted is a verdict of the window: with fewer of
	// those than the policy asks, nothing need be paired (most panelists,
	// on every router's answer).
	verdicts := 0
	for i := range history {
		if r := &history[i]; IsVerdict(r.StatusID) && !r.RegisteredAt.Before(cutoff) && !r.RegisteredAt.After(now) {
			verdicts++
		}
	}
	if verdicts < p.Reversals {
		return ""
	}
	count := 0
	bySubsample := completesAndVerdicts(history)
	for _, records := range bySubsample {
		records = sortedRecords(records)
		for _, rv := range reversals(records) {
			if at := records[rv.verdict].RegisteredAt; rv.complete >= 0 && !at.Before(cutoff) && !at.After(now) {
				count++
			}
		}
	}
	if count < p.Reversals {
		return ""
	}
	return fmt.Sprintf("Held for quality: %s in the last %s.", countOf(count, "reversed complete", "reversed completes"), countOf(p.Days, "day", "days"))
}

// WithQualityHold is r with the quality hold's exclusion added when why
// (QualityHold's) is not empty: a held panelist is eligible nowhere. r's
// exclusions are not changed in place.
func WithQualityHold(r EligibilityResult, why string) EligibilityResult {
	if why == "" {
		return r
	}
	return EligibilityResult{Eligible: false, Exclusions: append(slices.Clip(r.Exclusions), Exclusion{Kind: KindQualityHold, Index: -1, Rule: why, Reason: why})}
}

// CompleteRecord is one complete of a panelist, and its reversal when a
// verdict reversed it (paired as on the invoice): Verdict is 98 or 99 and
// ReversedAt its registration time, or Verdict 0 when it stands. A
// reversal of nothing (a verdict with no complete before it) has no
// complete: its At is zero.
type CompleteRecord struct {
	SubsampleID int64
	EventID     int64
	At          time.Time
	Verdict     int64
	ReversedAt  time.Time
}

// Reversed reports whether a verdict reversed the complete.
func (c CompleteRecord) Reversed() bool { return c.Verdict != 0 }

// CompletesOf lists a panelist's completes on every subsample, each with
// its reversal, and their reversals of nothing, newest first (by the
// complete's time, or the verdict's for a reversal of nothing); history
// is every record of the panelist, any order.
func CompletesOf(history []domain.HistoryRecord) []CompleteRecord {
	bySubsample := completesAndVerdicts(history)
	var out []CompleteRecord
	for id, records := range bySubsample {
		records = sortedRecords(records)
		reversedBy := map[int]int{} // complete -> verdict
		for _, rv := range reversals(records) {
			if rv.complete < 0 {
				v := records[rv.verdict]
				out = append(out, CompleteRecord{SubsampleID: id, EventID: v.EventID, Verdict: v.StatusID, ReversedAt: v.RegisteredAt})
				continue
			}
			reversedBy[rv.complete] = rv.verdict
		}
		for i, r := range records {
			if r.StatusID != domain.ReturnComplete {
				continue
			}
			c := CompleteRecord{SubsampleID: id, EventID: r.EventID, At: r.RegisteredAt}
			if v, ok := reversedBy[i]; ok {
				c.Verdict, c.ReversedAt = records[v].StatusID, records[v].RegisteredAt
			}
			out = append(out, c)
		}
	}
	when := func(c CompleteRecord) time.Time {
		if c.At.IsZero() {
			return c.ReversedAt
		}
		return c.At
	}
	slices.SortFunc(out, func(a, b CompleteRecord) int {
		return cmp.Or(when(b).Compare(when(a)), cmp.Compare(a.SubsampleID, b.SubsampleID))
	})
	return out
}
