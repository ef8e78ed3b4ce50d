package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// returnsApp is an app whose server takes returns as configure sets, with
// a profiled panel, a panelist who would be sent to two surveys or more,
// and an invitation signer.
func returnsApp(t *testing.T, configure func(*web.Server)) (a *app, panelist string, next []formats.NextSurveyJSON, link func(id string) string) {
	t.Helper()
	a = newAppWith(t, func(s *web.Server) {
		s.ClickBurst = 1000
		if configure != nil {
			configure(s)
		}
	})
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	ids := a.profile(t, 300)
	panelist, next = routed(t, a, ids)
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return a, panelist, next, func(id string) string { return signer.Link(id, 0) }
}

// returned follows a return address as a respondent's browser would.
func (a *app) returned(t *testing.T, status, id string, extra ...string) (*http.Response, string) {
	t.Helper()
	return a.click(t, a.url+"/return/"+status+"?id="+url.QueryEscape(id)+strings.Join(extra, ""))
}

// refusedReturns reads the refused returns' counter for reason on
// /metrics ("" when it is not there).
func (a *app) refusedReturns(t *testing.T, reason string) string {
	t.Helper()
	_, body := a.do(t, "GET", "/metrics", nil)
	prefix := `fieldboard_returns_refused_total{reason="` + reason + `"} `
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return v
		}
	}
	return ""
}

// TestReturnRoutesOn: a respondent screened out of the survey a click
// sent them to is recorded at once (the history holds the screen-out, the
// send is marked returned) and sent on, in the same request, to the best
// survey now, of another event (the record just written counted); the
// hop is in the router's record after the send it followed, and a
// complete goes to the supplier's page.
func TestReturnRoutesOn(t *testing.T) {
	t.Parallel()
	a, panelist, next, link := returnsApp(t, func(s *web.Server) { s.CompleteURL = "https://supplier.test/thanks" })
	ctx := context.Background()
	resp, _ := a.click(t, link(panelist))
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != next[0].EntryLink {
		t.Fatalf("click: %d to %q, want 302 to %q", resp.StatusCode, resp.Header.Get("Location"), next[0].EntryLink)
	}
	first := next[0]

	resp, _ = a.returned(t, "screenout", panelist)
	location := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || location == "" {
		t.Fatalf("screen-out: %d to %q, want a redirect to the next survey", resp.StatusCode, location)
	}
	var sendable []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &sendable)
	var to formats.SubsampleJSON
	for _, s := range sendable {
		if hasLink(s, location, panelist) {
			to = s
		}
	}
	if to.SubsampleID == 0 || to.SubsampleID == first.SubsampleID || to.EventID == first.EventID {
		t.Errorf("sent on to %q (subsample %d of event %d); want another event's survey than %d's event %d",
			location, to.SubsampleID, to.EventID, first.SubsampleID, first.EventID)
	}
	history, err := a.store.HistoryOf(ctx, panelist)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRecord(history, first.SubsampleID, domain.ReturnScreenOut) {
		t.Errorf("the history of %s = %+v; want the screen-out on %d", panelist, history, first.SubsampleID)
	}
	got := a.decisions(t, store.RoutingFilter{PanelistID: panelist}, 3) // the answer routed asked, the click, the hop
	hop, click := got[0], got[1]
	if click.ReturnStatus != domain.ReturnScreenOut || click.ReturnVia != domain.ReturnByRedirect || click.ReturnedAt == nil {
		t.Errorf("the click's send = %+v; want it marked returned as a screen-out", click)
	}
	if hop.Outcome != domain.RoutedOnReturn || hop.Hop != 2 || hop.After != click.DecisionID || hop.Chosen != to.SubsampleID ||
		!strings.Contains(hop.Reason, "Returned as Screen out from subsample") {
		t.Errorf("the hop = %+v; want outcome return, hop 2 after %d, chosen %d", hop, click.DecisionID, to.SubsampleID)
	}

	// A complete from the hop's survey: recorded, to the supplier's page.
	resp, _ = a.returned(t, "complete", panelist)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "https://supplier.test/thanks" {
		t.Errorf("complete: %d to %q, want the --complete-url", resp.StatusCode, resp.Header.Get("Location"))
	}
	if history, _ := a.store.HistoryOf(ctx, panelist); !hasRecord(history, to.SubsampleID, domain.ReturnComplete) {
		t.Errorf("the complete on %d is not in the history: %+v", to.SubsampleID, history)
	}
}

