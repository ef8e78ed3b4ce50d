package checks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// ProfilingReport is the profiling advice on the current snapshot
// (rules.ProfilingReport): the ranking of questions to ask the panel
// next, best first, each with its text in its country's default locale,
// and the coverage of every hard table of every sendable subsample.
type ProfilingReport struct {
	rules.ProfilingReport
	// Countries are the countries of the sendable subsamples, sorted: the
	// choices of a country filter.
	Countries []string
}

// Of is the advice narrowed to one country (upper case, as the panel
// holds it; "" keeps every country), the ranking's order kept.
func (r ProfilingReport) Of(country string) ProfilingReport {
	if country == "" {
		return r
	}
	out := ProfilingReport{Countries: r.Countries}
	for _, q := range r.Questions {
		if q.Country == country {
			out.Questions = append(out.Questions, q)
		}
	}
	for _, c := range r.Coverage {
		if c.Country == country {
			out.Coverage = append(out.Coverage, c)
		}
	}
	return out
}

// OfSubsample is the coverage of one subsample's hard tables, in the
// provider's order (none when it is not sendable or has no hard table):
// what its page says it can decide.
func (r ProfilingReport) OfSubsample(id int64) []rules.TableCoverage {
	var out []rules.TableCoverage
	for _, c := range r.Coverage {
		if c.SubsampleID == id {
			out = append(out, c)
		}
	}
	return out
}

// Profiling applies the profiling advice (rules.ProfilingCounter) to the
// current snapshot: the sendable live subsamples of each country (the
// router's, Decisions.byCountry: the only ones that may take traffic
// now), their quota cells compiled as the send list matches them, against
// every panelist of the panel: the profiled ones with their country and
// locale and, per country and locale, those without a profile, both from
// one read of the panel (store.ScanWholePanel), decided on the provider's
// day. It is computed once per snapshot version and day (Memo) and in its
// turn (takeTurn), as a send list is: it scans every profile.
//
// A panelist counts in the country of their panel row; a profile without
// one counts nowhere, as the send list never sends it. A table's coverage
// counts only the panelists whose country and language fit its
// subsample, by the send list's own decision (Decisions.fitPanel); the
// ranking counts every panelist of the country, as a question is asked of
// the whole country's panel.
func (s *Service) Profiling(ctx context.Context) (ProfilingReport, error) {
	d, err := s.Current(ctx)
	if err != nil {
		return ProfilingReport{}, err
	}
	now := s.now()
	return Memo(d, "checks.Profiling "+now.Format("2006-01-02"), func() (ProfilingReport, error) {
		rep, err := s.profiling(ctx, d, now)
		if err != nil {
			return ProfilingReport{}, fmt.Errorf("profiling advice: %w", err)
		}
		return rep, nil
	})
}

// profiling computes the advice on d, on the day of now.
func (s *Service) profiling(ctx context.Context, d *Decisions, now time.Time) (ProfilingReport, error) {
	targets := profilingTargets(d)
	counter := rules.NewProfilingCounter(targets, now)
	codes, err := s.profilingCodes(ctx)
	if err != nil {
		return ProfilingReport{}, err
	}
	release, err := s.takeTurn(ctx)
	if err != nil {
		return ProfilingReport{}, err
	}
	unprofiled, err := s.Store.ScanWholePanel(ctx, func(_ string, m domain.PanelMember, p domain.Profile) error {
		counter.Add(m.Country, m.Locale, p)
		return nil
	})
	release()
	if err != nil {
		return ProfilingReport{}, err
	}
	for place, n := range unprofiled {
		counter.AddUnprofiled(place.Country, place.Locale, n)
	}
	rep := ProfilingReport{ProfilingReport: counter.Report(codes)}
	if err := s.questionTexts(ctx, d, rep.Questions); err != nil {
		return ProfilingReport{}, err
	}
	for country := range d.byCountry {
		rep.Countries = append(rep.Countries, country)
	}
	slices.Sort(rep.Countries)
	return rep, nil
}

// profilingTargets are the sendable live subsamples of d, one per
// country they are fielded in, in the router's order within a country,
// each fitting panelists by country and language as the send list does
// (Decisions.fitPanel).
func profilingTargets(d *Decisions) []rules.ProfilingTarget {
	var out []rules.ProfilingTarget
	for country, places := range d.byCountry {
		for _, i := range places {
			t := &d.targets[i]
			if t.quotasUnread != "" {
				continue // never sendable: sendability reads the quotas first
			}
			r := t.report
			room, known := rules.TotalRoom(d.quotasOf(r.SubsampleID))
			price := rules.Price{Currency: r.Currency}
			if r.CPI != nil {
				price.CPI, price.Known = *r.CPI, true
			}
			out = append(out, rules.ProfilingTarget{SubsampleID: r.SubsampleID, Name: r.Name, Country: country,
				Cells: &t.cells, Total: room, TotalKnown: known, Price: price,
				Fit: func(m domain.PanelMember) rules.PanelFit { return d.fitPanel(t, m) }})
		}
	}
	return out
}

// questionTexts gives each row of the ranking its question's text in its
// country's default locale (the translation, else the text), "" when the
// stored library of that locale does not hold it.
func (s *Service) questionTexts(ctx context.Context, d *Decisions, rows []rules.QuestionStake) error {
	byLocale := map[string]map[int64]string{}
	for i := range rows {
		locale := d.defaultLocales[rows[i].Country]
		if locale == "" {
			continue
		}
		texts, ok := byLocale[locale]
		if !ok {
			questions, err := s.Store.Questions(ctx, locale)
			if err != nil {
				return err
			}
			texts = make(map[int64]string, len(questions))
			for _, q := range questions {
				texts[q.ID] = rules.QuestionText(q)
			}
			byLocale[locale] = texts
		}
		rows[i].Question = texts[rows[i].QuestionID]
	}
	return nil
}
