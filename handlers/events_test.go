package handlers_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/handlers"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views"
)

func day(s string) *time.Time {
	t, err := time.ParseInLocation(time.DateOnly, s, time.UTC)
	if err != nil {
		panic(err)
	}
	return &t
}

// sub builds one subsample of the snapshot; eventName is set only for
// live ones, as live details are the only source of event names.
func sub(event, id int64, name, status, country, start, end string, live bool, eventName string) checks.SubsampleReport {
	r := checks.SubsampleReport{SubsampleRow: store.SubsampleRow{
		SubsampleID: id, EventID: event, Name: name, Status: status, CountryCode: country,
		FieldStart: day(start), FieldEnd: day(end), Live: live, EventName: eventName,
	}}
	if live {
		r.Verdict = rules.Verdict{State: rules.Sendable}
	}
	return r
}

// snapshotReports is a small snapshot: event 10 runs in three countries
// (one subsample live), event 20 is closed, event 30 is pending.
var snapshotReports = []checks.SubsampleReport{
	sub(10, 101, "Soft drinks NL", "Live", "NL", "2026-03-01", "2026-03-31", true, "Soft drinks 2026"),
	sub(10, 102, "Soft drinks BE", "Complete", "BE", "2026-02-15", "2026-03-10", false, ""),
	sub(10, 103, "Soft drinks DE", "Pending", "DE", "2026-03-05", "2026-04-10", false, ""),
	sub(20, 201, "Car owners US", "Complete", "US", "2025-10-01", "2025-11-01", false, ""),
	sub(30, 301, "Pet food GB", "Pending", "GB", "2026-06-01", "2026-06-30", false, ""),
}

func subsampleIDs(groups []views.EventGroup) []int64 {
	var ids []int64
	for _, g := range groups {
		for _, s := range g.Subsamples {
			ids = append(ids, s.SubsampleID)
		}
	}
	return ids
}

