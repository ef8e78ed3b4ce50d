package rules

import (
	"reflect"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// at is a time on 2026-11-dd at hh:mm in UTC.
func at(month time.Month, day, hour, minute int) time.Time {
	return time.Date(2026, month, day, hour, minute, 0, 0, time.UTC)
}

// record is a record of panelist P1 on subsample 10 with the given status.
func record(status int64, t time.Time) domain.HistoryRecord {
	return domain.HistoryRecord{PanelistID: "P1", SubsampleID: 10, EventID: 1, StatusID: status, RegisteredAt: t}
}

// prices is subsample 10's price history: 1.50 EUR from 1 November,
// 2.00 EUR from 15 November at noon.
var prices = []domain.PricePoint{
	{SubsampleID: 10, Currency: "EUR", CPI: 1.5, From: at(11, 1, 0, 0)},
	{SubsampleID: 10, Currency: "EUR", CPI: 2, From: at(11, 15, 12, 0)},
}

func TestPriceAt(t *testing.T) {
	// "The price of a complete is the subsample's CPI in effect at the
	// complete's registration time. [...] A complete before the first
	// price Fieldboard saw takes that first price and is marked
	// estimated; a complete on a subsample whose price Fieldboard never
	// saw has an unknown amount."
	tests := []struct {
		name   string
		points []domain.PricePoint
		at     time.Time
		want   Price
	}{
		{"within the first price", prices, at(11, 10, 9, 0), Price{Currency: "EUR", CPI: 1.5, Known: true}},
		{"the instant the price changed takes the new one", prices, at(11, 15, 12, 0), Price{Currency: "EUR", CPI: 2, Known: true}},
		{"a minute before the change takes the old one", prices, at(11, 15, 11, 59), Price{Currency: "EUR", CPI: 1.5, Known: true}},
		{"after the last change", prices, at(12, 2, 0, 0), Price{Currency: "EUR", CPI: 2, Known: true}},
		{"before the first price seen: the first, estimated", prices, at(10, 31, 23, 59), Price{Currency: "EUR", CPI: 1.5, Known: true, Estimated: true}},
		{"a price never seen is unknown", nil, at(11, 10, 9, 0), Price{}},
	}
	for _, tt := range tests {
		if got := PriceAt(tt.points, tt.at); got != tt.want {
			t.Errorf("%s: PriceAt(%s) = %+v, want %+v", tt.name, tt.at, got, tt.want)
		}
	}
}

func TestAmountCents(t *testing.T) {
	// "amount = (completes - reversed) x cpi, two decimals"
	tests := []struct {
		n    int
		cpi  float64
		want int64
	}{
		{3, 0.1, 30},    // exactly 0.30, not 0.30000000000000004
		{1, 1.005, 101}, // half away from zero, on the decimal 1.005
		{3, 2.345, 704}, // 7.035 rounds up
		{-2, 1.5, -300}, // more reversed than completes in a month: a credit
		{-1, 0.125, -13},
		{0, 9.99, 0},
	}
	for _, tt := range tests {
		if got := AmountCents(tt.n, tt.cpi); got != tt.want {
			t.Errorf("AmountCents(%d, %v) = %d, want %d", tt.n, tt.cpi, got, tt.want)
		}
	}
}

func TestOutcomeOfAPanelist(t *testing.T) {
	// "A panelist's outcome on a subsample is their latest record there
	// (by registration date). Entrants: panelists with any record on it;
	// final entrants: those whose latest status is final (not 2 'In
	// survey'). In outcomes, a complete is a latest status 3. A reversal
	// is a 98 or 99 registered after a 3 of the same panelist on the same
	// subsample (a 98 or 99 with no complete before it counts as a
	// reversal of nothing: shown, never credited)."
	from, to := at(11, 1, 0, 0), at(12, 1, 0, 0)
	tests := []struct {
		name    string
		records []domain.HistoryRecord
		want    Tally
	}{
		{"a complete earns the price of its time", []domain.HistoryRecord{record(2, at(11, 3, 9, 0)), record(3, at(11, 3, 9, 20))},
			Tally{Entrants: 1, Completes: 1, Earned: Money{"EUR": 150}}},
		{"a complete after the price change earns the new price", []domain.HistoryRecord{record(3, at(11, 20, 9, 0))},
			Tally{Entrants: 1, Completes: 1, Earned: Money{"EUR": 200}}},
		{"still in survey is an entrant, not a final one", []domain.HistoryRecord{record(2, at(11, 3, 9, 0))},
			Tally{Entrants: 1, InSurvey: 1}},
		{"screen-out", []domain.HistoryRecord{record(2, at(11, 3, 9, 0)), record(82, at(11, 3, 9, 5))}, Tally{Entrants: 1, ScreenOuts: 1}},
		{"quota full", []domain.HistoryRecord{record(83, at(11, 3, 9, 5))}, Tally{Entrants: 1, QuotaFulls: 1}},
		{"abandon", []domain.HistoryRecord{record(92, at(11, 3, 9, 5))}, Tally{Entrants: 1, Abandons: 1}},
		{"a 98 after a complete reverses it, and it earns nothing", []domain.HistoryRecord{record(3, at(11, 3, 9, 0)), record(98, at(11, 9, 0, 0))},
			Tally{Entrants: 1, Reversed: 1}},
		{"a 99 after a complete in an earlier period reverses it", []domain.HistoryRecord{record(3, at(10, 20, 9, 0)), record(99, at(11, 2, 0, 0))},
			Tally{Entrants: 1, Reversed: 1}},
		{"a 98 with no complete before it is a reversal of nothing", []domain.HistoryRecord{record(98, at(11, 9, 0, 0))},
			Tally{Entrants: 1, ReversalsOfNothing: 1}},
		{"a second verdict after a reversed complete still shows it reversed", []domain.HistoryRecord{record(3, at(11, 3, 9, 0)), record(98, at(11, 9, 0, 0)), record(99, at(11, 10, 0, 0))},
			Tally{Entrants: 1, Reversed: 1}},
		{"a 98 in the same second as its complete follows it", []domain.HistoryRecord{record(98, at(11, 9, 0, 0)), record(3, at(11, 9, 0, 0))},
			Tally{Entrants: 1, Reversed: 1}},
		{"records in any order: the latest counts", []domain.HistoryRecord{record(3, at(11, 4, 0, 0)), record(2, at(11, 3, 0, 0))},
			Tally{Entrants: 1, Completes: 1, Earned: Money{"EUR": 150}}},
		{"only records before the period: not an entrant", []domain.HistoryRecord{record(3, at(10, 31, 23, 59))}, Tally{}},
		{"the period's first instant is in it", []domain.HistoryRecord{record(82, at(11, 1, 0, 0))}, Tally{Entrants: 1, ScreenOuts: 1}},
		{"the period's end is not: the outcome is the latest record before it", []domain.HistoryRecord{record(3, at(11, 30, 23, 0)), record(98, at(12, 1, 0, 0))},
			Tally{Entrants: 1, Completes: 1, Earned: Money{"EUR": 200}}},
		{"a status the spec does not list", []domain.HistoryRecord{record(7, at(11, 3, 0, 0))}, Tally{Entrants: 1, Other: 1}},
	}
	for _, tt := range tests {
		var got Tally
		got.AddPanelist(tt.records, prices, from, to)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: outcome %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestOutcomeKeepsUnknownAndEstimatedPrices(t *testing.T) {
	from, to := at(10, 1, 0, 0), at(12, 1, 0, 0)
	var estimated Tally
	estimated.AddPanelist([]domain.HistoryRecord{record(3, at(10, 31, 23, 59))}, prices, from, to)
	if want := (Tally{Entrants: 1, Completes: 1, Estimated: 1, Earned: Money{"EUR": 150}}); !reflect.DeepEqual(estimated, want) {
		t.Errorf("a complete before the first price: %+v, want %+v", estimated, want)
	}
	var unknown Tally
	unknown.AddPanelist([]domain.HistoryRecord{record(3, at(11, 3, 0, 0))}, nil, from, to)
	if want := (Tally{Entrants: 1, Completes: 1, Unpriced: 1}); !reflect.DeepEqual(unknown, want) {
		t.Errorf("a complete with no price seen: %+v, want %+v (unknown, never 0)", unknown, want)
	}
	if r := unknown.Realized(); r.EPCKnown {
		t.Errorf("an unknown price gave a realized EPC: %+v", r)
	}
}

func TestRealized(t *testing.T) {
	// "Realized conversion: completes / final entrants. Realized EPC:
	// earned amount / final entrants, in the subsample's currency."
	tests := []struct {
		name string
		o    Tally
		want Realized
	}{
		{"too few final entrants", Tally{Entrants: 25, InSurvey: 6, Completes: 10, Earned: Money{"EUR": 1500}},
			Realized{Why: "too few: 19 final entrants, 20 needed"}},
		{"the threshold is enough", Tally{Entrants: 21, InSurvey: 1, Completes: 5, Earned: Money{"EUR": 1000}},
			Realized{Known: true, Conversion: 25, EPC: 0.5, Currency: "EUR", EPCKnown: true}},
		{"no completes: 0, known", Tally{Entrants: 40, ScreenOuts: 40},
			Realized{Known: true, EPCKnown: true}},
		{"two currencies give no EPC", Tally{Entrants: 40, Completes: 2, Earned: Money{"EUR": 100, "USD": 100}},
			Realized{Known: true, Conversion: 5, Why: "earned in EUR and USD"}},
		{"an unknown price gives no EPC", Tally{Entrants: 40, Completes: 2, Unpriced: 1, Earned: Money{"EUR": 100}},
			Realized{Known: true, Conversion: 5, Why: "1 complete has no known price"}},
	}
	for _, tt := range tests {
		if got := tt.o.Realized(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestMoneyIsNeverSummedAcrossCurrencies(t *testing.T) {
	var a, b Tally
	a.AddPanelist([]domain.HistoryRecord{record(3, at(11, 3, 0, 0))}, prices, at(11, 1, 0, 0), at(12, 1, 0, 0))
	b.AddPanelist([]domain.HistoryRecord{record(3, at(11, 3, 0, 0))}, []domain.PricePoint{{Currency: "USD", CPI: 4, From: at(11, 1, 0, 0)}}, at(11, 1, 0, 0), at(12, 1, 0, 0))
	a.Add(b)
	if want := (Money{"EUR": 150, "USD": 400}); !reflect.DeepEqual(a.Earned, want) {
		t.Errorf("earned %v, want %v", a.Earned, want)
	}
	if got, want := a.Earned.String(), "1.50 EUR + 4.00 USD"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestMonthRange(t *testing.T) {
	// "Months are calendar months in the provider's time zone."
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone database")
	}
	from, to, err := MonthRange("2026-11", berlin)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 10, 31, 23, 0, 0, 0, time.UTC); !from.Equal(want) {
		t.Errorf("from %s, want %s", from.UTC(), want)
	}
	if want := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC); !to.Equal(want) {
		t.Errorf("to %s, want %s", to.UTC(), want)
	}
	for _, bad := range []string{"", "2026-13", "11-2026", "2026-11-01", "2026-1", "9999-12", "0001-01", "1999-12", "3000-01"} {
		if _, _, err := MonthRange(bad, berlin); err == nil {
			t.Errorf("MonthRange(%q) took it", bad)
		}
	}
}

func TestMonthRangeBounds(t *testing.T) {
	for _, month := range []string{"2000-01", "2999-12"} {
		if _, _, err := MonthRange(month, time.UTC); err != nil {
			t.Errorf("MonthRange(%q), a month inside the years taken: %v", month, err)
		}
	}
	if _, _, err := MonthRange("9999-12", time.UTC); err == nil || err.Error() != `"9999-12" is out of range: use one from 2000 to 2999` {
		t.Errorf("MonthRange(9999-12): %v, want it out of range, saying which years are taken", err)
	}
}

func TestInvoice(t *testing.T) {
	// "On the invoice, every status-3 record counts in its own month,
	// whatever came after it; its reversal is a separate credit [...] a
	// reversal counts, as a credit at its complete's price, in the month
	// the reversal was registered, so a month that is over never
	// changes."
	party := domain.InvoiceParty{BillingEntity: "Acme BV", JobBookID: "J-77", EventID: 1}
	key := func(cpi float64, currency string) InvoiceKey {
		return InvoiceKey{InvoiceParty: party, SubsampleID: 10, Currency: currency, CPI: cpi, Known: currency != ""}
	}
	tests := []struct {
		name     string
		month    time.Month
		panels   [][]domain.HistoryRecord
		prices   []domain.PricePoint
		want     []InvoiceLine
		nothings int
	}{
		{"a price change within the month makes two lines", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 3, 0, 0))}, {record(3, at(11, 16, 0, 0))}, {record(3, at(11, 17, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1}, {InvoiceKey: key(2, "EUR"), Completes: 2}}, 0},
		{"a complete reversed later still counts in its month", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 30, 22, 0)), record(98, at(12, 2, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(2, "EUR"), Completes: 1}}, 0},
		{"a reversal in the month after its complete is a credit there, at the complete's price", 12,
			[][]domain.HistoryRecord{{record(3, at(11, 10, 0, 0)), record(98, at(12, 2, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Reversed: 1}}, 0},
		{"a complete and its reversal in the month", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 3, 0, 0)), record(99, at(11, 5, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1, Reversed: 1}}, 0},
		{"a complete is reversed once however many verdicts follow", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 3, 0, 0)), record(98, at(11, 5, 0, 0)), record(99, at(11, 6, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1, Reversed: 1}}, 1},
		{"two completes and two verdicts: the later complete is reversed, the second verdict finds it reversed", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 3, 0, 0)), record(3, at(11, 16, 0, 0)), record(98, at(11, 17, 0, 0)), record(99, at(11, 18, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1}, {InvoiceKey: key(2, "EUR"), Completes: 1, Reversed: 1}}, 1},
		{"a verdict before any complete reverses nothing; the next one reverses the complete between", 11,
			[][]domain.HistoryRecord{{record(98, at(11, 3, 0, 0)), record(3, at(11, 4, 0, 0)), record(99, at(11, 5, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1, Reversed: 1}}, 1},
		{"a 98 with no complete is never credited", 11,
			[][]domain.HistoryRecord{{record(98, at(11, 5, 0, 0))}}, prices, []InvoiceLine{}, 1},
		{"a complete before the first price seen is estimated", 10,
			[][]domain.HistoryRecord{{record(3, at(10, 20, 0, 0))}}, prices,
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1, Estimated: true}}, 0},
		{"one estimated complete makes its line estimated", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 5, 0, 0))}, {record(3, at(11, 12, 0, 0))}},
			[]domain.PricePoint{{Currency: "EUR", CPI: 1.5, From: at(11, 10, 0, 0)}},
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 2, Estimated: true}}, 0},
		{"a price never seen is an unknown line", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 3, 0, 0))}}, nil,
			[]InvoiceLine{{InvoiceKey: key(0, ""), Completes: 1}}, 0},
		{"a currency change makes a line per currency", 11,
			[][]domain.HistoryRecord{{record(3, at(11, 3, 0, 0))}, {record(3, at(11, 20, 0, 0))}},
			[]domain.PricePoint{{Currency: "EUR", CPI: 1.5, From: at(11, 1, 0, 0)}, {Currency: "USD", CPI: 1.5, From: at(11, 15, 0, 0)}},
			[]InvoiceLine{{InvoiceKey: key(1.5, "EUR"), Completes: 1}, {InvoiceKey: key(1.5, "USD"), Completes: 1}}, 0},
		{"other statuses are not invoiced", 11,
			[][]domain.HistoryRecord{{record(2, at(11, 3, 0, 0)), record(82, at(11, 3, 0, 5))}, {record(83, at(11, 4, 0, 0))}, {record(92, at(11, 4, 0, 0))}}, prices,
			[]InvoiceLine{}, 0},
	}
	for _, tt := range tests {
		from, to, _ := MonthRange(time.Date(2026, tt.month, 1, 0, 0, 0, 0, time.UTC).Format("2006-01"), time.UTC)
		inv := NewInvoice(from, to)
		for _, records := range tt.panels {
			inv.AddPanelist(party, 10, records, tt.prices)
		}
		if got := inv.Lines(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: lines %+v, want %+v", tt.name, got, tt.want)
		}
		if inv.ReversalsOfNothing != tt.nothings {
			t.Errorf("%s: %d reversals of nothing, want %d", tt.name, inv.ReversalsOfNothing, tt.nothings)
		}
	}
}

