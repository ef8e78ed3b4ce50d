package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/views/formats"
	"fieldboard/web/refresh"
)

// allChanges polls the API's feed from the start, a page of limit at a
// time, as a script would.
func allChanges(t *testing.T, a *app, limit int) []formats.ChangeJSON {
	t.Helper()
	var out []formats.ChangeJSON
	var since int64
	for {
		var page formats.ChangesPageJSON
		if resp := a.getJSON(t, fmt.Sprintf("/api/v1/changes?since=%d&limit=%d", since, limit), &page); resp.StatusCode != 200 {
			t.Fatalf("GET /api/v1/changes: %d", resp.StatusCode)
		}
		for _, c := range page.Changes {
			if c.ID <= since {
				t.Fatalf("change %d after %d: the feed is not in id order", c.ID, since)
			}
			since = c.ID
		}
		if page.Next != since {
			t.Fatalf("next = %d, want the last id %d", page.Next, since)
		}
		out = append(out, page.Changes...)
		if len(page.Changes) < limit {
			return out
		}
	}
}

// TestChangeFeedAfterTwoRefreshes: the first refresh of an empty
// database is the baseline: it records no change (no "new", no "became
// sendable") and the overview says so; the second, hours later on a
// simulator whose state moved, finds what moved; the API, the page, its
// CSV and the overview tell the same feed.
func TestChangeFeedAfterTwoRefreshes(t *testing.T) {
	t.Parallel()
	a, clock := newClockedApp(t)
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	var subsamples []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &subsamples)
	first := allChanges(t, a, 7)
	if len(subsamples) == 0 || len(first) != 0 {
		t.Errorf("the first refresh of %d subsamples recorded %d changes, want none: it is the baseline", len(subsamples), len(first))
	}
	if _, overview := a.do(t, "GET", "/", nil); !strings.Contains(overview, `data-testid="baseline"`) {
		t.Error("after the first refresh the overview does not say it was the baseline")
	}

	clock.Advance(6 * time.Hour)
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	all := allChanges(t, a, 50)
	moved := map[domain.ChangeKind]int{}
	for _, c := range all[len(first):] {
		moved[c.Kind]++
		if c.Before == c.After || !c.At.Equal(clock.Now()) {
			t.Errorf("second refresh: %+v; want a change with its before and after, at the refresh's time %v", c, clock.Now())
		}
	}
	if len(all) == len(first) {
		t.Fatal("six simulated hours later, the second refresh found nothing moved")
	}
	t.Logf("the second refresh found %v", moved)

	// The page agrees with the API, filtered and not, and so does its CSV.
	_, page := a.do(t, "GET", "/changes", nil)
	if !strings.Contains(page, fmt.Sprintf("%d changes", len(all))) || strings.Count(page, `data-testid="change"`) != min(len(all), 100) {
		t.Errorf("/changes does not list the %d changes of the API", len(all))
	}
	byKind := map[domain.ChangeKind]int{}
	for _, c := range all {
		byKind[c.Kind]++
	}
	for kind, want := range byKind {
		_, page := a.do(t, "GET", "/changes?kind="+string(kind), nil)
		if got := strings.Count(page, `data-kind="`+string(kind)+`"`); got != min(want, 100) {
			t.Errorf("/changes?kind=%s lists %d, the API %d", kind, got, want)
		}
	}
	_, body := a.do(t, "GET", "/changes.csv", nil)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != len(all)+1 || strings.Join(rows[0], ",") != "id,at,kind,subsampleId,eventId,country,quotaId,before,after,subsampleName,eventName" {
		t.Fatalf("/changes.csv: %d rows, %v; want a header and the %d changes", len(rows), err, len(all))
	}
	// Each change names its subsample as the snapshot does, on the page
	// and in the CSV.
	snapshot, err := a.store.SubsampleRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, r := range snapshot {
		names[strconv.FormatInt(r.SubsampleID, 10)] = r.Name
	}
	for _, row := range rows[1:] {
		if want := names[row[3]]; row[9] != want {
			t.Fatalf("/changes.csv names subsample %s %q, the snapshot %q", row[3], row[9], want)
		}
	}
	// The API names each change as the CSV does.
	csvNames := map[string][2]string{}
	for _, row := range rows[1:] {
		csvNames[row[0]] = [2]string{row[9], row[10]}
	}
	for _, c := range all {
		if got, want := [2]string{c.SubsampleName, c.EventName}, csvNames[strconv.FormatInt(c.ID, 10)]; got != want {
			t.Fatalf("/api/v1/changes names change %d %q, /changes.csv %q", c.ID, got, want)
		}
	}
	if name := names[rows[1][3]]; name == "" || !strings.Contains(page, `<span class="id-name">`+html.EscapeString(name)+`</span>`) {
		t.Errorf("/changes does not show subsample %s's name %q beside its id", rows[1][3], name)
	}
	_, overview := a.do(t, "GET", "/", nil)
	if strings.Contains(overview, `data-testid="baseline"`) {
		t.Error("after the second refresh the overview still calls the last refresh the baseline")
	}
	if !strings.Contains(overview, `data-testid="recent-changes"`) || strings.Count(overview, `data-testid="change"`) != min(len(all), 10) {
		t.Errorf("the overview does not show the last ten (of %d) changes", len(all))
	}

	for _, tt := range []struct{ path, want string }{
		{"/changes?kind=subsample.moved", "none of subsample.new"},
		{"/changes?country=France", "Country"},
		{"/changes?event=abc", "not a positive whole number"},
		{"/changes?to=tomorrow", "not a date"},
		{"/api/v1/changes?since=-1", "not a change id"},
		{"/api/v1/changes?limit=1001", "from 1 to 1000"},
	} {
		if resp, body := a.do(t, "GET", tt.path, nil); resp.StatusCode != 400 || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d, want 400 with %q", tt.path, resp.StatusCode, tt.want)
		}
	}
}
