package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"fieldboard/rules/domain"
)

// Reference is one refresh of the reference dataset.
type Reference struct {
	Run
	Countries []domain.Country
	Locales   []domain.Locale
	Statuses  []domain.SurveyStatus
}

// SaveReference replaces countries, locales and survey statuses in one
// transaction.
func (s *Store) SaveReference(ctx context.Context, ref Reference) error {
	err := s.writeTx(ctx, func(tx *sqlx.Tx) error {
		runID, err := insertRun(ctx, tx, ref.Run, true, "", "")
		if err != nil {
			return err
		}
		for _, table := range []string{"countries", "locales", "survey_statuses"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
				return err
			}
		}
		for _, c := range ref.Countries {
			if _, err := tx.ExecContext(ctx, `INSERT INTO countries (country_id, code, name, region) VALUES (?, ?, ?, ?)
				ON CONFLICT (country_id) DO UPDATE SET code = excluded.code, name = excluded.name, region = excluded.region`,
				c.ID, c.Code, c.Name, c.RegionName); err != nil {
				return fmt.Errorf("country %d: %w", c.ID, err)
			}
		}
		for _, l := range ref.Locales {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO locales (locale_id, country_id, name, name_translation, locale, short_locale,
					country_default, country_name, country_code, region)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (locale_id) DO UPDATE SET country_id = excluded.country_id, name = excluded.name,
					name_translation = excluded.name_translation, locale = excluded.locale, short_locale = excluded.short_locale,
					country_default = excluded.country_default, country_name = excluded.country_name,
					country_code = excluded.country_code, region = excluded.region`,
				l.ID, l.CountryID, l.Name, l.NameTranslation, l.Locale, l.ShortLocale,
				l.CountryDefault, l.CountryName, l.CountryCode, l.RegionName); err != nil {
				return fmt.Errorf("locale %d: %w", l.ID, err)
			}
		}
		for _, st := range ref.Statuses {
			if _, err := tx.ExecContext(ctx, `INSERT INTO survey_statuses (status_id, name) VALUES (?, ?)
				ON CONFLICT (status_id) DO UPDATE SET name = excluded.name`,
				st.ID, st.StatusName); err != nil {
				return fmt.Errorf("status %d: %w", st.ID, err)
			}
		}
		return markCurrent(ctx, tx, ref.Dataset, runID, ref.FinishedAt)
	})
	if err != nil {
		return fmt.Errorf("save reference data: %w", err)
	}
	return nil
}

// Countries returns the provider's countries by name.
func (s *Store) Countries(ctx context.Context) ([]domain.Country, error) {
	var out []domain.Country
	err := s.reader.SelectContext(ctx, &out, `
		SELECT country_id AS id, code, name, region AS regionname FROM countries ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("countries: %w", err)
	}
	return out, nil
}

// Locales returns the provider's locales by locale code.
func (s *Store) Locales(ctx context.Context) ([]domain.Locale, error) {
	var out []domain.Locale
	err := s.reader.SelectContext(ctx, &out, `
		SELECT locale_id AS id, country_id AS countryid, name, name_translation AS nametranslation, locale,
			short_locale AS shortlocale, country_default AS countrydefault, country_name AS countryname,
			country_code AS countrycode, region AS regionname
		FROM locales ORDER BY locale`)
	if err != nil {
		return nil, fmt.Errorf("locales: %w", err)
	}
	return out, nil
}

// SurveyStatuses returns the subsample statuses by id.
func (s *Store) SurveyStatuses(ctx context.Context) ([]domain.SurveyStatus, error) {
	var out []domain.SurveyStatus
	err := s.reader.SelectContext(ctx, &out, `SELECT status_id AS id, name AS statusname FROM survey_statuses ORDER BY status_id`)
	if err != nil {
		return nil, fmt.Errorf("survey statuses: %w", err)
	}
	return out, nil
}
