package handlers

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
)

// livePageSize is how many rows the live list shows a page.
const livePageSize = 50

// LiveQuery is the live list's filters, sort and page, as kept in the URL
// so a view can be bookmarked and shared. Empty fields match everything.
type LiveQuery struct {
	Sendability  string
	Status       string // canonical (domain.ParseStatus)
	Country      string
	ResearchType string
	Category     string
	Device       string // desktop, mobile or tablet
	// CPIMin and CPIMax bound the price; Currency is the one currency they
	// are in (CPIRange says which rows a bound keeps).
	CPIMin   *float64
	CPIMax   *float64
	Currency string // ISO code as the provider spells it, any case
	Text     string // subsample or event id, or part of a name
	AtRisk   bool   // only subsamples whose total quota is at risk (rules.Pace)
	// Whose keeps the subsamples refused by the provider's rules
	// ("provider": not sendable by them) or by ours ("ours":
	// rules.BlockedByUs); "" keeps any.
	Whose string
	Sort  string // a column of liveSorts, "-" in front for descending
	Page  int    // from 1
}

// liveSorts are the columns the live list sorts by.
var liveSorts = map[string]func(a, b checks.LiveRow) int{
	"id":    func(a, b checks.LiveRow) int { return cmp.Compare(a.SubsampleID, b.SubsampleID) },
	"event": func(a, b checks.LiveRow) int { return cmp.Compare(a.EventID, b.EventID) },
	"name": func(a, b checks.LiveRow) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	},
	"state": func(a, b checks.LiveRow) int {
		return strings.Compare(string(a.Verdict.State), string(b.Verdict.State))
	},
	"cpi": compareCPI,
	"epc": compareEPC,
	"loi": func(a, b checks.LiveRow) int { return cmp.Compare(deref64(a.ExpectedLOI), deref64(b.ExpectedLOI)) },
	"ir": func(a, b checks.LiveRow) int {
		return cmp.Compare(deref64(a.ExpectedIncidence), deref64(b.ExpectedIncidence))
	},
	"fill": func(a, b checks.LiveRow) int { return cmp.Compare(fill(a), fill(b)) },
	"fieldend": func(a, b checks.LiveRow) int {
		return cmp.Compare(timeKey(a.FieldEnd), timeKey(b.FieldEnd))
	},
	"pace": comparePace,
}

// compareCPI orders rows by price, unknown prices (rules.PriceKnown)
// equal to one another; sortsLast keeps them after every known price.
func compareCPI(a, b checks.LiveRow) int {
	if !priceKnown(a) || !priceKnown(b) {
		return 0
	}
	return cmp.Compare(a.CPI, b.CPI)
}

// sortsLast says, per column of liveSorts, which rows have no value in
// it: they come after every row with one in both directions, "-cpi" as
// "cpi", so an unknown price is never among the cheapest nor the dearest.
var sortsLast = map[string]func(checks.LiveRow) bool{
	"cpi": func(r checks.LiveRow) bool { return !priceKnown(r) },
}

// ParseLiveQuery reads the live list's query parameters, an empty one as
// one left out (filterValue); a value that cannot be read is an error that
// names it.
func ParseLiveQuery(q url.Values) (LiveQuery, error) {
	lq := LiveQuery{
		Sendability: filterValue(q, "sendability"), Status: filterValue(q, "status"),
		Country: filterValue(q, "country"), ResearchType: filterValue(q, "rtype"),
		Category: filterValue(q, "category"), Device: filterValue(q, "device"),
		Text: filterValue(q, "q"), Sort: filterValue(q, "sort"), Currency: filterValue(q, "currency"),
	}
	if lq.Sendability != "" {
		if _, err := rules.ParseState(lq.Sendability); err != nil {
			return lq, err
		}
	}
	if lq.Status != "" {
		var err error
		if lq.Status, err = domain.ParseStatus(lq.Status); err != nil {
			return lq, err
		}
	}
	switch lq.Device {
	case "", "desktop", "mobile", "tablet":
	default:
		return lq, fmt.Errorf("device %q is not one of desktop, mobile, tablet", lq.Device)
	}
	for name, dst := range map[string]**float64{"cpimin": &lq.CPIMin, "cpimax": &lq.CPIMax} {
		if raw := filterValue(q, name); raw != "" {
			v, err := strconv.ParseFloat(raw, 64)
			if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return lq, fmt.Errorf("%s %q is not a price", name, raw)
			}
			*dst = &v
		}
	}
	if lq.CPIMin != nil && lq.CPIMax != nil && *lq.CPIMin > *lq.CPIMax {
		return lq, fmt.Errorf("the CPI range runs from %v down to %v", *lq.CPIMin, *lq.CPIMax)
	}
	switch lq.Whose = filterValue(q, "whose"); lq.Whose {
	case "", "provider", "ours":
	default:
		return lq, fmt.Errorf("whose %q is not \"provider\" (refused by the provider's rules), \"ours\" (refused by ours) or empty", lq.Whose)
	}
	switch raw := filterValue(q, "risk"); raw {
	case "":
	case "at":
		lq.AtRisk = true
	default:
		return lq, fmt.Errorf("risk %q is not \"at\" (only subsamples at risk) or empty", raw)
	}
	if _, ok := liveSorts[strings.TrimPrefix(lq.Sort, "-")]; lq.Sort != "" && !ok {
		return lq, fmt.Errorf("sort %q is not a column of the list", lq.Sort)
	}
	var err error
	lq.Page, err = parsePageNumber(filterValue(q, "page"))
	return lq, err
}

