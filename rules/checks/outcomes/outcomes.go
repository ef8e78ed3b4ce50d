// Package outcomes reports what the sending produced, from the
// supplier's history records, the router's log and the price history
// Fieldboard kept: the outcomes of a period per subsample (or event,
// country, day), and the invoice of a month. The rules (what an outcome,
// a reversal, a price and an invoice line are) are rules' (outcomes.go);
// this package reads what they need from the store and groups. The
// dashboard, the API and the command line all ask it.
package outcomes

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// SendLookback is how long before a screen-out or quota full the router's
// send of that panelist there may be to count it a wrong send: the click
// is the entry, so the record follows it within the survey's length.
const SendLookback = 7 * 24 * time.Hour

// Service answers outcomes and invoices. Set every field.
type Service struct {
	Store *store.Store
	// Checks gives the current snapshot's subsamples: their names,
	// countries and the EPC the router ranks them by; and the quality
	// hold. The checks service (*checks.Service) is one.
	Checks Checks
	// ProviderLocation is the provider's time zone, in which days and
	// months are counted. UTC when nil.
	ProviderLocation *time.Location
}

// Checks is what the outcomes ask of the checks service.
type Checks interface {
	Subsamples(ctx context.Context, filter checks.SubsampleFilter) ([]checks.SubsampleReport, error)
	Subsample(ctx context.Context, subsampleID int64) (checks.SubsampleParts, error)
	// HeldWhy says why the panelist of this history is held now, by hand
	// or for quality, "" when not (checks.Service.HeldWhy).
	HeldWhy(ctx context.Context, panelistID string, history []domain.HistoryRecord) (string, error)
}

// Grouping is what the rows of the outcomes are.
type Grouping string

// The groupings of the outcomes.
const (
	BySubsample Grouping = "subsample"
	ByEvent     Grouping = "event"
	ByCountry   Grouping = "country"
	ByDay       Grouping = "day"
)

// Groupings are every grouping, in the order pages offer them.
var Groupings = []Grouping{BySubsample, ByEvent, ByCountry, ByDay}

// ParseGrouping reads a grouping; "" is BySubsample.
func ParseGrouping(s string) (Grouping, error) {
	if s == "" {
		return BySubsample, nil
	}
	for _, g := range Groupings {
		if string(g) == s {
			return g, nil
		}
	}
	return "", fmt.Errorf("%q is not a grouping: use subsample, event, country or day", domain.Clip(s, 30))
}

// Query says which outcomes to report: the period [From, To), grouped
// by Group, narrowed to one subsample, event or country when set.
type Query struct {
	From, To    time.Time
	Group       Grouping
	SubsampleID int64
	EventID     int64
	Country     string // country code, as the snapshot lists it
}

// Row is the outcomes of one group.
type Row struct {
	// Key is the group as a page shows it: the subsample or event id,
	// the country code or the day (yyyy-mm-dd).
	Key         string
	SubsampleID int64 // BySubsample only
	EventID     int64 // BySubsample and ByEvent
	Name        string
	Country     string
	Day         time.Time // ByDay only: the day's first instant
	rules.Tally
	// Redirects are the clicks on invitation links the router sent there
	// in the period.
	Redirects int
	// WrongSends are the quota fulls, registered in the period, of
	// panelists Fieldboard sent there (an invitation click, or a
	// next-survey answer that named it first) in the SendLookback before
	// while judging every cell they fell in open: the Report's
	// FullOnOpenCells, counted. SentScreenOuts are the screen-outs of
	// such sends, counted apart: the survey's own screener decides
	// those, so they are not wrong sends.
	WrongSends     int
	SentScreenOuts int
	// UnconfirmedCompletes are the Completes whose complete only a return
	// reported (the respondent's redirect or the survey's post), not yet
	// confirmed by a history import; TooFast the records only a return
	// reported, registered in the period, that it flagged too fast; and
	// WrongSendsByReturn the WrongSends whose record only a return
	// reported.
	UnconfirmedCompletes int
	TooFast              int
	WrongSendsByReturn   int
	// Predicted is the EPC the router ranks the subsample by now, and
	// ProviderConversion the conversion the provider measured (a
	// percentage); BySubsample rows of live subsamples only.
	Predicted          rules.EPC
	ProviderConversion *float64
}

