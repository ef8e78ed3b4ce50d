package web_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"fieldboard/views/formats"
)

// TestPanelistSurveysPages: the default answer comes a page at a time.
// Following the next links from the first page lists every subsample the
// panelist may enter exactly once, in the order of the unpaged list (one
// page of the largest size), which is the router's (its sendable entries
// are the next-survey answer, in its order) and holds what all=true says
// they may enter; each page holds at most limit entries, only the last has
// no next link, and the default page is the first 20.
func TestPanelistSurveysPages(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 300)
	tried := 0
	for _, id := range ids {
		path := "/api/v1/panelists/" + url.PathEscape(id) + "/surveys"
		var whole formats.PanelistSurveysJSON
		a.getJSON(t, path+"?limit=100", &whole)
		if whole.Next != "" {
			t.Fatalf("%s: more than 100 surveys; the test wants them on one page", id)
		}
		if len(whole.MayEnter) < 3 {
			continue
		}
		tried++
		var all formats.PanelistSurveysJSON
		a.getJSON(t, path+"?all=true", &all)
		if got, want := slices.Sorted(slices.Values(subsampleIDs(whole.MayEnter))), slices.Sorted(slices.Values(subsampleIDs(all.MayEnter))); !slices.Equal(got, want) {
			t.Errorf("%s: the default answer lists %v, all=true says they may enter %v", id, got, want)
		}
		var next formats.NextSurveysJSON
		a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(id)+"/next?limit=50", &next)
		var sent, routed []int64
		for _, e := range whole.MayEnter {
			if e.Send {
				sent = append(sent, e.SubsampleID)
			}
		}
		for _, s := range next.Surveys {
			routed = append(routed, s.SubsampleID)
		}
		if !slices.Equal(sent, routed) {
			t.Errorf("%s: the default answer sends to %v in that order, the router to %v", id, sent, routed)
		}

		for _, limit := range []int{1, 2, len(whole.MayEnter) - 1, len(whole.MayEnter)} {
			var walked []int64
			seen := map[int64]bool{}
			at := fmt.Sprintf("%s?limit=%d", path, limit)
			for pages := 0; at != ""; pages++ {
				if pages > len(whole.MayEnter) {
					t.Fatalf("%s, limit %d: more pages than surveys", id, limit)
				}
				var page formats.PanelistSurveysJSON
				if resp := a.getJSON(t, at, &page); resp.StatusCode != 200 {
					t.Fatalf("GET %s: %d", at, resp.StatusCode)
				}
				if len(page.MayEnter) > limit || len(page.MayEnter) == 0 || len(page.Others) != 0 || page.PanelistID != id {
					t.Fatalf("GET %s: %d entries, %d others for %q; want 1 to %d, none, for %q", at, len(page.MayEnter), len(page.Others), page.PanelistID, limit, id)
				}
				for _, e := range page.MayEnter {
					if seen[e.SubsampleID] {
						t.Errorf("%s, limit %d: subsample %d on two pages", id, limit, e.SubsampleID)
					}
					seen[e.SubsampleID] = true
					walked = append(walked, e.SubsampleID)
				}
				last := page.MayEnter[len(page.MayEnter)-1].SubsampleID
				if want := fmt.Sprintf("%s?after=%d&limit=%d", path, last, limit); page.Next != "" && page.Next != want {
					t.Errorf("GET %s: next %q, want %q", at, page.Next, want)
				}
				if page.Next == "" && len(walked) < len(whole.MayEnter) {
					t.Errorf("GET %s: no next page after %d of %d surveys", at, len(walked), len(whole.MayEnter))
				}
				at = page.Next
			}
			if got, want := walked, subsampleIDs(whole.MayEnter); !slices.Equal(got, want) {
				t.Errorf("%s, limit %d: the pages list %v, the unpaged answer %v", id, limit, got, want)
			}
		}

		var first formats.PanelistSurveysJSON
		a.getJSON(t, path, &first)
		if got, want := subsampleIDs(first.MayEnter), subsampleIDs(whole.MayEnter)[:min(20, len(whole.MayEnter))]; !slices.Equal(got, want) || (first.Next != "") != (len(whole.MayEnter) > 20) {
			t.Errorf("%s: the default page lists %v (next %q), want the first 20 of %v", id, got, first.Next, want)
		}
		if tried == 3 {
			break
		}
	}
	if tried < 3 {
		t.Fatalf("only %d of the simulator's panelists may enter 3 subsamples or more; the test wants 3", tried)
	}
}

// TestPanelistSurveysPagingRefused: a limit out of range or malformed, an
// after that is no subsample id, or paging asked of all=true is a 400 that
// says what is wrong; an after that is no candidate of the panelist now
// is a 409 that says to start again. all=true carries no next link.
func TestPanelistSurveysPagingRefused(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 20)
	path := "/api/v1/panelists/" + url.PathEscape(ids[0]) + "/surveys"
	for _, tc := range []struct {
		query  string
		status int
		want   string
	}{
		{"?limit=0", 400, `limit "0" is not a whole number from 1 to 100`},
		{"?limit=101", 400, `limit "101" is not a whole number from 1 to 100`},
		{"?limit=-3", 400, `limit "-3" is not a whole number from 1 to 100`},
		{"?limit=ten", 400, `limit "ten" is not a whole number from 1 to 100`},
		{"?limit=", 400, "the query parameter limit is empty"},
		{"?after=0", 400, `after "0" is not a positive whole number`},
		{"?after=x1", 400, `after "x1" is not a positive whole number`},
		{"?all=true&limit=5", 400, "all=true lists every live subsample in one answer"},
		{"?all=true&after=5", 400, "all=true lists every live subsample in one answer"},
		{"?after=999999999", 409, "subsample 999999999 is not among the surveys"},
		{"?limit=100", 200, `"others":[]}`},
		{"?all=false&limit=1", 200, `"mayEnter":[`},
	} {
		resp, body := a.do(t, "GET", path+tc.query, nil)
		var refused struct{ Error string }
		if json.Unmarshal([]byte(body), &refused) == nil && refused.Error != "" {
			body = refused.Error
		}
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d %s; want %d with %q", tc.query, resp.StatusCode, body, tc.status, tc.want)
		}
	}
	resp, body := a.do(t, "GET", path+"?all=true", nil)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &raw); err != nil || resp.StatusCode != 200 {
		t.Fatalf("all=true: %d %v", resp.StatusCode, err)
	}
	if _, ok := raw["next"]; ok || len(raw) != 3 {
		t.Errorf("all=true answers the fields %v; want panelistId, mayEnter and others alone", raw)
	}
}
