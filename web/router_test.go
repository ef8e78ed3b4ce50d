package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// TestNextSurveys: the next-survey answer is the panelist's surveys that
// send would be true for, in the same order, each with the entry link of
// the panelist's locale filled for them, only of their country and
// language; limit cuts it; an unknown panelist is a 404.
func TestNextSurveys(t *testing.T) {
	t.Parallel()
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
		{"/api/v1/panelists/p-AWAY/next", 404, `Panelist \"p-AWAY\" is not on the panel: with no country or language on file, no survey can be chosen for them. Did you mean \"P-away\"?`},
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

// decisions waits until the router's record holds want decisions that
// filter selects, written behind the redirects (five minutes at most: a
// hang, not a speed), and returns them, newest first.
func (a *app) decisions(t *testing.T, filter store.RoutingFilter, want int) []domain.RoutingDecision {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		got, total, err := a.store.Routings(context.Background(), filter, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if total >= want || time.Now().After(deadline) {
			if total != want {
				t.Fatalf("the router's record holds %d decisions for %+v, want %d", total, filter, want)
			}
			return got
		}
	}
}

// click follows an invitation link as a panelist's browser would: no
// cookie, no sign-in, one step (the redirect is read, not followed).
func (a *app) click(t *testing.T, link string) (*http.Response, string) {
	t.Helper()
	resp, err := a.anonymous.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
		t.Errorf("GET %s sets cookies %v", link, c)
	}
	if cc := resp.Header.Get("Cache-Control"); resp.StatusCode != http.StatusTooManyRequests && cc != "no-store" {
		t.Errorf("GET %s: Cache-Control %q, want no-store", link, cc)
	}
	return resp, string(body)
}

// routed is a panelist of the simulator who would be sent to two surveys
// or more, and those surveys, best first.
func routed(t *testing.T, a *app, ids []string) (string, []formats.NextSurveyJSON) {
	t.Helper()
	for _, id := range ids {
		var next formats.NextSurveysJSON
		a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(id)+"/next?limit=50", &next)
		if len(next.Surveys) >= 2 {
			return id, next.Surveys
		}
	}
	t.Fatal("no panelist of the simulator would be sent to two surveys")
	return "", nil
}

