package formats

import (
	"strconv"
	"strings"

	"fieldboard/rules"
)

// ProfilingColumns are the profiling ranking CSV's columns, in order; the
// API's rows (QuestionStakeJSON) use the same names.
var ProfilingColumns = []string{"questionId", "question", "country", "code", "subsamples", "remainingCompletes",
	"panelistsWithoutAnswer", "panelists", "stake", "currency", "unpricedSubsamples", "unpricedCompletes"}

// WriteProfilingCSV writes the ranking of questions to profile next, best
// first (rules.ProfilingCounter.Report), a line per question and country
// with its counts, then a line for each other currency it has money at
// stake in. Every stake is a plain number in the currency of its line:
// the first line's is the one most of the subsamples are priced in; an
// other currency's line repeats questionId, question, country and code and
// leaves the counts empty (they are the first line's), so a column's sum
// counts each question and country once and a stake is never added to
// one in another currency. subsamples are the subsample ids apart by
// spaces; stake and currency are empty when no subsample is priced, and
// unpricedSubsamples and unpricedCompletes say what part of the stake is
// unknown (no CPI, or one without a currency), never 0. The page's
// download and `fieldboard profiling` both write through it.
func WriteProfilingCSV(w *Writer, rows []rules.QuestionStake) error {
	if err := w.Write(ProfilingColumns...); err != nil {
		return err
	}
	for _, r := range rows {
		stake := ""
		if cents, known := r.Headline(); known {
			stake = rules.FormatCents(cents)
		}
		if err := w.Write(Int(r.QuestionID), r.Question, r.Country, r.Code, subsampleIDs(r.Subsamples), Int(r.RemainingCompletes),
			Int(r.PanelistsWithoutAnswer), Int(r.Panelists), stake, r.Currency,
			strconv.Itoa(r.UnpricedSubsamples), Int(r.UnpricedCompletes)); err != nil {
			return err
		}
		others := r.OtherStakes()
		for _, currency := range others.Currencies() {
			if err := w.Write(Int(r.QuestionID), r.Question, r.Country, r.Code, "", "", "", "",
				rules.FormatCents(others[currency]), currency, "", ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// subsampleIDs writes ids apart by spaces.
func subsampleIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = Int(id)
	}
	return strings.Join(parts, " ")
}

// ProfilingJSON is the profiling advice for the API: the ranking, best
// first, and the coverage of every hard table of every sendable
// subsample.
type ProfilingJSON struct {
	Questions []QuestionStakeJSON `json:"questions"`
	Coverage  []TableCoverageJSON `json:"coverage"`
}

// QuestionStakeJSON is one row of the ranking, named as the CSV's
// columns. Stake is null when no subsample is priced (with currency "");
// the unpriced counts say what part of it is unknown.
type QuestionStakeJSON struct {
	QuestionID             int64        `json:"questionId"`
	Question               string       `json:"question"`
	Country                string       `json:"country"`
	Code                   string       `json:"code"`
	Subsamples             []int64      `json:"subsamples"`
	RemainingCompletes     int64        `json:"remainingCompletes"`
	PanelistsWithoutAnswer int64        `json:"panelistsWithoutAnswer"`
	Panelists              int64        `json:"panelists"`
	Stake                  *float64     `json:"stake"`
	Currency               string       `json:"currency"`
	OtherStakes            []AmountJSON `json:"otherStakes"`
	UnpricedSubsamples     int          `json:"unpricedSubsamples"`
	UnpricedCompletes      int64        `json:"unpricedCompletes"`
}

// TableCoverageJSON is how much of the panelists it may take (those of
// its country who speak one of its languages) one hard table of one
// sendable subsample decides.
type TableCoverageJSON struct {
	SubsampleID   int64   `json:"subsampleId"`
	SubsampleName string  `json:"subsampleName"`
	Country       string  `json:"country"`
	TableID       int64   `json:"tableId"`
	TableName     string  `json:"tableName"`
	Questions     []int64 `json:"questions"`
	Panelists     int64   `json:"panelists"`
	Decided       int64   `json:"decided"`
	Undecided     int64   `json:"undecided"`
}

// Profiling shapes the advice for the API.
func Profiling(questions []rules.QuestionStake, coverage []rules.TableCoverage) ProfilingJSON {
	out := ProfilingJSON{Questions: make([]QuestionStakeJSON, len(questions)), Coverage: make([]TableCoverageJSON, len(coverage))}
	for i, r := range questions {
		q := QuestionStakeJSON{QuestionID: r.QuestionID, Question: r.Question, Country: r.Country, Code: r.Code,
			Subsamples: NonNil(r.Subsamples), RemainingCompletes: r.RemainingCompletes, PanelistsWithoutAnswer: r.PanelistsWithoutAnswer,
			Panelists: r.Panelists, Currency: r.Currency, OtherStakes: Amounts(r.OtherStakes()),
			UnpricedSubsamples: r.UnpricedSubsamples, UnpricedCompletes: r.UnpricedCompletes}
		if cents, known := r.Headline(); known {
			v := float64(cents) / 100
			q.Stake = &v
		}
		out.Questions[i] = q
	}
	for i, c := range coverage {
		out.Coverage[i] = TableCoverageJSON{SubsampleID: c.SubsampleID, SubsampleName: c.SubsampleName, Country: c.Country,
			TableID: c.TableID, TableName: c.TableName, Questions: NonNil(c.Questions), Panelists: c.Panelists, Decided: c.Decided, Undecided: c.Undecided}
	}
	return out
}
