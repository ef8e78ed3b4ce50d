package domain_test

import (
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

func TestParsePanelMember(t *testing.T) {
	tests := []struct {
		name                string
		id, country, locale string
		want                domain.PanelMember
		problem             string // in the problems, "" for none
	}{
		{"country any case, locale any case, _ for -", " P1 ", "fr", "FR_ca", domain.PanelMember{}, "locale fr-ca is of country CA, not of the panelist's FR"},
		{"a locale of the panelist's country", "P1", "ca", "FR_ca", domain.PanelMember{PanelistID: "P1", Country: "CA", Locale: "fr-ca"}, ""},
		{"the locale may be empty", "P2", "DE", "", domain.PanelMember{PanelistID: "P2", Country: "DE"}, ""},
		{"a three-letter language", "P3", "PH", "fil-ph", domain.PanelMember{PanelistID: "P3", Country: "PH", Locale: "fil-ph"}, ""},
		{"country: ISO 3166-1 alpha-2", "P4", "FRA", "", domain.PanelMember{}, `country "FRA" is not a two-letter country code`},
		{"country is required", "P5", " ", "en-us", domain.PanelMember{}, "country is empty"},
		{"a locale is language-country", "P6", "US", "english", domain.PanelMember{}, `locale "english" is not a locale`},
		{"the panelist id follows the one rule", "", "US", "en-us", domain.PanelMember{}, "panelistId is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := domain.ParsePanelMember(tt.id, tt.country, tt.locale)
			joined := strings.Join(problems, "; ")
			switch {
			case tt.problem == "" && len(problems) > 0:
				t.Fatalf("problems %q, want none", joined)
			case tt.problem != "" && !strings.Contains(joined, tt.problem):
				t.Fatalf("problems %q, want one saying %q", joined, tt.problem)
			case tt.problem == "" && got != tt.want:
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
