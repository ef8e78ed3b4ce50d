package web_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fieldboard/rules"
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
