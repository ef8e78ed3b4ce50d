package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web"
)

// answered is what one send route answered about a panelist and Target:
// whether they are sent there, where they went when the route sends
// (went: the subsample, 0 for nowhere; -1 for a route that only
// answers), and the text in which the route gives its reasons ("" for
// one that gives none).
type answered struct {
	sent bool
	went int64
	said string
}

// policyRoute is one HTTP route of a send path, asked whether a panelist
// is sent to Target.
type policyRoute struct {
	name string
	// perPanelist: the route decides for one panelist, and so reads the
	// panelist's own cap; a send list and a bulk check read the
	// subsample's caps only (checks.Service.capped).
	perPanelist bool
	ask         func(t *testing.T, w *policyApp, panelistID string) answered
}

// policyApp is the app on checkstest's world with Alt, its checks on a
// fixed clock, the invitations it signs, and the coordinator maria.
type policyApp struct {
	*app
	service *checks.Service
	signer  invite.Signer
	maria   asker
	// sentAt dates the sends a return comes back from: ahead of the
	// checks' clock and of now, a second apart, so that each is its
	// panelist's newest (the routing log's record of where a return sent
	// them on is dated by the checks' clock, in the past).
	sentAt time.Time
	// returns counts the returns, each from a subsample of its own.
	returns int64
}