// Report is the outcomes of a query: its rows, their total and the
// completes and reversals of each day, for the chart.
type Report struct {
	Query
	Rows  []Row
	Total Row
	Days  []Day
	// FullOnOpenCells are the quota fulls registered in the period on a
	// subsample Fieldboard sent the panelist to while judging every cell
	// they fell in open: the field's own measure of wrong decisions,
	// oldest first.
	FullOnOpenCells []FullOnOpenCell
}

// FullOnOpenCell is one quota full the router did not expect: the
// panelist, the subsample, when Fieldboard sent them and when the quota
// full was registered, and the cells it judged them to fall in, all open
// then (quota ids; with their names while the subsample is live).
type FullOnOpenCell struct {
	PanelistID  string
	SubsampleID int64
	SentAt, At  time.Time
	Cells       []Cell
}

// Cell is a quota cell by id, with its name when the current snapshot
// still holds the subsample's quotas.
type Cell struct {
	QuotaID int64
	Name    string
}

// Day is one day's completes and reversals: the complete records
// registered that day, and the verdicts registered that day that reverse
// a complete (rules.Reversing).
type Day struct {
	Day       time.Time
	Completes int
	Reversed  int
}

func (s *Service) location() *time.Location {
	if s.ProviderLocation == nil {
		return time.UTC
	}
	return s.ProviderLocation
}

// dayOf is the first instant of t's day in the provider's time zone.
func (s *Service) dayOf(t time.Time) time.Time {
	y, m, d := t.In(s.location()).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, s.location())
}

// subsampleInfo is what the current snapshot says of a subsample.
type subsampleInfo struct {
	name, eventName, country string
	eventID                  int64
	epc                      rules.EPC
}

func (s *Service) subsamples(ctx context.Context) (map[int64]subsampleInfo, error) {
	reports, err := s.Checks.Subsamples(ctx, checks.SubsampleFilter{})
	if err != nil {
		return nil, fmt.Errorf("outcomes: subsamples: %w", err)
	}
	out := make(map[int64]subsampleInfo, len(reports))
	for _, r := range reports {
		out[r.SubsampleID] = subsampleInfo{name: r.Name, eventName: r.EventName, country: r.CountryCode, eventID: r.EventID, epc: r.EPC}
	}
	return out, nil
}

