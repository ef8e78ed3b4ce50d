package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"fieldboard/rules"
	"fieldboard/views/formats"
)

// These tests run in `make test` (this file and the harness it tests have
// no build tag): a figure must fail when the answers it times are not the
// answers it names.

// TestGetterRefusesBrokenAnswers: an answer cut short, empty, an error,
// of another size than the path's first answer, or with the wrong
// content fails the load instead of counting as a quick success.
func TestGetterRefusesBrokenAnswers(t *testing.T) {
	body := []byte(strings.Repeat("x", 4096))
	cases := []struct {
		name    string
		handler func(n int64, w http.ResponseWriter)
		want    string
	}{
		{"cut short of its Content-Length", func(_ int64, w http.ResponseWriter) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:100])
		}, "broke off after 100 bytes"},
		{"cut short while chunked", func(_ int64, w http.ResponseWriter) {
			conn, rw, _ := w.(http.Hijacker).Hijack()
			defer conn.Close()
			fmt.Fprintf(rw, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", 100, body[:100])
			rw.Flush()
		}, "broke off after 100 bytes"},
		{"empty", func(int64, http.ResponseWriter) {}, "an empty answer"},
		{"an error", func(_ int64, w http.ResponseWriter) {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte("busy"))
		}, "status 503: busy"},
		{"shorter than the first", func(n int64, w http.ResponseWriter) {
			w.Write(body[:len(body)-int(n)])
		}, "an answer of 4095 bytes where the first was 4096"},
		{"the wrong content", func(_ int64, w http.ResponseWriter) {
			w.Write(bytes.ToUpper(body))
		}, "an answer of 4096 bytes that is not the 4096 expected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				tc.handler(requests.Add(1)-1, w)
			}))
			defer srv.Close()
			g := newGetter(srv.URL, "", sameBytes(body))
			var buf bytes.Buffer
			var err error
			for range 2 {
				if _, _, err = g.get("/", &buf); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestLoadCountsWhatArrives: the load and the throughput count the bytes
// that arrived, and an answer cut short midway through fails them (it
// used to count as a whole answer of the first one's size).
func TestLoadCountsWhatArrives(t *testing.T) {
	body := bytes.Repeat([]byte("y"), 1000)
	// server answers whole until cutAfter answers, then cuts every answer
	// short of its Content-Length; it counts the bytes it sent.
	server := func(cutAfter int64) (*httptest.Server, *atomic.Int64) {
		var requests, sent atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			part := body
			if requests.Add(1) > cutAfter {
				part = body[:10]
			}
			n, _ := w.Write(part)
			sent.Add(int64(n))
		}))
		t.Cleanup(srv.Close)
		return srv, &sent
	}
	t.Run("whole answers", func(t *testing.T) {
		srv, sent := server(1 << 30)
		g := newGetter(srv.URL, "", sameBytes(body))
		rate, size, err := throughputOnce(g, "/")
		if err != nil || size != 1000 || rate <= 0 {
			t.Fatalf("throughput: %v, answers of %d bytes, %.0f bytes/s; want no error, 1000", err, size, rate)
		}
		before := sent.Load()
		l, err := loadOnce(g, func(int) string { return "/" })
		if err != nil || l.answers != loadWorkers*60 || l.bytes != int64(l.answers)*1000 || sent.Load()-before != int64(loadWorkers*70)*1000 {
			t.Fatalf("load: %v, %d bytes counted in %d answers, %d sent; want 1000 bytes each of %d measured and %d sent",
				err, l.bytes, l.answers, sent.Load()-before, loadWorkers*60, loadWorkers*70)
		}
	})
	t.Run("an answer cut short during the throughput", func(t *testing.T) {
		srv, _ := server(loadWorkers + 100)
		if _, _, err := throughputOnce(newGetter(srv.URL, "", sameBytes(body)), "/"); err == nil || !strings.Contains(err.Error(), "broke off after 10 bytes") {
			t.Fatalf("got %v, want the throughput to fail on the cut answer", err)
		}
	})
	t.Run("an answer cut short during the load", func(t *testing.T) {
		srv, _ := server(300)
		if _, err := loadOnce(newGetter(srv.URL, "", sameBytes(body)), func(int) string { return "/" }); err == nil || !strings.Contains(err.Error(), "broke off after 10 bytes") {
			t.Fatalf("got %v, want the load to fail on the cut answer", err)
		}
	})
}

