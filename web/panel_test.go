package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"fieldboard/handlers"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// TestPanelUploads imports the panel through the API, as CSV and JSON,
// and through the form on /panelists, with htmx and without.
func TestPanelUploads(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	wantPanel := func(what string, want domain.PanelMember) {
		t.Helper()
		got, err := a.store.PanelOf(ctx, want.PanelistID)
		if err != nil || got != want {
			t.Errorf("%s: PanelOf(%s) = %+v, %v; want %+v", what, want.PanelistID, got, err, want)
		}
	}

	// The API, in CSV.
	resp, text := a.post(t, "/api/v1/panelists", "text/csv; charset=utf-8", store.PanelHeader+"\r\nP1,fr,fr_FR\r\nP2,CA,\r\nP1,BE,nl-be\r\n")
	var report store.PanelImportReport
	if err := json.Unmarshal([]byte(text), &report); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CSV panel import: %d %v %s", resp.StatusCode, err, text)
	}
	if report.Records != 3 || report.Written != 2 || report.Replaced != 0 || report.BadLines != 0 || !strings.Contains(text, `"errors":[]`) {
		t.Errorf("CSV panel import answered %s", text)
	}
	wantPanel("CSV", domain.PanelMember{PanelistID: "P1", Country: "BE", Locale: "nl-be"})

	// The API, in JSON: a later import replaces a panelist's row.
	resp, text = a.post(t, "/api/v1/panelists", "application/json", `[{"panelistId":"P2","country":"CA","locale":"fr-CA"},{"panelistId":3,"country":"us"}]`)
	if resp.StatusCode != 200 || !strings.Contains(text, `"records":2`) || !strings.Contains(text, `"written":2`) || !strings.Contains(text, `"replaced":1`) {
		t.Errorf("JSON panel import: %d %s", resp.StatusCode, text)
	}
	wantPanel("JSON", domain.PanelMember{PanelistID: "P2", Country: "CA", Locale: "fr-ca"})
	wantPanel("JSON", domain.PanelMember{PanelistID: "3", Country: "US"})

	// A rejected file: every bad line with its number and reason, nothing
	// written.
	resp, text = a.post(t, "/api/v1/panelists", "text/csv", store.PanelHeader+"\nP4,DE,de-de\nP5,DEU,\nP6,DE,fr-fr\n")
	var rejected handlers.ImportErrorJSON
	if err := json.Unmarshal([]byte(text), &rejected); err != nil || resp.StatusCode != 400 {
		t.Fatalf("a bad panel file: %d %v %s", resp.StatusCode, err, text)
	}
	if rejected.BadLines != 2 || len(rejected.Lines) != 2 || rejected.Lines[0].Line != 3 || !strings.Contains(rejected.Lines[0].Reason, `country "DEU"`) ||
		rejected.Lines[1].Line != 4 || !strings.Contains(rejected.Lines[1].Reason, "locale fr-fr is of country FR, not of the panelist's DE") ||
		!strings.Contains(rejected.Error, "2 bad lines; line 3") {
		t.Errorf("a bad panel file answered %s", text)
	}
	if _, err := a.store.PanelOf(ctx, "P4"); err == nil {
		t.Error("a rejected file wrote P4")
	}
	resp, text = a.post(t, "/api/v1/panelists", "application/json", `{"panelistId":"P4"}`)
	if resp.StatusCode != 400 || !strings.Contains(text, `"line":0`) || !strings.Contains(text, "must be a JSON array of panel records") {
		t.Errorf("a JSON panel file that is not an array: %d %s", resp.StatusCode, text)
	}
	if resp, text := a.post(t, "/api/v1/panelists", "text/plain", "x"); resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(text, `"error"`) {
		t.Errorf("text/plain panel: %d %s, want 415", resp.StatusCode, text)
	}

	// The form, with htmx: the outcome alone.
	body, contentType := multipartFile(t, nil, "panel.csv", store.PanelHeader+"\nP7,GB,en-gb\nP1,NL,\n")
	resp, page := a.postRaw(t, "/panelists/panel", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="panel-import-ok"`) ||
		!strings.Contains(page, "panel.csv: 2 records read, 2 panelists written, 1 of them replacing an earlier country and locale.") || strings.Contains(page, "<html") {
		t.Errorf("panel upload with htmx: %d %s", resp.StatusCode, page)
	}
	wantPanel("form", domain.PanelMember{PanelistID: "P1", Country: "NL"})
	body, contentType = multipartFile(t, nil, "bad.csv", store.PanelHeader+"\nP8,GB,en-gb\n,GB,\nP9,GB,en-us\n")
	resp, page = a.postRaw(t, "/panelists/panel", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != 422 || !strings.Contains(page, `data-testid="panel-import-error"`) || !strings.Contains(page, "Line 3: panelistId is empty") ||
		!strings.Contains(page, "Line 4: locale en-us is of country US") || !strings.Contains(page, "bad.csv was rejected; nothing was written.") {
		t.Errorf("bad panel upload with htmx: %d %s", resp.StatusCode, page)
	}

	// The form, without htmx: the whole page, with the outcome in its place.
	body, contentType = multipartFile(t, nil, "plain.csv", store.PanelHeader+"\nP10,IT,it-it\n")
	resp, page = a.postRaw(t, "/panelists/panel", contentType, body, nil)
	if resp.StatusCode != 200 || !strings.Contains(page, "<h1>Panelists</h1>") ||
		!strings.Contains(page, `<div id="panel-import-result"><p class="ok" role="status" data-testid="panel-import-ok">`) {
		t.Errorf("plain panel upload: %d %s", resp.StatusCode, page)
	}
	body, contentType = multipartFile(t, nil, "plain-bad.csv", "panelistId,country\nP11,IT\n")
	resp, page = a.postRaw(t, "/panelists/panel", contentType, body, nil)
	if resp.StatusCode != 422 || !strings.Contains(page, "<h1>Panelists</h1>") || !strings.Contains(page, `data-testid="panel-import-error"`) ||
		!strings.Contains(page, "Line 1: the first line must be the header panelistId,country,locale") {
		t.Errorf("plain bad panel upload: %d %s", resp.StatusCode, page)
	}
	if n, err := a.store.CountPanel(ctx); err != nil || n != 5 {
		t.Errorf("CountPanel = %d, %v; want P1, P2, 3, P7 and P10", n, err)
	}

	// The page offers the form, with the header and what the file is for.
	_, page = a.do(t, "GET", "/panelists", nil)
	for _, want := range []string{`action="/panelists/panel"`, `hx-post="/panelists/panel"`, "Panel: country and language",
		"<code>panelistId,country,locale</code>", "only sent to subsamples of their country"} {
		if !strings.Contains(page, want) {
			t.Errorf("/panelists lacks %q", want)
		}
	}
}