// Outcomes reports the outcomes of q.
func (s *Service) Outcomes(ctx context.Context, q Query) (Report, error) {
	if !q.From.Before(q.To) {
		return Report{}, fmt.Errorf("the period must end after it starts")
	}
	if q.Group == "" {
		q.Group = BySubsample
	}
	info, err := s.subsamples(ctx)
	if err != nil {
		return Report{}, err
	}
	prices, err := s.Store.PriceHistory(ctx)
	if err != nil {
		return Report{}, err
	}
	sends, err := s.Store.RouterSends(ctx, q.From.Add(-SendLookback), q.To)
	if err != nil {
		return Report{}, err
	}
	returned, err := s.reportedBefore(ctx, q.To)
	if err != nil {
		return Report{}, err
	}
	sentBy := map[sendKey][]domain.RoutingDecision{}
	for _, d := range sends {
		k := sendKey{d.PanelistID, d.Chosen}
		sentBy[k] = append(sentBy[k], d)
	}
	var misses []FullOnOpenCell
	keep := func(subsampleID, eventID int64) bool {
		i := info[subsampleID]
		return (q.SubsampleID == 0 || q.SubsampleID == subsampleID) &&
			(q.EventID == 0 || q.EventID == eventID) &&
			(q.Country == "" || i.country == q.Country)
	}
	perSubsample := map[int64]*Row{}
	perDay := map[perDayKey]*rules.Tally{}
	wrongByDay := map[time.Time]int{}
	// byDay are the figures of returns the day rows count by the day
	// their record was registered.
	byDay := map[time.Time]*Row{}
	dayRow := func(day time.Time) *Row {
		r := byDay[day]
		if r == nil {
			r = &Row{}
			byDay[day] = r
		}
		return r
	}
	days := map[time.Time]*Day{}
	chart := func(day time.Time) *Day {
		d := days[day]
		if d == nil {
			d = &Day{Day: day}
			days[day] = d
		}
		return d
	}
	row := func(id, eventID int64) *Row {
		r := perSubsample[id]
		if r == nil {
			r = &Row{SubsampleID: id, EventID: eventID}
			perSubsample[id] = r
		}
		return r
	}
	err = s.Store.ScanPeriod(ctx, store.Period{From: q.From, To: q.To, SubsampleID: q.SubsampleID}, func(subsampleID int64, panelistID string, records []domain.HistoryRecord) error {
		eventID := records[len(records)-1].EventID
		if i, ok := info[subsampleID]; ok {
			eventID = i.eventID
		}
		if !keep(subsampleID, eventID) {
			return nil
		}
		r := row(subsampleID, eventID)
		r.AddPanelist(records, prices[subsampleID], q.From, q.To)
		if out, ok := outcomeRecord(records, q.From, q.To); ok && out.StatusID == domain.ReturnComplete && returned.has(out) {
			r.UnconfirmedCompletes++
		}
		for _, rec := range records {
			if !rec.RegisteredAt.Before(q.From) && returned.tooFast(rec) {
				r.TooFast++
				dayRow(s.dayOf(rec.RegisteredAt)).TooFast++
			}
		}
		for _, rec := range records {
			if rec.StatusID != domain.ReturnScreenOut && rec.StatusID != domain.ReturnQuotaFull || rec.RegisteredAt.Before(q.From) {
				continue
			}
			sent, ok := lastSendBefore(sentBy[sendKey{panelistID, subsampleID}], rec.RegisteredAt)
			if !ok {
				continue
			}
			day := s.dayOf(rec.RegisteredAt)
			if rec.StatusID == domain.ReturnScreenOut {
				r.SentScreenOuts++
				dayRow(day).SentScreenOuts++
				continue
			}
			if sent.Cells == "" {
				continue // no cell judged open: the quota full is no wrong send
			}
			r.WrongSends++
			wrongByDay[day]++
			if returned.has(rec) {
				r.WrongSendsByReturn++
				dayRow(day).WrongSendsByReturn++
			}
			misses = append(misses, FullOnOpenCell{PanelistID: panelistID, SubsampleID: subsampleID, SentAt: sent.At, At: rec.RegisteredAt, Cells: cellsOf(sent.Cells)})
		}
		// The chart: each complete, and each reversal (paired as on the
		// invoice), on the day it was registered.
		for _, rec := range records {
			if rec.StatusID == domain.ReturnComplete && !rec.RegisteredAt.Before(q.From) {
				chart(s.dayOf(rec.RegisteredAt)).Completes++
			}
		}
		for _, v := range rules.Reversing(records) {
			if !v.RegisteredAt.Before(q.From) {
				chart(s.dayOf(v.RegisteredAt)).Reversed++
			}
		}
		if q.Group != ByDay {
			return nil
		}
		// The day rows: each day of the period the panelist has a record
		// on, their outcome that day.
		var last time.Time
		for _, rec := range records {
			day := s.dayOf(rec.RegisteredAt)
			if rec.RegisteredAt.Before(q.From) || day.Equal(last) {
				continue
			}
			last = day
			k := perDayKey{subsampleID, day}
			t := perDay[k]
			if t == nil {
				t = &rules.Tally{}
				perDay[k] = t
			}
			dayFrom, dayTo := later(day, q.From), earlier(day.AddDate(0, 0, 1), q.To)
			t.AddPanelist(records, prices[subsampleID], dayFrom, dayTo)
			if out, ok := outcomeRecord(records, dayFrom, dayTo); ok && out.StatusID == domain.ReturnComplete && returned.has(out) {
				dayRow(day).UnconfirmedCompletes++
			}
		}
		return nil
	})
	if err != nil {
		return Report{}, fmt.Errorf("outcomes: %w", err)
	}
	for _, d := range sends {
		if d.At.Before(q.From) || d.Outcome == domain.RoutedAnswer {
			continue
		}
		eventID := info[d.Chosen].eventID
		if !keep(d.Chosen, eventID) {
			continue
		}
		row(d.Chosen, eventID).Redirects++
	}
	rep := Report{Query: q, Total: Row{Key: "Total"}}
	groups := map[string]*Row{}
	add := func(key string, fill func(*Row), r *Row) {
		g := groups[key]
		if g == nil {
			g = &Row{Key: key}
			fill(g)
			groups[key] = g
		}
		g.Tally.Add(r.Tally)
		g.addCounts(*r)
	}
	for id, r := range perSubsample {
		i := info[id]
		rep.Total.Tally.Add(r.Tally)
		rep.Total.addCounts(*r)
		switch q.Group {
		case BySubsample:
			add(strconv.FormatInt(id, 10), func(g *Row) {
				g.SubsampleID, g.EventID, g.Name, g.Country, g.Predicted = id, r.EventID, i.name, i.country, i.epc
				if i.epc.Source == rules.EPCField {
					rate := i.epc.Rate
					g.ProviderConversion = &rate
				}
			}, r)
		case ByEvent:
			add(strconv.FormatInt(r.EventID, 10), func(g *Row) { g.EventID, g.Name = r.EventID, i.eventName }, r)
		case ByCountry:
			add(i.country, func(g *Row) { g.Country = i.country }, r)
		}
	}
	for k, t := range perDay {
		add(k.day.Format("2006-01-02"), func(g *Row) { g.Day = k.day }, &Row{Tally: *t})
	}
	if q.Group == ByDay {
		// The day rows count sends and wrong sends by the day they
		// happened.
		for _, d := range sends {
			if k := d.At; !k.Before(q.From) && d.Outcome != domain.RoutedAnswer && keep(d.Chosen, info[d.Chosen].eventID) {
				add(s.dayOf(k).Format("2006-01-02"), func(g *Row) { g.Day = s.dayOf(k) }, &Row{Redirects: 1})
			}
		}
		for day, n := range wrongByDay {
			add(day.Format("2006-01-02"), func(g *Row) { g.Day = day }, &Row{WrongSends: n})
		}
		for day, r := range byDay {
			add(day.Format("2006-01-02"), func(g *Row) { g.Day = day }, r)
		}
	}
	for _, g := range groups {
		rep.Rows = append(rep.Rows, *g)
	}
	slices.SortFunc(rep.Rows, func(a, b Row) int {
		return cmp.Or(a.Day.Compare(b.Day), cmp.Compare(a.EventID, b.EventID), cmp.Compare(a.SubsampleID, b.SubsampleID), cmp.Compare(a.Country, b.Country))
	})
	slices.SortFunc(misses, func(a, b FullOnOpenCell) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.PanelistID, b.PanelistID))
	})
	if err := s.nameCells(ctx, misses); err != nil {
		return Report{}, err
	}
	rep.FullOnOpenCells = misses
	for day := s.dayOf(q.From); day.Before(q.To); day = day.AddDate(0, 0, 1) {
		d := Day{Day: day}
		if got := days[day]; got != nil {
			d = *got
		}
		rep.Days = append(rep.Days, d)
	}
	return rep, nil
}

