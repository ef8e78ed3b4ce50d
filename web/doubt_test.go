package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// Question ids of the quotas the doubt tests serve; the panelists' answers
// to them are imported with their profiles.
const doubtGender = 9043

// doubtPanelists are the panelists of the doubt tests: a woman and a man of
// 30, and a woman of 20, with their profiles (birth dates counted from
// today, so their ages hold whatever day the test runs).
func doubtProfiles(now time.Time) string {
	born := func(years int) string { return now.AddDate(-years, 0, -10).Format(time.DateOnly) }
	return "panelistId,questionId,value\n" +
		"D-woman-30,-1," + born(30) + "\nD-woman-30," + strconv.Itoa(doubtGender) + ",2\n" +
		"D-man-30,-1," + born(30) + "\nD-man-30," + strconv.Itoa(doubtGender) + ",1\n" +
		"D-woman-20,-1," + born(20) + "\nD-woman-20," + strconv.Itoa(doubtGender) + ",2\n"
}

// quotaJSON is one quota as the provider sends it.
type quotaJSON map[string]any

func totalQuota(remaining int) quotaJSON {
	return quotaJSON{"quotaId": 1, "tableId": 1, "tableName": "Total Quota", "quotaName": "Total", "quotaType": "counting",
		"remainingExclusive": remaining, "remainingShared": 0, "achievedInterviews": 3, "questions": []any{}}
}

func ageQuota(id int, kind string, remaining int, from, to string) quotaJSON {
	return quotaJSON{"quotaId": id, "tableId": 2, "tableName": "Age", "quotaType": kind, "remainingExclusive": remaining, "remainingShared": 0,
		"questions": []any{map[string]any{"id": -1, "operator": "OR", "answers": []any{map[string]any{"rangeStart": from, "rangeEnd": to}}}}}
}

func genderQuota(id int, name, kind, operator string, remaining int, answer int) quotaJSON {
	return quotaJSON{"quotaId": id, "tableId": 3, "tableName": "Gender", "quotaName": name, "quotaType": kind, "remainingExclusive": remaining,
		"remainingShared": 0, "questions": []any{map[string]any{"id": doubtGender, "operator": operator, "answers": []any{map[string]any{"id": answer}}}}}
}

// doubtApp is an app that checks entry links against the simulator's entry
// address, refreshed, with the doubt panelists profiled and living where
// target, a sendable subsample, fields, in its first locale.
func doubtApp(t *testing.T) (*app, formats.SubsampleJSON) {
	t.Helper()
	entry, err := rules.ParseEntryURL(sim.DefaultEntryURL)
	if err != nil {
		t.Fatal(err)
	}
	// A small world: every case refreshes it again.
	a := newAppOn(t, sim.Options{Seed: 3, Subsamples: 40, QuestionsPerLocale: 10}, func(s *web.Server) { s.Checks.EntryURLs = rules.EntryURLs{entry} })
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &all)
	i := slices.IndexFunc(all, func(s formats.SubsampleJSON) bool {
		return len(s.EntryLinks) > 0 && s.EntryLinks[0].Live != "" && s.Country != ""
	})
	if i < 0 {
		t.Fatal("the simulator has no sendable subsample with a live link")
	}
	target := all[i]
	if resp, body := a.post(t, "/api/v1/profiles", "text/csv", doubtProfiles(time.Now())); resp.StatusCode != 200 {
		t.Fatalf("profiles: %d %s", resp.StatusCode, body)
	}
	panel := "panelistId,country,locale\n"
	for _, id := range []string{"D-woman-30", "D-man-30", "D-woman-20"} {
		panel += id + "," + target.Country + "," + target.EntryLinks[0].Locale + "\n"
	}
	if resp, body := a.post(t, "/api/v1/panelists", "text/csv", panel); resp.StatusCode != 200 {
		t.Fatalf("panel: %d %s", resp.StatusCode, body)
	}
	return a, target
}

