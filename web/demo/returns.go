package demo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldboard/client/sim"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/rules/invite"
	"fieldboard/store"
)

// The way back at the demo's first start: simulated respondents click
// invitation links on the served dashboard, take the simulator's survey
// and come back on the dashboard's return address, so that returns,
// re-routes, a cell closed from the field and a link that screens
// everyone out are on the dashboard from the start.

// How many respondents the drive sends, and how: to the broken link's
// subsample BrokenLinkExtra more than the run its conversion flags
// (rules.LinkSuspectRun), at most BrokenLinkMost, FieldFullClicks to the field-full subsample, each judged in its full
// cell (fewer than the demo's lag, so the provider's quotas still show
// the cell open and the closure stands), and RoutedClicks to whatever
// survey the router chooses. ClickEvery paces the clicks under serve's
// default limit of clicks per client address.
const (
	BrokenLinkExtra = 5
	BrokenLinkMost  = 100
	FieldFullClicks = 2
	RoutedClicks    = 20
	ClickEvery      = 250 * time.Millisecond
)

// Returns drives respondents through the way back on a served dashboard
// (Run).
type Returns struct {
	Store *store.Store
	// Sim is the simulator whose survey (sim.Options.ReturnURL) returns
	// respondents to Dashboard, with BrokenLink and FieldFullLag on.
	Sim *sim.Simulator
	// Checks decides as the server's does: it picks the panelists who
	// may be sent to the broken link's and the field-full subsamples.
	Checks *checks.Service
	// Dashboard is the served dashboard's address, "http://host:port".
	Dashboard string
	InviteTTL time.Duration
	Logger    *slog.Logger
	// Every is the pause between clicks; 0 is ClickEvery.
	Every time.Duration
	// Size is how many panelists the panel holds; 0 is Panelists.
	Size int
}

// DriveCounts is what a drive did: the invitation links clicked, the
// survey's entries by the status it returned, and the respondents routed
// on after a return.
type DriveCounts struct {
	Clicks int
	sim.SurveyCounts
	RoutedOn int
}

// Run clicks the invitations, one at a time, following each respondent
// from the invitation through the survey and back as far as the
// dashboard and the simulator lead, and logs one line with what came
// back. It does nothing on a database that holds a return already (a
// restart drives nobody again) and stops when ctx ends.
func (r *Returns) Run(ctx context.Context) (DriveCounts, error) {
	if had, err := hasReturns(ctx, r.Store); err != nil || had {
		return DriveCounts{}, err
	}
	links, err := r.invitations(ctx)
	if err != nil {
		return DriveCounts{}, err
	}
	before := r.Sim.SurveyEntries()
	client := r.client()
	every := r.Every
	if every <= 0 {
		every = ClickEvery
	}
	var counts DriveCounts
	for i, link := range links {
		if i > 0 {
			select {
			case <-ctx.Done():
				return counts, ctx.Err()
			case <-time.After(every):
			}
		}
		if err := follow(ctx, client, link); err != nil {
			return counts, err
		}
		counts.Clicks++
	}
	after := r.Sim.SurveyEntries()
	counts.SurveyCounts = sim.SurveyCounts{Complete: after.Complete - before.Complete,
		Screenout: after.Screenout - before.Screenout, QuotaFull: after.QuotaFull - before.QuotaFull}
	if _, counts.RoutedOn, err = r.Store.Routings(ctx, store.RoutingFilter{Outcome: domain.RoutedOnReturn}, 1, 0); err != nil {
		return counts, err
	}
	r.Logger.Info("demo: simulated respondents took the simulator's survey and came back: see /routing, /outcomes and the change feed",
		"clicks", counts.Clicks, "completes", counts.Complete, "screen-outs", counts.Screenout, "quota fulls", counts.QuotaFull,
		"routed on", counts.RoutedOn)
	return counts, nil
}

// hasReturns reports whether st records a return: one still unconfirmed,
// or a respondent routed on after one.
func hasReturns(ctx context.Context, st *store.Store) (bool, error) {
	records, err := st.ReturnedRecords(ctx, time.Time{}, time.Time{})
	if err != nil || len(records) > 0 {
		return len(records) > 0, err
	}
	_, hops, err := st.Routings(ctx, store.RoutingFilter{Outcome: domain.RoutedOnReturn}, 1, 0)
	return hops > 0, err
}

// invitations are the invitation links the drive clicks: to the broken
// link's subsample, to the field-full subsample for panelists judged in
// its full cell, and to whatever survey the router chooses.
func (r *Returns) invitations(ctx context.Context) ([]string, error) {
	now := time.Now()
	key, err := r.Store.SigningKey(ctx, now)
	if err != nil {
		return nil, err
	}
	signer, err := invite.NewSigner(key.SigningKey, now, r.InviteTTL, "")
	if err != nil {
		return nil, err
	}
	var links []string
	add := func(id string, subsample int64) { links = append(links, r.Dashboard+"/r/"+signer.Token(id, subsample)) }
	size := r.Size
	if size <= 0 {
		size = Panelists
	}
	broken, ids, err := r.brokenLink(ctx, size)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		add(id, broken)
	}
	full, ids, err := r.fieldFull(ctx, size)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		add(id, full)
	}
	for i := range RoutedClicks {
		add(r.Sim.PanelistID((i*211+29)%size), 0)
	}
	return links, nil
}

