package web_test

import (
	"context"
	"testing"

	"fieldboard/handlers"
	"fieldboard/web/refresh"
)

// GET /api/v1/refresh says what the last refresh read: every dataset for
// the API's refresh, which forces them all; the events alone for the
// dashboard's Refresh now when nothing else is due.
func TestRefreshStatusSaysWhatWasRead(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	steps := []struct {
		name      string
		method    string
		path      string
		wait      refresh.Request // joins the refresh the request started
		wantScope string
	}{
		{"the API's refresh", "POST", "/api/v1/refresh", refresh.Request{Force: true}, "reference data, events and question library"},
		{"the dashboard's Refresh now", "POST", "/refresh", refresh.Request{}, "events"},
	}
	for _, step := range steps {
		if resp, body := a.do(t, step.method, step.path, map[string]string{"HX-Request": "true"}); resp.StatusCode >= 300 {
			t.Fatalf("%s: %d %s", step.name, resp.StatusCode, body)
		}
		if err := a.refresher.Refresh(ctx, step.wait); err != nil {
			t.Fatal(err)
		}
		var got handlers.RefreshJSON
		a.getJSON(t, "/api/v1/refresh", &got)
		if got.Running || got.Scope != step.wantScope || got.Phase != "done" || got.Total == 0 || got.Done != got.Total || got.FinishedAt == nil {
			t.Errorf("after %s GET /api/v1/refresh = %+v, want scope %q, done = total > 0, finished", step.name, got, step.wantScope)
		}
	}
}
