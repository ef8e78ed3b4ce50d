package sim

import "strings"

// Reference data: the countries, locales and survey statuses the provider
// knows. They are fixed tables; only the question library and the subsamples
// depend on the seed.

// country is one market with what the simulator needs to fill subsamples
// there: its invoicing currency, its panel regions (the answers of the
// Regional question) and the provider entity that bills it.
type country struct {
	ID         int64  `json:"id"`
	Code       string `json:"code"`
	Name       string `json:"name"`
	RegionName string `json:"regionName"`

	currency string
	entity   string
	regions  []string
	weight   int // relative share of subsamples fielded in the country
}

// countries are in the order of the countries endpoint. Ids are ISO 3166
// numeric codes; regionName is empty where the provider leaves it empty.
func countries() []*country {
	return []*country{
		{ID: 840, Code: "US", Name: "United States", RegionName: "North America", currency: "USD", entity: "Meridian Field Services Inc.", weight: 30,
			regions: []string{"Northeast", "Midwest", "South", "West"}},
		{ID: 826, Code: "GB", Name: "United Kingdom", RegionName: "Europe", currency: "GBP", entity: "Meridian Field Services Ltd", weight: 14,
			regions: []string{"North East", "North West", "Yorkshire and the Humber", "East Midlands", "West Midlands", "East of England", "London", "South East", "South West", "Wales", "Scotland", "Northern Ireland"}},
		{ID: 276, Code: "DE", Name: "Germany", RegionName: "Europe", currency: "EUR", entity: "Meridian Field Services GmbH", weight: 11,
			regions: []string{"Baden-Württemberg", "Bayern", "Berlin", "Brandenburg", "Bremen", "Hamburg", "Hessen", "Mecklenburg-Vorpommern", "Niedersachsen", "Nordrhein-Westfalen", "Rheinland-Pfalz", "Saarland", "Sachsen", "Sachsen-Anhalt", "Schleswig-Holstein", "Thüringen"}},
		{ID: 250, Code: "FR", Name: "France", RegionName: "Europe", currency: "EUR", entity: "Meridian Field Services SAS", weight: 9,
			regions: []string{"Île-de-France", "Nord-Ouest", "Nord-Est", "Centre-Est", "Sud-Ouest", "Sud-Est", "Méditerranée"}},
		{ID: 724, Code: "ES", Name: "Spain", RegionName: "Europe", currency: "EUR", entity: "Meridian Field Services S.L.", weight: 6,
			regions: []string{"Área Metropolitana de Madrid", "Área Metropolitana de Barcelona", "Nordeste", "Levante", "Sur", "Centro", "Noroeste", "Norte", "Canarias"}},
		{ID: 380, Code: "IT", Name: "Italy", RegionName: "Europe", currency: "EUR", entity: "Meridian Field Services S.r.l.", weight: 6,
			regions: []string{"Nord-Ovest", "Nord-Est", "Centro", "Sud", "Isole"}},
		{ID: 528, Code: "NL", Name: "Netherlands", RegionName: "", currency: "EUR", entity: "Meridian Field Services B.V.", weight: 4,
			regions: []string{"Noord", "Oost", "Zuid", "West", "Drie grote steden"}},
		{ID: 124, Code: "CA", Name: "Canada", RegionName: "North America", currency: "CAD", entity: "Meridian Field Services Inc.", weight: 6,
			regions: []string{"Atlantic", "Quebec", "Ontario", "Prairies", "British Columbia", "Territories"}},
		{ID: 36, Code: "AU", Name: "Australia", RegionName: "APAC", currency: "AUD", entity: "Meridian Field Services Pty Ltd", weight: 5,
			regions: []string{"New South Wales", "Victoria", "Queensland", "South Australia", "Western Australia", "Tasmania", "Australian Capital Territory", "Northern Territory"}},
		{ID: 76, Code: "BR", Name: "Brazil", RegionName: "LATAM", currency: "BRL", entity: "Meridian Field Services Ltda.", weight: 4,
			regions: []string{"Norte", "Nordeste", "Centro-Oeste", "Sudeste", "Sul"}},
		{ID: 484, Code: "MX", Name: "Mexico", RegionName: "LATAM", currency: "MXN", entity: "Meridian Field Services S.A. de C.V.", weight: 4,
			regions: []string{"Noroeste", "Noreste", "Occidente", "Centro", "Ciudad de México", "Sureste"}},
		{ID: 392, Code: "JP", Name: "Japan", RegionName: "APAC", currency: "USD", entity: "", weight: 5,
			regions: []string{"Hokkaido", "Tohoku", "Kanto", "Chubu", "Kansai", "Chugoku", "Shikoku", "Kyushu-Okinawa"}},
		{ID: 56, Code: "BE", Name: "Belgium", RegionName: "", currency: "EUR", entity: "Meridian Field Services B.V.", weight: 2,
			regions: []string{"Brussels", "Flanders", "Wallonia"}},
		{ID: 756, Code: "CH", Name: "Switzerland", RegionName: "Europe", currency: "CHF", entity: "Meridian Field Services GmbH", weight: 2,
			regions: []string{"Deutschschweiz", "Romandie", "Ticino"}},
		{ID: 752, Code: "SE", Name: "Sweden", RegionName: "Nordics", currency: "SEK", entity: "", weight: 2,
			regions: []string{"Norrland", "Svealand", "Götaland"}},
		{ID: 356, Code: "IN", Name: "India", RegionName: "APAC", currency: "USD", entity: "", weight: 3,
			regions: []string{"North", "South", "East", "West", "Central", "North-East"}},
		{ID: 616, Code: "PL", Name: "Poland", RegionName: "", currency: "PLN", entity: "", weight: 2,
			regions: []string{"Centralny", "Południowy", "Wschodni", "Północno-Zachodni", "Południowo-Zachodni", "Północny"}},
		{ID: 40, Code: "AT", Name: "Austria", RegionName: "Europe", currency: "EUR", entity: "Meridian Field Services GmbH", weight: 2,
			regions: []string{"Ostösterreich", "Südösterreich", "Westösterreich"}},
		{ID: 410, Code: "KR", Name: "South Korea", RegionName: "APAC", currency: "USD", entity: "", weight: 2,
			regions: []string{"Seoul", "Gyeonggi", "Gangwon", "Chungcheong", "Jeolla", "Gyeongsang", "Jeju"}},
		{ID: 372, Code: "IE", Name: "Ireland", RegionName: "", currency: "EUR", entity: "Meridian Field Services Ltd", weight: 2,
			regions: []string{"Dublin", "Rest of Leinster", "Munster", "Connacht/Ulster"}},
	}
}

