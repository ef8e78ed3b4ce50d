package formats

import "fieldboard/rules/domain"

// WriteCountriesCSV writes the provider's countries
// (/reference/countries.csv), in the order given.
func WriteCountriesCSV(w *Writer, countries []domain.Country) error {
	if err := w.Write("id", "code", "name", "region"); err != nil {
		return err
	}
	for _, c := range countries {
		if err := w.Write(Int(c.ID), c.Code, c.Name, c.RegionName); err != nil {
			return err
		}
	}
	return nil
}

// WriteLocalesCSV writes the provider's locales (/reference/locales.csv);
// countryDefault is "default" for its country's default locale, else
// empty.
func WriteLocalesCSV(w *Writer, locales []domain.Locale) error {
	if err := w.Write("id", "locale", "name", "translation", "countryCode", "countryName", "countryDefault"); err != nil {
		return err
	}
	for _, l := range locales {
		countryDefault := ""
		if l.CountryDefault {
			countryDefault = "default"
		}
		if err := w.Write(Int(l.ID), l.Locale, l.Name, l.NameTranslation, l.CountryCode, l.CountryName, countryDefault); err != nil {
			return err
		}
	}
	return nil
}

// WriteStatusesCSV writes the provider's subsample statuses
// (/reference/statuses.csv).
func WriteStatusesCSV(w *Writer, statuses []domain.SurveyStatus) error {
	if err := w.Write("id", "name"); err != nil {
		return err
	}
	for _, s := range statuses {
		if err := w.Write(Int(s.ID), s.StatusName); err != nil {
			return err
		}
	}
	return nil
}