// TestInvitationLinks: a click goes to the invitation's subsample while
// the panelist would still be sent there, else to their best survey now,
// else to a plain page; bad, altered, expired and retired tokens are a
// plain 404; every click is recorded with why.
func TestInvitationLinks(t *testing.T) {
	t.Parallel()
	a := newAppWith(t, func(s *web.Server) { s.ClickBurst = 1000 })
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	ids := a.profile(t, 300)
	panelist, next := routed(t, a, ids)
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var elsewhere formats.SubsampleJSON // sendable, but not in the panelist's country
	var sendable []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples?sendability=sendable", &sendable)
	for _, s := range sendable {
		if s.Country != sendableCountry(sendable, next[0].SubsampleID) {
			elsewhere = s
		}
	}
	if elsewhere.SubsampleID == 0 {
		t.Fatal("every sendable subsample is of one country")
	}
	// The next-survey answer routed asked is in the record first, with the
	// cells the panelist was judged to fall in on the survey it named.
	if answer := a.decisions(t, store.RoutingFilter{PanelistID: panelist}, 1)[0]; answer.Outcome != domain.RoutedAnswer ||
		answer.Chosen != next[0].SubsampleID || answer.Intended != 0 || answer.Cells == "" {
		t.Errorf("the next-survey answer was recorded as %+v; want an answer naming %d, with its cells", answer, next[0].SubsampleID)
	}

	for i, tt := range []struct {
		name      string
		subsample int64
		want      string // the Location
		outcome   domain.RoutingOutcome
		reason    string
	}{
		{"as invited, though not the best", next[1].SubsampleID, next[1].EntryLink, domain.RoutedIntended, "as invited"},
		{"no subsample named", 0, next[0].EntryLink, domain.RoutedNext, "the best survey"},
		{"another country's subsample", elsewhere.SubsampleID, next[0].EntryLink, domain.RoutedNext, "this subsample is fielded in " + elsewhere.Country},
		{"a subsample no longer live", 999999999, next[0].EntryLink, domain.RoutedNext, "Subsample 999999999 is not live now."},
	} {
		resp, _ := a.click(t, signer.Link(panelist, tt.subsample))
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != tt.want {
			t.Errorf("%s: %d to %q, want 302 to %q", tt.name, resp.StatusCode, resp.Header.Get("Location"), tt.want)
		}
		got := a.decisions(t, store.RoutingFilter{PanelistID: panelist}, i+2)
		if d := got[0]; d.Intended != tt.subsample || d.Outcome != tt.outcome || !strings.Contains(d.Reason, tt.reason) || d.Chosen == 0 {
			t.Errorf("%s: recorded %+v; want intended %d, outcome %s, a reason with %q", tt.name, d, tt.subsample, tt.outcome, tt.reason)
		}
	}

	// Nobody would take a panelist of a country where nothing is fielded.
	a.livesIn(t, "ZZ", "P-away")
	resp, body := a.click(t, signer.Link("P-away", next[0].SubsampleID))
	if resp.StatusCode != 200 || !strings.Contains(body, "There is no survey for you right now") || strings.Contains(body, "/live") {
		t.Errorf("no survey: %d\n%s", resp.StatusCode, body)
	}
	if got := a.decisions(t, store.RoutingFilter{PanelistID: "P-away"}, 1); len(got) != 1 || got[0].Outcome != domain.RoutedNone || got[0].Chosen != 0 {
		t.Errorf("no survey: recorded %+v", got)
	}

	// Bad tokens: a plain 404 that says nothing about why, recorded nowhere.
	good := signer.Link(panelist, 0)
	expired, _ := newSigner(ctx, a.store, time.Now().Add(-2*time.Hour), a.url, time.Hour)
	middle := len(good) - 20 // a character of the token, well inside it
	flipped := "A"
	if good[middle] == 'A' {
		flipped = "B"
	}
	for name, link := range map[string]string{
		"altered":                 good[:middle] + flipped + good[middle+1:],
		"truncated":               good[:len(good)-5],
		"expired":                 expired.Link(panelist, 0),
		"garbage":                 a.url + "/r/not-a-token",
		"too long":                a.url + "/r/" + strings.Repeat("A", 600),
		"a path beyond the token": a.url + "/r/abc/def", // no route: the server's error page, a panelist's too
	} {
		resp, body := a.click(t, link)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "This link is not valid.") || strings.Contains(body, "/live") {
			t.Errorf("%s token: %d\n%s", name, resp.StatusCode, body)
		}
		for _, word := range []string{"expired", "signature", "key", "altered"} {
			if strings.Contains(strings.ToLower(body), word) {
				t.Errorf("%s token: the 404 says %q", name, word)
			}
		}
	}
	if _, total, _ := a.store.Routings(ctx, store.RoutingFilter{}, 0, 0); total != 6 {
		t.Errorf("the record holds %d decisions, want the next-survey answer and the 5 good clicks", total)
	}

	// Rotation: with a grace period the old links keep working, without
	// one they stop; the new key's links work.
	if _, err := a.store.RotateRoutingKey(ctx, store.NewRoutingSecret(), time.Now(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if resp, _ := a.click(t, good); resp.StatusCode != http.StatusFound {
		t.Errorf("a link of the previous key within the grace period: %d, want 302", resp.StatusCode)
	}
	if _, err := a.store.RotateRoutingKey(ctx, store.NewRoutingSecret(), time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	if resp, _ := a.click(t, good); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a link of a retired key: %d, want 404", resp.StatusCode)
	}
	fresh, _ := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if resp, _ := a.click(t, fresh.Link(panelist, 0)); resp.StatusCode != http.StatusFound {
		t.Errorf("a link of the new key: %d, want 302", resp.StatusCode)
	}

	// The record, on its page, in its CSV and on the subsamples' pages.
	a.decisions(t, store.RoutingFilter{PanelistID: panelist}, 7)
	_, page := a.do(t, "GET", "/routing?panelist="+url.QueryEscape(panelist), nil)
	if n := strings.Count(page, `data-testid="routing-decision"`); n != 7 || !strings.Contains(page, "7 decisions") || !strings.Contains(page, "Subsample 999999999 is not live now.") ||
		!strings.Contains(page, "named first by the next-survey API") {
		t.Errorf("/routing for %s lists %d decisions, want the next-survey answer and the 6 good clicks:\n%s", panelist, n, page)
	}
	_, csvBody := a.do(t, "GET", "/routing.csv?outcome=none", nil)
	rows, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][0] != "at" || rows[1][1] != "P-away" || rows[1][2] != strconv.FormatInt(next[0].SubsampleID, 10) || rows[1][3] != "" || rows[1][4] != "none" {
		t.Errorf("/routing.csv?outcome=none = %q, %v; want the one click of P-away", rows, err)
	}
	for _, tt := range []struct{ path, want string }{
		{"/routing?outcome=lost", "none of intended, next, return, none and answer"},
		{"/routing?subsample=abc", "not a positive whole number"},
		{"/routing?from=yesterday", "not a date"},
		{"/routing?page=0", "from 1"},
	} {
		if resp, body := a.do(t, "GET", tt.path, nil); resp.StatusCode != 400 || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d, want 400 with %q", tt.path, resp.StatusCode, tt.want)
		}
	}
	_, sub := a.do(t, "GET", fmt.Sprintf("/subsamples/%d", next[1].SubsampleID), nil)
	if !strings.Contains(sub, "1 click on invitation links for this subsample, 1 panelist sent here") {
		t.Errorf("subsample %d's page does not count its one click and one redirect", next[1].SubsampleID)
	}
	_, sub = a.do(t, "GET", fmt.Sprintf("/subsamples/%d", next[0].SubsampleID), nil)
	if !strings.Contains(sub, "1 click on invitation links for this subsample, 5 panelists sent here") {
		t.Errorf("subsample %d's page does not count the one click of P-away and the 5 redirects", next[0].SubsampleID)
	}
}

