package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"fieldboard/rules/domain"
)

// NoCountry is why a panelist without a country on file is never sent.
const NoCountry = "No country on file: a panelist is only sent to subsamples of their own country."

// PanelTarget is where a subsample takes panelists from: the countries
// live-details lists for it (upper case) and its locales (lower case), in
// the provider's order, each with whether its live entry link is usable.
type PanelTarget struct {
	Countries []string
	Locales   []PanelLocale
}

// PanelLocale is one locale of a subsample.
type PanelLocale struct {
	Code string
	// Usable is false when the locale's live entry link is missing or was
	// refused (rules.EntryLink): nobody can be sent through it.
	Usable bool
	// Problem is what is wrong with an unusable link, when known
	// (rules.EntryLink, EntryURLs.Under): the reason says it.
	Problem string
}

// PanelFit says whether a panelist's country and language let them be
// sent to a subsample, and through which locale's entry link.
type PanelFit struct {
	Fits   bool
	Locale string // the locale whose entry link the panelist gets; "" when they do not fit
	Reason string // why not, a sentence; "" when they fit
	// Misfit is the kind of Reason, one of the Misfit constants; "" when
	// they fit. Pages group the subsamples a panelist misses by it.
	Misfit string
}

// The kinds of PanelFit.Reason.
const (
	MisfitNoCountry          = "no_country"           // the panelist has no country on file
	MisfitNoSubsampleCountry = "no_subsample_country" // the subsample lists no country
	MisfitCountry            = "country"              // the subsample is fielded in other countries
	MisfitLanguage           = "language"             // the subsample is in other languages
	MisfitNoLocale           = "no_locale"            // the subsample has no locale of the panelist's country
	MisfitLink               = "link"                 // the chosen locale's live entry link is not usable
)

// FitPanel decides whether panelist m may be sent to a subsample for
// their country and language. A panelist belongs to one country and
// speaks one language, as on every marketplace:
//
//   - with no country on file, never (NoCountry);
//   - only to a subsample whose countries hold theirs;
//   - when their locale is known, only to a subsample that has it, through
//     its entry link;
//   - when it is not, through the entry link of their country's default
//     locale (countryDefault, from the provider's locales list) when the
//     subsample has it, else of the subsample's first locale of their
//     country;
//   - and only when that locale's live entry link is usable.
func FitPanel(m domain.PanelMember, t PanelTarget, countryDefault string) PanelFit {
	if m.Country == "" {
		return PanelFit{Reason: NoCountry, Misfit: MisfitNoCountry}
	}
	if !containsFold(t.Countries, m.Country) {
		if len(t.Countries) == 0 {
			return PanelFit{Reason: "The subsample lists no country, so no panelist's country can be checked.", Misfit: MisfitNoSubsampleCountry}
		}
		return PanelFit{Reason: "The panelist lives in " + m.Country + "; this subsample is fielded in " + strings.Join(t.Countries, ", ") + ".", Misfit: MisfitCountry}
	}
	chosen := -1
	switch {
	case m.Locale != "":
		chosen = localeIndex(t.Locales, m.Locale)
		if chosen < 0 {
			return PanelFit{Reason: "The panelist answers in " + m.Locale + "; this subsample is in " + localeCodes(t.Locales) + ".", Misfit: MisfitLanguage}
		}
	default:
		if countryDefault != "" {
			chosen = localeIndex(t.Locales, countryDefault)
		}
		for i := 0; chosen < 0 && i < len(t.Locales); i++ {
			if domain.LocaleCountry(t.Locales[i].Code) == m.Country {
				chosen = i
			}
		}
		if chosen < 0 {
			return PanelFit{Reason: "This subsample has no locale of " + m.Country + " to send the panelist to.", Misfit: MisfitNoLocale}
		}
	}
	l := t.Locales[chosen]
	if !l.Usable {
		why := ""
		if p := strings.TrimSpace(l.Problem); p != "" {
			why = " (" + strings.TrimSuffix(p, ".") + ")"
		}
		return PanelFit{Reason: "The live entry link of " + l.Code + " is not usable" + why + ", so the panelist cannot be sent.", Misfit: MisfitLink}
	}
	return PanelFit{Fits: true, Locale: l.Code}
}

func localeIndex(locales []PanelLocale, code string) int {
	for i, l := range locales {
		if strings.EqualFold(l.Code, code) {
			return i
		}
	}
	return -1
}

func localeCodes(locales []PanelLocale) string {
	if len(locales) == 0 {
		return "no locale"
	}
	codes := make([]string, len(locales))
	for i, l := range locales {
		codes[i] = l.Code
	}
	return strings.Join(codes, ", ")
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// maxCountryForms bounds CountryForms: past it, a read of the panel is
// not narrowed at all.
const maxCountryForms = 64

// CountryForms returns every text a panelist's country can be stored as
// and still be one of t's countries for FitPanel, each once: FitPanel
// compares countries by strings.EqualFold, so each country is given in
// every form EqualFold takes for it, rune by rune through its fold
// orbit (unicode.SimpleFold): "FR" gives "FR", "Fr", "fR" and "fr"; a K
// the Kelvin sign too. A panelist whose country is none of them never
// fits (FitPanel), nor does one without a country: a read of the panel
// for a send list may keep only the rows of these countries, byte for
// byte, and still lose nobody FitPanel would send. It only narrows the
// read: FitPanel still decides every row.
//
// ok is false when the countries cannot be given so (a country that is
// not valid UTF-8 or holds U+FFFD, which EqualFold reads invalid bytes
// as, or more than maxCountryForms forms in all): then the whole panel
// must be read. With no country, forms is empty and ok true: nobody fits.
func (t PanelTarget) CountryForms() (forms []string, ok bool) {
	seen := map[string]bool{}
	for _, c := range t.Countries {
		if c == "" {
			continue // FitPanel sends no panelist without a country
		}
		if !utf8.ValidString(c) || strings.ContainsRune(c, utf8.RuneError) {
			return nil, false
		}
		variants := []string{""}
		for _, r := range c {
			orbit := []rune{r}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				orbit = append(orbit, f)
			}
			if len(variants)*len(orbit) > maxCountryForms {
				return nil, false
			}
			next := make([]string, 0, len(variants)*len(orbit))
			for _, v := range variants {
				for _, o := range orbit {
					next = append(next, v+string(o))
				}
			}
			variants = next
		}
		for _, v := range variants {
			if !seen[v] {
				seen[v] = true
				forms = append(forms, v)
			}
		}
		if len(forms) > maxCountryForms {
			return nil, false
		}
	}
	if forms == nil {
		forms = []string{}
	}
	return forms, true
}
