package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	demodata "fieldboard/web/demo"
	"fieldboard/web/webhooks"
)

// serveDemo runs `fieldboard serve` without --upstream on db until it
// serves, calls during with its log so far, cancels it and returns its
// log.
func serveDemo(t *testing.T, db string, during func(log func() string)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &syncWriter{w: &bytes.Buffer{}}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--sim-subsamples", "80", "--sim-panelists", "500", "--sim-latency", "0"}, log, log)
	}()
	// A safety net against a hang: the race detector on a loaded
	// machine makes the replay take minutes.
	for failsafe := time.Now().Add(6 * time.Minute); !strings.Contains(log.String(), `msg="serving the dashboard"`); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s", err, log.String())
		default:
		}
		if time.Now().After(failsafe) {
			t.Fatalf("serve did not serve within 6 minutes:\n%s", log.String())
		}
	}
	during(log.String)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, log.String())
	}
	return log.String()
}

// TestDemoReplaysItsFirstDayOnce: the demo's first start replays the
// simulator's last day before it serves, delivering the day's changes to
// its own receiver; a restart replays nothing, and its webhook worker
// still reaches the receiver (the guard lets its address through), which
// listens where the subscription sends. Once the first start serves,
// simulated respondents take the simulator's survey and come back on the
// dashboard's return address; a restart drives nobody again.
func TestDemoReplaysItsFirstDayOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	const drove = "demo: simulated respondents took the simulator's survey and came back"
	first := serveDemo(t, db, func(log func() string) {
		for failsafe := time.Now().Add(2 * time.Minute); !strings.Contains(log(), drove); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(failsafe) {
				t.Fatalf("the simulated respondents did not come back within 2 minutes:\n%s", log())
			}
		}
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if records, err := st.ReturnedRecords(ctx, time.Time{}, time.Time{}); err != nil || len(records) == 0 {
			t.Errorf("after the drive the store holds returns %+v, %v; want some", records, err)
		}
		if _, hops, err := st.Routings(ctx, store.RoutingFilter{Outcome: domain.RoutedOnReturn}, 1, 0); err != nil || hops == 0 {
			t.Errorf("after the drive the router's record holds %d respondents sent on after a return, %v; want some", hops, err)
		}
		// The field's lessons in the feed: a cell closed at once, a
		// broken link flagged seconds after its returns.
		for _, kind := range []domain.ChangeKind{domain.ChangeQuotaClosedByField, domain.ChangeLinkSuspect} {
			for failsafe := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
				_, n, err := st.Changes(ctx, store.ChangeFilter{Kind: kind}, 1, 0)
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					break
				}
				if time.Now().After(failsafe) {
					t.Errorf("after the drive the change feed holds no %s:\n%s", kind, log())
					break
				}
			}
		}
		checkDemoPolicyPages(t, log())
	})
	for _, line := range []string{"demo: replaying the simulator's last 24 hours", "demo: replayed the day's first 20 hours",
		"demo: replayed the day's last 4 hours", "demo: the simulator's last 24 hours are replayed"} {
		if strings.Count(first, line) != 1 {
			t.Errorf("the first start's log does not say once %q:\n%s", line, first)
		}
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	audit, err := st.PolicyChanges(ctx, 0)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	policyChanges := len(audit)
	second := serveDemo(t, db, func(func() string) {
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if audit, err := st.PolicyChanges(ctx, 0); err != nil || len(audit) != policyChanges {
			t.Errorf("after a restart the audit of our rules holds %d changes, %v; want the first start's %d", len(audit), err, policyChanges)
		}
		if users, err := st.Users(ctx); err != nil || len(users) != 3 {
			t.Errorf("after a restart the users are %+v, %v; want the first start's three", users, err)
		}
		subs, err := st.Webhooks(ctx)
		if err != nil || len(subs) != 1 {
			t.Fatalf("subscriptions %+v, %v; want the demo receiver's", subs, err)
		}
		if _, err := st.QueueWebhookTest(ctx, subs[0].ID, webhooks.NewTestMessageID(), time.Now()); err != nil {
			t.Fatal(err)
		}
		for failsafe := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			deliveries, err := st.WebhookDeliveries(ctx, subs[0].ID, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(deliveries) == 1 && deliveries[0].Kind == "webhook.test" && deliveries[0].Status == store.DeliveryDelivered {
				return
			}
			if time.Now().After(failsafe) {
				t.Fatalf("the test event after a restart: %+v, want delivered", deliveries)
			}
		}
	})
	if strings.Contains(second, "replay") || strings.Contains(second, drove) {
		t.Errorf("a restart replayed or drove respondents:\n%s", second)
	}
}

// checkDemoPolicyPages signs in as the demo's admin, with the password
// the first start's log shows, and reads the pages a person opens first:
// /policy lists our rules set by the demo's coordinator, with their
// audit; /panelists/held lists panelists held by hand and for quality;
// /users lists the three users and their roles; the live list has
// subsamples blocked by our rules while most the provider lets us send
// to still take traffic.
func checkDemoPolicyPages(t *testing.T, log string) {
	t.Helper()
	url, password := logValue(log, `msg="serving the dashboard"`, "url"), logValue(log, "demo: created the user admin", "password")
	if url == "" || password == "" {
		t.Fatalf("the first start's log names no address or no admin password:\n%s", log)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	resp, err := browser.PostForm(url+"/login", neturl.Values{"name": {"admin"}, "password": {password}, "next": {"/"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	get := func(path string) string {
		t.Helper()
		resp, err := browser.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v\n%s", path, resp.StatusCode, err, body)
		}
		return string(body)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{"/policy", []string{"our maximum LOI", "our block of research type", "our priority of event", "our cap of sends per hour on subsample",
			"our pause of subsample", "<td>" + demodata.Coordinator + ", ", "the client asked us to wait for their new screener"}},
		{"/panelists/held", []string{"Held by hand", "straight-lined two grids", "until", "reversed"}},
		{"/users", []string{">admin<", ">" + demodata.Coordinator + "<", ">" + demodata.Viewer + "<", "coordinator", "viewer"}},
	} {
		page := get(c.path)
		for _, want := range c.want {
			if !strings.Contains(page, want) {
				t.Errorf("%s does not say %q", c.path, want)
			}
		}
	}
	rows, err := csv.NewReader(strings.NewReader(get("/live.csv"))).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("/live.csv: %d rows, %v", len(rows), err)
	}
	state := slices.Index(rows[0], "sendability")
	states := map[string]int{}
	for _, row := range rows[1:] {
		states[row[state]]++
	}
	if states["blocked_by_us"] == 0 || states["sendable"] <= 2*states["blocked_by_us"] {
		t.Errorf("the live list's sendability: %v; want some blocked by our rules and most the provider lets us send to still sendable", states)
	}
}

// logValue is the value of key on the first line of log that says what.
func logValue(log, what, key string) string {
	for line := range strings.Lines(log) {
		if !strings.Contains(line, what) {
			continue
		}
		for field := range strings.FieldsSeq(line) {
			if v, ok := strings.CutPrefix(field, key+"="); ok {
				return strings.Trim(v, `"`)
			}
		}
	}
	return ""
}