// TestGetterSpreadsOverInstances: a getter over several instances (the
// served figures on PostgreSQL, two serve processes on one database)
// sends them the same number of requests, in the load and in the
// throughput alike, and an instance answering differently from the other
// fails the load, as an answer of the wrong size from one server does.
func TestGetterSpreadsOverInstances(t *testing.T) {
	body := bytes.Repeat([]byte("z"), 500)
	instance := func(answer []byte) (*httptest.Server, *atomic.Int64) {
		var requests atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			requests.Add(1)
			w.Write(answer)
		}))
		t.Cleanup(srv.Close)
		return srv, &requests
	}
	a, toA := instance(body)
	b, toB := instance(body)
	g := newGetterOver([]string{a.URL, b.URL}, "", sameBytes(body))
	if _, err := loadOnce(g, func(int) string { return "/" }); err != nil {
		t.Fatal(err)
	}
	if toA.Load() != loadRequests/2 || toB.Load() != loadRequests/2 {
		t.Fatalf("the load sent %d and %d requests, want %d to each", toA.Load(), toB.Load(), loadRequests/2)
	}
	toA.Store(0)
	toB.Store(0)
	if _, _, err := throughputOnce(g, "/"); err != nil {
		t.Fatal(err)
	}
	if toA.Load() != throughputRequests/2 || toB.Load() != throughputRequests/2 {
		t.Fatalf("the throughput sent %d and %d requests, want %d to each", toA.Load(), toB.Load(), throughputRequests/2)
	}
	other, _ := instance(body[:499])
	if _, err := loadOnce(newGetterOver([]string{a.URL, other.URL}, "", sameBytes(body)), func(int) string { return "/" }); err == nil || !strings.Contains(err.Error(), "where the first was") {
		t.Fatalf("got %v, want the load to fail on the instance answering otherwise", err)
	}
}