// Values writes the query back as URL parameters, leaving out empty ones,
// with page and sort replaced when given.
func (lq LiveQuery) Values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("sendability", lq.Sendability)
	set("status", lq.Status)
	set("country", lq.Country)
	set("rtype", lq.ResearchType)
	set("category", lq.Category)
	set("device", lq.Device)
	set("currency", lq.Currency)
	if lq.CPIMin != nil {
		v.Set("cpimin", strconv.FormatFloat(*lq.CPIMin, 'f', -1, 64))
	}
	if lq.CPIMax != nil {
		v.Set("cpimax", strconv.FormatFloat(*lq.CPIMax, 'f', -1, 64))
	}
	set("q", lq.Text)
	if lq.AtRisk {
		v.Set("risk", "at")
	}
	set("whose", lq.Whose)
	set("sort", lq.Sort)
	if lq.Page > 1 {
		v.Set("page", strconv.Itoa(lq.Page))
	}
	return v
}

// FilterScope is the query's filters as name, value pairs (sorted by
// name; sort and page left out), to name a download by.
func (lq LiveQuery) FilterScope() []string {
	v := lq.Values()
	v.Del("sort")
	v.Del("page")
	keys := slices.Sorted(maps.Keys(v))
	scope := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		scope = append(scope, k, v.Get(k))
	}
	return scope
}

// A CPI range compares prices in one currency only: money is never
// compared across currencies, and an unknown price is never taken as 0.
//
//   - With a currency chosen, a bound keeps the rows priced in that
//     currency (any case) whose price is within it.
//   - With no currency chosen, when every priced row the other filters
//     keep (country, status, text, ...) shares one currency, that
//     currency is implied; when those rows have more than one, a bound is
//     refused (ErrCPINeedsCurrency: a 400 on the
//     CSV, the message on the page as the other filter errors).
//   - A row whose price is unknown (no currency, or a CPI not above 0)
//     never passes a bound.
//
// A currency chosen without a bound keeps the rows priced in it.
//
// CPIRange returns the currency the bounds are in ("" when the query has
// no bound and no currency), or the error that refuses them; rows are
// the whole list, and the currencies of those the query's other filters
// keep decide: country=FR&cpimin=3 is a range in EUR when every FR row
// is priced in EUR, whatever the other countries' currencies.
func (lq LiveQuery) CPIRange(rows []checks.LiveRow) (string, error) {
	if lq.Currency != "" {
		return strings.ToUpper(lq.Currency), nil
	}
	if lq.CPIMin == nil && lq.CPIMax == nil {
		return "", nil
	}
	text := strings.ToLower(lq.Text)
	kept := make([]checks.LiveRow, 0, len(rows))
	for _, r := range rows {
		if lq.keepsBesidesCPI(r, text) {
			kept = append(kept, r)
		}
	}
	currencies := Currencies(kept)
	if len(currencies) > 1 {
		return "", fmt.Errorf("%w: the live subsamples the other filters keep are priced in %s", ErrCPINeedsCurrency, strings.Join(currencies, ", "))
	}
	if len(currencies) == 0 {
		return "", nil // no row has a known price: none passes a bound
	}
	return currencies[0], nil
}

// ErrCPINeedsCurrency refuses a CPI bound without a currency over rows
// priced in more than one.
var ErrCPINeedsCurrency = errors.New("a CPI range needs a currency: choose the one its bounds are in")