// serveQuotas makes the simulator answer the subsample's quotas with these.
func serveQuotas(t *testing.T, a *app, subsampleID int64, quotas ...quotaJSON) {
	t.Helper()
	body, err := json.Marshal(quotas)
	if err != nil {
		t.Fatal(err)
	}
	a.sim.Rewrite(fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", subsampleID), func([]byte) []byte { return body })
}

// editList makes the simulator answer a list endpoint with its real list,
// the element of the subsample changed by edit (or dropped when edit
// returns nil).
func editList(t *testing.T, a *app, path string, subsampleID int64, edit func(map[string]json.RawMessage) map[string]json.RawMessage) {
	t.Helper()
	a.sim.Rewrite(path, func(real []byte) []byte {
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(real, &list); err != nil {
			return real
		}
		out := list[:0]
		for _, e := range list {
			if id, _ := strconv.ParseInt(string(e["subsampleId"]), 10, 64); id == subsampleID {
				if e = edit(e); e == nil {
					continue
				}
			}
			out = append(out, e)
		}
		body, _ := json.Marshal(out)
		return body
	})
}

// withLiveLink replaces the live entry link of the element's locales.
func withLiveLink(link string) func(map[string]json.RawMessage) map[string]json.RawMessage {
	return func(e map[string]json.RawMessage) map[string]json.RawMessage {
		var locales []map[string]any
		json.Unmarshal(e["locales"], &locales)
		for _, l := range locales {
			l["liveEntryLink"] = link
		}
		e["locales"], _ = json.Marshal(locales)
		return e
	}
}

// sentTo says, for a panelist and a subsample, what the three ways of
// sending say: the bulk check's send and reasons, whether the send list
// lists them, and whether /next offers the subsample.
type sentTo struct {
	bulk, listed, next bool
	reasons            string
}

func (a *app) sentTo(t *testing.T, panelistID string, subsampleID int64) sentTo {
	t.Helper()
	var s sentTo
	resp, body := a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", subsampleID), "text/csv", "panelistId\n"+panelistID+"\n")
	rows := parseCSV(t, body)
	if resp.StatusCode != 200 || len(rows) != 2 {
		t.Fatalf("bulk check of %s on %d: %d %s", panelistID, subsampleID, resp.StatusCode, body)
	}
	s.bulk, s.reasons = rows[1][3] == "true", rows[1][4]
	resp, body = a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets", subsampleID), nil)
	if resp.StatusCode != 200 && resp.StatusCode != http.StatusConflict {
		t.Fatalf("send list of %d: %d %s", subsampleID, resp.StatusCode, body)
	}
	s.listed = resp.StatusCode == 200 && strings.Contains(body, "\n"+panelistID+",")
	var next formats.NextSurveysJSON
	a.getJSON(t, "/api/v1/panelists/"+panelistID+"/next?limit=50", &next)
	s.next = slices.ContainsFunc(next.Surveys, func(n formats.NextSurveyJSON) bool { return n.SubsampleID == subsampleID })
	return s
}

// TestDoubtIsNoSend: where the provider's data leaves doubt, nobody is sent
// (not by the bulk check, the send list or /next), and the reason says
// what was not understood; a panelist surely in an open cell of data that
// is understood is still sent, before and after.
func TestDoubtIsNoSend(t *testing.T) {
	t.Parallel()
	a, target := doubtApp(t)
	id := target.SubsampleID
	valid := []quotaJSON{totalQuota(20), ageQuota(10, "hard", 5, "18", "99"), genderQuota(20, "Women", "hard", "OR", 5, 2), genderQuota(21, "Men", "hard", "OR", 5, 1)}
	refreshNow := func() {
		t.Helper()
		if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	wantSent := func(when, panelistID string) {
		t.Helper()
		if s := a.sentTo(t, panelistID, id); !s.bulk || !s.listed || !s.next {
			t.Fatalf("%s: %s on %d: bulk %v, send list %v, next %v (%s); want sent everywhere", when, panelistID, id, s.bulk, s.listed, s.next, s.reasons)
		}
	}
	serveQuotas(t, a, id, valid...)
	refreshNow()
	wantSent("valid data", "D-woman-30")
	wantSent("valid data", "D-man-30")

	livePath, allPath := "/supplier/v1/event/live-details", "/supplier/v1/event/all"
	rulesPath := fmt.Sprintf("/supplier/v1/subsamples/%d/eligibility-rules", id)
	tests := []struct {
		name      string
		serve     func()
		panelists []string
		state     rules.State // of the subsample; "" to skip
		reason    string      // in each panelist's bulk reasons
	}{
		{"1: an unreadable full age cell 17.5-40 beside a readable open one 25-99",
			func() {
				serveQuotas(t, a, id, totalQuota(20), ageQuota(10, "hard", 0, "17.5", "40"), ageQuota(11, "hard", 5, "25", "99"))
			},
			[]string{"D-woman-30"}, rules.Unknown, `the range "17.5" to "40" has an end that is neither a whole number`},
		{"1: an unreadable full age cell abc-34 beside a readable open one 18-99",
			func() {
				serveQuotas(t, a, id, totalQuota(20), ageQuota(10, "hard", 0, "abc", "34"), ageQuota(11, "hard", 5, "18", "99"))
			},
			[]string{"D-woman-20", "D-woman-30"}, rules.Unknown, `the range "abc" to "34"`},
		{"2: a full cell with the operator NOT beside an open OR cell",
			func() {
				serveQuotas(t, a, id, totalQuota(20), genderQuota(20, "Not men", "hard", "NOT", 0, 1), genderQuota(21, "Women", "hard", "OR", 5, 2))
			},
			[]string{"D-woman-30"}, rules.Unknown, `question 9043 has the operator "NOT"; only OR is understood`},
		{"3: a full cell of an unknown quota type beside an open hard cell",
			func() {
				serveQuotas(t, a, id, totalQuota(20), genderQuota(20, "Men (soft)", "soft", "OR", 0, 1), genderQuota(21, "Men", "hard", "OR", 5, 1))
			},
			[]string{"D-man-30"}, rules.Sendable, `Cell Men (soft) is not understood: its quota type "soft" is neither hard nor counting`},
		{"4: an eligibility entry with Id 9001 and id 1234",
			func() {
				serveQuotas(t, a, id, valid...)
				body := `{"surveys": [{"Id": 9001, "id": 1234, "numDays": 0, "returnCodes": [3]}], "researchTypes": [], "categories": [], "events": []}`
				a.sim.Rewrite(rulesPath, func([]byte) []byte { return []byte(body) })
			},
			[]string{"D-woman-30"}, rules.Sendable, "surveys[0].id appears twice, with different values"},
		{"4: an eligibility entry with numDays 0 and NumDays 3",
			func() {
				serveQuotas(t, a, id, valid...)
				body := `{"surveys": [{"id": 9001, "numDays": 0, "NumDays": 3, "returnCodes": [3]}], "researchTypes": [], "categories": [], "events": []}`
				a.sim.Rewrite(rulesPath, func([]byte) []byte { return []byte(body) })
			},
			[]string{"D-woman-30"}, rules.Sendable, "surveys[0].NumDays appears twice, with different values"},
		{"debatable, decided: an eligibility entry that applies with returnCodes null",
			func() {
				serveQuotas(t, a, id, valid...)
				body := `{"surveys": [{"id": 9001, "numDays": 0, "returnCodes": null}], "researchTypes": [], "categories": [], "events": []}`
				a.sim.Rewrite(rulesPath, func([]byte) []byte { return []byte(body) })
			},
			[]string{"D-woman-30"}, rules.Sendable, "surveys[0] applies but has no returnCodes"},
		{"5: an entry link on another host",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, livePath, id, withLiveLink("https://evil.example.net/start?p=tok&id="))
			},
			[]string{"D-woman-30"}, rules.Sendable,
			"is not usable (not a usable entry link: https://evil.example.net is not under the provider's entry address (https://survey.provider.test/start))"},
		{"5: an http entry link on the provider's https host",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, livePath, id, withLiveLink("http://survey.provider.test/start?p=tok&id="))
			},
			[]string{"D-woman-30"}, rules.Sendable, "the link is on plain http, but the provider's entry address is https"},
		{"debatable, decided: an entry link whose id already carries a value",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, livePath, id, withLiveLink("https://survey.provider.test/start?p=tok&id=abc"))
			},
			[]string{"D-woman-30"}, rules.Sendable, `its id parameter already carries a value ("abc")`},
		{"5: an entry link whose id= is in its fragment, which never reaches the provider",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, livePath, id, withLiveLink("https://survey.provider.test/start?p=AB#CD&rType=2&id="))
			},
			[]string{"D-woman-30"}, rules.Sendable, "its id= is in the fragment, after #, which never reaches the provider"},
		{"5: a hash-routed entry link, its query in the fragment",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, livePath, id, withLiveLink("https://survey.provider.test/start/#/s?p=tok&id="))
			},
			[]string{"D-woman-30"}, rules.Sendable, "its query does not end with the empty id parameter"},
		{"5: an entry link with user info, on the provider's host",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, livePath, id, withLiveLink("https://user@survey.provider.test/start?p=tok&id="))
			},
			[]string{"D-woman-30"}, rules.Sendable, `the link carries user info before its host "survey.provider.test"`},
		{"6: a subsample live-details lists and event/all does not",
			func() {
				serveQuotas(t, a, id, valid...)
				editList(t, a, allPath, id, func(map[string]json.RawMessage) map[string]json.RawMessage { return nil })
			},
			[]string{"D-woman-30"}, rules.NotSendable, "event/all, which lists every subsample with an allocation, does not list it"},
		{"7: every cell full but of unknown types",
			func() {
				serveQuotas(t, a, id, totalQuota(20), genderQuota(20, "Women", "soft", "OR", 0, 2), genderQuota(21, "Men", "soft", "OR", 0, 1))
			},
			[]string{"D-woman-30", "D-man-30"}, rules.Unknown, "Table Gender (3) has no cell that both has room and is understood"},
		{"7: an open Total Quota beside a full second empty counting quota named Total",
			func() {
				other := totalQuota(0)
				other["quotaId"], other["tableId"], other["tableName"] = 7, 5, "Total"
				serveQuotas(t, a, id, totalQuota(20), other)
			},
			[]string{"D-woman-30", "D-man-30"}, rules.Unknown, "Cell Total of table Total (5) is full and not understood: it has no conditions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a.sim.ClearRewrites()
			tt.serve()
			refreshNow()
			var all []formats.SubsampleJSON
			a.getJSON(t, "/api/v1/subsamples", &all)
			var s formats.SubsampleJSON
			if i := slices.IndexFunc(all, func(s formats.SubsampleJSON) bool { return s.SubsampleID == id }); i >= 0 {
				s = all[i]
			}
			if tt.state != "" && s.Sendability != tt.state {
				t.Errorf("subsample %d is %s (%q), want %s", id, s.Sendability, s.Reasons, tt.state)
			}
			for _, p := range tt.panelists {
				got := a.sentTo(t, p, id)
				if got.bulk || got.listed || got.next {
					t.Errorf("%s on %d: bulk %v, send list %v, next %v; want sent nowhere (%s)", p, id, got.bulk, got.listed, got.next, got.reasons)
				}
				if !strings.Contains(got.reasons, tt.reason) || got.reasons == "" {
					t.Errorf("%s on %d: reasons %q, want them to say %q", p, id, got.reasons, tt.reason)
				}
			}
			if strings.Contains(tt.name, "entry link") {
				if len(s.EntryLinks) == 0 || s.EntryLinks[0].Live != "" || !strings.Contains(s.EntryLinks[0].Problem, "not a usable entry link") {
					t.Errorf("subsample %d's links %+v: want the live link withheld with its problem", id, s.EntryLinks)
				}
			}
		})
	}

	// No wrong no: the valid data again, and both are sent again.
	a.sim.ClearRewrites()
	serveQuotas(t, a, id, valid...)
	refreshNow()
	wantSent("valid data again", "D-woman-30")
	wantSent("valid data again", "D-man-30")
}

