package views

import (
	"strings"

	"fieldboard/rules"
)

// The prefixes of a SurveyCheck's Kind: what first keeps the panelist out
// of a subsample now. The rest of the kind is a rules.PanelFit Misfit, a
// rules.State, a rules.Exclusion Kind or a rules.QuotaVerdict.
const (
	KindPanel       = "panel:"
	KindState       = "state:"
	KindRulesUnread = "rules"
	KindExcluded    = "excluded:"
	KindQuota       = "quota:"
)

// NotNowGroup is the subsamples of one Kind under "Not now", in the
// check's order: one alone is shown as a row, several as one row that
// expands.
type NotNowGroup struct {
	Kind string
	Rows []SurveyCheck
}

// Summary says in a few words what the group's subsamples share: "89
// subsamples in other countries".
func (g NotNowGroup) Summary() string {
	n := Itoa(len(g.Rows)) + " subsamples "
	if len(g.Rows) == 1 { // a group of one shows as its row; said anyway
		n = "1 subsample "
	}
	kind, rest, _ := strings.Cut(g.Kind, ":")
	switch kind + ":" {
	case KindPanel:
		switch rest {
		case rules.MisfitCountry:
			return n + "in other countries"
		case rules.MisfitLanguage:
			return n + "in other languages"
		case rules.MisfitNoLocale:
			return n + "with no locale of the panelist's country"
		case rules.MisfitLink:
			return n + "whose entry link for the panelist is not usable"
		case rules.MisfitNoSubsampleCountry:
			return n + "that list no country"
		case rules.MisfitNoCountry:
			return n + "closed to a panelist with no country on file"
		}
		return n + "the panelist's country or language rules out"
	case KindState:
		switch rules.State(rest) {
		case rules.Paused:
			return n + "paused"
		case rules.NotSendable:
			return n + "not sendable"
		case rules.Testing:
			return n + "live for testing only"
		}
		return n + "whose sendability is unknown"
	case KindExcluded:
		switch rest {
		case rules.KindUniqueEvent:
			return n + "of events the panelist already took part in"
		case rules.KindQualityHold:
			return n + "closed while the panelist is held for quality"
		}
		return n + "the panelist's history excludes"
	case KindQuota:
		switch rules.QuotaVerdict(rest) {
		case rules.QuotaFull:
			return n + "whose quota for the panelist is full"
		case rules.QuotaOffTarget:
			return n + "whose quotas do not target the panelist"
		}
		return n + "whose quotas cannot place the panelist"
	}
	return n + "whose eligibility rules could not be read"
}

// GroupNotNow groups the subsamples a panelist may not enter now by Kind,
// in the order each kind first appears: only how they are shown changes,
// every subsample stays, in its group in the check's order.
func GroupNotNow(others []SurveyCheck) []NotNowGroup {
	var out []NotNowGroup
	at := map[string]int{}
	for _, s := range others {
		i, ok := at[s.Kind]
		if !ok {
			i = len(out)
			at[s.Kind] = i
			out = append(out, NotNowGroup{Kind: s.Kind})
		}
		out[i].Rows = append(out[i].Rows, s)
	}
	return out
}
