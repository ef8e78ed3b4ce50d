package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"fieldboard/client/sim"
	"fieldboard/handlers"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// profiled is a refreshed app with the simulator's profiles of n panelists
// imported through the API, and their ids.
func profiled(t *testing.T, n int) (*app, []string) {
	t.Helper()
	a := refreshed(t)
	return a, a.profile(t, n)
}

// profile imports the simulator's profiles and panel rows of n panelists
// (seed 7) and returns their ids.
func (a *app) profile(t *testing.T, n int) []string {
	t.Helper()
	var b strings.Builder
	b.WriteString(store.ProfileHeader + "\n")
	var ids []string
	for r := range a.sim.Profiles(7, n) {
		if len(ids) == 0 || ids[len(ids)-1] != r.PanelistID {
			ids = append(ids, r.PanelistID)
		}
		fmt.Fprintf(&b, "%s,%d,%s\n", r.PanelistID, r.QuestionID, r.Value)
	}
	if resp, body := a.post(t, "/api/v1/profiles", "text/csv", b.String()); resp.StatusCode != 200 {
		t.Fatalf("profile import: %d %s", resp.StatusCode, body)
	}
	if _, err := a.store.ImportPanel(context.Background(), a.sim.Panel(7, n)); err != nil {
		t.Fatal(err)
	}
	return ids
}

// sendableWithCells finds the sendable subsample with the most quota cells
// besides the total.
func sendableWithCells(t *testing.T, a *app) formats.SubsampleJSON {
	t.Helper()
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &all)
	var best formats.SubsampleJSON
	for _, s := range all {
		if s.OpenQuotas+s.ClosedQuotas > best.OpenQuotas+best.ClosedQuotas && len(s.EntryLinks) > 0 {
			best = s
		}
	}
	if best.OpenQuotas+best.ClosedQuotas < 2 {
		t.Fatal("no sendable subsample with quota cells")
	}
	return best
}

