package web_test

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"fieldboard/views/formats"
)

// TestNextSurveys: the next-survey answer is the panelist's surveys that
// send would be true for, in the same order, each with the entry link of
// the panelist's locale filled for them, only of their country and
// language; limit cuts it; an unknown panelist is a 404.
func TestNextSurveys(t *testing.T) {
	a, ids := profiled(t, 300)
	var sendable []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &sendable)
	byID := map[int64]formats.SubsampleJSON{}
	for _, s := range sendable {
		byID[s.SubsampleID] = s
	}
	countryOf := map[string]string{}
	for m := range a.sim.Panel(7, 300) {
		countryOf[m.PanelistID] = m.Country
	}

	tried := 0
	for _, id := range ids {
		path := "/api/v1/panelists/" + url.PathEscape(id)
		var surveys formats.PanelistSurveysJSON
		a.getJSON(t, path+"/surveys", &surveys)
		var want []formats.EligibilityJSON
		for _, e := range surveys.MayEnter {
			if e.Send {
				want = append(want, e)
			}
		}
		if len(want) < 2 {
			continue
		}
		tried++
		var next formats.NextSurveysJSON
		if resp := a.getJSON(t, path+"/next?limit=50", &next); resp.StatusCode != 200 || next.PanelistID != id {
			t.Fatalf("GET %s/next: %d for %q", path, resp.StatusCode, next.PanelistID)
		}
		if len(next.Surveys) != min(len(want), 50) {
			t.Fatalf("%s: next lists %d surveys, the surveys answer %d to send to", id, len(next.Surveys), len(want))
		}
		for i, got := range next.Surveys {
			w := want[i]
			sub, ok := byID[got.SubsampleID]
			switch {
			case got.SubsampleID != w.SubsampleID:
				t.Errorf("%s, survey %d: subsample %d, the surveys answer has %d there", id, i, got.SubsampleID, w.SubsampleID)
			case !ok || sub.Country != countryOf[id]:
				t.Errorf("%s of %s, survey %d: subsample %d is not a sendable subsample of their country (%+v)", id, countryOf[id], i, got.SubsampleID, sub)
			case len(w.EntryLinks) != 1 || got.EntryLink != w.EntryLinks[0].Live:
				t.Errorf("%s on %d: entry link %q, the surveys answer gives %v", id, got.SubsampleID, got.EntryLink, w.EntryLinks)
			case got.EventID != sub.EventID || got.Currency != sub.Currency || !sameFigure(got.EPC, sub.EPC) || !sameFigure(got.CPI, sub.CPI) || !sameFigure(got.LOI, sub.LOI):
				t.Errorf("%s on %d: %+v does not carry the subsample's figures %+v", id, got.SubsampleID, got, sub)
			}
			// The link is the subsample's own for a locale (SAPI=1
			// included where the spec asks it), its id filled.
			if !hasLink(sub, got.EntryLink, id) {
				t.Errorf("%s on %d: %q is none of the subsample's live links %v filled for %s", id, got.SubsampleID, got.EntryLink, sub.EntryLinks, id)
			}
		}
		var first formats.NextSurveysJSON
		a.getJSON(t, path+"/next?limit=1", &first)
		if len(first.Surveys) != 1 || !reflect.DeepEqual(first.Surveys[0], next.Surveys[0]) {
			t.Errorf("%s: limit=1 gives %+v, want the first of %+v", id, first.Surveys, next.Surveys[:1])
		}
		var five formats.NextSurveysJSON
		a.getJSON(t, path+"/next", &five)
		if len(five.Surveys) != min(5, len(next.Surveys)) {
			t.Errorf("%s: no limit gives %d surveys, want the default 5", id, len(five.Surveys))
		}
		if tried == 5 {
			break
		}
	}
	if tried < 5 {
		t.Fatalf("only %d of the simulator's panelists would be sent to 2 surveys or more; the test wants 5", tried)
	}
	country := countryOf[ids[0]]

	// Without a profile the quota verdicts are unknown: such a panelist
	// may enter, but is sent only where no cell asks anything.
	a.livesIn(t, country, "P-bare")
	var bare formats.PanelistSurveysJSON
	a.getJSON(t, "/api/v1/panelists/P-bare/surveys", &bare)
	var sent []int64
	unknown := 0
	for _, e := range bare.MayEnter {
		if e.Send {
			sent = append(sent, e.SubsampleID)
		} else if e.Quota == "unknown" {
			unknown++
		}
	}
	var bareNext formats.NextSurveysJSON
	a.getJSON(t, "/api/v1/panelists/P-bare/next?limit=50", &bareNext)
	var got []int64
	for _, s := range bareNext.Surveys {
		got = append(got, s.SubsampleID)
	}
	if unknown == 0 || !slices.Equal(got, sent) {
		t.Errorf("P-bare (no profile) may enter %d subsamples on an unknown quota verdict; next lists %v, want only those sent to, %v", unknown, got, sent)
	}

	// Country and language are hard filters: elsewhere, or in a language
	// none of the country's subsamples is in, nothing.
	other := "ZZ"
	a.livesIn(t, other, "P-away")
	resp, body := a.do(t, "GET", "/api/v1/panelists/P-away/next", nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `"surveys":[]`) {
		t.Errorf("a panelist of %s, where nothing is fielded: %d %s; want 200 with no survey", other, resp.StatusCode, body)
	}
	panel := "panelistId,country,locale\nP-lang," + country + ",xx-" + strings.ToLower(country) + "\n"
	if resp, body := a.post(t, "/api/v1/panelists", "text/csv", panel); resp.StatusCode != 200 {
		t.Fatalf("panel import: %d %s", resp.StatusCode, body)
	}
	if resp, body := a.do(t, "GET", "/api/v1/panelists/P-lang/next", nil); resp.StatusCode != 200 || !strings.Contains(body, `"surveys":[]`) {
		t.Errorf("a panelist of %s speaking xx: %d %s; want 200 with no survey", country, resp.StatusCode, body)
	}

	for _, tt := range []struct {
		path   string
		status int
		want   string
	}{
		{"/api/v1/panelists/nobody/next", 404, `Panelist \"nobody\" is not on the panel`},
		{"/api/v1/panelists/P1/next?limit=0", 400, "from 1 to 50"},
		{"/api/v1/panelists/P1/next?limit=51", 400, "from 1 to 50"},
		{"/api/v1/panelists/P1/next?limit=five", 400, `limit \"five\"`},
		{"/api/v1/panelists/%20/next", 400, "panelist id: is empty"},
	} {
		resp, body := a.do(t, "GET", tt.path, nil)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d %s, want %d with %s", tt.path, resp.StatusCode, body, tt.status, tt.want)
		}
	}
}

func sameFigure(a, b *float64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// hasLink reports whether link is one of s's live entry links filled for
// panelistID, as the provider's placeholder asks (the trailing id).
func hasLink(s formats.SubsampleJSON, link, panelistID string) bool {
	for _, l := range s.EntryLinks {
		if l.Live != "" && strings.HasSuffix(l.Live, "id=") && link == l.Live+url.QueryEscape(panelistID) {
			return true
		}
	}
	return false
}
