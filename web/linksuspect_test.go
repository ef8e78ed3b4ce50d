package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/views/formats"
	"fieldboard/web"
)

// TestBrokenLinkIsFlagged: respondents screened out of one subsample on
// its return address, again and again, flag its survey link in the
// change feed once, when the run is one its conversion makes unlikely (20
// at the least), and on the overview with a link to the subsample, until
// a complete comes back from it.
func TestBrokenLinkIsFlagged(t *testing.T) {
	t.Parallel()
	var service *checks.Service
	a, panelist, next, _ := returnsApp(t, func(s *web.Server) { service = s.Checks })
	ctx := context.Background()
	broken := next[0].SubsampleID
	// returned sends panelist to broken and follows its return address.
	// The sends are dated ahead, a second apart, so that each is the
	// panelist's newest, after the routing log's record of the survey
	// the return before sent them on to.
	sentAt := time.Now().Add(time.Hour)
	returned := func(status string) {
		t.Helper()
		sentAt = sentAt.Add(time.Second)
		if err := a.store.RecordRoutings(ctx, []domain.RoutingDecision{{At: sentAt, PanelistID: panelist, Intended: broken,
			Chosen: broken, Outcome: domain.RoutedIntended}}); err != nil {
			t.Fatal(err)
		}
		if resp, body := a.returned(t, status, panelist); resp.StatusCode >= 400 {
			t.Fatalf("%s return: %d %.300s", status, resp.StatusCode, body)
		}
		service.SettleLinks() // judged after the answer
	}
	flags := func() []formats.ChangeJSON {
		t.Helper()
		var page formats.ChangesPageJSON
		a.getJSON(t, "/api/v1/changes?limit=1000", &page)
		var out []formats.ChangeJSON
		for _, c := range page.Changes {
			if c.Kind == domain.ChangeLinkSuspect {
				out = append(out, c)
			}
		}
		return out
	}
	suspects := func() string {
		t.Helper()
		body := a.page(t, "/")
		_, section, _ := strings.Cut(body, `data-testid="link-suspects"`)
		section, _, _ = strings.Cut(section, "</section>")
		return section
	}

	run := 0
	for ; run < 300 && len(flags()) == 0; run++ {
		returned("screenout")
	}
	got := flags()
	if len(got) != 1 || run < rules.LinkSuspectMinRun || got[0].SubsampleID != broken ||
		!strings.HasPrefix(got[0].After, fmt.Sprintf("Subsample %d: %d returns in a row without a complete", broken, run)) {
		t.Fatalf("after %d screen-outs the feed flags %+v; want one subsample.link_suspect of %d, at 20 returns or more, counting them",
			run, got, broken)
	}
	if section := suspects(); !strings.Contains(section, fmt.Sprintf(`href="/subsamples/%d"`, broken)) || !strings.Contains(section, got[0].After) {
		t.Errorf("the overview's flagged links: %q; want subsample %d with %q", section, broken, got[0].After)
	}
	for range 3 {
		returned("quotafull")
	}
	if got := flags(); len(got) != 1 {
		t.Errorf("3 more returns without a complete: the feed flags %d times; want once a run", len(got))
	}

	returned("complete")
	if section := suspects(); section != "" {
		t.Errorf("after a complete the overview still flags: %q", section)
	}
}