// TestLivePageCheck: the /live check wants a whole page whose rows agree
// with its count line, and gives the rows a page holds.
func TestLivePageCheck(t *testing.T) {
	page := func(count string, rows int) []byte {
		return []byte("<!DOCTYPE html><html><p>" + count + "</p><table>" +
			strings.Repeat(`<tr data-testid="live-row"><td>1</td></tr>`, rows) + "</table></html>\n")
	}
	cases := []struct {
		name string
		body []byte
		want string // "" for a page that passes
	}{
		{"one page, all rows", page("3 of 9 live subsamples match.", 3), ""},
		{"first of several pages", page("120 of 130 live subsamples match.</p><nav><span>Page 1 of 3</span></nav><p>", 50), ""},
		{"one page missing a row", page("3 of 9 live subsamples match.", 2), "2 rows on the only page, where 3 subsamples match"},
		{"pages that do not add up", page("120 of 130 live subsamples match.</p><nav><span>Page 1 of 2</span></nav><p>", 50), "50 rows a page in 2 pages, where 120 subsamples match"},
		{"no rows", page("3 of 9 live subsamples match.", 0), "no rows"},
		{"no count line", page("", 3), "no line saying how many"},
		{"cut short", page("3 of 9 live subsamples match.", 3)[:100], "not a whole page"},
		{"an error page", []byte("Internal Server Error"), "not a whole page"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := &livePages{}
			err := l.check("/live", tc.body)
			if tc.want == "" {
				if err != nil || l.rows == 0 {
					t.Fatalf("got %v and %d rows, want the page to pass", err, l.rows)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestSurveysCheck: the surveys check wants the panelist asked for, with
// all=true every live subsample, those they may enter ranked by epc with a
// link for them, and counts the quota verdicts it saw; without, those they
// may enter alone, the higher epc first within a currency.
func TestSurveysCheck(t *testing.T) {
	epc := func(v float64) *float64 { return &v }
	entry := func(id int64, currency string, e *float64, may bool, quota rules.QuotaVerdict) formats.EligibilityJSON {
		out := formats.EligibilityJSON{SubsampleVerdictJSON: formats.SubsampleVerdictJSON{SubsampleID: id, Currency: currency, EPC: e},
			PanelistVerdictJSON: formats.PanelistVerdictJSON{PanelistID: "P0000007", MayEnter: may, Quota: quota}}
		if may {
			out.EntryLinks = []formats.EntryLinkJSON{{Locale: "en-us", Live: "https://x.example/s?SAPI=1&id=P0000007"}}
		}
		return out
	}
	good := func() formats.PanelistSurveysJSON {
		return formats.PanelistSurveysJSON{PanelistID: "P0000007",
			MayEnter: []formats.EligibilityJSON{entry(1, "EUR", epc(3), true, rules.QuotaFits), entry(2, "EUR", epc(1), true, rules.QuotaFits),
				entry(3, "USD", epc(5), true, rules.QuotaUnknown), entry(4, "", nil, true, rules.QuotaFits)},
			Others: []formats.EligibilityJSON{entry(5, "USD", epc(9), false, rules.QuotaFull)}}
	}
	cases := []struct {
		name   string
		change func(*formats.PanelistSurveysJSON)
		want   string
	}{
		{"as it should be", func(*formats.PanelistSurveysJSON) {}, ""},
		{"another panelist", func(a *formats.PanelistSurveysJSON) { a.PanelistID = "P0000008" }, `the surveys of "P0000008"`},
		{"a live subsample missing", func(a *formats.PanelistSurveysJSON) { a.Others = nil }, "4 subsamples (0 others) with all=true, for 5 live"},
		{"a lower epc first", func(a *formats.PanelistSurveysJSON) { a.MayEnter[0], a.MayEnter[1] = a.MayEnter[1], a.MayEnter[0] }, "subsample 1 (epc 3 EUR) is ranked after subsample 2"},
		{"no epc before one", func(a *formats.PanelistSurveysJSON) { a.MayEnter[2], a.MayEnter[3] = a.MayEnter[3], a.MayEnter[2] }, "subsample 3 (epc 5 USD) is ranked after subsample 4"},
		{"no entry link", func(a *formats.PanelistSurveysJSON) { a.MayEnter[1].EntryLinks = nil }, "subsample 2: entry links"},
		{"a link for someone else", func(a *formats.PanelistSurveysJSON) {
			a.MayEnter[1].EntryLinks[0].Live = "https://x.example/s?id=P0000008"
		}, "subsample 2: entry links"},
		{"one who may not enter among those who may", func(a *formats.PanelistSurveysJSON) { a.MayEnter[1].MayEnter = false }, "subsample 2 is among those"},
		{"a link among the others", func(a *formats.PanelistSurveysJSON) { a.Others[0] = entry(5, "USD", epc(9), true, rules.QuotaFull) }, "subsample 5 is among the others"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			answer := good()
			tc.change(&answer)
			body, err := json.Marshal(answer)
			if err != nil {
				t.Fatal(err)
			}
			s := &surveysAnswers{live: 5, page: 20}
			err = s.check("/api/v1/panelists/P0000007/surveys?all=true", body)
			if tc.want == "" {
				if err != nil || !s.matched() {
					t.Fatalf("got %v (matched %v), want the answer to pass and show matching", err, s.matched())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	t.Run("the default shape", func(t *testing.T) {
		answer := good()
		answer.Others = nil
		m := answer.MayEnter // USD before EUR: the router's order may
		answer.MayEnter = []formats.EligibilityJSON{m[2], m[0], m[1], m[3]}
		body, _ := json.Marshal(answer)
		if err := (&surveysAnswers{live: 5, page: 20}).check("/api/v1/panelists/P0000007/surveys", body); err != nil {
			t.Fatalf("the may-enter entries alone: %v", err)
		}
		answer.MayEnter[1], answer.MayEnter[2] = answer.MayEnter[2], answer.MayEnter[1] // EUR 1 before EUR 3
		body, _ = json.Marshal(answer)
		if err := (&surveysAnswers{live: 5, page: 20}).check("/api/v1/panelists/P0000007/surveys", body); err == nil || !strings.Contains(err.Error(), "is ranked after") {
			t.Fatalf("a lower epc first within a currency: %v", err)
		}
		body, _ = json.Marshal(good())
		if err := (&surveysAnswers{live: 5, page: 20}).check("/api/v1/panelists/P0000007/surveys", body); err == nil || !strings.Contains(err.Error(), "(1 others) with all=false") {
			t.Fatalf("others without all=true: %v", err)
		}
	})
	t.Run("pages", func(t *testing.T) {
		answer := good()
		answer.Others = nil
		m := answer.MayEnter
		answer.MayEnter = []formats.EligibilityJSON{m[2], m[0]}
		for _, tc := range []struct {
			name, path, next, want string
		}{
			{"a full page and its next", "/api/v1/panelists/P0000007/surveys?limit=2", "/api/v1/panelists/P0000007/surveys?after=1&limit=2", ""},
			{"the last page", "/api/v1/panelists/P0000007/surveys?limit=2&after=9", "", ""},
			{"a short last page", "/api/v1/panelists/P0000007/surveys?limit=3", "", ""},
			{"longer than its limit", "/api/v1/panelists/P0000007/surveys?limit=1", "", "2 entries on a page of 1"},
			{"longer than the default page", "/api/v1/panelists/P0000007/surveys", "", ""},
			{"a next page after a short one", "/api/v1/panelists/P0000007/surveys?limit=3", "/api/v1/panelists/P0000007/surveys?after=1&limit=3", "a next page"},
			{"a next page after another entry", "/api/v1/panelists/P0000007/surveys?limit=2", "/api/v1/panelists/P0000007/surveys?after=3&limit=2", "want"},
			{"a next page with all=true", "/api/v1/panelists/P0000007/surveys?all=true", "/x", "with all=true"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				a := answer
				a.Next = tc.next
				if strings.Contains(tc.path, "all=true") {
					a = good()
					a.Next = tc.next
				}
				body, _ := json.Marshal(a)
				s := &surveysAnswers{live: 5, page: 20}
				if tc.name == "longer than the default page" {
					s.page = 1
					tc.want = "2 entries on a page of 1"
				}
				err := s.check(tc.path, body)
				if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
					t.Fatalf("got %v, want %q", err, tc.want)
				}
			})
		}
	})
	t.Run("cut short", func(t *testing.T) {
		body, _ := json.Marshal(good())
		if err := (&surveysAnswers{live: 5, page: 20}).check("/api/v1/panelists/P0000007/surveys", body[:len(body)/2]); err == nil {
			t.Fatal("half an answer passed")
		}
	})
	t.Run("no profile matched", func(t *testing.T) {
		answer := good()
		for _, list := range [][]formats.EligibilityJSON{answer.MayEnter, answer.Others} {
			for i := range list {
				list[i].Quota = rules.QuotaUnknown
			}
		}
		body, _ := json.Marshal(answer)
		s := &surveysAnswers{live: 5, page: 20}
		if err := s.check("/api/v1/panelists/P0000007/surveys?all=true", body); err != nil || s.matched() {
			t.Fatalf("got %v, matched %v: want the answer to pass and show no matching", err, s.matched())
		}
	})
}
