// Package checkstest builds, by hand, a small world in which each of the
// send decisions has a panelist on either side of its boundary, so the
// checks service's tests and the web's ask the same questions of the same
// data: may this panelist be sent to subsample Target now? Every decision
// path (the router's next surveys, an invitation click, the send list and
// the bulk check) must answer each Case alike.
package checkstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// The world's subsamples and events.
const (
	// Target is the one live, sendable subsample: fielded in the United
	// States, in en-us and es-us, and (the provider's data being what it
	// is) with an en-ca entry link too, though Canada is not among its
	// countries. Its gender table has an open Male cell and a full Female
	// one.
	Target int64 = 10
	// Sibling is another subsample of Target's event, complete now.
	Sibling int64 = 11
	// Elsewhere is a subsample of another event, complete now.
	Elsewhere int64 = 20
	// Event is the event of Target and Sibling; OtherEvent Elsewhere's.
	Event      int64 = 1
	OtherEvent int64 = 2
)

// GenderQuestion is the library question of Target's gender table, with
// the answers Male (open cell) and Female (full cell).
const (
	GenderQuestion int64 = 43
	Male                 = "1"
	Female               = "2"
)

// StaleAfter is the staleness limit the cases are decided under.
const StaleAfter = time.Hour

// QualityHold is the quality hold the cases are decided under: the
// commands' default, 3 reversed completes in 90 days.
var QualityHold = rules.DefaultQualityHold

// ReadAt is when the world's events were last read. A case is asked Age
// after it.
var ReadAt = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// Case is one question of the table: is Panelist sent to Target when
// asked Age after the events were read, under StaleAfter?
type Case struct {
	Name     string // what the case protects
	Panelist string
	Age      time.Duration
	Sent     bool
}

// Now is the time the case is asked at.
func (c Case) Now() time.Time { return ReadAt.Add(c.Age) }

// fresh is the age of the data in the cases that are not about staleness.
const fresh = time.Minute

// Cases are the decisions every path must make alike, a wrong "send" and
// a wrong "no" on either side of each boundary.
func Cases() []Case {
	return []Case{
		{"a panelist of the subsample's country and language in an open quota cell is sent", "P-open", fresh, true},
		{"a panelist whose quota cell is full is not sent (the spec's quota sending rule: nothing remaining, nobody sent)", "P-full", fresh, false},
		{"a panelist of another country is not sent, though the subsample lists a locale of that country (country is a hard filter)", "P-ca", fresh, false},
		{"a panelist of a country the subsample is not fielded in is not sent", "P-fr", fresh, false},
		{"a panelist whose language the subsample is not in is not sent", "P-zh", fresh, false},
		{"a panelist who already took part in the subsample is not sent again (respondents are unique across the event)", "P-again", fresh, false},
		{"a panelist who took part in another subsample of its event is not sent (respondents are unique across the event)", "P-sibling", fresh, false},
		{"a panelist who took part in another event's subsample is still sent", "P-other-event", fresh, true},
		{"a panelist with three completes reversed in the last 90 days, the oldest on the window's first instant, is held for quality", "P-held", fresh, false},
		{"a panelist whose oldest of three reversals is a minute before the 90 days is not held", "P-held-once-older", fresh, true},
		{"a panelist with two completes reversed and a third complete not reversed is not held", "P-two-reversed", fresh, true},
		{"data just inside the staleness limit still sends a panelist in an open cell", "P-open", StaleAfter - time.Minute, true},
		{"data exactly at the staleness limit still sends a panelist in an open cell", "P-open", StaleAfter, true},
		{"data exactly at the staleness limit still refuses a panelist in a full cell", "P-full", StaleAfter, false},
		{"data past the staleness limit by a minute sends nobody (never decide on data that is too old)", "P-open", StaleAfter + time.Minute, false},
	}
}

// member is one panelist of the world: where they live, what they speak,
// their gender answer and their history.
type member struct {
	id, country, locale, gender string
	history                     []domain.HistoryRecord
}

// members are the world's panelists, each on one side of one boundary.
func members() []member {
	took := func(id string, subsample, event int64, status int64) []domain.HistoryRecord {
		return []domain.HistoryRecord{{PanelistID: id, SubsampleID: subsample, EventID: event, StatusID: status, RegisteredAt: ReadAt.AddDate(0, 0, -30)}}
	}
	// reversed is a complete on another event's subsample and its
	// reversal (a 98) at the given time.
	reversed := func(id string, subsample int64, at time.Time) []domain.HistoryRecord {
		return []domain.HistoryRecord{
			{PanelistID: id, SubsampleID: subsample, EventID: OtherEvent + subsample, StatusID: domain.ReturnComplete, RegisteredAt: at.Add(-time.Hour)},
			{PanelistID: id, SubsampleID: subsample, EventID: OtherEvent + subsample, StatusID: domain.ReturnErroneousComplete, RegisteredAt: at},
		}
	}
	// holdStart is the first instant of the quality hold's window when a
	// case is asked fresh.
	holdStart := ReadAt.Add(fresh).AddDate(0, 0, -QualityHold.Days)
	heldHistory := func(id string, oldest time.Time) []domain.HistoryRecord {
		return slices.Concat(reversed(id, 31, oldest), reversed(id, 32, ReadAt.AddDate(0, 0, -10)), reversed(id, 33, ReadAt.AddDate(0, 0, -1)))
	}
	twoReversed := slices.Concat(reversed("P-two-reversed", 31, ReadAt.AddDate(0, 0, -20)), reversed("P-two-reversed", 32, ReadAt.AddDate(0, 0, -10)),
		[]domain.HistoryRecord{{PanelistID: "P-two-reversed", SubsampleID: 33, EventID: OtherEvent + 33, StatusID: domain.ReturnComplete, RegisteredAt: ReadAt.AddDate(0, 0, -5)}})
	return []member{
		{id: "P-held", country: "US", locale: "en-us", gender: Male, history: heldHistory("P-held", holdStart)},
		{id: "P-held-once-older", country: "US", locale: "en-us", gender: Male, history: heldHistory("P-held-once-older", holdStart.Add(-time.Minute))},
		{id: "P-two-reversed", country: "US", locale: "en-us", gender: Male, history: twoReversed},
		{id: "P-open", country: "US", locale: "en-us", gender: Male},
		{id: "P-full", country: "US", locale: "en-us", gender: Female},
		{id: "P-ca", country: "CA", locale: "en-ca", gender: Male},
		{id: "P-fr", country: "FR", gender: Male},
		{id: "P-zh", country: "US", locale: "zh-us", gender: Male},
		{id: "P-again", country: "US", locale: "en-us", gender: Male, history: took("P-again", Target, Event, domain.ReturnScreenOut)},
		{id: "P-sibling", country: "US", locale: "en-us", gender: Male, history: took("P-sibling", Sibling, Event, domain.ReturnComplete)},
		{id: "P-other-event", country: "US", locale: "en-us", gender: Male, history: took("P-other-event", Elsewhere, OtherEvent, domain.ReturnComplete)},
	}
}