func hasRecord(history []domain.HistoryRecord, subsampleID, status int64) bool {
	for _, r := range history {
		if r.SubsampleID == subsampleID && r.StatusID == status {
			return true
		}
	}
	return false
}

// TestForgedReturnsAreRefused: a return with no send to the panelist, for
// an id not on the panel, a second return of one send, and, with a
// signature secret set, an unsigned, wrongly signed or re-addressed one
// are not recorded; the respondent gets a page and the refusal is counted
// by reason on /metrics.
func TestForgedReturnsAreRefused(t *testing.T) {
	t.Parallel()
	a, panelist, next, link := returnsApp(t, nil)
	ctx := context.Background()
	if resp, _ := a.click(t, link(panelist)); resp.StatusCode != http.StatusFound {
		t.Fatalf("click: %d", resp.StatusCode)
	}
	// Another panelist on the panel, never sent anywhere.
	var other string
	for m := range a.sim.Panel(7, 300) {
		if m.PanelistID != panelist {
			other = m.PanelistID
			break
		}
	}
	for _, tt := range []struct {
		name, status, id, reason string
	}{
		{"no send to the panelist", "complete", other, checks.RefusedNoSend},
		{"an id not on the panel", "complete", "P-nobody", checks.RefusedNotOnPanel},
	} {
		resp, body := a.returned(t, tt.status, tt.id)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Thank you") {
			t.Errorf("%s: %d\n%s", tt.name, resp.StatusCode, body)
		}
		if n := a.refusedReturns(t, tt.reason); n != "1" {
			t.Errorf("%s: /metrics counts %q refused for %q, want 1", tt.name, n, tt.reason)
		}
		if history, _ := a.store.HistoryOf(ctx, tt.id); len(history) != 0 {
			t.Errorf("%s: recorded %+v", tt.name, history)
		}
	}
	// One send, two returns: the first is recorded, the second refused.
	if resp, _ := a.returned(t, "complete", panelist); resp.StatusCode != http.StatusOK {
		t.Fatalf("the first return: %d", resp.StatusCode)
	}
	if resp, _ := a.returned(t, "screenout", panelist); resp.StatusCode != http.StatusOK {
		t.Errorf("the second return: %d, want the plain page, not a route on", resp.StatusCode)
	}
	if n := a.refusedReturns(t, checks.RefusedReturned); n != "1" {
		t.Errorf("/metrics counts %q second returns refused, want 1", n)
	}
	history, _ := a.store.HistoryOf(ctx, panelist)
	if !hasRecord(history, next[0].SubsampleID, domain.ReturnComplete) || hasRecord(history, next[0].SubsampleID, domain.ReturnScreenOut) {
		t.Errorf("history %+v; want the first return's complete alone", history)
	}
}

// TestSignedReturns: with --return-secret, only a return address signed
// as the provider signs it is recorded; dropping the signature, changing
// it or putting another panelist's id under it is refused.
func TestSignedReturns(t *testing.T) {
	t.Parallel()
	sig := rules.ReturnSignature{Secret: []byte("s3cret"), Param: "hash", Alg: "sha512"}
	a, panelist, _, link := returnsApp(t, func(s *web.Server) { s.Checks.Returns.Signature = sig })
	var other string
	for m := range a.sim.Panel(7, 300) {
		if m.PanelistID != panelist {
			other = m.PanelistID
			break
		}
	}
	for _, id := range []string{panelist, other} {
		if resp, _ := a.click(t, link(id)); resp.StatusCode != http.StatusFound {
			t.Fatalf("click: %d", resp.StatusCode)
		}
	}
	address := func(id string) string { return "/return/screenout?id=" + url.QueryEscape(id) }
	signed := sig.Sign(address(panelist))
	for name, path := range map[string]string{
		"unsigned":            address(panelist),
		"signed with another": rules.ReturnSignature{Secret: []byte("other"), Param: "hash", Alg: "sha512"}.Sign(address(panelist)),
		"another id":          strings.Replace(signed, url.QueryEscape(panelist), url.QueryEscape(other), 1),
		"a parameter added":   strings.Replace(signed, "&hash=", "&x=1&hash=", 1),
	} {
		resp, _ := a.click(t, a.url+path)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d to %q, want the plain page", name, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if n := a.refusedReturns(t, checks.RefusedBadSignature); n != "4" {
		t.Errorf("/metrics counts %q bad signatures, want 4", n)
	}
	if resp, _ := a.click(t, a.url+signed); resp.StatusCode != http.StatusFound {
		t.Errorf("the signed return: %d, want it recorded and routed on", resp.StatusCode)
	}
}

