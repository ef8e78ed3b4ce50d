package handlers

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

func liveRow(id int64, name string, state rules.State, cpi float64, country string) checks.LiveRow {
	return checks.LiveRow{
		LiveRow: store.LiveRow{SubsampleID: id, EventID: id / 10, Name: name, Status: "Live", CPI: cpi, Currency: "EUR", Countries: country,
			ResearchType: "Tracker", Categories: "Soft drinks, Beer", AllowDesktop: true, AllowMobile: id%2 == 0},
		Verdict: rules.Verdict{State: state},
	}
}

func TestLiveQueryFilterAndSort(t *testing.T) {
	rows := []checks.LiveRow{
		liveRow(101, "US Gen Pop", rules.Sendable, 2.5, "US"),
		liveRow(102, "GB Parents", rules.Paused, 1.0, "GB"),
		liveRow(203, "DE Gamers", rules.Sendable, 9.0, "DE"),
		liveRow(204, "US Gamers", rules.NotSendable, 0, "US, CA"),
	}
	tests := []struct {
		query string
		want  []int64
	}{
		{"", []int64{101, 102, 203, 204}},
		{"sendability=sendable", []int64{101, 203}},
		{"country=us", []int64{101, 204}},
		{"country=CA", []int64{204}},
		{"device=mobile", []int64{102, 204}},
		{"cpimin=2&cpimax=9", []int64{101, 203}},
		{"q=gamers", []int64{203, 204}},
		{"q=102", []int64{102}},
		{"q=20", []int64{203, 204}}, // event id 20
		{"category=beer&rtype=tracker", []int64{101, 102, 203, 204}},
		{"category=wine", nil},
		{"sort=-cpi", []int64{203, 101, 102, 204}},
		{"sort=name", []int64{203, 102, 204, 101}},
		{"sendability=sendable&sort=-id", []int64{203, 101}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			v, _ := url.ParseQuery(tt.query)
			q, err := ParseLiveQuery(v)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			matching, err := q.Filter(rows)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range matching {
				got = append(got, r.SubsampleID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
			if back := q.Values().Encode(); back != v.Encode() {
				t.Errorf("query written back as %q, want %q", back, v.Encode())
			}
		})
	}
}

func TestLiveQueryRejectsBadValues(t *testing.T) {
	for _, raw := range []string{"sendability=maybe", "device=fridge", "cpimin=cheap", "cpimax=-1", "sort=colour", "page=0", "page=x", "cpimin=NaN", "cpimax=Inf", "cpimin=5&cpimax=1"} {
		v, _ := url.ParseQuery(raw)
		if _, err := ParseLiveQuery(v); err == nil {
			t.Errorf("%s accepted, want an error", raw)
		}
	}
}

func TestLiveQueryPages(t *testing.T) {
	var rows []checks.LiveRow
	for i := range 120 {
		rows = append(rows, liveRow(int64(i), "x", rules.Sendable, 1, "US"))
	}
	for _, tt := range []struct{ page, wantPage, wantLen int }{{1, 1, 50}, {3, 3, 20}, {9, 3, 20}} {
		got, page := LiveQuery{Page: tt.page}.PageOf(rows)
		if page != tt.wantPage || len(got) != tt.wantLen {
			t.Errorf("page %d: got page %d with %d rows, want page %d with %d", tt.page, page, len(got), tt.wantPage, tt.wantLen)
		}
	}
	if got, page := (LiveQuery{Page: 1}).PageOf(nil); page != 1 || len(got) != 0 {
		t.Errorf("empty list: page %d, %d rows", page, len(got))
	}
}

// priced is a live row with a price in a currency; cpi 0 or currency ""
// is a price the provider did not give.
func priced(id int64, cpi float64, currency string) checks.LiveRow {
	r := liveRow(id, "", rules.Sendable, cpi, "FR")
	r.Currency = currency
	return r
}

// TestLiveQueryCPIRangeInOneCurrency checks the CPI range's rule
// (LiveQuery.CPIRange): a bound compares prices in one currency only, and
// an unknown price never passes a bound.
func TestLiveQueryCPIRangeInOneCurrency(t *testing.T) {
	mixed := []checks.LiveRow{
		priced(1, 2, "EUR"), priced(2, 5, "EUR"), priced(3, 5, "USD"), priced(4, 300, "JPY"),
		priced(5, 0, "EUR"), // unknown price: a CPI of 0
		priced(6, 4, ""),    // unknown price: no currency
		priced(7, 4, "eur"), // the provider's spelling, another case
	}
	oneCurrency := []checks.LiveRow{priced(1, 2, "EUR"), priced(2, 5, "EUR"), priced(5, 0, "EUR"), priced(6, 4, "")}
	tests := []struct {
		name    string
		rows    []checks.LiveRow
		query   string
		want    []int64
		wantErr bool
	}{
		{"a bound in a currency keeps that currency's prices within it", mixed, "cpimin=3&currency=EUR", []int64{2, 7}, false},
		{"the currency is read in any case", mixed, "cpimax=4&currency=eur", []int64{1, 7}, false},
		{"a bound never compares another currency's price", mixed, "cpimin=4&cpimax=6&currency=USD", []int64{3}, false},
		{"a currency without a bound keeps the rows priced in it", mixed, "currency=JPY", []int64{4}, false},
		{"a bound without a currency over several currencies is refused", mixed, "cpimin=3", nil, true},
		{"an upper bound alone is refused too", mixed, "cpimax=10", nil, true},
		{"one currency among the rows is implied", oneCurrency, "cpimin=1", []int64{1, 2}, false},
		{"an unknown price never passes a bound, not even a bound of 0", oneCurrency, "cpimin=0", []int64{1, 2}, false},
		{"an unknown price never passes an upper bound as if it were 0", oneCurrency, "cpimax=3", []int64{1}, false},
		{"no known price at all: a bound keeps nothing", []checks.LiveRow{priced(5, 0, "EUR"), priced(6, 4, "")}, "cpimax=10", nil, false},
		{"no bound and no currency: every row, unknown prices too", mixed, "", []int64{1, 2, 3, 4, 5, 6, 7}, false},
		{"a currency no row has keeps nothing", mixed, "cpimin=1&currency=GBP", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := url.ParseQuery(tt.query)
			q, err := ParseLiveQuery(v)
			if err != nil {
				t.Fatal(err)
			}
			matching, err := q.Filter(tt.rows)
			if _, rangeErr := q.CPIRange(tt.rows); (rangeErr != nil) != (err != nil) {
				t.Errorf("CPIRange says %v, Filter %v", rangeErr, err)
			}
			if tt.wantErr {
				if !errors.Is(err, ErrCPINeedsCurrency) || !strings.Contains(err.Error(), "EUR, JPY, USD") {
					t.Fatalf("Filter = %v, want ErrCPINeedsCurrency naming the currencies", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range matching {
				got = append(got, r.SubsampleID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if back := q.Values().Encode(); back != v.Encode() {
				t.Errorf("query written back as %q, want %q", back, v.Encode())
			}
		})
	}
	if got := Currencies(mixed); !slices.Equal(got, []string{"EUR", "JPY", "USD"}) {
		t.Errorf("Currencies = %v, want the known prices' currencies, upper case, sorted", got)
	}
}

// TestLiveQueryCPIRangeCurrencyAfterOtherFilters checks that the CPI
// range's implied currency comes from the rows the other filters keep,
// not from every live row.
func TestLiveQueryCPIRangeCurrencyAfterOtherFilters(t *testing.T) {
	inCountry := func(id int64, cpi float64, currency, country string) checks.LiveRow {
		r := liveRow(id, "", rules.Sendable, cpi, country)
		r.Currency = currency
		return r
	}
	rows := []checks.LiveRow{
		inCountry(1, 2, "EUR", "FR"), inCountry(2, 5, "EUR", "FR"), inCountry(3, 0, "", "FR"),
		inCountry(4, 5, "USD", "US"), inCountry(5, 4, "GBP", "GB"),
	}
	tests := []struct {
		name    string
		query   string
		want    []int64
		wantErr bool
	}{
		{"every FR row in EUR: EUR is implied", "country=FR&cpimin=3", []int64{2}, false},
		{"the text filter counts too", "q=5&cpimax=10", []int64{5}, false},
		{"the rows kept still mix currencies: refused", "sendability=sendable&cpimin=3", nil, true},
		{"nothing kept is priced: a bound keeps nothing", "q=3&cpimin=1", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, _ := url.ParseQuery(tt.query)
			q, err := ParseLiveQuery(v)
			if err != nil {
				t.Fatal(err)
			}
			matching, err := q.Filter(rows)
			if _, rangeErr := q.CPIRange(rows); (rangeErr != nil) != (err != nil) {
				t.Errorf("CPIRange says %v, Filter %v", rangeErr, err)
			}
			if tt.wantErr != errors.Is(err, ErrCPINeedsCurrency) {
				t.Fatalf("Filter = %v, want refused: %v", err, tt.wantErr)
			}
			var got []int64
			for _, r := range matching {
				got = append(got, r.SubsampleID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestLiveQuerySortsUnknownPricesLast checks that a price the provider
// did not give sorts after every known one, in both directions.
func TestLiveQuerySortsUnknownPricesLast(t *testing.T) {
	rows := []checks.LiveRow{priced(1, 0, "EUR"), priced(2, 5, "EUR"), priced(3, 2, ""), priced(4, 2, "EUR"), priced(5, -1, "EUR")}
	for sort, want := range map[string][]int64{"cpi": {4, 2, 1, 3, 5}, "-cpi": {2, 4, 1, 3, 5}} {
		q, err := ParseLiveQuery(url.Values{"sort": {sort}})
		if err != nil {
			t.Fatal(err)
		}
		sorted, err := q.Filter(rows)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range sorted {
			got = append(got, r.SubsampleID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("sort=%s: got %v, want %v (unknown prices last, in their order)", sort, got, want)
		}
	}
}

// TestLiveQueryWhoseRules: whose=ours keeps the subsamples the provider
// lets us send to that our rules refuse; whose=provider those the
// provider's rules refuse; neither keeps a sendable one; the filter stays
// in the list's URL; any other value is refused.
func TestLiveQueryWhoseRules(t *testing.T) {
	ours := func(r checks.LiveRow) checks.LiveRow {
		r.Ours = []rules.OurRefusal{{RuleID: 1, Reason: "We block country " + r.Countries + " (set by maria on 6 Dec)."}}
		return r
	}
	rows := []checks.LiveRow{
		liveRow(101, "sendable", rules.Sendable, 2.5, "US"),
		liveRow(102, "paused by the provider", rules.Paused, 1.0, "GB"),
		ours(liveRow(103, "blocked by us", rules.BlockedByUs, 3.0, "DE")),
		liveRow(104, "unknown", rules.Unknown, 0, "US"),
		liveRow(105, "not sendable", rules.NotSendable, 0, "US"),
		ours(liveRow(106, "refused by both", rules.NotSendable, 0, "FR")), // the provider's refusal and ours
	}
	for _, tt := range []struct {
		query string
		want  []int64
	}{
		{"whose=ours", []int64{103, 106}},
		{"whose=provider", []int64{102, 104, 105, 106}},
		{"whose=", []int64{101, 102, 103, 104, 105, 106}},
		{"whose=ours&country=US", nil},
	} {
		v, _ := url.ParseQuery(tt.query)
		q, err := ParseLiveQuery(v)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		matching, err := q.Filter(rows)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range matching {
			got = append(got, r.SubsampleID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s keeps %v, want %v", tt.query, got, tt.want)
		}
		if w := v.Get("whose"); w != "" && q.Values().Get("whose") != w {
			t.Errorf("%s: the list's URL drops the filter: %s", tt.query, q.Values().Encode())
		}
	}
	if _, err := ParseLiveQuery(url.Values{"whose": {"theirs"}}); err == nil || !strings.Contains(err.Error(), `whose "theirs"`) {
		t.Errorf("whose=theirs: %v, want an error naming it", err)
	}
}
