package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fieldboard/views/formats"
)

// policyForm posts an add or remove form of the policy page as the signed-in
// user tester.
func (a *app) policyForm(t *testing.T, path string, values url.Values) (*http.Response, string) {
	t.Helper()
	return a.postRaw(t, path, "application/x-www-form-urlencoded", strings.NewReader(values.Encode()), nil)
}

// alertOf is the page's error slot, "" when it has none.
func alertOf(page string) string {
	if m := regexp.MustCompile(`data-testid="policy-error">([^<]*)<`).FindStringSubmatch(page); m != nil {
		return m[1]
	}
	return ""
}

// TestPolicyPageForms: each form of the page writes its rule, listed in
// force with who set it and why, and audited; a rule the grammar refuses
// is a 422 whose reason shows in the error slot, the form keeping what
// was typed, and nothing is put in force; a rule removed after its
// confirmation leaves the list and joins the audit.
func TestPolicyPageForms(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, page := a.do(t, "GET", "/policy", nil)
	if !strings.Contains(page, "None of our rules is in force") || !strings.Contains(page, `href="/policy"`) {
		t.Fatalf("the empty page does not say no rule is in force, or the nav does not link it:\n%.2000s", page)
	}

	good := []struct {
		name   string
		form   url.Values
		listed string // the rule's words, as listed
	}{
		{"a minimum CPI per currency", url.Values{"kind": {"min-cpi"}, "amount": {"2.5"}, "currency": {"eur"}}, "min-cpi 2.5 EUR"},
		{"a minimum EPC", url.Values{"kind": {"min-epc"}, "amount": {"0.4"}, "currency": {"USD"}}, "min-epc 0.4 USD"},
		{"a maximum LOI", url.Values{"kind": {"max-loi"}, "amount": {"20"}, "why": {"panel fatigue"}}, "max-loi 20"},
		{"a minimum incidence", url.Values{"kind": {"min-incidence"}, "amount": {"10"}}, "min-incidence 10"},
		{"devices ticked", url.Values{"kind": {"devices"}, "device": {"tablet", "mobile"}}, "devices mobile,tablet"},
		{"a block of a country", url.Values{"kind": {"block"}, "scope": {"country"}, "target": {"de"}}, "block country DE"},
		{"a cap on a subsample", url.Values{"kind": {"cap"}, "scope": {"subsample"}, "target": {"12"}, "unit": {"sends"}, "amount": {"50"}, "per": {"hour"}}, "cap subsample 12 sends 50 per hour"},
		{"a cap per panelist", url.Values{"kind": {"cap"}, "scope": {"panelist"}, "amount": {"3"}}, "cap panelist sends 3 per day"},
		{"a priority typed without its sign raises", url.Values{"kind": {"priority"}, "scope": {"event"}, "target": {"7"}, "amount": {"2"}}, "priority event 7 +2"},
		{"a lowered priority", url.Values{"kind": {"priority"}, "scope": {"subsample"}, "target": {"9"}, "amount": {"-1"}}, "priority subsample 9 -1"},
		{"a pause", url.Values{"kind": {"pause"}, "target": {"12"}, "why": {"client asked"}}, "pause subsample 12"},
		{"words as typed", url.Values{"kind": {"rule"}, "rule": {"block  research-type  Health"}}, "block research-type Health"},
		{"a block's value with spaces", url.Values{"kind": {"rule"}, "rule": {"block billing-entity Acme  Research"}}, "block billing-entity Acme Research"},
	}
	for _, tt := range good {
		resp, page := a.policyForm(t, "/policy", tt.form)
		if resp.StatusCode != 200 || alertOf(page) != "" || !strings.Contains(page, `data-testid="policy-message"`) || !strings.Contains(page, "<code class=\"muted\">"+tt.listed+"</code>") {
			t.Errorf("%s: %d, error %q; want it listed as %q\n%.3000s", tt.name, resp.StatusCode, alertOf(page), tt.listed, page)
		}
	}

	bad := []struct {
		name, want string
		form       url.Values
	}{
		{"an incidence above 100", "Not in force: An incidence of 150% is more than 100%.", url.Values{"kind": {"min-incidence"}, "amount": {"150"}}},
		{"a currency that is not a code", `Not in force: Currency &#34;euro&#34; is not a three-letter code such as EUR.`, url.Values{"kind": {"min-cpi"}, "amount": {"1"}, "currency": {"euro"}}},
		{"no device ticked", "Not in force: Tick at least one device the panel answers on.", url.Values{"kind": {"devices"}}},
		{"a priority of 0", "Not in force: Priority &#34;0&#34; is not a signed whole number other than 0, such as +2 or -1, from -1000 to +1000.", url.Values{"kind": {"priority"}, "scope": {"event"}, "target": {"7"}, "amount": {"0"}}},
		{"a cap of no number", "Not in force: Cap takes cap subsample ID sends|entrants|completes N per hour|day.", url.Values{"kind": {"cap"}, "scope": {"subsample"}, "target": {"12"}, "unit": {"sends"}, "per": {"day"}}},
		{"an unknown kind", "Not in force: &#34;nap&#34; is not a kind of rule this page adds.", url.Values{"kind": {"nap"}}},
		{"a why too long", "Not in force: A reason is at most 500 bytes of text.", url.Values{"kind": {"max-loi"}, "amount": {"30"}, "why": {strings.Repeat("x", 501)}}},
	}
	for _, tt := range bad {
		resp, page := a.policyForm(t, "/policy", tt.form)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(alertOf(page), tt.want) {
			t.Errorf("%s: %d, error %q; want 422 and %q", tt.name, resp.StatusCode, alertOf(page), tt.want)
		}
	}
	// The refused form keeps what was typed.
	_, page = a.policyForm(t, "/policy", url.Values{"kind": {"priority"}, "scope": {"event"}, "target": {"7"}, "amount": {"0"}, "why": {"try"}})
	if !regexp.MustCompile(`data-testid="policy-form-priority"(?s:.*?)<option value="event" selected(?s:.*?)value="7"(?s:.*?)value="0"(?s:.*?)value="try"`).MatchString(page) {
		t.Errorf("a refused form does not keep what was typed")
	}
	// Nothing refused was put in force: the maximum LOI is still 20.
	var p formats.PolicyJSON
	a.getJSON(t, "/api/v1/policy", &p)
	if len(p.Rules) != len(good) {
		t.Errorf("%d rules in force after %d good forms and refused ones", len(p.Rules), len(good))
	}
	for _, r := range p.Rules {
		if r.Kind == "max-loi" && (r.Amount != 20 || r.SetBy != "tester" || r.Why != "panel fatigue") {
			t.Errorf("the maximum LOI in force: %+v; want 20, set by tester for panel fatigue", r)
		}
	}

	// Removal: the rule leaves the list and joins the audit with its why.
	_, page = a.do(t, "GET", "/policy", nil)
	id := regexp.MustCompile(`data-testid="policy-rule" data-id="(\d+)" data-kind="max-loi"`).FindStringSubmatch(page)
	if id == nil || !strings.Contains(page, `<summary>Remove…</summary>`) {
		t.Fatal("no maximum LOI listed with a Remove step")
	}
	resp, page := a.policyForm(t, "/policy/"+id[1]+"/remove", url.Values{"why": {"season over"}})
	if resp.StatusCode != 200 || strings.Contains(page, `data-kind="max-loi"`) || !strings.Contains(page, "Our maximum LOI (20 minutes) is removed.") {
		t.Errorf("remove: %d; want the maximum LOI gone\n%.2000s", resp.StatusCode, page)
	}
	if resp, page := a.policyForm(t, "/policy/"+id[1]+"/remove", nil); resp.StatusCode != 404 || !strings.Contains(alertOf(page), "not in force") {
		t.Errorf("removing it again: %d %q; want 404 saying it is not in force", resp.StatusCode, alertOf(page))
	}
	// Resume: the pause of subsample 12 is removed; a second resume is a 404.
	if resp, page := a.policyForm(t, "/policy/resume", url.Values{"target": {"12"}}); resp.StatusCode != 200 || strings.Contains(page, `data-kind="pause"`) {
		t.Errorf("resume: %d; want the pause gone", resp.StatusCode)
	}
	if resp, _ := a.policyForm(t, "/policy/resume", url.Values{"target": {"12"}}); resp.StatusCode != 404 {
		t.Errorf("resuming a subsample not paused: %d, want 404", resp.StatusCode)
	}
	// From the subsample page, the pause goes back there.
	if resp, _ := a.policyForm(t, "/policy", url.Values{"kind": {"pause"}, "target": {"12"}, "back": {"/subsamples/12"}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/subsamples/12" {
		t.Errorf("pause from the subsample page: %d to %q; want 303 to /subsamples/12", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := a.policyForm(t, "/policy/resume", url.Values{"target": {"12"}, "back": {"https://elsewhere.example/"}}); resp.StatusCode != 200 {
		t.Errorf("resume with a back address elsewhere: %d; want the policy page, not a redirect", resp.StatusCode)
	}

	_, page = a.do(t, "GET", "/policy", nil)
	audit := regexp.MustCompile(`data-testid="policy-change"`).FindAllString(page, -1)
	if want := len(good) + 4; len(audit) != want { // and a removal, two resumes, a pause
		t.Errorf("the audit lists %d changes, want %d", len(audit), want)
	}
	if !regexp.MustCompile(`(?s)tester</td><td>our maximum LOI removed.*?<td>20 minutes</td><td>–</td><td>season over</td>`).MatchString(page) {
		t.Errorf("the audit does not show the removal with who, before, after and why\n%s", page)
	}
	if strings.Contains(page, `href="/subsamples/0"`) {
		t.Error("the audit links a change that is about no subsample to /subsamples/0")
	}
}

// TestPolicyCSVsAndAPI: the rules and the audit download as CSV; the API
// lists the rules with their words, adds one by its words set by the
// caller's name, refuses a bad one with 422 and a body that is not JSON
// with 400, removes by id (404 when not in force), and lists the audit.
func TestPolicyCSVsAndAPI(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	resp, body := a.post(t, "/api/v1/policy", "application/json", `{"rule": "block country FR", "why": "no panel there"}`)
	if resp.StatusCode != http.StatusCreated || !strings.Contains(body, `"words":"block country FR"`) || !strings.Contains(body, `"setBy":"tests"`) || !strings.Contains(body, `"subject":"our block of country FR"`) {
		t.Fatalf("POST /api/v1/policy: %d %s", resp.StatusCode, body)
	}
	if resp, body := a.post(t, "/api/v1/policy", "application/json", `{"rule": "max-loi twenty"}`); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `Number \"twenty\" is not a number`) {
		t.Errorf("a bad rule: %d %s; want 422 saying why", resp.StatusCode, body)
	}
	if resp, _ := a.post(t, "/api/v1/policy", "application/json", `max-loi 20`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a body that is not JSON: %d, want 400", resp.StatusCode)
	}
	if resp, _ := a.post(t, "/api/v1/policy", "application/json", `{"rule": "max-loi 20", "who": "me"}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a body with an unknown field: %d, want 400", resp.StatusCode)
	}
	a.post(t, "/api/v1/policy", "application/json", `{"rule": "priority event 7 -1"}`)

	var p formats.PolicyJSON
	a.getJSON(t, "/api/v1/policy", &p)
	if len(p.Rules) != 2 || p.Rules[0].Words != "block country FR" || p.Rules[1].Value != "-1" || p.Holds == nil {
		t.Fatalf("GET /api/v1/policy: %+v", p)
	}

	rules := a.getCSV(t, "/policy.csv", "policy")
	if len(rules) != 3 || strings.Join(rules[0], ",") != "id,kind,scope,target,amount,currency,unit,per,words,subject,value,setBy,setAt,why" ||
		rules[1][8] != "block country FR" || rules[1][13] != "no panel there" || rules[2][10] != "-1" {
		t.Errorf("/policy.csv: %q", rules)
	}

	id := strconv.FormatInt(p.Rules[0].ID, 10)
	if resp, body := a.post(t, "/api/v1/policy/"+id+"/remove", "application/json", `{"why": "panel recruited"}`); resp.StatusCode != 200 || !strings.Contains(body, `"words":"block country FR"`) {
		t.Errorf("remove: %d %s", resp.StatusCode, body)
	}
	if resp, _ := a.post(t, "/api/v1/policy/"+id+"/remove", "application/json", ``); resp.StatusCode != 404 {
		t.Errorf("remove a rule not in force: %d, want 404", resp.StatusCode)
	}

	var changes formats.PolicyChangesPage
	a.getJSON(t, "/api/v1/policy/changes?limit=10", &changes)
	if len(changes.Changes) != 3 || changes.Changes[0].Action != "remove" || changes.Changes[0].Why != "panel recruited" || changes.Changes[0].By != "tests" ||
		changes.Changes[0].Before != "in force" || changes.Changes[0].After != "" {
		t.Errorf("GET /api/v1/policy/changes: %+v", changes)
	}
	audit := a.getCSV(t, "/policy/changes.csv", "policy-changes")
	if len(audit) != 4 || strings.Join(audit[0], ",") != "id,at,by,action,subject,ruleKind,panelistId,subsampleId,before,after,why" || audit[1][3] != "remove" || audit[1][7] != "" {
		t.Errorf("/policy/changes.csv: %q", audit)
	}
}

// TestPolicyChangesInTheFeed: a change of our rules reaches the change
// feed as policy.changed, in words with who and why; the page and its CSV
// name no subsample 0 for a rule on none, and a pause's
// change links its subsample.
func TestPolicyChangesInTheFeed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.post(t, "/api/v1/policy", "application/json", `{"rule": "max-loi 20", "why": "panel fatigue"}`)
	a.post(t, "/api/v1/policy", "application/json", `{"rule": "pause subsample 12"}`)
	for _, path := range []string{"/changes?kind=policy.changed", "/changes"} {
		_, page := a.do(t, "GET", path, nil)
		rows := regexp.MustCompile(`(?s)<tr data-testid="change" data-kind="policy.changed">.*?</tr>`).FindAllString(page, -1)
		if len(rows) != 2 {
			t.Fatalf("GET %s: %d changes of our rules listed, want 2\n%s", path, len(rows), page)
		}
		if !strings.Contains(rows[1], "our rules changed") || !strings.Contains(rows[1], "our maximum LOI: 20 minutes (panel fatigue), by tests") ||
			strings.Contains(rows[1], `/subsamples/0"`) || strings.Contains(rows[1], `event=0"`) || strings.Contains(rows[1], ">0<") {
			t.Errorf("GET %s: the maximum LOI's change reads\n%s", path, rows[1])
		}
		if !strings.Contains(rows[0], `href="/subsamples/12"`) {
			t.Errorf("GET %s: the pause's change does not link its subsample\n%s", path, rows[0])
		}
	}
	rows := a.getCSV(t, "/changes.csv?kind=policy.changed", "changes")
	if len(rows) != 3 || rows[2][2] != "policy.changed" || rows[2][3] != "" || rows[2][4] != "" || rows[1][3] != "12" {
		t.Errorf("/changes.csv of our rules: %q; want the subsample and event empty for a rule on none", rows)
	}
}

// TestPolicyChangesTheRoutersPick: a block of the router's first pick set
// on the dashboard takes it out of what GET /api/v1/panelists/{id}/next
// answers, and the subsample's page and API say which rule refuses it,
// who set it; removed, the pick comes back. A pause from the subsample's
// page goes back to it, which offers to resume.
func TestPolicyChangesTheRoutersPick(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 300)
	var panelist string
	var before formats.NextSurveysJSON
	for _, id := range ids {
		var next formats.NextSurveysJSON
		a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(id)+"/next?limit=2", &next)
		if len(next.Surveys) == 2 {
			panelist, before = id, next
			break
		}
	}
	if panelist == "" {
		t.Fatal("no panelist has two surveys to be sent to")
	}
	pick := strconv.FormatInt(before.Surveys[0].SubsampleID, 10)
	if resp, page := a.policyForm(t, "/policy", url.Values{"kind": {"block"}, "scope": {"subsample"}, "target": {pick}, "why": {"client complaint"}}); resp.StatusCode != 200 {
		t.Fatalf("block subsample %s: %d %s", pick, resp.StatusCode, alertOf(page))
	}
	var after formats.NextSurveysJSON
	a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(panelist)+"/next?limit=2", &after)
	if len(after.Surveys) == 0 || after.Surveys[0].SubsampleID == before.Surveys[0].SubsampleID {
		t.Fatalf("after blocking subsample %s the router still picks %+v", pick, after.Surveys)
	}
	for _, s := range after.Surveys {
		if s.SubsampleID == before.Surveys[0].SubsampleID {
			t.Errorf("the blocked subsample %s is still among the surveys %+v", pick, after.Surveys)
		}
	}
	sentence := "We block subsample " + pick + " (set by tester on "
	_, page := a.do(t, "GET", "/subsamples/"+pick, nil)
	card := regexp.MustCompile(`(?s)data-testid="our-rules".*?</section>`).FindString(page)
	if !strings.Contains(card, sentence) || strings.Contains(card, "None of our rules refuses it") {
		t.Errorf("the subsample's page does not say which of our rules refuses it:\n%s", card)
	}
	s := a.subsamplesJSON(t)[before.Surveys[0].SubsampleID]
	if s.Sendability != "blocked_by_us" || len(s.Reasons) == 0 || !strings.Contains(strings.Join(s.Reasons, " "), sentence) {
		t.Errorf("the API says of subsample %s: %s %q; want blocked_by_us naming our block", pick, s.Sendability, s.Reasons)
	}
	// The live list marks it as refused by our rules, keeps it alone under
	// whose=ours, and its CSV gives our sentence in ourRules.
	_, live := a.do(t, "GET", "/live?whose=ours", nil)
	if rows := regexp.MustCompile(`data-testid="live-row"`).FindAllString(live, -1); len(rows) != 1 ||
		!strings.Contains(live, `<span class="id">`+pick+`</span>`) || !strings.Contains(live, `data-testid="whose-rules">our rules<`) {
		t.Errorf("/live?whose=ours lists %d rows; want subsample %s alone, marked as refused by our rules", len(rows), pick)
	}
	_, live = a.do(t, "GET", "/live?whose=provider", nil)
	if strings.Contains(live, `<span class="id">`+pick+`</span>`) || strings.Contains(live, `>our rules<`) {
		t.Errorf("/live?whose=provider lists the subsample our rules refuse")
	}
	csvRows := a.getCSV(t, "/live.csv?whose=ours", "live-subsamples")
	if last := len(csvRows[0]) - 1; len(csvRows) != 2 || csvRows[0][last] != "ourRules" || !strings.Contains(csvRows[1][last], sentence) {
		t.Errorf("/live.csv?whose=ours: %q; want the subsample with our sentence in ourRules", csvRows)
	}

	var p formats.PolicyJSON
	a.getJSON(t, "/api/v1/policy", &p)
	if resp, body := a.post(t, "/api/v1/policy/"+strconv.FormatInt(p.Rules[0].ID, 10)+"/remove", "application/json", `{"why":"resolved"}`); resp.StatusCode != 200 {
		t.Fatalf("remove the block: %d %s", resp.StatusCode, body)
	}
	var back formats.NextSurveysJSON
	a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(panelist)+"/next?limit=2", &back)
	if len(back.Surveys) == 0 || back.Surveys[0].SubsampleID != before.Surveys[0].SubsampleID {
		t.Errorf("the block removed, the router picks %+v; want %s again", back.Surveys, pick)
	}

	// Pause and resume from the subsample's page; another subsample's
	// pause is not its own.
	a.post(t, "/api/v1/policy", "application/json", `{"rule": "pause subsample 999999"}`)
	_, page = a.do(t, "GET", "/subsamples/"+pick, nil)
	if !strings.Contains(page, "None of our rules refuses it") || !strings.Contains(page, "Pause on our side") {
		t.Errorf("the subsample's page, no rule of ours on it: no pause button or no word of none refusing")
	}
	resp, _ := a.policyForm(t, "/policy", url.Values{"kind": {"pause"}, "target": {pick}, "why": {"checking the link"}, "back": {"/subsamples/" + pick}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/subsamples/"+pick {
		t.Fatalf("pause from the subsample's page: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, page = a.do(t, "GET", "/subsamples/"+pick, nil)
	if !strings.Contains(page, "We paused this subsample on our side (set by tester on") || !strings.Contains(page, "checking the link.") || !strings.Contains(page, "Resume on our side") {
		t.Errorf("the paused subsample's page does not say so, or offers no resume")
	}
	resp, _ = a.policyForm(t, "/policy/resume", url.Values{"target": {pick}, "back": {"/subsamples/" + pick}})
	if _, page = a.do(t, "GET", "/subsamples/"+pick, nil); resp.StatusCode != http.StatusSeeOther || !strings.Contains(page, "Pause on our side") {
		t.Errorf("resume from the subsample's page: %d; the page does not offer to pause again", resp.StatusCode)
	}
}
