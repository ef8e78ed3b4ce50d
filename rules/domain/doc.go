// Package domain is the vocabulary every other package of Fieldboard
// speaks: the provider's resources as its API gives them (events,
// subsamples, quotas, eligibility rules, the question library and the
// reference lists), the provider's zone-less local time, and the
// supplier's own records (respondent history, profiles, the category
// tree). It also holds the one rule every entrance applies to a panelist
// id.
//
// It imports only the standard library, and nothing of Fieldboard: the
// client, the store, the rules, the views and the handlers all import it.
package domain