// Build writes the world into st: the events snapshot, read at ReadAt,
// and the panel, profiles and history of every case's panelist. Each
// edit changes the events snapshot before it is written, for a test of
// one more boundary on the same world.
func Build(t testing.TB, st *store.Store, edits ...func(*store.EventsSnapshot)) {
	t.Helper()
	ctx := context.Background()
	snap := Snapshot()
	for _, edit := range edits {
		edit(&snap)
	}
	if _, err := st.SaveEvents(ctx, snap, time.Hour); err != nil {
		t.Fatalf("save the world's events: %v", err)
	}
	ms := members()
	panel := make([]domain.PanelMember, len(ms))
	var profiles []domain.ProfileRecord
	var history []domain.HistoryRecord
	for i, m := range ms {
		panel[i] = domain.PanelMember{PanelistID: m.id, Country: m.country, Locale: m.locale}
		profiles = append(profiles, domain.ProfileRecord{PanelistID: m.id, QuestionID: GenderQuestion, Value: m.gender})
		history = append(history, m.history...)
	}
	if r, err := st.ImportPanel(ctx, slices.Values(panel)); err != nil || r.BadLines > 0 {
		t.Fatalf("import the world's panel: %v %+v", err, r)
	}
	known := func(int64) bool { return true }
	if r, err := st.ImportProfiles(ctx, slices.Values(profiles), known); err != nil || r.BadLines > 0 {
		t.Fatalf("import the world's profiles: %v %+v", err, r)
	}
	if r, err := st.ImportHistory(ctx, history); err != nil || r.BadLines > 0 {
		t.Fatalf("import the world's history: %v %+v", err, r)
	}
}

// Snapshot is the world's events as a refresh at ReadAt would have read
// them, before Build's edits.
func Snapshot() store.EventsSnapshot {
	us := domain.Country{ID: 1, Code: "US", Name: "United States"}
	link := func(locale string) domain.SubsampleLocale {
		return domain.SubsampleLocale{Name: locale, LiveEntryLink: "https://e.test/s10?l=" + locale + "&id=", TestingEntryLink: "https://e.test/t10?l=" + locale + "&id="}
	}
	cell := func(id int64, name, answer string, remaining int64) domain.Quota {
		a := int64(answer[0] - '0')
		return domain.Quota{SubsampleStatus: domain.StatusLive, QuotaID: id, TableID: 2, TableName: "Gender", QuotaName: name,
			QuotaType: domain.QuotaTypeHard, RemainingExclusive: remaining,
			Questions: []domain.QuotaQuestion{{ID: GenderQuestion, Operator: "OR", Answers: []domain.QuotaAnswer{{ID: &a}}}}}
	}
	return store.EventsSnapshot{
		Run: store.Run{Dataset: store.DatasetEvents, StartedAt: ReadAt.Add(-time.Minute), FinishedAt: ReadAt},
		Summaries: []domain.SubsampleSummary{
			{EventID: Event, SubsampleID: Target, SubsampleStatus: domain.StatusLive, SubsampleName: "Target", Country: us},
			{EventID: Event, SubsampleID: Sibling, SubsampleStatus: domain.StatusComplete, SubsampleName: "Sibling", Country: us},
			{EventID: OtherEvent, SubsampleID: Elsewhere, SubsampleStatus: domain.StatusComplete, SubsampleName: "Elsewhere", Country: us},
		},
		Live: []domain.LiveSubsample{{EventID: Event, EventName: "Event", SubsampleID: Target, SubsampleStatus: domain.StatusLive,
			SubsampleName: "Target", SurveyAPICompatibility: true, TargetedCPI: 2, TargetedCurrency: "USD", Countries: []domain.Country{us},
			Locales: []domain.SubsampleLocale{link("en-us"), link("es-us"), link("en-ca")}}},
		Details: map[int64]store.SubsampleDetail{Target: {FetchedAt: ReadAt, Quotas: []domain.Quota{
			{SubsampleStatus: domain.StatusLive, QuotaID: 1, TableID: 1, TableName: "Total Quota", QuotaName: "Total",
				QuotaType: domain.QuotaTypeCounting, RemainingExclusive: 50},
			cell(2, "Male", Male, 5),
			cell(3, "Female", Female, 0),
		}}},
	}
}
