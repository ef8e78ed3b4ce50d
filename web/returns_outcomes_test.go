package web_test

import (
	"net/http"
	"strings"
	"testing"

	"fieldboard/views/formats"
)

// TestReturnedCompleteShowsUnconfirmed: a complete returned on the return
// address counts among the outcomes at once, told apart as unconfirmed,
// on the API and the page.
func TestReturnedCompleteShowsUnconfirmed(t *testing.T) {
	t.Parallel()
	a, panelist, _, link := returnsApp(t, nil)
	if resp, _ := a.click(t, link(panelist)); resp.StatusCode != http.StatusFound {
		t.Fatalf("click: %d, want 302", resp.StatusCode)
	}
	if resp, _ := a.returned(t, "complete", panelist); resp.StatusCode >= 400 {
		t.Fatalf("complete: %d", resp.StatusCode)
	}
	var rep formats.OutcomesJSON
	a.getJSON(t, "/api/v1/outcomes", &rep)
	if rep.Total.Completes != 1 || rep.Total.UnconfirmedCompletes != 1 {
		t.Errorf("the outcomes' total: %d completes, %d unconfirmed; want 1 and 1", rep.Total.Completes, rep.Total.UnconfirmedCompletes)
	}
	_, body := a.do(t, "GET", "/outcomes", nil)
	if !strings.Contains(body, `data-testid="unconfirmed-note"`) || !strings.Contains(body, "1 unconfirmed") {
		t.Errorf("the outcomes page does not tell the returned complete apart:\n%.2000s", body)
	}
}
