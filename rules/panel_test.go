package rules

import (
	"slices"
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

func TestFitPanel(t *testing.T) {
	canada := PanelTarget{Countries: []string{"CA"}, Locales: []PanelLocale{{Code: "en-ca", Usable: true}, {Code: "fr-ca", Usable: true}}}
	swiss := PanelTarget{Countries: []string{"CH"}, Locales: []PanelLocale{{Code: "de-ch", Usable: true}, {Code: "fr-ch", Problem: "not a usable entry link: scheme \"ftp\" is not http or https"}}}
	member := func(country, locale string) domain.PanelMember {
		return domain.PanelMember{PanelistID: "P1", Country: country, Locale: locale}
	}
	tests := []struct {
		name           string
		m              domain.PanelMember
		t              PanelTarget
		countryDefault string
		locale         string // the locale chosen; "" when the panelist does not fit
		reason         string // in the reason when they do not fit
	}{
		{"a panelist with no country on file is never sent", member("", ""), canada, "en-ca", "", "No country on file"},
		{"only to a subsample whose countries hold theirs", member("FR", "fr-fr"), canada, "", "", "lives in FR; this subsample is fielded in CA"},
		{"a known locale must be among the subsample's", member("CA", "es-ca"), canada, "en-ca", "", "answers in es-ca; this subsample is in en-ca, fr-ca"},
		{"the entry link is the one of the panelist's locale", member("CA", "fr-ca"), canada, "en-ca", "fr-ca", ""},
		{"no locale on file: the country's default locale when the subsample has it", member("CA", ""), canada, "fr-ca", "fr-ca", ""},
		{"no locale on file and no default: the subsample's first locale of the country", member("CA", ""), canada, "", "en-ca", ""},
		{"a default the subsample lacks: its first locale of the country", member("CA", ""), PanelTarget{Countries: []string{"CA"}, Locales: []PanelLocale{{Code: "fr-ca", Usable: true}}}, "en-ca", "fr-ca", ""},
		{"a country listed without any of its locales", member("CA", ""), PanelTarget{Countries: []string{"CA", "US"}, Locales: []PanelLocale{{Code: "en-us", Usable: true}}}, "en-ca", "", "no locale of CA"},
		{"a locale whose live link is not usable sends nobody", member("CH", "fr-ch"), swiss, "de-ch", "", "live entry link of fr-ch is not usable (not a usable entry link: scheme \"ftp\" is not http or https), so"},
		{"countries compare in any case", member("CH", "de-ch"), PanelTarget{Countries: []string{"ch"}, Locales: []PanelLocale{{Code: "DE-CH", Usable: true}}}, "", "DE-CH", ""},
		{"a subsample that lists no country takes nobody", member("CA", ""), PanelTarget{}, "en-ca", "", "lists no country"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FitPanel(tt.m, tt.t, tt.countryDefault)
			switch {
			case tt.locale != "" && (!got.Fits || got.Locale != tt.locale || got.Reason != ""):
				t.Errorf("got %+v, want a fit through %s", got, tt.locale)
			case tt.locale == "" && (got.Fits || got.Locale != "" || !strings.Contains(got.Reason, tt.reason) || !strings.HasSuffix(got.Reason, ".")):
				t.Errorf("got %+v, want no fit because %q", got, tt.reason)
			}
		})
	}
}

// TestFitPanelNamesTheKindOfMisfit: every reason carries its kind, which
// pages group by; a fit carries none.
func TestFitPanelNamesTheKindOfMisfit(t *testing.T) {
	canada := PanelTarget{Countries: []string{"CA"}, Locales: []PanelLocale{{Code: "en-ca", Usable: true}, {Code: "fr-ca"}}}
	member := func(country, locale string) domain.PanelMember {
		return domain.PanelMember{PanelistID: "P1", Country: country, Locale: locale}
	}
	for _, tt := range []struct {
		name string
		m    domain.PanelMember
		t    PanelTarget
		want string
	}{
		{"no country on file", member("", ""), canada, MisfitNoCountry},
		{"a subsample that lists no country", member("CA", ""), PanelTarget{}, MisfitNoSubsampleCountry},
		{"another country", member("NL", "nl-nl"), canada, MisfitCountry},
		{"another language", member("CA", "es-ca"), canada, MisfitLanguage},
		{"no locale of the country", member("CA", ""), PanelTarget{Countries: []string{"CA", "US"}, Locales: []PanelLocale{{Code: "en-us", Usable: true}}}, MisfitNoLocale},
		{"an unusable entry link", member("CA", "fr-ca"), canada, MisfitLink},
		{"a fit", member("CA", "en-ca"), canada, ""},
	} {
		if got := FitPanel(tt.m, tt.t, ""); got.Misfit != tt.want {
			t.Errorf("%s: Misfit = %q, want %q (%+v)", tt.name, got.Misfit, tt.want, got)
		}
	}
}

// TestCountryFormsHoldEveryCountryFitPanelAccepts: a read of the panel
// narrowed to CountryForms loses nobody FitPanel would send, and keeps
// nobody of another country: every stored country FitPanel finds among
// the subsample's is a form, and no other is.
func TestCountryFormsHoldEveryCountryFitPanelAccepts(t *testing.T) {
	stored := []string{"", "S", "SKA", "\u212a", "s\u212a", "\u017fk", "\u017f\u212a"}
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for _, a := range letters {
		for _, b := range letters {
			stored = append(stored, string(a)+string(b))
		}
	}
	for _, countries := range [][]string{{"FR"}, {"fr"}, {"Ca", "us"}, {"SK"}, {"sk", "FR", "SK"}, {}, {""}, {"ÉÉ"}} {
		target := PanelTarget{Countries: countries, Locales: []PanelLocale{{Code: "fr-fr", Usable: true}}}
		forms, ok := target.CountryForms()
		if !ok {
			t.Fatalf("CountryForms of %q: not ok", countries)
		}
		if len(forms) != len(slices.Compact(slices.Sorted(slices.Values(forms)))) {
			t.Errorf("CountryForms of %q = %q: a form twice", countries, forms)
		}
		for _, c := range append(stored, forms...) {
			fit := FitPanel(domain.PanelMember{PanelistID: "p", Country: c}, target, "")
			accepted := fit.Misfit != MisfitCountry && fit.Misfit != MisfitNoCountry && fit.Misfit != MisfitNoSubsampleCountry
			if accepted != slices.Contains(forms, c) {
				t.Errorf("subsample countries %q, panelist country %q: FitPanel accepts it %v, CountryForms %q", countries, c, accepted, forms)
			}
		}
	}
	if forms, _ := (PanelTarget{Countries: []string{"fr"}}).CountryForms(); !slices.Equal(forms, []string{"fr", "fR", "Fr", "FR"}) {
		t.Errorf("CountryForms of fr = %q", forms)
	}
	for _, countries := range [][]string{{"F\xff"}, {"F\ufffd"}, {strings.Repeat("s", 8)}} {
		if forms, ok := (PanelTarget{Countries: countries}).CountryForms(); ok {
			t.Errorf("CountryForms of %q = %q, ok: want the whole panel read", countries, forms)
		}
	}
}