func TestGroupEventsFilters(t *testing.T) {
	tests := []struct {
		name  string
		query string
		want  []int64
	}{
		{"no filter keeps every subsample, grouped by event", "", []int64{101, 102, 103, 201, 301}},
		{"status keeps the subsamples in that status", "status=Pending", []int64{103, 301}},
		{"status is read in any case, as the statuses endpoint spells it", "status=live+for+testing", nil},
		{"country keeps the subsamples of that country, any case", "country=be", []int64{102}},
		{"from keeps events still in field on or after that day", "from=2026-04-01", []int64{101, 102, 103, 301}},
		{"to keeps events that started by the end of that day", "to=2025-12-31", []int64{201}},
		{"an event whose period overlaps keeps all its subsamples", "from=2026-04-05&to=2026-04-20", []int64{101, 102, 103}},
		{"a period ending the day before from is left out", "from=2025-11-02&to=2026-01-31", nil},
		{"a field end on the from day overlaps", "from=2025-11-01&to=2025-11-01", []int64{201}},
		{"q matches a subsample name part in any case", "q=DRINKS+be", []int64{102}},
		{"q matches a subsample id exactly", "q=201", []int64{201}},
		{"q does not match part of an id", "q=3", nil},
		{"q matches an event id: all its subsamples", "q=10", []int64{101, 102, 103}},
		{"q matches the event name from live details: all its subsamples", "q=drinks+2026", []int64{101, 102, 103}},
		{"filters combine", "q=soft&status=Pending&from=2026-04-01", []int64{103}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			query, _ := url.ParseQuery(tt.query)
			f, err := handlers.ParseEventFilter(query, time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			if got := subsampleIDs(handlers.GroupEvents(snapshotReports, f)); !slices.Equal(got, tt.want) {
				t.Errorf("GroupEvents(%s) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
}

func TestGroupEventsDescribesWholeEvents(t *testing.T) {
	f, _ := handlers.ParseEventFilter(url.Values{"status": {"Complete"}}, time.UTC)
	groups := handlers.GroupEvents(snapshotReports, f)
	if len(groups) != 2 {
		t.Fatalf("got %d events, want 10 and 20", len(groups))
	}
	g := groups[0]
	if g.EventID != 10 || g.Name != "Soft drinks 2026" {
		t.Errorf("event 10 named %q, want the live details' event name", g.Name)
	}
	if g.Total != 3 || len(g.Subsamples) != 1 {
		t.Errorf("event 10: total %d, shown %d; want 3 and 1", g.Total, len(g.Subsamples))
	}
	if got := strings.Join(g.Countries, ","); got != "BE,DE,NL" {
		t.Errorf("countries = %s, want every country of the event, sorted", got)
	}
	want := []views.StatusCount{{Status: "Live", Count: 1}, {Status: "Pending", Count: 1}, {Status: "Complete", Count: 1}}
	if !slices.Equal(g.Statuses, want) {
		t.Errorf("statuses = %v, want %v", g.Statuses, want)
	}
	if !g.FieldStart.Equal(*day("2026-02-15")) || !g.FieldEnd.Equal(*day("2026-04-10")) {
		t.Errorf("field period = %v – %v, want the earliest start and the latest end", g.FieldStart, g.FieldEnd)
	}
	if groups[1].Name != "Car owners US" {
		t.Errorf("event 20 named %q, want its first subsample's name when it has no live details", groups[1].Name)
	}
}

func TestGroupEventsUnknownDatesAreNotHidden(t *testing.T) {
	r := sub(40, 401, "No dates", "Pending", "FR", "2026-01-01", "2026-01-02", false, "")
	r.FieldStart, r.FieldEnd = nil, nil
	f, _ := handlers.ParseEventFilter(url.Values{"from": {"2030-01-01"}}, time.UTC)
	if got := subsampleIDs(handlers.GroupEvents([]checks.SubsampleReport{r}, f)); !slices.Equal(got, []int64{401}) {
		t.Errorf("an event with no field dates must stay under a date filter, got %v", got)
	}
}

func TestParseEventFilterRejects(t *testing.T) {
	tests := []struct{ query, want string }{
		{"from=2026-13-01", `from "2026-13-01" is not a date`},
		{"to=31/03/2026", `to "31/03/2026" is not a date`},
		{"from=2026-04-02&to=2026-04-01", "is after to"},
		{"status=Open", `status "Open" is not one of`},
	}
	for _, tt := range tests {
		query, _ := url.ParseQuery(tt.query)
		if _, err := handlers.ParseEventFilter(query, time.UTC); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseEventFilter(%s) = %v, want an error with %q", tt.query, err, tt.want)
		}
	}
	query, _ := url.ParseQuery("from=2026-04-01&to=2026-04-01")
	if _, err := handlers.ParseEventFilter(query, time.UTC); err != nil {
		t.Errorf("from equal to to is one day: %v", err)
	}
}

func TestSearchQuestions(t *testing.T) {
	qs := []struct{ name, text, translation string }{
		{"GENDER", "Are you...?", "Êtes-vous...?"},
		{"STANDARD_EDUCATION", "What is the highest level of education?", ""},
		{"agerange", "What is your age?", "Quel âge avez-vous ?"},
	}
	var questions []domain.Question
	for i, q := range qs {
		questions = append(questions, domain.Question{ID: int64(i), Name: q.name, Text: q.text, Translation: q.translation})
	}
	tests := []struct {
		q    string
		want []int64
	}{
		{"", []int64{0, 1, 2}},
		{"gender", []int64{0}},
		{"EDUCATION", []int64{1}},
		{"âge", []int64{2}},
		{"what is", []int64{1, 2}},
		{"nothing like this", nil},
	}
	for _, tt := range tests {
		var got []int64
		for _, q := range handlers.SearchQuestions(questions, tt.q) {
			got = append(got, q.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SearchQuestions(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
}