// addCounts adds r's counts beside its tally.
func (g *Row) addCounts(r Row) {
	g.Redirects += r.Redirects
	g.WrongSends += r.WrongSends
	g.SentScreenOuts += r.SentScreenOuts
	g.UnconfirmedCompletes += r.UnconfirmedCompletes
	g.TooFast += r.TooFast
	g.WrongSendsByReturn += r.WrongSendsByReturn
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

type sendKey struct {
	panelistID  string
	subsampleID int64
}

type perDayKey struct {
	subsampleID int64
	day         time.Time
}

// lastSendBefore is the latest of sends (oldest first) before at and no
// more than SendLookback before it.
func lastSendBefore(sends []domain.RoutingDecision, at time.Time) (domain.RoutingDecision, bool) {
	for i := len(sends) - 1; i >= 0; i-- {
		if t := sends[i].At; t.Before(at) {
			return sends[i], !t.Before(at.Add(-SendLookback))
		}
	}
	return domain.RoutingDecision{}, false
}

// cellsOf reads the routing log's quota ids ("12,13").
func cellsOf(ids string) []Cell {
	var out []Cell
	for _, f := range strings.Split(ids, ",") {
		if id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
			out = append(out, Cell{QuotaID: id})
		}
	}
	return out
}

// nameCells names the cells of misses on subsamples whose quotas the
// current snapshot still holds.
func (s *Service) nameCells(ctx context.Context, misses []FullOnOpenCell) error {
	names := map[int64]map[int64]string{}
	for i := range misses {
		m := &misses[i]
		byID, ok := names[m.SubsampleID]
		if !ok {
			parts, err := s.Checks.Subsample(ctx, m.SubsampleID)
			switch {
			case errors.Is(err, store.ErrNotFound):
			case err != nil:
				return fmt.Errorf("outcomes: name the cells of subsample %d: %w", m.SubsampleID, err)
			}
			byID = map[int64]string{}
			for _, q := range parts.Quotas {
				byID[q.QuotaID] = strings.TrimSpace(q.TableName + ": " + q.QuotaName)
			}
			names[m.SubsampleID] = byID
		}
		for j := range m.Cells {
			m.Cells[j].Name = byID[m.Cells[j].QuotaID]
		}
	}
	return nil
}

