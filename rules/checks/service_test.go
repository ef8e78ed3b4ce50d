package checks

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Pacific/Auckland whether or not the host has zoneinfo

	"fieldboard/rules"
	"fieldboard/store"
)

// TestWithPanelistFillsTheID: the send path's quick fill of a prepared
// link (withPanelist, and the router's liveLink) gives what
// rules.EntryLink gives for the panelist: the id, query-escaped, in the
// query, never in a fragment, even one that ends in id= too. A link with
// a problem is prepared again, and stays refused: a link whose id= is
// only in its fragment (?p=AB#CD&rType=2&id=, a hash-routed
// /s/#/start?p=T&id=) never reaches the provider with the id.
func TestWithPanelistFillsTheID(t *testing.T) {
	for _, raw := range quickFillSeeds {
		for _, api := range []bool{true, false} {
			for _, id := range []string{"P1", "P 1/x", "ü&=?#"} {
				link := quickFillAgrees(t, raw, api, id)
				if link == "" {
					continue
				}
				u, err := url.Parse(link)
				if err != nil {
					t.Fatal(err)
				}
				if q := u.Query(); len(q["id"])+len(q["ID"]) != 1 || q.Get("id")+q.Get("ID") != id || strings.Contains(u.Fragment, id) {
					t.Errorf("%s for %q: %s does not carry the id once in its query alone", raw, id, link)
				}
			}
		}
	}
}

// FuzzQuickFill: on any provider link and panelist id, the send path's
// quick fill agrees with rules.EntryLink (quickFillAgrees).
func FuzzQuickFill(f *testing.F) {
	for _, raw := range quickFillSeeds {
		f.Add(raw, true, "P 1/x")
	}
	f.Fuzz(func(t *testing.T, raw string, api bool, id string) {
		quickFillAgrees(t, raw, api, id)
	})
}

var quickFillSeeds = []string{
	"https://e.test/s?p=abc%2Bdef&rType=2&id=",
	"https://e.test/s?p=abc&rType=3&SAPI=0&ID=",
	"https://e.test/s?p=abc&id=#top",
	"https://e.test/s?p=abc&id=#/start?x=1&id=",
	"https://e.test/s?p=abc&id=#",
	"https://e.test/s?p=abc&id=##id=",
	"https://e.test/s?p=AB#CD&rType=2&id=",
	"https://e.test/s/#/start?p=abc&id=",
	"https://user@e.test/s?p=abc&id=",
	"https://e.test/s?p=abc",
}

// quickFillAgrees checks that raw, prepared by rules.EntryLink for nobody
// and filled for id by withPanelist and by the router's liveLink, is the
// link rules.EntryLink prepares for id, and that only a link with a
// problem is prepared again; it returns that link ("" when refused).
func quickFillAgrees(t *testing.T, raw string, api bool, id string) string {
	t.Helper()
	prepared := EntryLinks{Locale: "en-us"}
	var err error
	if prepared.Live, err = rules.EntryLink(raw, api, ""); err != nil {
		prepared.LiveProblem = err.Error()
	}
	prepared.Testing, prepared.TestingProblem = prepared.Live, prepared.LiveProblem
	want := EntryLinks{Locale: "en-us"}
	if want.Live, err = rules.EntryLink(raw, api, id); err != nil {
		want.LiveProblem = err.Error()
	}
	want.Testing, want.TestingProblem = want.Live, want.LiveProblem
	slow := 0
	got := withPanelist([]EntryLinks{prepared}, id, func() []EntryLinks {
		slow++
		return []EntryLinks{want}
	})
	if len(got) != 1 || got[0] != want {
		t.Errorf("%q (API %v) for %q: withPanelist gives %+v, rules.EntryLink %+v", raw, api, id, got, want)
	}
	if wantSlow := prepared.Problem() != ""; (slow == 1) != wantSlow || slow > 1 {
		t.Errorf("%q (API %v) for %q: prepared again %d times, want %v", raw, api, id, slow, wantSlow)
	}
	if prepared.Problem() == "" {
		pc := PanelistCheck{SubsampleReport: &SubsampleReport{Links: []EntryLinks{prepared}}, Panel: rules.PanelFit{Locale: "EN-US"}}
		if link := (&Decisions{}).liveLink(pc, id); link != want.Live {
			t.Errorf("%q (API %v): the router sends %q to %q, rules.EntryLink gives %q", raw, api, id, link, want.Live)
		}
	}
	return want.Live
}

