package handlers

import (
	"net/url"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/store"
)

func liveRow(id int64, name string, state rules.State, cpi float64, country string) checks.LiveRow {
	return checks.LiveRow{
		LiveRow: store.LiveRow{SubsampleID: id, EventID: id / 10, Name: name, Status: "Live", CPI: cpi, Countries: country,
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
			for _, r := range q.Filter(rows) {
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