// Currencies lists the currencies of the rows' known prices, upper case
// and sorted.
func Currencies(rows []checks.LiveRow) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		if priceKnown(r) {
			seen[strings.ToUpper(strings.TrimSpace(r.Currency))] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// priceKnown reports whether a row's price is known (rules.PriceKnown).
func priceKnown(r checks.LiveRow) bool { return rules.PriceKnown(r.CPI, r.Currency) }

// inCPIRange reports whether a row passes the price filters in currency
// (CPIRange's): always when there is none; otherwise its price must be
// known, in currency, and within the bounds.
func (lq LiveQuery) inCPIRange(r checks.LiveRow, currency string) bool {
	if currency == "" && lq.CPIMin == nil && lq.CPIMax == nil {
		return true
	}
	return priceKnown(r) && strings.EqualFold(strings.TrimSpace(r.Currency), currency) &&
		(lq.CPIMin == nil || r.CPI >= *lq.CPIMin) && (lq.CPIMax == nil || r.CPI <= *lq.CPIMax)
}

// Filter returns the rows that pass every filter, sorted, or the error
// of a CPI range that CPIRange refuses. With no filter and no sort it
// returns rows itself; it never modifies rows.
func (lq LiveQuery) Filter(rows []checks.LiveRow) ([]checks.LiveRow, error) {
	if lq.unfiltered() {
		return rows, nil
	}
	currency, err := lq.CPIRange(rows)
	if err != nil {
		return nil, err
	}
	text := strings.ToLower(lq.Text)
	out := make([]checks.LiveRow, 0, len(rows))
	for _, r := range rows {
		if !lq.keepsBesidesCPI(r, text) || !lq.inCPIRange(r, currency) {
			continue
		}
		out = append(out, r)
	}
	if lq.Sort != "" {
		col := strings.TrimPrefix(lq.Sort, "-")
		by, last := liveSorts[col], sortsLast[col]
		desc := strings.HasPrefix(lq.Sort, "-")
		slices.SortStableFunc(out, func(a, b checks.LiveRow) int {
			if last != nil && last(a) != last(b) {
				if last(a) {
					return 1
				}
				return -1
			}
			if desc {
				return by(b, a)
			}
			return by(a, b)
		})
	}
	return out, nil
}

// keepsBesidesCPI reports whether a row passes every filter but the CPI
// range and its currency; text is the query's text in lower case.
func (lq LiveQuery) keepsBesidesCPI(r checks.LiveRow, text string) bool {
	switch {
	case lq.Sendability != "" && string(r.Verdict.State) != lq.Sendability,
		lq.Status != "" && r.Status != lq.Status,
		lq.Country != "" && !listHas(r.Countries, lq.Country),
		lq.ResearchType != "" && !strings.EqualFold(r.ResearchType, lq.ResearchType),
		lq.Category != "" && !listHas(r.Categories, lq.Category),
		lq.Device == "desktop" && !r.AllowDesktop,
		lq.Device == "mobile" && !r.AllowMobile,
		lq.Device == "tablet" && !r.AllowTablet,
		text != "" && !matchesText(r, text),
		lq.AtRisk && (r.Pacing == nil || !r.Pacing.AtRisk),
		lq.Whose == "ours" && len(r.Ours) == 0,
		lq.Whose == "provider" && (r.Verdict.State == rules.Sendable || r.Verdict.State == rules.BlockedByUs):
		return false
	}
	return true
}

// unfiltered reports whether the query keeps every row in its order.
func (lq LiveQuery) unfiltered() bool {
	return lq.Sendability == "" && lq.Status == "" && lq.Country == "" && lq.ResearchType == "" && lq.Category == "" &&
		lq.Device == "" && lq.Currency == "" && lq.CPIMin == nil && lq.CPIMax == nil && lq.Text == "" && !lq.AtRisk && lq.Whose == "" && lq.Sort == ""
}

// PageOf returns the rows of the query's page and the page it really is
// (the last one when the asked page is past the end).
func (lq LiveQuery) PageOf(rows []checks.LiveRow) ([]checks.LiveRow, int) {
	pages := max(1, (len(rows)+livePageSize-1)/livePageSize)
	page := min(lq.Page, pages)
	start := (page - 1) * livePageSize
	return rows[start:min(start+livePageSize, len(rows))], page
}

func matchesText(r checks.LiveRow, text string) bool {
	return strconv.FormatInt(r.SubsampleID, 10) == text || strconv.FormatInt(r.EventID, 10) == text ||
		strings.Contains(strings.ToLower(r.Name), text) || strings.Contains(strings.ToLower(r.EventName), text)
}

// listHas reports whether a ", "-separated list holds item, ignoring case.
func listHas(list, item string) bool {
	for _, v := range strings.Split(list, ", ") {
		if strings.EqualFold(strings.TrimSpace(v), item) {
			return true
		}
	}
	return false
}

func fill(r checks.LiveRow) float64 {
	if r.TotalAchieved == nil || r.TotalRemaining == nil || *r.TotalAchieved+*r.TotalRemaining == 0 {
		return -1
	}
	return float64(*r.TotalAchieved) / float64(*r.TotalAchieved+*r.TotalRemaining)
}

func deref64(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

func timeKey(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.UnixMilli()
}

// compareEPC orders by expected earnings per entrant within a currency:
// figures in different currencies are not compared as numbers, so rows
// group by currency first; rows without a figure come first (last when
// descending, where the best are wanted).
func compareEPC(a, b checks.LiveRow) int {
	if a.EPC.Known() != b.EPC.Known() {
		if a.EPC.Known() {
			return 1
		}
		return -1
	}
	if c := strings.Compare(a.EPC.Currency, b.EPC.Currency); c != 0 {
		return c
	}
	return cmp.Compare(a.EPC.Value, b.EPC.Value)
}

// comparePace orders by the total quota's completes per hour; rows
// without a figure (too little history, no single total quota) come
// first, as empty figures do in the other columns.
func comparePace(a, b checks.LiveRow) int {
	return cmp.Compare(paceKey(a), paceKey(b))
}

func paceKey(r checks.LiveRow) float64 {
	if r.Pacing == nil || !r.Pacing.Known() {
		return -1
	}
	return r.Pacing.CompletesPerHour
}
