package domain

import (
	"errors"
	"fmt"
	"strings"
)

// PanelMember is where one panelist of the supplier's panel belongs: the
// country they live in, the only one they may be sent to, and the locale
// they answer in, when known. Every marketplace binds a respondent to a
// country and a language.
type PanelMember struct {
	PanelistID string `json:"panelistId"`
	// Country is the ISO 3166-1 alpha-2 code, upper case ("FR"); empty
	// when the supplier has none on file.
	Country string `json:"country"`
	// Locale is the provider's language-country form, lower case
	// ("fr-ca"); empty when not known.
	Locale string `json:"locale"`
}

// ParseCountry reads a country code: two ASCII letters, any case,
// returned in upper case ("fr" is "FR").
func ParseCountry(raw string) (string, error) {
	c := strings.TrimSpace(raw)
	if len(c) != 2 || !isLetter(c[0]) || !isLetter(c[1]) {
		if c == "" {
			return "", errors.New("is empty")
		}
		return "", fmt.Errorf("%s is not a two-letter country code such as FR", Clip(fmt.Sprintf("%q", c), 40))
	}
	return strings.ToUpper(c), nil
}

// ParseLocale reads a locale in the provider's language-country form: a
// language of two or three ASCII letters, a dash (or an underscore) and a
// two-letter country, any case, returned in lower case with a dash
// ("fr_CA" is "fr-ca"). Empty is empty: not known.
func ParseLocale(raw string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(raw))
	if l == "" {
		return "", nil
	}
	l = strings.Replace(l, "_", "-", 1)
	lang, country, ok := strings.Cut(l, "-")
	if !ok || len(lang) < 2 || len(lang) > 3 || len(country) != 2 || !letters(lang) || !letters(country) {
		return "", fmt.Errorf("%s is not a locale in the language-country form such as fr-ca", Clip(fmt.Sprintf("%q", strings.TrimSpace(raw)), 40))
	}
	return l, nil
}

// LocaleCountry is the country of a locale in the language-country form,
// in upper case ("fr-ca" is "CA"); "" when it has none.
func LocaleCountry(locale string) string {
	_, country, ok := strings.Cut(locale, "-")
	if !ok {
		_, country, ok = strings.Cut(locale, "_")
	}
	if !ok {
		return ""
	}
	return strings.ToUpper(strings.TrimSpace(country))
}

// ParsePanelMember validates one line of the panel file: a panelist id
// (ParsePanelistID), a country (ParseCountry) and a locale (ParseLocale),
// the locale's country being the panelist's. It returns every problem, as
// sentences that name the field.
func ParsePanelMember(panelistID, country, locale string) (PanelMember, []string) {
	var m PanelMember
	var problems []string
	var err error
	if m.PanelistID, err = ParsePanelistID(panelistID); err != nil {
		problems = append(problems, "panelistId "+err.Error())
	}
	if m.Country, err = ParseCountry(country); err != nil {
		problems = append(problems, "country "+err.Error())
	}
	if m.Locale, err = ParseLocale(locale); err != nil {
		problems = append(problems, "locale "+err.Error())
	} else if m.Locale != "" && m.Country != "" && LocaleCountry(m.Locale) != m.Country {
		problems = append(problems, fmt.Sprintf("locale %s is of country %s, not of the panelist's %s", m.Locale, LocaleCountry(m.Locale), m.Country))
	}
	return m, problems
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}