func TestInvoiceTotals(t *testing.T) {
	lines := []InvoiceLine{
		{InvoiceKey: InvoiceKey{InvoiceParty: domain.InvoiceParty{BillingEntity: "A"}, Currency: "EUR", CPI: 1.5, Known: true}, Completes: 3, Reversed: 1},
		{InvoiceKey: InvoiceKey{InvoiceParty: domain.InvoiceParty{BillingEntity: "A"}, Currency: "USD", CPI: 2, Known: true}, Completes: 1},
		{InvoiceKey: InvoiceKey{InvoiceParty: domain.InvoiceParty{BillingEntity: "B"}, Currency: "EUR", CPI: 0.25, Known: true}, Reversed: 2},
		{InvoiceKey: InvoiceKey{InvoiceParty: domain.InvoiceParty{BillingEntity: "B"}}, Completes: 4},
		// Only unconfirmed completes: nothing invoiced, no unknown line.
		{InvoiceKey: InvoiceKey{InvoiceParty: domain.InvoiceParty{BillingEntity: "B"}}, Unconfirmed: 2},
		{InvoiceKey: InvoiceKey{InvoiceParty: domain.InvoiceParty{BillingEntity: "C"}, Currency: "GBP", CPI: 1, Known: true}, Unconfirmed: 1},
	}
	all, by := TotalsOf(lines)
	if _, ok := by["C"]; ok {
		t.Errorf("an entity with only unconfirmed completes has totals %+v, want none", by["C"])
	}
	if want := (InvoiceTotals{Amounts: Money{"EUR": 250, "USD": 200}, UnknownLines: 1}); !reflect.DeepEqual(all, want) {
		t.Errorf("totals %+v, want %+v", all, want)
	}
	if want := (InvoiceTotals{Amounts: Money{"EUR": -50}, UnknownLines: 1}); !reflect.DeepEqual(by["B"], want) {
		t.Errorf("B's totals %+v, want %+v", by["B"], want)
	}
	if cents, known := lines[3].Amount(); known || cents != 0 {
		t.Errorf("an unknown price's amount = %d, %v; want unknown", cents, known)
	}
}