func TestSendListAgreesWithTheBulkCheck(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 2000)
	target := sendableWithCells(t, a)

	resp, body := a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets", target.SubsampleID), nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("send list: %d %s", resp.StatusCode, body)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || !slices.Equal(rows[0], []string{"panelistId", "entryLink"}) {
		t.Fatalf("send list header %v: %v", rows[0], err)
	}
	panel := map[string]domain.PanelMember{}
	for m := range a.sim.Panel(7, len(ids)) {
		panel[m.PanelistID] = m
	}
	listed := map[string]bool{}
	for _, r := range rows[1:] {
		listed[r[0]] = true
		if m := panel[r[0]]; m.Country != target.Country {
			t.Errorf("%s, who lives in %q, is on the send list of %d in %s", r[0], m.Country, target.SubsampleID, target.Country)
		}
		if !strings.HasSuffix(r[1], "&id="+r[0]) || !strings.HasPrefix(r[1], "http") || !strings.Contains(r[1], "SAPI=1&") {
			t.Errorf("%s's entry link %q is not filled for them with SAPI=1 and the id last", r[0], r[1])
		}
	}
	if !slices.IsSortedFunc(rows[1:], func(x, y []string) int { return strings.Compare(x[0], y[0]) }) {
		t.Error("the send list is not in panelist id order")
	}
	// The subsample page's download is the same list.
	resp, page := a.do(t, "GET", fmt.Sprintf("/subsamples/%d/targets.csv", target.SubsampleID), nil)
	if resp.StatusCode != 200 || page != body || !strings.HasPrefix(resp.Header.Get("Content-Disposition"), fmt.Sprintf(`attachment; filename="targets_subsample-%d_`, target.SubsampleID)) {
		t.Errorf("the page's send list download: %d %q, %d bytes; want the API's %d bytes as an attachment",
			resp.StatusCode, resp.Header.Get("Content-Disposition"), len(page), len(body))
	}

	// The bulk check of every profiled panelist, plus one without a
	// profile, must say send=true for exactly the listed ones.
	input := "panelistId\n" + strings.Join(ids, "\n") + "\nNOPROFILE\n"
	resp, body = a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID), "text/csv", input)
	if resp.StatusCode != 200 {
		t.Fatalf("bulk check: %d %s", resp.StatusCode, body)
	}
	bulk := parseCSV(t, body)
	if len(bulk) != len(ids)+2 {
		t.Fatalf("bulk check of %d panelists answered %d lines, want a header and one a panelist", len(ids)+1, len(bulk))
	}
	if !slices.Equal(bulk[0], []string{"panelistId", "eligible", "quota", "send", "reasons"}) {
		t.Fatalf("bulk header %v", bulk[0])
	}
	verdicts := map[string]int{}
	for _, r := range bulk[1:] {
		verdicts[r[2]]++
		send := r[3] == "true"
		if send != listed[r[0]] {
			t.Errorf("%s: bulk says send=%v (eligible %s, quota %s) but the send list %s it", r[0], send, r[1], r[2], map[bool]string{true: "has", false: "lacks"}[listed[r[0]]])
		}
		if send && (r[1] != "true" || r[2] != "fits") {
			t.Errorf("%s: send without being eligible and fitting: %v", r[0], r)
		}
		if r[2] != "fits" && r[4] == "" {
			t.Errorf("%s: quota %s without a reason", r[0], r[2])
		}
		if m, ok := panel[r[0]]; r[0] != "NOPROFILE" && (!ok || m.Country != target.Country) && (send || !strings.Contains(r[4], "No country on file") && !strings.Contains(r[4], "lives in")) {
			t.Errorf("%s of %q on %d in %s: %v, want not sent, the country named", r[0], m.Country, target.SubsampleID, target.Country, r)
		}
	}
	last := bulk[len(bulk)-1]
	if last[0] != "NOPROFILE" || last[2] != "unknown" || !strings.Contains(last[4], "No profile") {
		t.Errorf("a panelist without a profile: %v", last)
	}
	if len(listed) == 0 || verdicts["fits"] == 0 || verdicts["off_target"]+verdicts["quota_full"] == 0 {
		t.Errorf("verdicts %v and %d to send: the simulator's profiles should show matching at work", verdicts, len(listed))
	}
	t.Logf("subsample %d: %d of %d profiled panelists to send; verdicts %v", target.SubsampleID, len(listed), len(ids), verdicts)

	// The page counts the same panelists, of those who live in the
	// subsample's country (not of the whole panel); JSON and limit work.
	there := 0
	for _, id := range ids {
		if strings.EqualFold(panel[id].Country, target.Country) {
			there++
		}
	}
	if there == len(ids) || there == 0 {
		t.Fatalf("%d of the %d profiled panelists live in %s: want some elsewhere", there, len(ids), target.Country)
	}
	_, count := a.do(t, "GET", fmt.Sprintf("/subsamples/%d/targets/count", target.SubsampleID), map[string]string{"HX-Request": "true"})
	if want := fmt.Sprintf("<strong>%d</strong> of %d profiled panelists in %s fit", len(listed), there, target.Country); !strings.Contains(count, want) {
		t.Errorf("the page's count says %s; want %q", count, want)
	}
	// A profile import moves the version on: the count is not kept past it.
	var twin strings.Builder
	twin.WriteString(store.ProfileHeader + "\n")
	for r := range a.sim.Profiles(7, len(ids)) {
		if r.PanelistID == rows[1][0] {
			fmt.Fprintf(&twin, "ZZ-twin,%d,%s\n", r.QuestionID, r.Value)
		}
	}
	if resp, body := a.post(t, "/api/v1/profiles", "text/csv", twin.String()); resp.StatusCode != 200 {
		t.Fatalf("twin's profile: %d %s", resp.StatusCode, body)
	}
	a.livesIn(t, target.Country, "ZZ-twin")
	_, count = a.do(t, "GET", fmt.Sprintf("/subsamples/%d/targets/count", target.SubsampleID), map[string]string{"HX-Request": "true"})
	if want := fmt.Sprintf("<strong>%d</strong> of %d profiled panelists in %s fit", len(listed)+1, there+1, target.Country); !strings.Contains(count, want) {
		t.Errorf("after one more fitting profile the count says %s; want %q", count, want)
	}

	var limited []formats.TargetJSON
	resp, body = a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets?limit=3", target.SubsampleID), map[string]string{"Accept": "application/json"})
	if err := json.Unmarshal([]byte(body), &limited); err != nil {
		t.Fatalf("JSON send list: %v\n%s", err, body)
	}
	if resp.StatusCode != 200 || len(limited) != min(3, len(listed)) || (len(limited) > 0 && limited[0].PanelistID != rows[1][0]) {
		t.Errorf("JSON send list, limit 3: %d %v", resp.StatusCode, limited)
	}
}