// TestLinksUncheckedIsSaid: without --entry-url every page says that entry
// links are not checked, and every API answer says so in a header; with
// it, neither does.
func TestLinksUncheckedIsSaid(t *testing.T) {
	t.Parallel()
	unchecked := newApp(t)
	_, page := unchecked.do(t, "GET", "/", nil)
	if !strings.Contains(page, `data-testid="links-unchecked"`) || !strings.Contains(page, "--entry-url is not set") {
		t.Error("without --entry-url, the overview does not say that links are not checked")
	}
	resp, _ := unchecked.do(t, "GET", "/api/v1/subsamples", nil)
	if h := resp.Header.Get(web.EntryLinksHeader); !strings.HasPrefix(h, "not checked; ") {
		t.Errorf("without --entry-url, the API's %s header is %q", web.EntryLinksHeader, h)
	}

	entry, _ := rules.ParseEntryURL(sim.DefaultEntryURL)
	checked := newAppWith(t, func(s *web.Server) { s.Checks.EntryURLs = rules.EntryURLs{entry} })
	_, page = checked.do(t, "GET", "/", nil)
	resp, _ = checked.do(t, "GET", "/api/v1/subsamples", nil)
	if strings.Contains(page, `data-testid="links-unchecked"`) || resp.Header.Get(web.EntryLinksHeader) != "" {
		t.Error("with --entry-url, a page or the API still says that links are not checked")
	}
}