func TestQualityHold(t *testing.T) {
	// "a panelist with at least N reversals registered in the last D days
	// is not sent anywhere [...] with the reason 'held for quality: N
	// reversed completes in the last D days' [...] (default 3 in 90
	// days; 0 turns it off)."
	now := at(11, 27, 12, 0)
	cutoff := now.Add(-90 * 24 * time.Hour)
	on := func(subsample int64, status int64, t time.Time) domain.HistoryRecord {
		r := record(status, t)
		r.SubsampleID = subsample
		return r
	}
	three := []domain.HistoryRecord{
		on(1, 3, at(11, 1, 0, 0)), on(1, 98, at(11, 2, 0, 0)),
		on(2, 3, at(11, 1, 0, 0)), on(2, 99, at(11, 3, 0, 0)),
		on(3, 3, cutoff.Add(-time.Hour)), on(3, 98, cutoff),
	}
	const held = "Held for quality: 3 reversed completes in the last 90 days."
	tests := []struct {
		name    string
		history []domain.HistoryRecord
		n, days int
		want    string
	}{
		{"three reversals, the oldest on the window's first instant", three, 3, 90, held},
		{"the oldest a minute before the window", append(three[:4:4], on(3, 3, cutoff.Add(-time.Hour)), on(3, 98, cutoff.Add(-time.Minute))), 3, 90, ""},
		{"two are not three", three[:4], 3, 90, ""},
		{"a verdict with no complete before it is not a reversal", append(three[:4:4], on(3, 98, at(11, 20, 0, 0))), 3, 90, ""},
		{"a verdict on another subsample's complete is not a reversal", append(three[:4:4], on(4, 3, at(11, 1, 0, 0)), on(5, 98, at(11, 20, 0, 0))), 3, 90, ""},
		{"a second verdict on one complete counts once", append(three[:4:4], on(1, 99, at(11, 5, 0, 0))), 3, 90, ""},
		{"a verdict after now does not count yet", append(three[:4:4], on(3, 3, at(11, 1, 0, 0)), on(3, 98, now.Add(time.Minute))), 3, 90, ""},
		{"N of 0 turns it off", three, 0, 90, ""},
		{"D of 0 turns it off", three, 3, 0, ""},
		{"one reversal held with N of 1", three[:2], 1, 30, "Held for quality: 1 reversed complete in the last 30 days."},
	}
	for _, tt := range tests {
		if got := QualityHold(tt.history, QualityHoldPolicy{Reversals: tt.n, Days: tt.days}, now); got != tt.want {
			t.Errorf("%s: QualityHold = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPeriodOrLast30Days(t *testing.T) {
	// "for a period (from and to dates, as on the other pages; default:
	// the last 30 days)"
	now := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		from, to    string
		since, till time.Time
		err         string
	}{
		{"", "", day(10, 29), day(11, 28), ""},
		{"2026-11-01", "2026-11-30", day(11, 1), day(12, 1), ""},
		{"", "2026-11-10", day(10, 12), day(11, 11), ""},
		{"2026-11-20", "", day(11, 20), day(11, 28), ""},
		{"2026-11-28", "", time.Time{}, time.Time{}, `from (2026-11-28) is after today`},
		{"2026-11-02", "2026-11-01", time.Time{}, time.Time{}, `from (2026-11-02) is after to (2026-11-01)`},
		{"2026-11-31", "", time.Time{}, time.Time{}, `from "2026-11-31" is not a date: use yyyy-MM-dd, such as 2026-03-31`},
		{"2025-11-27", "2026-11-27", day(11, 27).AddDate(-1, 0, 0), day(11, 28), ""}, // 366 days: the longest
		{"2025-11-26", "2026-11-27", time.Time{}, time.Time{}, `from (2025-11-26) to (2026-11-27) is longer than 366 days: ask for a shorter period`},
		{"2000-01-01", "", time.Time{}, time.Time{}, `from (2000-01-01) to (2026-11-27) is longer than 366 days: ask for a shorter period`},
		{"1900-01-01", "", time.Time{}, time.Time{}, `from "1900-01-01" is out of range: use one from 2000 to 2999`},
	}
	for _, tt := range tests {
		since, until, err := PeriodOrLast30Days(tt.from, tt.to, now, time.UTC)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("(%q, %q): error %v, want %q", tt.from, tt.to, err, tt.err)
			}
			continue
		}
		if err != nil || !since.Equal(tt.since) || !until.Equal(tt.till) {
			t.Errorf("(%q, %q) = %s, %s, %v; want %s, %s", tt.from, tt.to, since, until, err, tt.since, tt.till)
		}
	}
}

