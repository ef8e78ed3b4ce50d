package sim

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

const testReturnURL = "http://fieldboard.test/return/{status}?id={id}"

// surveyServer serves a simulator for opts over loopback, its entry links
// pointing at itself.
func surveyServer(t *testing.T, opts Options) (*Simulator, *clock, *httptest.Server) {
	t.Helper()
	var s *Simulator
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	opts.EntryURL = srv.URL + "/start"
	if opts.Seed == 0 {
		opts.Seed = 4
	}
	if opts.Subsamples == 0 {
		opts.Subsamples = 80
	}
	s, clk := newSim(opts)
	return s, clk, srv
}

// enter follows link with id filled in, without following the answer's
// redirect.
func enter(t *testing.T, link, id string) *http.Response {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(link + url.QueryEscape(id))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// returned enters link as id and returns the status of the return address
// it is sent to.
func returned(t *testing.T, link, id string) string {
	t.Helper()
	resp := enter(t, link, id)
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("entry of %s: status %d, want 302", id, resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(loc.Path, "/return/")
}

// liveLink is the live entry link of subsample id.
func liveLink(t *testing.T, s *Simulator, id int64) string {
	t.Helper()
	for _, d := range liveDetails(t, s) {
		if d.SubsampleID == id {
			return d.Locales[0].LiveEntryLink
		}
	}
	t.Fatalf("subsample %d is not in live-details", id)
	return ""
}

// openSubsample is a listed subsample whose quotas the API reports open,
// every hard cell included.
func openSubsample(t *testing.T, s *Simulator) int64 {
	t.Helper()
next:
	for _, d := range liveDetails(t, s) {
		for _, q := range quotas(t, s, d.SubsampleID) {
			if (q.IsTotal() || q.QuotaType == quotaHard) && q.Remaining() <= 0 {
				continue next
			}
		}
		return d.SubsampleID
	}
	t.Fatal("no open subsample")
	return 0
}

func TestSurveyReturnsToTheReturnAddress(t *testing.T) {
	s, _, _ := surveyServer(t, Options{ReturnURL: testReturnURL})
	link := liveLink(t, s, openSubsample(t, s))
	resp := enter(t, link, "P 1&x=é")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status %d, want 302", resp.StatusCode)
	}
	got := resp.Header.Get("Location")
	var want []string
	for _, st := range []string{ReturnComplete, ReturnScreenout, ReturnQuotaFull} {
		want = append(want, "http://fieldboard.test/return/"+st+"?id=P+1%26x%3D%C3%A9")
	}
	if !strings.Contains(strings.Join(want, " "), got) || got == "" {
		t.Errorf("Location %q, want one of %q", got, want)
	}
	if c := s.SurveyEntries(); c.Complete+c.Screenout+c.QuotaFull != 1 {
		t.Errorf("SurveyEntries %+v, want one entry", c)
	}
}

func TestSurveySignsTheReturnAddress(t *testing.T) {
	secret := []byte("s3cret")
	tests := []struct {
		alg, param, tmpl string
		newHash          func() hash.Hash
		target           string // the request target signed, %s the status
		sep              string
	}{
		{"", "", testReturnURL, sha256.New, "/return/%s?id=P1", "&"},
		{"sha1", "", testReturnURL, sha1.New, "/return/%s?id=P1", "&"},
		{"sha512", "signature", testReturnURL, sha512.New, "/return/%s?id=P1", "&"},
		{"", "", "https://fb.test:8443/r/{status}/{id}", sha256.New, "/r/%s/P1", "?"},
	}
	for _, tt := range tests {
		t.Run(tt.alg+" "+tt.tmpl, func(t *testing.T) {
			s, _, _ := surveyServer(t, Options{ReturnURL: tt.tmpl, ReturnSecret: secret, ReturnSigAlg: tt.alg, ReturnSigParam: tt.param})
			link := liveLink(t, s, openSubsample(t, s))
			param := cmpOr(tt.param, "sig")
			sigOf := func(id string) (string, string) {
				loc := enter(t, link, id).Header.Get("Location")
				base, sig, ok := strings.Cut(loc, tt.sep+param+"=")
				if !ok {
					t.Fatalf("Location %q has no %s%s=", loc, tt.sep, param)
				}
				u, _ := url.Parse(base)
				return strings.TrimPrefix(strings.TrimPrefix(u.Path, "/return/"), "/r/"), sig
			}
			status, sig := sigOf("P1")
			status, _, _ = strings.Cut(status, "/")
			mac := hmac.New(tt.newHash, secret)
			fmt.Fprintf(mac, tt.target, status)
			if want := hex.EncodeToString(mac.Sum(nil)); sig != want {
				t.Errorf("signature %s, want %s", sig, want)
			}
			if _, other := sigOf("P2"); other == sig {
				t.Errorf("another id's address has the same signature %s", sig)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestSignReturnIsTheSurveysSignature(t *testing.T) {
	mac := hmac.New(sha256.New, []byte("k"))
	mac.Write([]byte("/return/screenout?id=P1"))
	if got, want := SignReturn([]byte("k"), "sha256", "http://127.0.0.1:8080/return/screenout?id=P1"), hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Errorf("SignReturn %s, want %s", got, want)
	}
}

var (
	metaRefresh = regexp.MustCompile(`<meta http-equiv="refresh" content="([^"]*)">`)
	returnLink  = regexp.MustCompile(`<a href="([^"]*)">`)
)

func TestSurveyPausePage(t *testing.T) {
	s, _, _ := surveyServer(t, Options{ReturnURL: testReturnURL, ReturnSecret: []byte("k"), SurveyPause: 1500e6})
	id := openSubsample(t, s)
	resp := enter(t, liveLink(t, s, id), "P<1>&\"")
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{"<!DOCTYPE html>", `<html lang="en">`, "<title>Simulated survey</title>", fmt.Sprintf("subsample %d.", id), " in 2 s."} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	m, a := metaRefresh.FindStringSubmatch(page), returnLink.FindStringSubmatch(page)
	if m == nil || a == nil {
		t.Fatalf("the page has no refresh or no link:\n%s", page)
	}
	refresh, href := html.UnescapeString(m[1]), html.UnescapeString(a[1])
	if !strings.HasPrefix(href, "http://fieldboard.test/return/") || !strings.Contains(href, "?id=P%3C1%3E%26%22&sig=") {
		t.Errorf("link %q, want the signed return address", href)
	}
	if refresh != "2;url="+href {
		t.Errorf("refresh %q, want 2;url=%s", refresh, href)
	}
	if !strings.Contains(page, "returned as "+strings.TrimPrefix(strings.Split(href, "?")[0], "http://fieldboard.test/return/")+" in") {
		t.Errorf("the page names another status than its address %s:\n%s", href, page)
	}
}

func TestSurveyEntryNotFound(t *testing.T) {
	s, _, srv := surveyServer(t, Options{ReturnURL: testReturnURL})
	link := liveLink(t, s, openSubsample(t, s))
	for name, addr := range map[string]string{
		"unknown token": srv.URL + "/start?p=NOSUCHTOKEN&id=P1",
		"no token":      srv.URL + "/start?id=P1",
		"no id":         link,
	} {
		resp, err := http.Get(addr)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("%s: status %d %q, want a plain 404", name, resp.StatusCode, body)
		}
	}
	if c := s.SurveyEntries(); c != (SurveyCounts{}) {
		t.Errorf("SurveyEntries %+v after no entry", c)
	}
}

// TestSurveyDrawIsDeterministic enters the same respondents, some twice,
// into two simulators of the same seed: they return the same statuses,
// completes and screen-outs both.
func TestSurveyDrawIsDeterministic(t *testing.T) {
	statuses := func(seed int64) []string {
		s, _, _ := surveyServer(t, Options{Seed: seed, ReturnURL: testReturnURL})
		link := liveLink(t, s, openSubsample(t, s))
		var got []string
		for i := range 40 {
			got = append(got, returned(t, link, fmt.Sprintf("P%d", i%30)))
		}
		return got
	}
	a, b := statuses(4), statuses(4)
	// The same respondent entering again is a new draw.
	s, _, _ := surveyServer(t, Options{Seed: 4, ReturnURL: testReturnURL})
	link := liveLink(t, s, openSubsample(t, s))
	again := map[string]int{}
	for range 30 {
		again[returned(t, link, "P1")]++
	}
	if again[ReturnComplete] == 0 || again[ReturnScreenout] == 0 {
		t.Errorf("P1 entering 30 times returned %v: want completes and screen-outs", again)
	}
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("the same seed returned\n%v\nand\n%v", a, b)
	}
	all := strings.Join(a, " ")
	if !strings.Contains(all, ReturnComplete) || !strings.Contains(all, ReturnScreenout) {
		t.Errorf("40 entries into an open subsample returned %v: want completes and screen-outs", a)
	}
}

// TestSurveyQuotaFullWhenTheFieldIsFull enters 30 respondents into every
// listed subsample: one whose total quota the API reports full returns
// everyone quota full, one with a hard cell full some, one with neither
// no one; a subsample not yet Live returns everyone quota full.
func TestSurveyQuotaFullWhenTheFieldIsFull(t *testing.T) {
	s, _, _ := surveyServer(t, Options{ReturnURL: testReturnURL, Subsamples: 240})
	var totalFull, cellFull, open int
	for _, d := range liveDetails(t, s) {
		qs := quotas(t, s, d.SubsampleID)
		fullCells := 0
		for _, q := range qs[1:] {
			if q.QuotaType == quotaHard && q.Remaining() <= 0 {
				fullCells++
			}
		}
		fulls := 0
		for i := range 30 {
			if returned(t, d.Locales[0].LiveEntryLink, fmt.Sprintf("P%d", i)) == ReturnQuotaFull {
				fulls++
			}
		}
		switch {
		case qs[0].Remaining() <= 0:
			totalFull++
			if fulls != 30 {
				t.Errorf("subsample %d, total quota full: %d of 30 returned quota full, want all", d.SubsampleID, fulls)
			}
		case fullCells > 0:
			cellFull++
			if fulls == 0 {
				t.Errorf("subsample %d, %d hard cells full: no one of 30 returned quota full", d.SubsampleID, fullCells)
			}
		default:
			open++
			if fulls != 0 {
				t.Errorf("subsample %d, quotas open: %d of 30 returned quota full, want none", d.SubsampleID, fulls)
			}
		}
	}
	if totalFull == 0 || cellFull == 0 || open == 0 {
		t.Fatalf("subsamples with the total full %d, a cell full %d, open %d: want some of each", totalFull, cellFull, open)
	}
	// A Pending subsample that goes live later has its links already.
	for _, ss := range s.world.subs {
		if ss.base != statusPending || ss.goLive == 0 {
			continue
		}
		var d domain.LiveSubsample
		if err := json.Unmarshal(ss.detail, &d); err != nil {
			t.Fatal(err)
		}
		if got := returned(t, d.Locales[0].LiveEntryLink, "P1"); got != ReturnQuotaFull {
			t.Errorf("subsample %d, Pending: returned %s, want quotafull", ss.id, got)
		}
		return
	}
	t.Fatal("no Pending subsample that goes live")
}

func TestBrokenLinkScreensOutEveryone(t *testing.T) {
	s, _, _ := surveyServer(t, Options{ReturnURL: testReturnURL, BrokenLink: true})
	id, ok := s.BrokenLinkSubsample()
	if !ok {
		t.Fatal("no broken-link subsample")
	}
	for _, q := range quotas(t, s, id) {
		if q.Remaining() <= 0 && (q.IsTotal() || q.QuotaType == quotaHard) {
			t.Fatalf("the broken-link subsample %d has quota %d full: it is not sendable", id, q.QuotaID)
		}
	}
	link := liveLink(t, s, id)
	for i := range 25 {
		if got := returned(t, link, fmt.Sprintf("P%d", i)); got != ReturnScreenout {
			t.Fatalf("entry %d returned %s, want screenout", i, got)
		}
	}
	// The same subsample's survey, not broken, completes some of them.
	plain, _, _ := surveyServer(t, Options{ReturnURL: testReturnURL})
	link = liveLink(t, plain, id)
	for i := range 25 {
		returned(t, link, fmt.Sprintf("P%d", i))
	}
	if c := plain.SurveyEntries(); c.Complete == 0 {
		t.Errorf("the subsample's survey, not broken, completes no one: %+v; the test cannot tell a broken link", c)
	}
}

func TestFieldFullLag(t *testing.T) {
	const lag = 3
	s, _, _ := surveyServer(t, Options{ReturnURL: testReturnURL, FieldFullLag: lag})
	id, quotaID, ok := s.FieldFullQuota()
	if !ok {
		t.Fatal("no field-full subsample")
	}
	cell := func() (achieved, remaining int64) {
		for _, q := range quotas(t, s, id) {
			if q.QuotaID == quotaID {
				return q.AchievedInterviews, q.Remaining()
			}
		}
		t.Fatalf("subsample %d has no quota %d", id, quotaID)
		return 0, 0
	}
	achieved, remaining := cell()
	if remaining <= 0 {
		t.Fatalf("quota %d starts full in the API (remaining %d)", quotaID, remaining)
	}
	link := liveLink(t, s, id)
	for i := range lag {
		if got := returned(t, link, fmt.Sprintf("P%d", i)); got != ReturnQuotaFull {
			t.Errorf("entry %d returned %s, want quotafull", i, got)
		}
		a, r := cell()
		switch {
		case i < lag-1 && (a != achieved || r != remaining):
			t.Errorf("after %d quota fulls the API reports achieved %d remaining %d, want %d and %d: the lag is not over", i+1, a, r, achieved, remaining)
		case i == lag-1 && (a != achieved+remaining || r != 0):
			t.Errorf("after the lag the API reports achieved %d remaining %d, want %d and 0", a, r, achieved+remaining)
		}
	}
	if c := s.SurveyEntries(); c.QuotaFull != lag {
		t.Errorf("SurveyEntries %+v, want %d quota full", c, lag)
	}
}