// InvoiceReport is the invoice of one month: its lines, in rules.Invoice's
// order, and their totals per currency, overall and per billing entity;
// of one billing entity alone once Only narrowed it.
type InvoiceReport struct {
	Month              string
	From, To           time.Time
	Lines              []rules.InvoiceLine
	Totals             rules.InvoiceTotals
	ByEntity           map[string]rules.InvoiceTotals
	ReversalsOfNothing int
	// Unconfirmed are the completes registered in the month that only a
	// return reported, not yet confirmed by a history import: on their
	// lines (rules.InvoiceLine's Unconfirmed), never invoiced.
	Unconfirmed int
	// Names are the subsamples' and events' names, by subsample id, as
	// the current snapshot gives them: none for a subsample it no longer
	// lists, unless its event is still listed.
	Names map[int64]Names
	// Entity is the billing entity Only kept, "" for all; Entities every
	// billing entity of the month's lines, sorted ("" for none named).
	Entity   string
	Entities []string
	// reversalsOfNothingBy counts ReversalsOfNothing per billing entity.
	reversalsOfNothingBy map[string]int
}

// Names are a subsample's name and its event's.
type Names struct{ Subsample, Event string }

// Only is the invoice of entity alone: its lines, its totals and its
// reversals of nothing; ok is false when the month has nothing of entity
// (no line, no reversal of nothing). "" keeps every entity.
func (r InvoiceReport) Only(entity string) (out InvoiceReport, ok bool) {
	if entity == "" {
		return r, true
	}
	out = r
	out.Entity, out.Lines, out.Unconfirmed = entity, nil, 0
	for _, l := range r.Lines {
		if l.BillingEntity == entity {
			out.Lines = append(out.Lines, l)
			out.Unconfirmed += l.Unconfirmed
		}
	}
	out.Totals, out.ByEntity = rules.TotalsOf(out.Lines)
	out.ReversalsOfNothing = r.reversalsOfNothingBy[entity]
	return out, len(out.Lines) > 0 || out.ReversalsOfNothing > 0
}

// NamedEntities lists the month's named billing entities for a message:
// "A, B", or "none" when it names none.
func (r InvoiceReport) NamedEntities() string {
	named := slices.DeleteFunc(slices.Clone(r.Entities), func(e string) bool { return e == "" })
	if len(named) == 0 {
		return "none"
	}
	return strings.Join(named, ", ")
}

// Invoice is the invoice of month ("YYYY-MM", in the provider's time
// zone).
func (s *Service) Invoice(ctx context.Context, month string) (InvoiceReport, error) {
	from, to, err := rules.MonthRange(month, s.location())
	if err != nil {
		return InvoiceReport{}, err
	}
	prices, err := s.Store.PriceHistory(ctx)
	if err != nil {
		return InvoiceReport{}, err
	}
	parties, err := s.Store.InvoiceParties(ctx)
	if err != nil {
		return InvoiceReport{}, err
	}
	returned, err := s.reportedBefore(ctx, to)
	if err != nil {
		return InvoiceReport{}, err
	}
	info, err := s.subsamples(ctx)
	if err != nil {
		return InvoiceReport{}, err
	}
	inv := rules.NewInvoice(from, to)
	// Only completes and verdicts are invoiced, or decide a credit; and
	// only the imported ones: a complete only a return reported waits for
	// the import that confirms it.
	err = s.Store.ScanPeriod(ctx, store.Period{From: from, To: to, Statuses: rules.ReversalStatuses}, func(subsampleID int64, _ string, records []domain.HistoryRecord) error {
		party, ok := parties[subsampleID]
		if !ok {
			party = domain.InvoiceParty{EventID: records[len(records)-1].EventID}
		}
		imported, unconfirmed := returned.split(records)
		inv.AddPanelist(party, subsampleID, imported, prices[subsampleID])
		for _, r := range unconfirmed {
			if r.StatusID == domain.ReturnComplete {
				inv.AddUnconfirmed(party, subsampleID, r.RegisteredAt, prices[subsampleID])
			}
		}
		return nil
	})
	if err != nil {
		return InvoiceReport{}, fmt.Errorf("invoice of %s: %w", month, err)
	}
	rep := InvoiceReport{Month: month, From: from, To: to, Lines: inv.Lines(), ReversalsOfNothing: inv.ReversalsOfNothing,
		reversalsOfNothingBy: inv.ReversalsOfNothingBy, Names: map[int64]Names{}}
	rep.Totals, rep.ByEntity = rules.TotalsOf(rep.Lines)
	eventNames := map[int64]string{}
	for _, i := range info {
		if i.eventName != "" {
			eventNames[i.eventID] = i.eventName
		}
	}
	entities := map[string]bool{}
	for e := range inv.ReversalsOfNothingBy {
		entities[e] = true
	}
	for _, l := range rep.Lines {
		rep.Unconfirmed += l.Unconfirmed
		entities[l.BillingEntity] = true
		if _, ok := rep.Names[l.SubsampleID]; !ok {
			rep.Names[l.SubsampleID] = Names{Subsample: info[l.SubsampleID].name, Event: eventNames[l.EventID]}
		}
	}
	for e := range entities {
		rep.Entities = append(rep.Entities, e)
	}
	slices.Sort(rep.Entities)
	return rep, nil
}

