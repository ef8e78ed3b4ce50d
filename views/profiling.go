package views

import (
	"strconv"
	"strings"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// ProfilingView is the /profiling page: what to ask the panel next.
type ProfilingView struct {
	Page
	// Country is the country filter as typed ("" for every country),
	// Countries its choices: those of the sendable subsamples.
	Country   string
	Countries []string
	// Questions are the ranking, best first; Coverage one page of the
	// hard tables of the sendable subsamples, by country and subsample:
	// page CoveragePageNo of CoveragePages, CoverageTotal tables in all,
	// CoveragePrev and CoverageNext linking to its neighbours ("" at
	// either end).
	Questions                     []rules.QuestionStake
	Coverage                      []rules.TableCoverage
	CoverageTotal                 int
	CoveragePageNo, CoveragePages int
	CoveragePrev, CoverageNext    string
	CSVHref                       string
	// Mapping is the section on the supplier's own codes and their
	// mapping to the provider's ids, below the ranking and the coverage.
	Mapping MappingView
}

// Grouped writes a count with thousands apart by commas: 18,204.
func Grouped[T ~int | ~int64](v T) string {
	s := strconv.FormatInt(int64(v), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// stakeText is a question's money at stake: the headline currency's
// amount, then each other currency's, never added together, then the
// completes whose price is unknown, said as such, never as 0; "–" when
// nothing remains.
func stakeText(q rules.QuestionStake) string {
	var parts []string
	if cents, known := q.Headline(); known {
		parts = append(parts, rules.FormatCents(cents)+" "+q.Currency)
	}
	if others := q.OtherStakes().String(); others != "" {
		parts = append(parts, others)
	}
	if q.UnpricedCompletes > 0 || q.UnpricedSubsamples > 0 {
		parts = append(parts, "unknown ("+plural(int(q.UnpricedCompletes), "complete")+" without a CPI)")
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, " + ")
}

// questionLabel names a question of the ranking: its text, else its id.
func questionLabel(q rules.QuestionStake) string {
	if q.Question != "" {
		return q.Question
	}
	if q.QuestionID == -1 {
		return "Age (from the birth date)"
	}
	return "Question " + Itoa(q.QuestionID)
}

// idList writes subsample ids apart by commas.
func idList(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = Itoa(id)
	}
	return strings.Join(parts, ", ")
}

// coverageText says how many of the panelists the subsample may take a
// table decides: "decides 18,204 of 20,355 panelists of FR who speak its
// languages".
func coverageText(c rules.TableCoverage) string {
	return "decides " + Grouped(c.Decided) + " of " + Grouped(c.Panelists) + " panelists of " + c.Country + " who speak its languages"
}

// tableLabel names a quota table: its name, else its id.
func tableLabel(c rules.TableCoverage) string {
	if c.TableName != "" {
		return c.TableName
	}
	return "Table " + Itoa(c.TableID)
}

// countrySuffix is " in FR" for a country filter, "" without one.
func countrySuffix(country string) string {
	if country == "" {
		return ""
	}
	return " in " + country
}

// questionRef names a mapping group's provider question and the locale
// its words are in: "(96, fr-fr)", or "(96)" without words.
func questionRef(g checks.MappingGroup) string {
	if g.Locale == "" {
		return "(" + strconv.FormatInt(g.QuestionID, 10) + ")"
	}
	return "(" + strconv.FormatInt(g.QuestionID, 10) + ", " + g.Locale + ")"
}