// sendableCountry is the country of the subsample id among subsamples.
func sendableCountry(subsamples []formats.SubsampleJSON, id int64) string {
	for _, s := range subsamples {
		if s.SubsampleID == id {
			return s.Country
		}
	}
	return ""
}

// TestInvitationFallbacks: with --no-survey-url a click that no survey
// would take goes there; clicks beyond the limit per address are refused.
func TestInvitationFallbacks(t *testing.T) {
	t.Parallel()
	a := newAppWith(t, func(s *web.Server) {
		s.NoSurveyURL = "https://panel.example/thanks?from=fieldboard"
		s.ClickBurst, s.ClicksPerSecond = 3, 0.001
	})
	ctx := context.Background()
	a.livesIn(t, "ZZ", "P-away")
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	link := signer.Link("P-away", 0)
	for i := range 3 {
		if resp, _ := a.click(t, link); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "https://panel.example/thanks?from=fieldboard" {
			t.Fatalf("click %d: %d to %q, want 302 to the no-survey URL", i+1, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	resp, body := a.click(t, link)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many requests") {
		t.Errorf("fourth click at once: %d %q (Retry-After %q), want 429", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if resp, _ := a.do(t, "GET", "/live", nil); resp.StatusCode != 200 {
		t.Errorf("the dashboard after the click limit: %d", resp.StatusCode)
	}
}

// TestSendListCarriesInvitationLinks: with a public URL the send list (CSV
// and JSON) carries each panelist's invitation link for the subsample,
// and the link, clicked now, goes to the entry link beside it.
func TestSendListCarriesInvitationLinks(t *testing.T) {
	t.Parallel()
	const public = "https://go.example.com"
	a := newAppWith(t, func(s *web.Server) { s.ClickBurst, s.PublicURL, s.InviteTTL = 1000, public, time.Hour })
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	a.profile(t, 300)
	target := sendableWithCells(t, a)
	_, body := a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets?limit=5", target.SubsampleID), nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) < 2 || strings.Join(rows[0], ",") != "panelistId,entryLink,inviteLink" {
		t.Fatalf("send list with a public URL: %q, %v", rows, err)
	}
	for _, r := range rows[1:] {
		path, ok := strings.CutPrefix(r[2], public+"/r/")
		if !ok {
			t.Errorf("%s: invitation link %q is not under the public URL %s", r[0], r[2], public)
			continue
		}
		resp, _ := a.click(t, a.url+"/r/"+path)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != r[1] {
			t.Errorf("%s: the invitation link goes %d to %q, want 302 to the entry link %q", r[0], resp.StatusCode, resp.Header.Get("Location"), r[1])
		}
	}
	_, body = a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets?limit=5", target.SubsampleID), map[string]string{"Accept": "application/json"})
	var list []formats.TargetJSON
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list) != len(rows)-1 || list[0].InviteLink == "" || list[0].PanelistID != rows[1][0] {
		t.Errorf("JSON send list = %+v, %v; want the CSV's lines with their invitation links", list, err)
	}
}

// newSigner signs invitations as the server does (handlers' signer), with
// the store's signing key, now, valid for ttl, linking to publicURL.
func newSigner(ctx context.Context, st *store.Store, now time.Time, publicURL string, ttl time.Duration) (invite.Signer, error) {
	key, err := st.SigningKey(ctx, now)
	if err != nil {
		return invite.Signer{}, err
	}
	return invite.NewSigner(key.SigningKey, now, ttl, publicURL)
}

// TestRouterAnswersFollowEachNewSnapshot: the router's answers (next
// survey, surveys, a click) read the panelist and the snapshot version in
// one statement and decide on the decisions of that version: once a
// refresh makes the panelist's best survey unknown (its quotas fail to
// read), none of them sends the panelist there, though each was answered
// from the decisions kept before.
func TestRouterAnswersFollowEachNewSnapshot(t *testing.T) {
	t.Parallel()
	a := newAppWith(t, func(s *web.Server) { s.ClickBurst = 1000 })
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	panelist, next := routed(t, a, a.profile(t, 300))
	best := next[0].SubsampleID
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/v1/panelists/" + url.PathEscape(panelist)
	var surveys formats.PanelistSurveysJSON
	a.getJSON(t, path+"/surveys", &surveys) // the decisions of this version kept
	if resp, _ := a.click(t, signer.Link(panelist, best)); resp.Header.Get("Location") != next[0].EntryLink {
		t.Fatalf("before the refresh, the invitation to %d goes to %q, want %q", best, resp.Header.Get("Location"), next[0].EntryLink)
	}

	a.sim.FailPath("/supplier/v1/subsamples/"+strconv.FormatInt(best, 10)+"/quotas", sim.FailServerError)
	a.refresher.Refresh(ctx, refresh.Request{SubsampleID: best})

	var after formats.NextSurveysJSON
	a.getJSON(t, path+"/next?limit=50", &after)
	for _, s := range after.Surveys {
		if s.SubsampleID == best {
			t.Errorf("the next-survey answer still names %d, whose quotas could not be read", best)
		}
	}
	for _, all := range []string{"", "?all=true"} {
		var surveys formats.PanelistSurveysJSON
		a.getJSON(t, path+"/surveys"+all, &surveys)
		for _, e := range surveys.MayEnter {
			if e.SubsampleID == best {
				t.Errorf("surveys%s: the panelist may still enter %d, whose quotas could not be read", all, best)
			}
		}
	}
	if resp, _ := a.click(t, signer.Link(panelist, best)); resp.Header.Get("Location") == next[0].EntryLink {
		t.Errorf("the invitation to %d still goes there, to %q, though its quotas could not be read", best, next[0].EntryLink)
	}
}

// TestRouterFillsAnOddIDInTheLink: a panelist whose id needs escaping in
// a link ("P 1/x") is sent where a panelist of the same rows is, by the
// next-survey answer and by a click, to the same links with the id
// query-escaped.
func TestRouterFillsAnOddIDInTheLink(t *testing.T) {
	t.Parallel()
	a := newAppWith(t, func(s *web.Server) { s.ClickBurst = 1000 })
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	const odd = "P 1/x"
	panelist, next := routed(t, a, a.profile(t, 300))
	var profile strings.Builder
	profile.WriteString(store.ProfileHeader + "\n")
	for r := range a.sim.Profiles(7, 300) {
		if r.PanelistID == panelist {
			fmt.Fprintf(&profile, "%q,%d,%s\n", odd, r.QuestionID, r.Value)
		}
	}
	if resp, body := a.post(t, "/api/v1/profiles", "text/csv", profile.String()); resp.StatusCode != 200 {
		t.Fatalf("profile import: %d %s", resp.StatusCode, body)
	}
	for m := range a.sim.Panel(7, 300) {
		if m.PanelistID == panelist {
			m.PanelistID = odd
			if _, err := a.store.ImportPanel(ctx, slices.Values([]domain.PanelMember{m})); err != nil {
				t.Fatal(err)
			}
		}
	}
	filled := func(link string) string {
		return strings.Replace(link, "id="+url.QueryEscape(panelist), "id="+url.QueryEscape(odd), 1)
	}
	var got formats.NextSurveysJSON
	a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(odd)+"/next?limit=50", &got)
	if len(got.Surveys) != len(next) {
		t.Fatalf("%q is sent to %d surveys, %s of the same rows to %d", odd, len(got.Surveys), panelist, len(next))
	}
	for i, s := range got.Surveys {
		if want := filled(next[i].EntryLink); s.SubsampleID != next[i].SubsampleID || s.EntryLink != want || !strings.HasSuffix(want, "id=P+1%2Fx") {
			t.Errorf("survey %d: %d at %q, want %d at %q", i, s.SubsampleID, s.EntryLink, next[i].SubsampleID, want)
		}
	}
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := a.click(t, signer.Link(odd, 0)); resp.Header.Get("Location") != filled(next[0].EntryLink) {
		t.Errorf("a click of %q goes to %q, want %q", odd, resp.Header.Get("Location"), filled(next[0].EntryLink))
	}
}
