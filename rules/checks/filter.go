package checks

import (
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/domain"
)

// SubsampleFilter narrows Subsamples; empty fields match everything.
type SubsampleFilter struct {
	Status      string // canonical status name (domain.ParseStatus)
	Sendability rules.State
	Country     string // country code, any case
}

// ParseSubsampleFilter reads the status, sendability and country filters
// of the API and the command line: a status or a state that is not one of
// the known ones is an error that lists them.
func ParseSubsampleFilter(status, sendability, country string) (SubsampleFilter, error) {
	f := SubsampleFilter{Country: strings.TrimSpace(country)}
	var err error
	if strings.TrimSpace(status) != "" {
		if f.Status, err = domain.ParseStatus(status); err != nil {
			return f, err
		}
	}
	if strings.TrimSpace(sendability) != "" {
		if f.Sendability, err = rules.ParseState(sendability); err != nil {
			return f, err
		}
	}
	return f, nil
}

// Keeps reports whether r passes the filter.
func (f SubsampleFilter) Keeps(r SubsampleReport) bool {
	return (f.Status == "" || r.Status == f.Status) &&
		(f.Country == "" || strings.EqualFold(r.CountryCode, f.Country)) &&
		(f.Sendability == "" || r.Verdict.State == f.Sendability)
}
