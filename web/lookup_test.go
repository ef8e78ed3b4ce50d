package web_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestPanelistCheckUnknownID: an id on file nowhere is said to be not on
// the panel, with no rows, and the id in another letter case is offered
// when one is on file; the CSV still checks it against every subsample.
func TestPanelistCheckUnknownID(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P0000042")

	resp, page := a.do(t, "GET", "/panelists?panelist=P9999999", nil)
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="lookup-unknown"`) || !strings.Contains(page, "P9999999 is not on the panel") {
		t.Errorf("lookup of P9999999: %d, want it said to be not on the panel:\n%.2000s", resp.StatusCode, lookupSection(page))
	}
	for _, no := range []string{`data-testid="not-now"`, `data-testid="may-enter"`, "No country on file", `data-testid="lookup-suggestion"`, `data-testid="lookup-csv"`} {
		if strings.Contains(page, no) {
			t.Errorf("lookup of P9999999 shows %s", no)
		}
	}

	resp, page = a.do(t, "GET", "/panelists?panelist=p0000042", nil)
	want := `Did you mean <a href="/panelists?panelist=P0000042">P0000042</a>?`
	if resp.StatusCode != 200 || !strings.Contains(page, "p0000042 is not on the panel") || !strings.Contains(page, want) {
		t.Errorf("lookup of p0000042: %d, want it not on the panel and %q:\n%.2000s", resp.StatusCode, want, lookupSection(page))
	}

	_, page = a.do(t, "GET", "/panelists?panelist=P0000042", nil)
	if strings.Contains(page, `data-testid="lookup-unknown"`) || !strings.Contains(page, `data-testid="not-now"`) {
		t.Errorf("lookup of P0000042, on the panel, is not checked:\n%.2000s", lookupSection(page))
	}

	// The CSV keeps every row: the decision is the same for a known and an
	// unknown id.
	var surveys struct{ MayEnter, Others []struct{} }
	a.getJSON(t, "/api/v1/panelists/P9999999/surveys?all=true", &surveys)
	live := append(surveys.MayEnter, surveys.Others...)
	resp, body := a.do(t, "GET", "/panelists.csv?panelist=P9999999", nil)
	if rows := parseCSV(t, body); resp.StatusCode != 200 || len(rows)-1 != len(live) || len(live) == 0 {
		t.Errorf("lookup CSV of P9999999: %d, %d rows; want a row for each of the %d live subsamples", resp.StatusCode, len(rows)-1, len(live))
	}
}

// TestPanelistCheckGroupsNotNow: the subsamples of other countries are one
// row that expands, every subsample is still there once, their ids link to
// their pages, and each entry link has a copy button.
func TestPanelistCheckGroupsNotNow(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	target, _ := sendableSiblings(t, a)
	a.livesIn(t, target.Country, "P1")

	_, body := a.do(t, "GET", "/panelists.csv?panelist=P1", nil)
	rows := parseCSV(t, body)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var elsewhere, notNow int
	for _, r := range rows[1:] {
		if r[col["mayEnter"]] == "true" {
			continue
		}
		notNow++
		if strings.Contains(r[col["why"]], "The panelist lives in "+target.Country+"; this subsample is fielded in") {
			elsewhere++
		}
	}
	if elsewhere < 2 {
		t.Fatalf("only %d subsamples are of other countries than %s: nothing to group", elsewhere, target.Country)
	}

	resp, page := a.do(t, "GET", "/panelists?panelist=P1", nil)
	section := lookupSection(page)
	if resp.StatusCode != 200 {
		t.Fatalf("lookup of P1: %d", resp.StatusCode)
	}
	summary := fmt.Sprintf("<summary>%d subsamples in other countries</summary>", elsewhere)
	if strings.Count(section, summary) != 1 {
		t.Errorf("lookup of P1 does not group its %d subsamples of other countries under one %q", elsewhere, summary)
	}
	_, notNowTable, _ := strings.Cut(section, `data-testid="not-now"`)
	if got := strings.Count(notNowTable, "<tr data-subsample="); got != notNow {
		t.Errorf("lookup of P1 lists %d subsamples under Not now, the CSV %d: grouping must keep every one", got, notNow)
	}
	if !strings.Contains(section, fmt.Sprintf("Not now (%d)", notNow)) {
		t.Errorf("lookup of P1 does not count %d subsamples under Not now", notNow)
	}
	// Every group of several rows expands; a kind with one subsample is a
	// plain row.
	if groups, details := strings.Count(notNowTable, `data-testid="not-now-group"`), strings.Count(notNowTable, "<details>"); groups == 0 || groups != details {
		t.Errorf("lookup of P1 shows %d groups and %d details", groups, details)
	}

	// Subsample ids link to their pages, in both tables.
	ids := regexp.MustCompile(`<tr data-subsample="(\d+)">`).FindAllStringSubmatch(section, -1)
	if len(ids) != len(rows)-1 {
		t.Errorf("lookup of P1 shows %d subsamples, the CSV %d", len(ids), len(rows)-1)
	}
	for _, m := range ids {
		if row := lookupRowOf(section, m[1]); !strings.Contains(row, `<a href="/subsamples/`+m[1]+`"><span class="id">`+m[1]+`</span></a>`) {
			t.Errorf("subsample %s's row does not link to its page:\n%s", m[1], row)
			break
		}
	}

	// Every entry link has the subsample page's copy button.
	links := regexp.MustCompile(`<span id="([^"]+)"><code class="url">`).FindAllStringSubmatch(section, -1)
	if len(links) == 0 || len(links) != len(lookupLinks(page)) {
		t.Fatalf("lookup of P1 shows %d entry links with an id, of %d", len(links), len(lookupLinks(page)))
	}
	for _, m := range links {
		if button := `<button type="button" class="copy" data-copy="#` + m[1] + `">Copy</button>`; !strings.Contains(section, button) {
			t.Errorf("entry link %s has no copy button %s", m[1], button)
		}
	}
	_, sub := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", target.SubsampleID), nil)
	if !regexp.MustCompile(`<button type="button" class="copy" data-copy="#entry-0-live">Copy</button>`).MatchString(sub) {
		t.Error("the subsample page's copy button changed")
	}
}

// lookupSection is the lookup section of the panelists page.
func lookupSection(page string) string {
	_, rest, _ := strings.Cut(page, `<section id="lookup"`)
	return rest
}

// lookupRowOf is the row of subsample id in section.
func lookupRowOf(section, id string) string {
	_, rest, _ := strings.Cut(section, `<tr data-subsample="`+id+`">`)
	row, _, _ := strings.Cut(rest, "</tr>")
	return row
}