// Reconcile relates the outcomes of inv's month to inv, the month's
// invoice of every billing entity (rules.Reconciliation): it reads the
// month's records as the outcomes do, every status, and counts the
// completes the two figures do not share.
func (s *Service) Reconcile(ctx context.Context, inv InvoiceReport) (rules.Reconciliation, error) {
	if inv.Entity != "" {
		return rules.Reconciliation{}, fmt.Errorf("reconcile %s: the outcomes know no billing entity, and the invoice is %q's alone", inv.Month, inv.Entity)
	}
	prices, err := s.Store.PriceHistory(ctx)
	if err != nil {
		return rules.Reconciliation{}, err
	}
	returned, err := s.reportedBefore(ctx, inv.To)
	if err != nil {
		return rules.Reconciliation{}, err
	}
	rec := rules.NewReconciliation(inv.From, inv.To)
	err = s.Store.ScanPeriod(ctx, store.Period{From: inv.From, To: inv.To}, func(subsampleID int64, _ string, records []domain.HistoryRecord) error {
		rec.AddPanelist(records, returned.has, prices[subsampleID])
		return nil
	})
	if err != nil {
		return rules.Reconciliation{}, fmt.Errorf("reconcile %s: %w", inv.Month, err)
	}
	rec.AddInvoice(inv.Lines)
	return *rec, nil
}

// PanelistReport is what one panelist's sending produced: their
// completes, newest first, each with its reversal and its price, and why
// they are held for quality ("" when not).
type PanelistReport struct {
	PanelistID string
	Completes  []PanelistComplete
	// Reversed counts the completes reversed; ReversalsOfNothing the
	// verdicts with no complete before them.
	Reversed, ReversalsOfNothing int
	Held                         string
}

// PanelistComplete is one complete of a panelist (rules.CompleteRecord)
// and its price.
type PanelistComplete struct {
	rules.CompleteRecord
	Price rules.Price
}

// Panelist reports one panelist's completes and reversals, and whether
// they are held for quality.
func (s *Service) Panelist(ctx context.Context, panelistID string) (PanelistReport, error) {
	history, err := s.Store.HistoryOf(ctx, panelistID)
	if err != nil {
		return PanelistReport{}, fmt.Errorf("outcomes of panelist: %w", err)
	}
	prices, err := s.Store.PriceHistory(ctx)
	if err != nil {
		return PanelistReport{}, err
	}
	held, err := s.Checks.HeldWhy(ctx, panelistID, history)
	if err != nil {
		return PanelistReport{}, err
	}
	rep := PanelistReport{PanelistID: panelistID, Held: held}
	for _, c := range rules.CompletesOf(history) {
		pc := PanelistComplete{CompleteRecord: c}
		switch {
		case c.At.IsZero():
			rep.ReversalsOfNothing++
		default:
			pc.Price = rules.PriceAt(prices[c.SubsampleID], c.At)
			if c.Reversed() {
				rep.Reversed++
			}
		}
		rep.Completes = append(rep.Completes, pc)
	}
	return rep, nil
}
