package formats

import (
	"encoding/json"
	"strings"
	"testing"

	"fieldboard/rules"
)

// TestProfilingShapes: the CSV and the JSON name the same fields; money in
// another currency stays apart from the headline's, on a line of its own
// whose stake is a number and whose counts are empty (so a column's sum
// counts each question once), and a stake no subsample's CPI gives is
// empty (null), never 0.
func TestProfilingShapes(t *testing.T) {
	rows := []rules.QuestionStake{
		{QuestionID: -1, Question: "Age", Country: "FR", Subsamples: []int64{1, 4}, RemainingCompletes: 45, PanelistsWithoutAnswer: 3, Panelists: 6,
			Stake: rules.Money{"EUR": 6250, "USD": 3000, "GBP": 400}, Currency: "EUR", UnpricedSubsamples: 1, UnpricedCompletes: 20},
		{QuestionID: 12, Question: "=Gender", Country: "DE", Code: "gender", Subsamples: []int64{5}, RemainingCompletes: 9, PanelistsWithoutAnswer: 2, Panelists: 3,
			Stake: rules.Money{}, UnpricedSubsamples: 1, UnpricedCompletes: 9},
	}
	var b strings.Builder
	w := NewWriter(&b)
	if err := WriteProfilingCSV(w, rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "questionId,question,country,code,subsamples,remainingCompletes,panelistsWithoutAnswer,panelists,stake,currency,unpricedSubsamples,unpricedCompletes\n" +
		"-1,Age,FR,,1 4,45,3,6,62.50,EUR,1,20\n" +
		"-1,Age,FR,,,,,,4.00,GBP,,\n" +
		"-1,Age,FR,,,,,,30.00,USD,,\n" +
		"12,'=Gender,DE,gender,5,9,2,3,,,1,9\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant\n%s", b.String(), want)
	}

	body, err := json.Marshal(Profiling(rows, []rules.TableCoverage{{SubsampleID: 1, Country: "FR", TableID: 2, TableName: "Age", Questions: []int64{-1}, Panelists: 6, Decided: 3, Undecided: 3}}))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Questions []map[string]any `json:"questions"`
		Coverage  []map[string]any `json:"coverage"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	for _, name := range ProfilingColumns {
		if _, ok := got.Questions[0][name]; !ok {
			t.Errorf("the JSON rows have no %q: %s", name, body)
		}
	}
	if got.Questions[0]["stake"] != 62.5 || got.Questions[1]["stake"] != nil {
		t.Errorf("stakes = %v, %v; want 62.5 and null", got.Questions[0]["stake"], got.Questions[1]["stake"])
	}
	if got.Coverage[0]["undecided"] != 3.0 {
		t.Errorf("coverage = %v", got.Coverage)
	}
}