func TestSendListRefusals(t *testing.T) {
	t.Parallel()
	a, _ := profiled(t, 50)
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?status=Live", &all)
	var paused int64
	for _, s := range all {
		if s.Sendability != "sendable" {
			paused = s.SubsampleID
			break
		}
	}
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{fmt.Sprintf("/api/v1/subsamples/%d/targets", paused), http.StatusConflict, "Nobody is on the send list. Subsample"},
		{"/api/v1/subsamples/999999999/targets", 404, "not in the current snapshot"},
		{"/api/v1/subsamples/abc/targets", 400, "not a positive whole number"},
		{fmt.Sprintf("/api/v1/subsamples/%d/targets?limit=-2", paused), 400, "limit"},
	}
	for _, tt := range tests {
		resp, body := a.do(t, "GET", tt.path, nil)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d %s, want %d with %q", tt.path, resp.StatusCode, body, tt.status, tt.want)
		}
	}

	// The bulk check of the same subsample answers every row, none sent,
	// each saying why, as the refused send list does.
	resp, body := a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", paused), "text/csv", "panelistId\nP0000001\nP0000002\n")
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || resp.StatusCode != 200 || len(rows) != 3 {
		t.Fatalf("bulk check of not sendable subsample %d: %d, %d lines, %v\n%s", paused, resp.StatusCode, len(rows), err, body)
	}
	for _, row := range rows[1:] {
		if row[3] != "false" || !strings.HasPrefix(row[4], fmt.Sprintf("Subsample %d is ", paused)) {
			t.Errorf("bulk row %q: want send false, the subsample's state first among the reasons", row)
		}
	}
}

func TestRankedSurveysShowTheQuotaVerdict(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 300)
	seen := map[string]int{}
	for _, id := range ids[:40] {
		var s formats.PanelistSurveysJSON
		a.getJSON(t, "/api/v1/panelists/"+id+"/surveys?all=true", &s)
		for i, e := range s.MayEnter {
			if e.Quota != "fits" && e.Quota != "unknown" {
				t.Errorf("%s may enter %d with quota %s", id, e.SubsampleID, e.Quota)
			}
			if e.Send != (e.Quota == "fits") {
				t.Errorf("%s on %d: send %v with quota %s", id, e.SubsampleID, e.Send, e.Quota)
			}
			if i > 0 && !rankedByEPC(s.MayEnter[i-1], e) {
				t.Errorf("%s: may-enter list not ranked by epc at %d", id, i)
			}
		}
		for _, e := range s.Others {
			seen[string(e.Quota)]++
			if e.Quota == "" {
				t.Errorf("%s on %d: no quota verdict beside the eligibility", id, e.SubsampleID)
			}
		}
	}
	if seen["off_target"]+seen["quota_full"] == 0 {
		t.Errorf("no other subsample is refused on quota grounds: %v", seen)
	}
	var one formats.EligibilityJSON
	a.getJSON(t, fmt.Sprintf("/api/v1/eligibility?panelistId=%s&subsampleId=%d", ids[0], sendableWithCells(t, a).SubsampleID), &one)
	if one.Quota == "" || (one.Quota != "fits" && len(one.QuotaReasons) == 0) {
		t.Errorf("single check: quota %q with reasons %v; want a verdict, explained unless it fits", one.Quota, one.QuotaReasons)
	}
	_, page := a.do(t, "GET", "/panelists?panelist="+ids[0], nil)
	if !strings.Contains(page, `class="quota-verdict`) {
		t.Error("the lookup page shows no quota verdict")
	}
}

