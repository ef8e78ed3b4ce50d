package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/checks"
	"fieldboard/rules/checks/checkstest"
	"fieldboard/rules/invite"
	"fieldboard/views/formats"
	"fieldboard/web"
)

// sendRoute is one HTTP route that sends panelists somewhere: it answers
// whether the panelist is sent to the subsample.
type sendRoute struct {
	name string
	sent func(t *testing.T, a *app, signer invite.Signer, panelistID string, subsampleID int64) bool
}

// sendRoutes are the routes of the checks service's decision paths: the
// router's next surveys, an invitation click, the send list and the bulk
// check.
var sendRoutes = []sendRoute{
	{"GET /api/v1/panelists/{id}/next", func(t *testing.T, a *app, _ invite.Signer, panelistID string, subsampleID int64) bool {
		var next formats.NextSurveysJSON
		if resp := a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(panelistID)+"/next?limit=50", &next); resp.StatusCode != 200 {
			t.Fatalf("next for %s: %d", panelistID, resp.StatusCode)
		}
		return slices.ContainsFunc(next.Surveys, func(s formats.NextSurveyJSON) bool { return s.SubsampleID == subsampleID })
	}},
	{"GET /r/{token}", func(t *testing.T, a *app, signer invite.Signer, panelistID string, subsampleID int64) bool {
		resp, body := a.click(t, signer.Link(panelistID, subsampleID))
		switch resp.StatusCode {
		case http.StatusFound:
			return strings.HasPrefix(resp.Header.Get("Location"), fmt.Sprintf("https://e.test/s%d?", subsampleID))
		case http.StatusOK:
			return false // the page that says there is no survey now
		}
		t.Fatalf("click for %s: %d %s", panelistID, resp.StatusCode, body)
		return false
	}},
	{"GET /api/v1/subsamples/{id}/targets", func(t *testing.T, a *app, _ invite.Signer, panelistID string, subsampleID int64) bool {
		resp, body := a.do(t, "GET", fmt.Sprintf("/api/v1/subsamples/%d/targets", subsampleID), nil)
		switch resp.StatusCode {
		case http.StatusConflict:
			return false // nobody is on the send list of a subsample not sendable now
		case http.StatusOK:
		default:
			t.Fatalf("send list of %d: %d %s", subsampleID, resp.StatusCode, body)
		}
		return slices.ContainsFunc(parseCSV(t, body)[1:], func(row []string) bool { return row[0] == panelistID })
	}},
	{"GET /api/v1/panelists/{id}/surveys", func(t *testing.T, a *app, _ invite.Signer, panelistID string, subsampleID int64) bool {
		type survey struct {
			SubsampleID int64 `json:"subsampleId"`
			Send        bool  `json:"send"`
		}
		var got struct {
			MayEnter []survey `json:"mayEnter"`
			Others   []survey `json:"others"`
		}
		a.getJSON(t, "/api/v1/panelists/"+url.PathEscape(panelistID)+"/surveys?all=true", &got)
		return slices.ContainsFunc(slices.Concat(got.MayEnter, got.Others), func(s survey) bool { return s.SubsampleID == subsampleID && s.Send })
	}},
	{"GET /api/v1/eligibility", func(t *testing.T, a *app, _ invite.Signer, panelistID string, subsampleID int64) bool {
		var got struct {
			Send bool `json:"send"`
		}
		a.getJSON(t, fmt.Sprintf("/api/v1/eligibility?panelistId=%s&subsampleId=%d", url.QueryEscape(panelistID), subsampleID), &got)
		return got.Send
	}},
	{"POST /api/v1/subsamples/{id}/eligibility", func(t *testing.T, a *app, _ invite.Signer, panelistID string, subsampleID int64) bool {
		resp, body := a.post(t, fmt.Sprintf("/api/v1/subsamples/%d/eligibility", subsampleID), "text/csv", "panelistId\n"+panelistID+"\n")
		if resp.StatusCode != 200 {
			t.Fatalf("bulk check of %s on %d: %d %s", panelistID, subsampleID, resp.StatusCode, body)
		}
		rows := parseCSV(t, body)
		if len(rows) != 2 || rows[1][0] != panelistID {
			t.Fatalf("bulk check of %s on %d answers %q", panelistID, subsampleID, rows)
		}
		return rows[1][slices.Index(rows[0], "send")] == "true"
	}},
}

// TestEverySendRouteHoldsEveryBoundary asks the routes of every decision
// path the cases of checkstest, on its world built by hand, so the wiring
// from route to decision is held as the decisions are: a full cell,
// another country or language, a history in the subsample's event and
// stale data mean no; an open cell, another event's history and data at
// or inside the staleness limit mean yes.
func TestEverySendRouteHoldsEveryBoundary(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: checkstest.ReadAt}
	service := func(s *web.Server) {
		s.Checks = &checks.Service{Store: s.Store, Now: clock.Now, StaleAfter: checkstest.StaleAfter, QualityHold: checkstest.QualityHold}
		s.ClickBurst = 1000
	}
	a := newAppOn(t, defaultSim, service)
	checkstest.Build(t, a.store)
	// The server signs and opens invitations on its own clock (time.Now
	// here); the checks service decides on clock.
	signer, err := newSigner(context.Background(), a.store, time.Now(), a.url, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checkstest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			clock.Set(c.Now())
			for _, r := range sendRoutes {
				if got := r.sent(t, a, signer, c.Panelist, checkstest.Target); got != c.Sent {
					t.Errorf("%s: %s sent to subsample %d with data %s old = %v, want %v", r.name, c.Panelist, checkstest.Target, c.Age, got, c.Sent)
				}
			}
		})
	}
}