// TestChecksCountAgesOnTheProvidersDay: at 23:30 UTC it is already the
// next day in Auckland, so a panelist born on that date has their birthday
// for a provider there.
func TestChecksCountAgesOnTheProvidersDay(t *testing.T) {
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	utc := time.Date(2026, 6, 14, 23, 30, 0, 0, time.UTC)
	c := &Service{Now: func() time.Time { return utc }, ProviderLocation: auckland}
	born := time.Date(1986, 6, 15, 0, 0, 0, 0, time.UTC)
	if got := rules.AgeOn(born, c.now()); got != 40 {
		t.Errorf("age on the provider's day = %d, want 40 (15 June in Auckland)", got)
	}
	if got := rules.AgeOn(born, (&Service{Now: func() time.Time { return utc }}).now()); got != 39 {
		t.Errorf("age on the UTC day = %d, want 39 (still 14 June)", got)
	}
}

// TestPanelTargetUsesLiveLinksAlone: a locale's live link is usable when
// its testing link is empty or refused, and the other way round a locale
// without a usable live link sends nobody.
func TestPanelTargetUsesLiveLinksAlone(t *testing.T) {
	live := "https://e.test/s?p=1&SAPI=1&id="
	got := panelTarget([]string{"CA"}, []EntryLinks{
		{Locale: "en-CA", Live: live, TestingProblem: "not a usable entry link: \"\" is not an absolute http or https address"},
		{Locale: "fr-ca", Testing: live, LiveProblem: "not a usable entry link: scheme \"ftp\" is not http or https"},
	})
	want := []rules.PanelLocale{{Code: "en-ca", Usable: true}, {Code: "fr-ca", Usable: false, Problem: "not a usable entry link: scheme \"ftp\" is not http or https"}}
	if len(got.Locales) != 2 || got.Locales[0] != want[0] || got.Locales[1] != want[1] || got.Countries[0] != "CA" {
		t.Errorf("panelTarget = %+v, want %+v", got, want)
	}
}

// TestTrackSinceIsTheStoresAnswer: a subsample's quota counts read once
// per version since one time, cut for a later one (trackSince), are what
// the store answers for the later one: the points at or after it and the
// last one before it, where the count stood then. A point too many would
// pace on counts the window leaves out; one too few would lose where the
// count stood.
func TestTrackSinceIsTheStoresAnswer(t *testing.T) {
	base := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var all []store.QuotaPoint
	for _, m := range []int{0, 10, 20, 21, 40, 90} {
		all = append(all, store.QuotaPoint{At: base.Add(time.Duration(m) * time.Minute), Achieved: int64(m)})
	}
	// answer is Store.QuotaTracks' query on all: at or after the last
	// point before since, or since when none is before it.
	answer := func(since time.Time) []store.QuotaPoint {
		from := since
		for _, p := range all {
			if p.At.Before(since) {
				from = p.At
			}
		}
		var out []store.QuotaPoint
		for _, p := range all {
			if !p.At.Before(from) {
				out = append(out, p)
			}
		}
		return out
	}
	for read := -5; read <= 95; read += 5 {
		kept := store.QuotaTrack{QuotaID: 1, Points: answer(base.Add(time.Duration(read) * time.Minute))}
		for later := read; later <= 100; later++ {
			since := base.Add(time.Duration(later) * time.Minute)
			got, want := trackSince(kept, since).Points, answer(since)
			if !slices.Equal(got, want) {
				t.Errorf("read since %d min, cut since %d min: %v, want %v", read, later, got, want)
			}
		}
	}
}