// TestPostedReturns: the provider's server-to-server returns are recorded
// as the addresses' are and answered each with what became of it; a body
// that does not parse records nothing.
func TestPostedReturns(t *testing.T) {
	t.Parallel()
	a, panelist, next, link := returnsApp(t, func(s *web.Server) { s.Checks.Returns.MaxHops = 2 })
	ctx := context.Background()
	if resp, _ := a.click(t, link(panelist)); resp.StatusCode != http.StatusFound {
		t.Fatalf("click: %d", resp.StatusCode)
	}
	for _, tt := range []struct{ contentType, body, want string }{
		{"application/json", `[{"panelistId": "` + panelist + `", "status": "maybe"}]`, "is not complete, screenout"},
		{"text/csv", "panelistId,status\n" + panelist + ",3,extra\n", "line 2"},
		{"text/csv", "id,status\n", "header"},
		{"text/plain", "x", ""},
		{"application/json", "[" + strings.Repeat(" ", 3<<20) + "]", "at most 2097152 bytes"},
	} {
		resp, body := a.post(t, "/api/v1/returns", tt.contentType, tt.body)
		if resp.StatusCode/100 != 4 || !strings.Contains(body, tt.want) {
			t.Errorf("POST %q: %d %s; want a 4xx with %q", tt.body, resp.StatusCode, body, tt.want)
		}
	}
	if history, _ := a.store.HistoryOf(ctx, panelist); len(history) != 0 {
		t.Fatalf("a refused body recorded %+v", history)
	}
	// A screen-out posted as JSON, then (the hop's survey) one as CSV: the
	// session's second survey is its last (MaxHops 2), so no third.
	var answers []formats.ReturnAnswer
	resp, body := a.post(t, "/api/v1/returns", "application/json", `[{"panelistId": "`+panelist+`", "status": 82}]`)
	if err := json.Unmarshal([]byte(body), &answers); resp.StatusCode != 200 || err != nil || len(answers) != 1 || !answers[0].Recorded ||
		answers[0].NextSubsampleID == 0 || answers[0].NextSubsampleID == next[0].SubsampleID || answers[0].NextLink == "" {
		t.Fatalf("POST a screen-out: %d %s", resp.StatusCode, body)
	}
	a.decisions(t, store.RoutingFilter{PanelistID: panelist, Outcome: domain.RoutedOnReturn}, 1)
	resp, body = a.post(t, "/api/v1/returns", "text/csv", "panelistId,status\n"+panelist+",screenout\n"+panelist+",quotafull\n")
	answers = nil
	if err := json.Unmarshal([]byte(body), &answers); resp.StatusCode != 200 || err != nil || len(answers) != 2 || !answers[0].Recorded ||
		answers[0].NextLink != "" || !strings.Contains(answers[0].NextReason, "its 2 surveys") || answers[1].Recorded || answers[1].Refused != checks.RefusedReturned {
		t.Errorf("POST two returns of the last hop: %d %s; want the first recorded and not routed on, the second refused", resp.StatusCode, body)
	}
}

// TestQuotaFullReturnClosesTheCells: a quota full returned for a send
// closes, at once, the cells the router judged the panelist to fall in
// there (the send paths' side is checks' TestEverySendPathHoldsACellClosedByTheField).
func TestQuotaFullReturnClosesTheCells(t *testing.T) {
	t.Parallel()
	a, panelist, next, link := returnsApp(t, nil)
	ctx := context.Background()
	if resp, _ := a.click(t, link(panelist)); resp.StatusCode != http.StatusFound {
		t.Fatalf("click: %d", resp.StatusCode)
	}
	if resp, _ := a.returned(t, "quotafull", panelist); resp.StatusCode != http.StatusFound {
		t.Fatalf("quota full: %d, want a route on", resp.StatusCode)
	}
	send := a.decisions(t, store.RoutingFilter{PanelistID: panelist, SubsampleID: next[0].SubsampleID, Outcome: domain.RoutedNext}, 1)[0]
	if send.Cells == "" {
		t.Fatalf("the click's send judged no cells: %+v", send)
	}
	closures, err := a.store.FieldClosures(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var closed []string
	for _, c := range closures {
		if c.SubsampleID == next[0].SubsampleID {
			closed = append(closed, strconv.FormatInt(c.QuotaID, 10))
		}
	}
	if strings.Join(closed, ",") != send.Cells {
		t.Errorf("closed cells %v of subsample %d; want the send's %s", closed, next[0].SubsampleID, send.Cells)
	}
}
