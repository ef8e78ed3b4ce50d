package web_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/views/formats"
)

// TestPagesSayWordsWhereCodesWere: on the simulator's data, the live list
// explains the EPC's source words in their titles and in a legend line;
// a live subsample's page does the same for its EPC and writes no bare
// code (the simulator gives no interview type: TestPropCodeSaysItIsACode
// covers its words).
func TestPagesSayWordsWhereCodesWere(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	resp, page := a.do(t, "GET", "/live", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("/live: %d", resp.StatusCode)
	}
	if !strings.Contains(page, `data-testid="epc-legend"`) || !strings.Contains(page, "“field” means the conversion the provider measured in field") {
		t.Error("/live has no line explaining EPC's field and estimate")
	}
	source := regexp.MustCompile(`<abbr title="([^"]*)" data-testid="epc-source">(field|estimate)</abbr>`)
	found := source.FindAllStringSubmatch(page, -1)
	if len(found) == 0 {
		t.Fatal("/live writes no EPC source with its meaning")
	}
	for _, m := range found {
		if want := rules.EPCSource(m[2]).Meaning(); m[1] != want {
			t.Errorf("/live: %q titled %q, want %q", m[2], m[1], want)
		}
	}

	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	checked := false
	for _, s := range all {
		if s.EPC == nil {
			continue
		}
		_, page := a.do(t, "GET", "/subsamples/"+strconv.FormatInt(s.SubsampleID, 10), nil)
		if !source.MatchString(page) {
			t.Errorf("subsample %d's page writes its EPC source without its meaning", s.SubsampleID)
		}
		if strings.Contains(page, ">code ") || strings.Contains(page, "no description from the provider") {
			t.Errorf("subsample %d's page writes a bare code", s.SubsampleID)
		}
		checked = true
		break
	}
	if !checked {
		t.Fatal("no subsample with an EPC to look at")
	}
}

// TestPanelistPageNamesQuotaAnswersInWords: on the simulator's panel,
// profiles and stored library, a panelist's quota sentences (the page's
// and the API's alike) name the questions and answers in the words of the
// library of the panelist's country, not "answer 105 to question 43".
func TestPanelistPageNamesQuotaAnswersInWords(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	ctx := context.Background()
	panel := slices.Collect(a.sim.Panel(3, 200))
	if _, err := a.store.ImportPanel(ctx, slices.Values(panel)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.store.ImportProfiles(ctx, a.sim.Profiles(3, 200), nil); err != nil {
		t.Fatal(err)
	}
	service := &checks.Service{Store: a.store, Now: time.Now}
	sentences := 0
	for _, m := range panel {
		pcs, err := service.PanelistSurveys(ctx, m.PanelistID)
		if err != nil {
			t.Fatal(err)
		}
		var why []string
		for _, pc := range pcs {
			why = append(why, pc.QuotaWhy...)
		}
		for _, s := range why {
			if strings.Contains(s, " to question ") || strings.HasPrefix(s, "Answer ") {
				t.Errorf("%s: %q names the answer by its ids", m.PanelistID, s)
			}
		}
		if len(why) == 0 || !strings.Contains(why[0], ": ") || sentences > 0 {
			continue
		}
		sentences++
		_, page := a.do(t, "GET", "/panelists?panelist="+url.QueryEscape(m.PanelistID), nil)
		if !strings.Contains(page, html.EscapeString(why[0])) {
			t.Errorf("%s's page does not say %q", m.PanelistID, why[0])
		}
		t.Logf("%s: %q", m.PanelistID, why[0])
	}
	if sentences == 0 {
		t.Fatal("no panelist's quota sentence names a question in words")
	}
}