// wentTo is the subsample a redirect's entry link is of (the world's links
// are https://e.test/sID?...), 0 for an answer that sends nowhere.
func wentTo(t *testing.T, resp *http.Response, body string) int64 {
	t.Helper()
	switch resp.StatusCode {
	case http.StatusOK:
		return 0
	case http.StatusFound:
	default:
		t.Fatalf("%s: %d %.300s", resp.Request.URL.Path, resp.StatusCode, body)
	}
	m := regexp.MustCompile(`^https://e\.test/s(\d+)\?`).FindStringSubmatch(resp.Header.Get("Location"))
	if m == nil {
		t.Fatalf("%s redirects to %q, not an entry link of the world", resp.Request.URL.Path, resp.Header.Get("Location"))
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

// lastDecision is the reason of the router's newest decision for
// panelistID made on the checks' clock, once the routing log has written
// what is queued.
func (w *policyApp) lastDecision(t *testing.T, panelistID string) string {
	t.Helper()
	ctx := context.Background()
	if err := w.service.Returns.Pending(ctx); err != nil {
		t.Fatal(err)
	}
	got, _, err := w.store.Routings(ctx, store.RoutingFilter{PanelistID: panelistID}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var newest domain.RoutingDecision
	for _, d := range got {
		if d.At.Equal(w.service.Now()) && d.DecisionID > newest.DecisionID {
			newest = d
		}
	}
	if newest.DecisionID == 0 {
		t.Fatalf("the router's record of %s holds no decision of now: %+v", panelistID, got)
	}
	return newest.Reason
}

// sendList asks a send list of Target for panelistID.
func sendList(path string) func(t *testing.T, w *policyApp, panelistID string) answered {
	return func(t *testing.T, w *policyApp, panelistID string) answered {
		resp, body := w.do(t, "GET", fmt.Sprintf(path, checkstest.Target), nil)
		switch resp.StatusCode {
		case http.StatusConflict:
			return answered{went: -1, said: html.UnescapeString(body)} // nobody is on the list, and it says why
		case http.StatusOK:
		default:
			t.Fatalf("send list: %d %s", resp.StatusCode, body)
		}
		listed := slices.ContainsFunc(parseCSV(t, body)[1:], func(row []string) bool { return row[0] == panelistID })
		return answered{sent: listed, went: -1}
	}
}

// bulkRow is the line of a bulk check's CSV for panelistID.
func bulkRow(t *testing.T, panelistID, body string) answered {
	t.Helper()
	rows := parseCSV(t, body)
	if len(rows) != 2 || rows[1][0] != panelistID {
		t.Fatalf("bulk check of %s answers %q", panelistID, rows)
	}
	return answered{sent: rows[1][slices.Index(rows[0], "send")] == "true", went: -1, said: rows[1][slices.Index(rows[0], "reasons")]}
}

// policyRoutes are every HTTP route that sends a panelist somewhere or
// says whether it would: the router's next surveys, an invitation click,
// a return's re-routing, the send lists, the bulk checks, a panelist's
// surveys (the API and the page) and one eligibility.
var policyRoutes = []policyRoute{
	{"GET /api/v1/panelists/{id}/next", true, func(t *testing.T, w *policyApp, panelistID string) answered {
		var next formats.NextSurveysJSON
		if resp := w.getJSON(t, "/api/v1/panelists/"+url.PathEscape(panelistID)+"/next?limit=50", &next); resp.StatusCode != 200 {
			t.Fatalf("next for %s: %d", panelistID, resp.StatusCode)
		}
		out := answered{sent: slices.ContainsFunc(next.Surveys, func(s formats.NextSurveyJSON) bool { return s.SubsampleID == checkstest.Target })}
		if len(next.Surveys) > 0 {
			out.went = next.Surveys[0].SubsampleID
		}
		return out
	}},
	{"GET /r/{token} (invited to Target)", true, func(t *testing.T, w *policyApp, panelistID string) answered {
		resp, body := w.click(t, w.signer.Link(panelistID, checkstest.Target))
		went := wentTo(t, resp, body)
		return answered{sent: went == checkstest.Target, went: went, said: w.lastDecision(t, panelistID)}
	}},
	{"GET /return/screenout (routed on)", true, func(t *testing.T, w *policyApp, panelistID string) answered {
		// A send to a subsample of no event of the world's, so that the
		// record of the return keeps the panelist out of neither Target
		// nor Alt.
		w.returns++
		w.sentAt = w.sentAt.Add(time.Second)
		from := 900 + w.returns
		if err := w.store.RecordRoutings(context.Background(), []domain.RoutingDecision{{At: w.sentAt, PanelistID: panelistID, Intended: from, Chosen: from, Outcome: domain.RoutedIntended}}); err != nil {
			t.Fatal(err)
		}
		resp, body := w.returned(t, "screenout", panelistID)
		w.service.SettleLinks()
		// The survey it goes on to is the router's first choice: the
		// decision names no rule about Target, which was not asked for.
		went := wentTo(t, resp, body)
		return answered{sent: went == checkstest.Target, went: went}
	}},
	{"GET /api/v1/subsamples/{id}/targets", false, sendList("/api/v1/subsamples/%d/targets")},
	{"GET /subsamples/{id}/targets.csv", false, sendList("/subsamples/%d/targets.csv")},
	{"POST /api/v1/subsamples/{id}/eligibility", false, func(t *testing.T, w *policyApp, panelistID string) answered {
		resp, body := w.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", checkstest.Target), "text/csv", "panelistId\n"+panelistID+"\n")
		if resp.StatusCode != 200 {
			t.Fatalf("bulk check: %d %s", resp.StatusCode, body)
		}
		return bulkRow(t, panelistID, body)
	}},
	{"POST /panelists/bulk", false, func(t *testing.T, w *policyApp, panelistID string) answered {
		form, contentType := multipartFile(t, map[string]string{"subsample": strconv.FormatInt(checkstest.Target, 10)}, "ids.csv", "panelistId\n"+panelistID+"\n")
		resp, body := w.postRaw(t, "/panelists/bulk", contentType, form, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("bulk form: %d %s", resp.StatusCode, body)
		}
		return bulkRow(t, panelistID, body)
	}},
	{"GET /api/v1/panelists/{id}/surveys", true, func(t *testing.T, w *policyApp, panelistID string) answered {
		var got formats.PanelistSurveysJSON
		_, body := w.do(t, "GET", "/api/v1/panelists/"+url.PathEscape(panelistID)+"/surveys?all=true", nil)
		decodeJSON(t, body, &got)
		sent := slices.ContainsFunc(slices.Concat(got.MayEnter, got.Others), func(s formats.EligibilityJSON) bool {
			return s.SubsampleID == checkstest.Target && s.Send
		})
		return answered{sent: sent, went: -1, said: body}
	}},
	{"GET /panelists?panelist=", true, func(t *testing.T, w *policyApp, panelistID string) answered {
		resp, page := w.do(t, "GET", "/panelists?panelist="+url.QueryEscape(panelistID), nil)
		if resp.StatusCode != 200 {
			t.Fatalf("the panelist's page: %d", resp.StatusCode)
		}
		mayEnter, _, _ := strings.Cut(page, `data-testid="not-now"`)
		sent := strings.Contains(mayEnter, fmt.Sprintf(`<tr data-subsample="%d">`, checkstest.Target))
		return answered{sent: sent, went: -1, said: html.UnescapeString(page)}
	}},
	{"GET /api/v1/eligibility", true, func(t *testing.T, w *policyApp, panelistID string) answered {
		var got formats.EligibilityJSON
		_, body := w.do(t, "GET", fmt.Sprintf("/api/v1/eligibility?panelistId=%s&subsampleId=%d", url.QueryEscape(panelistID), checkstest.Target), nil)
		decodeJSON(t, body, &got)
		return answered{sent: got.Send, went: -1, said: body}
	}},
}

// TestEveryKindOfOurRulesChangesEverySendRoute: each kind of our own
// rules, put in force on the dashboard's own form by a signed-in
// coordinator, keeps P-open out of Target on every HTTP route of a send
// path, and each route that gives reasons gives the rule's sentence,
// naming who set it and when; the routes that send, send elsewhere (Alt,
// or nowhere when the rule keeps P-open out of Alt too). Removed on the
// dashboard, P-open is sent to Target again on every route: it was the
// rule. A hold by hand set on /panelists/held does the same, and its
// release undoes it.
func TestEveryKindOfOurRulesChangesEverySendRoute(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: checkstest.ReadAt.Add(time.Minute)}
	var service *checks.Service
	a := newAppOn(t, defaultSim, func(s *web.Server) {
		s.Checks = &checks.Service{Store: s.Store, Now: clock.Now, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
		s.ClickBurst, s.LinkClickBurst = 1000, 1000
		service = s.Checks
	})
	checkstest.Build(t, a.store, checkstest.WithAlt)
	ctx := context.Background()
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(testerPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.store.AddUser(ctx, "maria", store.RoleCoordinator, string(hash), time.Now()); err != nil {
		t.Fatal(err)
	}
	w := &policyApp{app: a, service: service, signer: signer, maria: asker{role: store.RoleCoordinator}, sentAt: time.Now().Add(time.Hour)}
	w.maria.cookie, w.maria.csrf = a.login(t, "maria", testerPassword)

	// everyRoute asks every route of P-open; want is the sentence when
	// P-open is kept out of Target ("" when sent), wantWent where the
	// routes that send send it instead.
	everyRoute := func(t *testing.T, what, want string, wantWent int64, subsampleWide bool) {
		t.Helper()
		for _, r := range policyRoutes {
			if !r.perPanelist && !subsampleWide {
				continue
			}
			got := r.ask(t, w, "P-open")
			switch {
			case want == "" && !got.sent:
				t.Errorf("%s: P-open not sent to Target %s (%.500s)", r.name, what, got.said)
			case want == "":
			case got.sent:
				t.Errorf("%s: P-open sent to Target %s", r.name, what)
			case got.went >= 0 && got.went != wantWent:
				t.Errorf("%s: P-open sent to %d %s, want %d (%.500s)", r.name, got.went, what, wantWent, got.said)
			case got.said != "" && !strings.Contains(got.said, want):
				t.Errorf("%s: %s, the answer does not say %q:\n%.1000s", r.name, what, want, got.said)
			}
		}
	}
	// ourCard is the subsample page's card of our rules on Target.
	ourCard := func(t *testing.T) string {
		t.Helper()
		_, page := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", checkstest.Target), nil)
		return html.UnescapeString(regexp.MustCompile(`(?s)data-testid="our-rules".*?</section>`).FindString(page))
	}
	ruleID := regexp.MustCompile(`data-testid="policy-rule" data-id="(\d+)"`)

	why := "the links break on mobile"
	for _, tc := range []struct {
		name string
		form url.Values // the dashboard's form, kind and its fields
		// fill are panelists who click an invitation to Target once the
		// rule is in force, before P-open is asked: the sends that
		// reach a cap.
		fill []string
		want string // the sentence; "" when the rule lets P-open into Target
		// wentNowhere: the rule keeps P-open out of Alt too.
		wentNowhere bool
		// ofPanelist: the rule is P-open's own cap, not one on Target:
		// the send lists, the bulk checks and Target's page do not
		// read it.
		ofPanelist bool
	}{
		{name: "max-loi 20", form: url.Values{"kind": {"max-loi"}, "amount": {"20"}},
			want: "Our maximum LOI is 20 minutes (set by maria on 20 Nov); this survey is 25."},
		{name: "max-loi 25 (as long as the maximum is sent)", form: url.Values{"kind": {"max-loi"}, "amount": {"25"}}},
		{name: "min-cpi 2.01 USD", form: url.Values{"kind": {"min-cpi"}, "amount": {"2.01"}, "currency": {"USD"}}, wentNowhere: true,
			want: "Our minimum CPI is 2.01 USD (set by maria on 20 Nov); this survey pays 2.00 USD."},
		{name: "min-cpi 9 EUR (another currency's floor)", form: url.Values{"kind": {"min-cpi"}, "amount": {"9"}, "currency": {"eur"}}},
		{name: "min-epc 0.41 USD", form: url.Values{"kind": {"min-epc"}, "amount": {"0.41"}, "currency": {"USD"}}, wentNowhere: true,
			want: "Our minimum expected earnings per entrant are 0.41 USD (set by maria on 20 Nov); this survey's are 0.40 USD."},
		{name: "min-incidence 21", form: url.Values{"kind": {"min-incidence"}, "amount": {"21"}},
			want: "Our minimum incidence is 21% (set by maria on 20 Nov); this survey expects 20%."},
		{name: "min-incidence 20 (as much as the minimum is enough)", form: url.Values{"kind": {"min-incidence"}, "amount": {"20"}}},
		{name: "devices tablet,desktop", form: url.Values{"kind": {"devices"}, "device": {"tablet", "desktop"}},
			want: "Our panel answers on desktop or tablet (set by maria on 20 Nov); this survey allows mobile only."},
		{name: "devices mobile", form: url.Values{"kind": {"devices"}, "device": {"mobile"}}},
		{name: "block subsample 10", form: url.Values{"kind": {"block"}, "scope": {"subsample"}, "target": {"10"}},
			want: "We block subsample 10 (set by maria on 20 Nov)."},
		{name: "block event 1", form: url.Values{"kind": {"block"}, "scope": {"event"}, "target": {"1"}},
			want: "We block event 1 (set by maria on 20 Nov)."},
		{name: "block research-type consumer", form: url.Values{"kind": {"block"}, "scope": {"research-type"}, "target": {"consumer"}},
			want: "We block research type consumer (set by maria on 20 Nov)."},
		{name: "block category Drinks", form: url.Values{"kind": {"block"}, "scope": {"category"}, "target": {"Drinks"}},
			want: "We block category Drinks (set by maria on 20 Nov)."},
		{name: "block category 111", form: url.Values{"kind": {"block"}, "scope": {"category"}, "target": {"111"}},
			want: "We block category 111 (set by maria on 20 Nov)."},
		{name: "block country us", form: url.Values{"kind": {"block"}, "scope": {"country"}, "target": {"us"}}, wentNowhere: true,
			want: "We block country US (set by maria on 20 Nov)."},
		{name: "block billing-entity acme research", form: url.Values{"kind": {"block"}, "scope": {"billing-entity"}, "target": {"acme research"}},
			want: "We block billing entity acme research (set by maria on 20 Nov)."},
		{name: "block billing-entity acme (a part of the name is another entity)", form: url.Values{"kind": {"rule"}, "rule": {"block billing-entity acme"}}},
		{name: "pause subsample 10", form: url.Values{"kind": {"pause"}, "target": {"10"}},
			want: "We paused this subsample on our side (set by maria on 20 Nov): " + why + "."},
		{name: "cap subsample 10 sends 2 per hour, reached", form: url.Values{"kind": {"cap"}, "scope": {"subsample"}, "target": {"10"}, "unit": {"sends"}, "amount": {"2"}, "per": {"hour"}},
			fill: []string{"P-other-event", "P-two-reversed"},
			want: "Our cap of 2 sends an hour on subsample 10 (set by maria on 20 Nov) is reached: 2 this hour."},
		{name: "cap panelist sends 1 per day, reached", form: url.Values{"kind": {"cap"}, "scope": {"panelist"}, "amount": {"1"}},
			fill: []string{"P-open"}, wentNowhere: true, ofPanelist: true,
			want: "Our cap of 1 send per panelist a day (set by maria on 20 Nov) is reached: the panelist was sent once today."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("why", why)
			status, page := a.postForm(t, w.maria, "/policy", tc.form)
			id := ruleID.FindStringSubmatch(page)
			if status != http.StatusOK || alertOf(page) != "" || id == nil {
				t.Fatalf("the form %v: %d %q", tc.form, status, alertOf(page))
			}
			for _, p := range tc.fill {
				if resp, body := a.click(t, signer.Link(p, checkstest.Target)); wentTo(t, resp, body) != checkstest.Target {
					t.Fatalf("%s's click, under %s with room, went to %s", p, tc.name, resp.Header.Get("Location"))
				}
			}
			wantWent := checkstest.Alt
			if tc.wentNowhere {
				wantWent = 0
			}
			everyRoute(t, "under "+tc.name, tc.want, wantWent, !tc.ofPanelist)
			switch card := ourCard(t); {
			case tc.ofPanelist: // a panelist's cap is no subsample's
			case tc.want != "" && (!strings.Contains(card, tc.want) || strings.Contains(card, "None of our rules refuses it")):
				t.Errorf("Target's page under %s does not say %q alone:\n%s", tc.name, tc.want, card)
			case tc.want == "" && !strings.Contains(card, "None of our rules refuses it"):
				t.Errorf("Target's page under %s says our rules refuse it:\n%s", tc.name, card)
			}

			status, page = a.postForm(t, w.maria, "/policy/"+id[1]+"/remove", url.Values{"why": {"done"}})
			if status != http.StatusOK || ruleID.MatchString(page) {
				t.Fatalf("removing %s: %d %q", tc.name, status, alertOf(page))
			}
			everyRoute(t, "once "+tc.name+" is removed", "", 0, true)
			if card := ourCard(t); !strings.Contains(card, "None of our rules refuses it") {
				t.Errorf("Target's page once %s is removed says our rules refuse it:\n%s", tc.name, card)
			}
		})
	}

	t.Run("a hold by hand", func(t *testing.T) {
		status, page := a.postForm(t, w.maria, "/panelists/held", url.Values{"panelist": {"P-open"}, "why": {"answers in two seconds"}})
		if status != http.StatusOK || !strings.Contains(page, `data-testid="held" data-id="P-open" data-kind="hand"`) {
			t.Fatalf("hold P-open: %d\n%.2000s", status, page)
		}
		everyRoute(t, "held by hand", "Held by hand (set by maria on 20 Nov): answers in two seconds.", 0, true)
		status, page = a.postForm(t, w.maria, "/panelists/held/P-open/release", url.Values{"confirm": {"yes"}, "why": {"checked"}})
		if status != http.StatusOK || strings.Contains(page, `data-id="P-open"`) {
			t.Fatalf("release P-open: %d\n%.2000s", status, page)
		}
		everyRoute(t, "released by hand", "", 0, true)
	})
}

// decodeJSON decodes an answer's body into out.
func decodeJSON(t *testing.T, body string, out any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("%v:\n%.500s", err, body)
	}
}
