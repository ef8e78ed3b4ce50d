package formats

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"fieldboard/rules"
	"fieldboard/rules/checks/outcomes"
)

// outcomesReport is a period of three groups: one that earned in EUR with
// a predicted EPC, one that earned in EUR and GBP, and one of too few
// final entrants whose only complete has no known price.
func outcomesReport() outcomes.Report {
	rows := []outcomes.Row{
		{Key: "5", SubsampleID: 5, EventID: 1, Name: "Alpha", Country: "FR",
			Tally:     rules.Tally{Entrants: 25, Completes: 5, ScreenOuts: 20, Earned: rules.Money{"EUR": 3604}},
			Predicted: rules.EPC{Value: 1.25, Currency: "EUR", Source: rules.EPCField, Rate: 25, CPI: 5}},
		{Key: "6", SubsampleID: 6, EventID: 1, Name: "Beta", Country: "GB",
			Tally: rules.Tally{Entrants: 30, Completes: 10, ScreenOuts: 20, Earned: rules.Money{"EUR": 686203, "GBP": 158985}}},
		{Key: "7", SubsampleID: 7, EventID: 2, Name: "Gamma", Country: "DE",
			Tally: rules.Tally{Entrants: 2, Completes: 1, Abandons: 1, Earned: rules.Money{}, Unpriced: 1}},
	}
	rep := outcomes.Report{Rows: rows, Total: outcomes.Row{Key: "Total", Tally: rules.Tally{Earned: rules.Money{}}}}
	for _, r := range rows {
		rep.Total.Tally.Add(r.Tally)
	}
	return rep
}

// readCSV writes with write and reads the file back, header first.
func readCSV(t *testing.T, write func(w *Writer) error) (string, [][]string) {
	t.Helper()
	var b strings.Builder
	w := NewWriter(&b)
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return b.String(), records
}

// TestOutcomesCSVHasNumbersInNumberColumns: every amount is a plain number
// with its currency in a column of its own; a group earned in two
// currencies has no amount (never one summed across them) and says why;
// there is no line of totals among the groups, so a column's sum counts
// each group once.
func TestOutcomesCSVHasNumbersInNumberColumns(t *testing.T) {
	text, records := readCSV(t, func(w *Writer) error { return WriteOutcomesCSV(w, outcomesReport()) })
	want := "group,subsampleId,eventId,name,country,day,entrants,finalEntrants,inSurvey,completes,unconfirmedCompletes,tooFast,screenOuts,quotaFulls,abandons,reversed,reversalsOfNothing," +
		"redirects,wrongSends,wrongSendsByReturn,sentScreenOuts,earned,earnedCurrency,unpricedCompletes,estimatedCompletes,realizedConversion,realizedEpc,realizedEpcCurrency,predictedEpc,predictedEpcCurrency,providerConversion,note\n" +
		"5,5,1,Alpha,FR,,25,25,0,5,0,0,20,0,0,0,0,0,0,0,0,36.04,EUR,0,0,20.0,1.44,EUR,1.25,EUR,,\n" +
		"6,6,1,Beta,GB,,30,30,0,10,0,0,20,0,0,0,0,0,0,0,0,,,0,0,33.3,,,,,,\"earned in EUR and GBP, never added: the page and the JSON answer give each amount\"\n" +
		"7,7,2,Gamma,DE,,2,2,0,1,0,0,0,0,1,0,0,0,0,0,0,,,1,0,,,,,,,\"too few: 2 final entrants, 20 needed\"\n"
	if text != want {
		t.Errorf("outcomes CSV:\n%s\nwant\n%s", text, want)
	}

	header := records[0]
	column := map[string]int{}
	for i, name := range header {
		column[name] = i
	}
	entrants := 0
	for _, r := range records[1:] {
		if r[0] == "Total" {
			t.Errorf("a line of totals among the groups: %v", r)
		}
		for _, name := range []string{"earned", "realizedEpc", "predictedEpc", "realizedConversion"} {
			if cell := r[column[name]]; cell != "" {
				if _, err := strconv.ParseFloat(cell, 64); err != nil {
					t.Errorf("group %s: %s %q is not a number", r[0], name, cell)
				}
			}
		}
		for _, pair := range [][2]string{{"earned", "earnedCurrency"}, {"realizedEpc", "realizedEpcCurrency"}, {"predictedEpc", "predictedEpcCurrency"}} {
			if (r[column[pair[0]]] == "") != (r[column[pair[1]]] == "") {
				t.Errorf("group %s: %s %q beside %s %q", r[0], pair[0], r[column[pair[0]]], pair[1], r[column[pair[1]]])
			}
		}
		n, _ := strconv.Atoi(r[column["entrants"]])
		entrants += n
	}
	if entrants != 57 {
		t.Errorf("the entrants column sums to %d, want the period's 57", entrants)
	}
}

// TestOutcomeTotalsCSV: the totals are one line per currency, never added
// across them, and the completes of unknown price are a line of their own
// with no amount, never 0.
func TestOutcomeTotalsCSV(t *testing.T) {
	text, _ := readCSV(t, func(w *Writer) error { return WriteOutcomeTotalsCSV(w, outcomesReport()) })
	want := "currency,earned,unpricedCompletes\n" +
		"EUR,6898.07,0\n" +
		"GBP,1589.85,0\n" +
		",,1\n"
	if text != want {
		t.Errorf("totals CSV:\n%s\nwant\n%s", text, want)
	}

	rep := outcomesReport()
	rep.Rows, rep.Total = rep.Rows[:1], rep.Rows[0]
	if text, _ := readCSV(t, func(w *Writer) error { return WriteOutcomeTotalsCSV(w, rep) }); text != "currency,earned,unpricedCompletes\nEUR,36.04,0\n" {
		t.Errorf("totals CSV with every complete priced:\n%s", text)
	}
}