func TestProfileUploads(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	body, contentType := multipartFile(t, nil, "profiles.csv", store.ProfileHeader+"\nP1,43,1\nP1,-1,1980-02-29\n")
	resp, page := a.postRaw(t, "/panelists/profiles", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="profile-import-ok"`) {
		t.Errorf("profile upload: %d %s", resp.StatusCode, page)
	}
	body, contentType = multipartFile(t, nil, "bad.csv", store.ProfileHeader+"\nP1,43,1\nP2,abc,1\nP3,-1,1980-02-30\n")
	resp, page = a.postRaw(t, "/panelists/profiles", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 422 || !strings.Contains(page, "Line 3") || !strings.Contains(page, "Line 4") {
		t.Errorf("bad profile upload: %d %s", resp.StatusCode, page)
	}
	resp, text := a.post(t, "/api/v1/profiles", "text/csv", "panelistId,question,value\nP1,43,1\n")
	var e handlers.ImportErrorJSON
	json.Unmarshal([]byte(text), &e)
	if resp.StatusCode != 400 || e.BadLines == 0 || e.Lines[0].Line != 1 {
		t.Errorf("API import with a wrong header: %d %s", resp.StatusCode, text)
	}
	resp, text = a.post(t, "/api/v1/profiles", "application/json", `[{"panelistId":"P5","questionId":43,"value":"2"}]`)
	if resp.StatusCode != 200 || !strings.Contains(text, `"inserted":1`) {
		t.Errorf("JSON profile import: %d %s", resp.StatusCode, text)
	}
	if resp, _ := a.post(t, "/api/v1/profiles", "text/plain", "x"); resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain profiles: %d, want 415", resp.StatusCode)
	}
}

// rankedByEPC reports whether b may follow a in a panelist's ranked list:
// figures before none, currencies in code order, highest figure first
// within a currency.
func rankedByEPC(a, b formats.EligibilityJSON) bool {
	switch {
	case b.EPC == nil:
		return true
	case a.EPC == nil:
		return false
	case a.Currency != b.Currency:
		return a.Currency < b.Currency
	}
	return *a.EPC >= *b.EPC
}

// TestQuotasNotReadMakeTheVerdictUnknown: after a failed quota read the
// kept quotas are not matched against; the verdict is unknown, and says why.
func TestQuotasNotReadMakeTheVerdictUnknown(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 200)
	target := sendableWithCells(t, a)
	a.sim.FailPath(fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", target.SubsampleID), sim.FailServerError)
	if err := a.refresher.Refresh(context.Background(), refresh.Request{Force: true}); err != nil {
		t.Fatalf("one subsample's failing quotas failed the whole refresh: %v", err)
	}
	resp, body := a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", target.SubsampleID), "text/csv", "panelistId\n"+strings.Join(ids[:50], "\n")+"\n")
	if resp.StatusCode != 200 {
		t.Fatalf("bulk check: %d %s", resp.StatusCode, body)
	}
	rows := parseCSV(t, body)
	if len(rows) != 51 {
		t.Fatalf("bulk check of 50 panelists answered %d lines, want 51", len(rows))
	}
	for _, r := range rows[1:] {
		if r[2] != "unknown" || r[3] != "false" || !strings.Contains(r[4], "Quotas could not be read") {
			t.Fatalf("%v: want quota unknown because the quotas could not be read, and no send", r)
		}
	}
}

// TestEmptyTestingLinkStillSends: a locale whose testing link is empty
// (one subsample in seven of the simulator's) still sends through its
// live link: the send list does not refuse the subsample.
func TestEmptyTestingLinkStillSends(t *testing.T) {
	t.Parallel()
	a, _ := profiled(t, 2000)
	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &all)
	checked := 0
	for _, s := range all {
		if len(s.EntryLinks) == 0 || s.EntryLinks[0].Testing != "" || s.EntryLinks[0].Live == "" {
			continue
		}
		checked++
		resp, body := a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets", s.SubsampleID), nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(body, "panelistId,entryLink") {
			t.Errorf("subsample %d, without a testing link: send list %d %.200s", s.SubsampleID, resp.StatusCode, body)
		}
	}
	if checked == 0 {
		t.Fatal("no sendable subsample of the simulator lacks a testing link")
	}
}