// locale is an element of the locales endpoint plus its language, which
// picks the translations of the question library.
type locale struct {
	ID              int64  `json:"id"`
	CountryID       int64  `json:"countryId"`
	Name            string `json:"name"`
	NameTranslation string `json:"nameTranslation"`
	Locale          string `json:"locale"`
	ShortLocale     string `json:"shortLocale"`
	CountryDefault  bool   `json:"countryDefault"`
	CountryName     string `json:"countryName"`
	CountryCode     string `json:"countryCode"`
	RegionName      string `json:"regionName"`

	country *country
}

// localeSpec is one row of the locale table before it is joined to its
// country.
type localeSpec struct {
	code, name, native string
}

// localeTable lists the locales in the order Options.Locales counts them:
// the first N have a question library and are the ones subsamples use. The
// first locale of a country is its default.
func localeTable() []localeSpec {
	return []localeSpec{
		{"en-us", "English (United States)", "English (United States)"},
		{"es-us", "Spanish (United States)", "Español (Estados Unidos)"},
		{"en-gb", "English (United Kingdom)", "English (United Kingdom)"},
		{"de-de", "German (Germany)", "Deutsch (Deutschland)"},
		{"fr-fr", "French (France)", "Français (France)"},
		{"es-es", "Spanish (Spain)", "Español (España)"},
		{"it-it", "Italian (Italy)", "Italiano (Italia)"},
		{"nl-nl", "Dutch (Netherlands)", ""},
		{"en-ca", "English (Canada)", "English (Canada)"},
		{"fr-ca", "French (Canada)", "Français (Canada)"},
		{"en-au", "English (Australia)", ""},
		{"pt-br", "Portuguese (Brazil)", "Português (Brasil)"},
		{"es-mx", "Spanish (Mexico)", "Español (México)"},
		{"ja-jp", "Japanese (Japan)", "日本語 (日本)"},
		{"nl-be", "Dutch (Belgium)", "Nederlands (België)"},
		{"fr-be", "French (Belgium)", ""},
		{"de-ch", "German (Switzerland)", "Deutsch (Schweiz)"},
		{"fr-ch", "French (Switzerland)", "Français (Suisse)"},
		{"sv-se", "Swedish (Sweden)", "Svenska (Sverige)"},
		{"en-in", "English (India)", ""},
		{"pl-pl", "Polish (Poland)", "Polski (Polska)"},
		{"de-at", "German (Austria)", "Deutsch (Österreich)"},
		{"ko-kr", "Korean (South Korea)", "한국어 (대한민국)"},
		{"en-ie", "English (Ireland)", "English (Ireland)"},
	}
}

// MaxLocales is the number of locales the simulator knows (the length of
// localeTable); Options.Locales is capped to it.
const MaxLocales = 24

// buildLocales joins the locale table to the countries. Locale ids are the
// provider's own small integers, not contiguous.
func buildLocales(cs []*country) []*locale {
	byCode := make(map[string]*country, len(cs))
	for _, c := range cs {
		byCode[c.Code] = c
	}
	seen := make(map[string]bool)
	table := localeTable()
	ls := make([]*locale, 0, len(table))
	for i, spec := range table {
		lang, cc := spec.code[:2], spec.code[3:]
		c := byCode[strings.ToUpper(cc)]
		ls = append(ls, &locale{
			ID:              int64(1 + 3*i + i%2),
			CountryID:       c.ID,
			Name:            spec.name,
			NameTranslation: spec.native,
			Locale:          spec.code,
			ShortLocale:     lang,
			CountryDefault:  !seen[c.Code],
			CountryName:     c.Name,
			CountryCode:     cc,
			RegionName:      c.RegionName,
			country:         c,
		})
		seen[c.Code] = true
	}
	return ls
}

// language is the locale's language code, which selects translations.
func (l *locale) language() string { return l.ShortLocale }

// surveyStatus is an element of the survey-statuses endpoint.
type surveyStatus struct {
	ID         int64  `json:"id"`
	StatusName string `json:"statusName"`
}

// surveyStatuses is the provider's list, with its quirk: status 6 is spelled
// in lower case here and "Live for testing" everywhere else.
func surveyStatuses() []surveyStatus {
	return []surveyStatus{
		{1, "Pending"},
		{2, "Pending(do not use)"},
		{3, "Live"},
		{4, "Complete"},
		{5, "Canceled"},
		{6, "live for testing"},
	}
}