func TestWithQualityHold(t *testing.T) {
	shared := make([]Exclusion, 1, 4)
	r := EligibilityResult{Eligible: false, Exclusions: shared}
	held := WithQualityHold(r, "Held for quality: 3 reversed completes in the last 90 days.")
	if held.Eligible || len(held.Exclusions) != 2 || held.Exclusions[1].Kind != KindQualityHold {
		t.Errorf("held: %+v, want not eligible with the hold's exclusion last", held)
	}
	if again := WithQualityHold(r, "other"); again.Exclusions[1].Reason != "other" || held.Exclusions[1].Reason == "other" {
		t.Error("the hold's exclusion was written into a slice another result shares")
	}
	if got := WithQualityHold(EligibilityResult{Eligible: true}, ""); !got.Eligible || len(got.Exclusions) != 0 {
		t.Errorf("no hold changed the result: %+v", got)
	}
}

func TestCompletesOf(t *testing.T) {
	// "A reversal is a 98 or 99 registered after a 3 of the same
	// panelist on the same subsample (a 98 or 99 with no complete before
	// it counts as a reversal of nothing)."
	on := func(subsample int64, status int64, t time.Time) domain.HistoryRecord {
		r := record(status, t)
		r.SubsampleID = subsample
		return r
	}
	tests := []struct {
		name    string
		history []domain.HistoryRecord
		want    []CompleteRecord
	}{
		{"no complete", []domain.HistoryRecord{record(82, at(11, 2, 9, 0))}, nil},
		{"a complete that stands", []domain.HistoryRecord{record(2, at(11, 2, 9, 0)), record(3, at(11, 2, 9, 20))},
			[]CompleteRecord{{SubsampleID: 10, EventID: 1, At: at(11, 2, 9, 20)}}},
		{"a complete reversed later, newest first beside another", []domain.HistoryRecord{
			record(3, at(11, 2, 9, 0)), record(98, at(11, 20, 8, 0)), on(11, 3, at(11, 5, 9, 0))},
			[]CompleteRecord{{SubsampleID: 11, EventID: 1, At: at(11, 5, 9, 0)},
				{SubsampleID: 10, EventID: 1, At: at(11, 2, 9, 0), Verdict: 98, ReversedAt: at(11, 20, 8, 0)}}},
		{"a verdict in the same second follows its complete", []domain.HistoryRecord{record(99, at(11, 2, 9, 0)), record(3, at(11, 2, 9, 0))},
			[]CompleteRecord{{SubsampleID: 10, EventID: 1, At: at(11, 2, 9, 0), Verdict: 99, ReversedAt: at(11, 2, 9, 0)}}},
		{"a 98 with no complete before it is a reversal of nothing", []domain.HistoryRecord{record(98, at(11, 1, 9, 0)), record(3, at(11, 3, 9, 0))},
			[]CompleteRecord{{SubsampleID: 10, EventID: 1, At: at(11, 3, 9, 0)}, {SubsampleID: 10, EventID: 1, Verdict: 98, ReversedAt: at(11, 1, 9, 0)}}},
		{"a verdict on another subsample reverses nothing here", []domain.HistoryRecord{record(3, at(11, 2, 9, 0)), on(11, 99, at(11, 3, 9, 0))},
			[]CompleteRecord{{SubsampleID: 11, EventID: 1, Verdict: 99, ReversedAt: at(11, 3, 9, 0)}, {SubsampleID: 10, EventID: 1, At: at(11, 2, 9, 0)}}},
	}
	for _, tt := range tests {
		if got := CompletesOf(tt.history); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

func TestReversing(t *testing.T) {
	// A verdict reverses the latest complete before it unless another
	// verdict came between them: 3, 98, 99 is one reversal.
	records := []domain.HistoryRecord{record(3, at(11, 3, 0, 0)), record(98, at(11, 4, 0, 0)), record(99, at(11, 5, 0, 0)), record(3, at(11, 6, 0, 0)), record(99, at(11, 7, 0, 0))}
	got := Reversing(records)
	if len(got) != 2 || !got[0].RegisteredAt.Equal(at(11, 4, 0, 0)) || !got[1].RegisteredAt.Equal(at(11, 7, 0, 0)) {
		t.Errorf("Reversing = %+v, want the 98 of the 4th and the 99 of the 7th", got)
	}
}