// brokenLink makes the survey of a subsample the demo's panel is sent to
// screen out everyone (sim.Simulator.SetBrokenLink), and returns it and
// as many panelists the router sends there as its run of screen-outs
// needs to be flagged at its conversion (rules.LinkSuspectRun), and
// BrokenLinkExtra more: the subsample the routed panelists are sent to
// most often that takes that many. The simulator cannot choose it: it
// does not know which profiles the supplier holds. None when the
// simulator's BrokenLink is off.
func (r *Returns) brokenLink(ctx context.Context, size int) (int64, []string, error) {
	if _, ok := r.Sim.BrokenLinkSubsample(); !ok {
		return 0, nil, nil
	}
	sent := map[int64]int{}
	for i := range fieldFullTries {
		routed, err := r.Checks.Route(ctx, invite.Invitation{PanelistID: r.Sim.PanelistID((i*97 + 13) % size)})
		if err != nil {
			return 0, nil, fmt.Errorf("demo: a broken survey link: %w", err)
		}
		if routed.Chosen != 0 {
			sent[routed.Chosen]++
		}
	}
	candidates := slices.SortedFunc(maps.Keys(sent), func(a, b int64) int { return cmp.Or(cmp.Compare(sent[b], sent[a]), cmp.Compare(a, b)) })
	for _, subsample := range candidates {
		parts, err := r.Checks.Subsample(ctx, subsample)
		if err != nil {
			return 0, nil, fmt.Errorf("demo: a broken survey link: %w", err)
		}
		conversion, source := rules.LinkConversion(rules.FieldConversion(parts.Quotas), parts.ExpectedIR)
		clicks := min(rules.LinkSuspectRun(conversion, source)+BrokenLinkExtra, BrokenLinkMost)
		ids, err := r.sendable(ctx, subsample, 0, clicks)
		if err != nil {
			return 0, nil, err
		}
		if len(ids) == clicks && r.Sim.SetBrokenLink(subsample) {
			return subsample, ids, nil
		}
	}
	return 0, nil, nil
}

// fieldFullTries bounds the panelists whose routes fieldFull looks at.
const fieldFullTries = 200

// fieldFull makes a cell the demo's panel falls in full in the field
// (sim.Simulator.SetFieldFull), and returns its subsample and up to
// FieldFullClicks panelists the router sends there judged in that cell:
// the first cell judged for one of the routed panelists, on a subsample
// other than the broken link's, that enough of the panel falls in. The
// simulator cannot choose it: it does not know which profiles the
// supplier holds. None when the simulator's FieldFullLag is off.
func (r *Returns) fieldFull(ctx context.Context, size int) (int64, []string, error) {
	if _, _, ok := r.Sim.FieldFullQuota(); !ok {
		return 0, nil, nil
	}
	broken, _ := r.Sim.BrokenLinkSubsample()
	tried := map[int64]bool{broken: true}
	for i := range fieldFullTries {
		routed, err := r.Checks.Route(ctx, invite.Invitation{PanelistID: r.Sim.PanelistID((i*97 + 13) % size)})
		if err != nil {
			return 0, nil, fmt.Errorf("demo: a cell full in the field: %w", err)
		}
		first, _, _ := strings.Cut(routed.Cells, ",")
		cell, err := strconv.ParseInt(first, 10, 64)
		if routed.Chosen == 0 || tried[routed.Chosen] || err != nil {
			continue
		}
		tried[routed.Chosen] = true
		ids, err := r.sendable(ctx, routed.Chosen, cell, FieldFullClicks)
		if err != nil {
			return 0, nil, err
		}
		if len(ids) == FieldFullClicks && r.Sim.SetFieldFull(routed.Chosen, cell) {
			return routed.Chosen, ids, nil
		}
	}
	return 0, nil, nil
}

// sendable is up to n panelists of subsample's send list whose click the
// router sends there now; with cell not 0, only those it judges to fall
// in that cell. A subsample not sendable gives none.
func (r *Returns) sendable(ctx context.Context, subsample, cell int64, n int) ([]string, error) {
	var listed []string
	err := r.Checks.SendList(ctx, subsample, 20*n, func(id, _ string) error {
		listed = append(listed, id)
		return nil
	})
	if errors.Is(err, checks.ErrNotSendable) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("demo: the panelists to send to subsample %d: %w", subsample, err)
	}
	var ids []string
	for _, id := range listed {
		if len(ids) == n {
			break
		}
		routed, err := r.Checks.Route(ctx, invite.Invitation{PanelistID: id, SubsampleID: subsample})
		if err != nil {
			return nil, fmt.Errorf("demo: the panelists to send to subsample %d: %w", subsample, err)
		}
		if routed.Chosen == subsample && (cell == 0 || slices.Contains(strings.Split(routed.Cells, ","), strconv.FormatInt(cell, 10))) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// client follows redirects as a respondent's browser would, but only
// between the dashboard and the simulator: a complete sent on to the
// supplier's page (--complete-url) stops there.
func (r *Returns) client() *http.Client {
	hosts := map[string]bool{}
	for _, base := range []string{r.Dashboard, r.Sim.EntryURL()} {
		if u, err := url.Parse(base); err == nil {
			hosts[u.Host] = true
		}
	}
	return &http.Client{
		Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if !hosts[req.URL.Host] || len(via) >= 20 {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// follow opens link and the redirects after it.
func follow(ctx context.Context, client *http.Client, link string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("demo: a simulated respondent's click: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fmt.Errorf("demo: a simulated respondent's click ended on %s at %s", resp.Status, resp.Request.URL.Redacted())
	}
	return nil
}
