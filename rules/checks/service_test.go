package checks

import (
	"testing"
	"time"
	_ "time/tzdata" // Pacific/Auckland whether or not the host has zoneinfo

	"fieldboard/rules"
)

func TestWithPanelistMatchesEntryLink(t *testing.T) {
	raws := []string{
		"https://e.test/s?p=abc%2Bdef&rType=2&id=",
		"https://e.test/s?p=abc&id=&rType=3",
		"https://e.test/s?p=abc",
		"https://e.test/s?p=abc&id=#top",
	}
	for _, panelist := range []string{"P1", "P 1/x", "ü&=?"} {
		for _, raw := range raws {
			base, err := rules.EntryLink(raw, true, "")
			if err != nil {
				t.Fatal(err)
			}
			want, _ := rules.EntryLink(raw, true, panelist)
			got := withPanelist([]EntryLinks{{Locale: "en-us", Live: base, Testing: base}}, panelist, func() []EntryLinks {
				return []EntryLinks{{Locale: "en-us", Live: want, Testing: want}}
			})
			if got[0].Live != want || got[0].Testing != want {
				t.Errorf("%s for %q: got %s, EntryLink says %s", raw, panelist, got[0].Live, want)
			}
		}
	}
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
	live, _ := rules.EntryLink("https://e.test/s?p=1&id=", true, "")
	got := panelTarget([]string{"CA"}, []EntryLinks{
		{Locale: "en-CA", Live: live, TestingProblem: "not a usable entry link: \"\" is not an absolute http or https address"},
		{Locale: "fr-ca", Testing: live, LiveProblem: "not a usable entry link: scheme \"ftp\" is not http or https"},
	})
	want := []rules.PanelLocale{{Code: "en-ca", Usable: true}, {Code: "fr-ca", Usable: false}}
	if len(got.Locales) != 2 || got.Locales[0] != want[0] || got.Locales[1] != want[1] || got.Countries[0] != "CA" {
		t.Errorf("panelTarget = %+v, want %+v", got, want)
	}
}
