package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"fieldboard/handlers"
	"fieldboard/store"
	"fieldboard/views/formats"
)

// genderAnswer is an answer id of the simulator's question 43, as its
// library stores it.
func genderAnswer(t *testing.T, a *app) int64 {
	t.Helper()
	ctx := context.Background()
	locales, err := a.store.LibraryLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for locale := range locales {
		answers, err := a.store.Answers(ctx, locale, 43)
		if err != nil {
			t.Fatal(err)
		}
		if len(answers) > 0 {
			return answers[0].ID
		}
	}
	t.Fatal("the simulator's library has no answer of question 43")
	return 0
}

// TestMappingAPI: own-code profiles posted before the mapping are kept
// untranslated; a bad mapping is a 400 naming each bad line; a good one
// translates the earlier profiles and reads back.
func TestMappingAPI(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	gender := genderAnswer(t, a)
	resp, text := a.post(t, "/api/v1/profiles/own", "text/csv", store.OwnProfileHeader+"\nP1,gender,F\nP1,dob,1984-03-02\nP2,hobby,outdoor\n")
	var own store.OwnProfileImportReport
	json.Unmarshal([]byte(text), &own)
	if resp.StatusCode != 200 || own.Records != 3 || own.Untranslated != 3 || own.Translated != 0 {
		t.Errorf("own profiles before the mapping: %d %s", resp.StatusCode, text)
	}

	resp, text = a.post(t, "/api/v1/profiles/mapping", "text/csv", fmt.Sprintf("%s\ngender,F,43,%d,\ngender,M,999999,1,\ndob,,-1,7,\n", store.MappingHeader, gender))
	var e handlers.ImportErrorJSON
	json.Unmarshal([]byte(text), &e)
	if resp.StatusCode != 400 || e.BadLines != 2 || len(e.Lines) != 2 || e.Lines[0].Line != 3 ||
		!strings.Contains(e.Lines[0].Reason, "question 999999 is not in the library of any locale") || e.Lines[1].Line != 4 {
		t.Errorf("bad mapping: %d %s", resp.StatusCode, text)
	}
	if resp, text := a.post(t, "/api/v1/profiles/mapping", "application/json", `[]`); resp.StatusCode != http.StatusUnsupportedMediaType ||
		!strings.Contains(text, "Send the mapping as text/csv.") {
		t.Errorf("a JSON mapping: %d %s, want 415", resp.StatusCode, text)
	}

	resp, text = a.post(t, "/api/v1/profiles/mapping", "text/csv", fmt.Sprintf("%s\ngender,F,43,%d,\ndob,,-1,,\n", store.MappingHeader, gender))
	var report store.MappingImportReport
	json.Unmarshal([]byte(text), &report)
	if want := (store.MappingImportReport{Records: 2, Panelists: 2, Changed: 1, Translated: 2, Untranslated: 1, Errors: []store.LineError{}}); resp.StatusCode != 200 || !reflect.DeepEqual(report, want) {
		t.Errorf("mapping: %d %s; want %+v", resp.StatusCode, text, want)
	}
	p, err := a.store.ProfileOf(context.Background(), "P1")
	if err != nil || !reflect.DeepEqual(p.Answers[43], []int64{gender}) || p.BirthDate.Year() != 1984 {
		t.Errorf("P1's profile after the mapping: %+v, %v", p, err)
	}

	var got formats.MappingJSON
	if resp := a.getJSON(t, "/api/v1/profiles/mapping", &got); resp.StatusCode != 200 || len(got.Mapping) != 2 ||
		!reflect.DeepEqual(got.Unmapped, []store.UnmappedCode{{Code: "hobby", Value: "outdoor", Panelists: 1}}) {
		t.Errorf("GET mapping: %d %+v", resp.StatusCode, got)
	}
}

// TestMappingForms: the two upload forms of /profiling answer an htmx post
// with the outcome alone, a bad file with its lines, and the page shows
// the mapping and the unmapped codes.
func TestMappingForms(t *testing.T) {
	t.Parallel()
	a := refreshed(t)
	gender := genderAnswer(t, a)
	htmx := map[string]string{"HX-Request": "true"}
	body, contentType := multipartFile(t, nil, "mapping.csv", fmt.Sprintf("%s\ngender,F,43,%d,\n", store.MappingHeader, gender))
	resp, page := a.postRaw(t, "/profiling/mapping", contentType, body, htmx)
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="mapping-import-ok"`) || strings.Contains(page, "<html") {
		t.Errorf("mapping upload: %d %s", resp.StatusCode, page)
	}
	body, contentType = multipartFile(t, nil, "bad.csv", fmt.Sprintf("%s\ngender,F,43,%d,\n,F,43,1,\n", store.MappingHeader, gender))
	resp, page = a.postRaw(t, "/profiling/mapping", contentType, body, htmx)
	if resp.StatusCode != 422 || !strings.Contains(page, "Line 3: code is empty") {
		t.Errorf("bad mapping upload: %d %s", resp.StatusCode, page)
	}
	body, contentType = multipartFile(t, nil, "own.csv", store.OwnProfileHeader+"\nP1,gender,F\nP1,region,NW\nP2,region,NW\n")
	resp, page = a.postRaw(t, "/profiling/own", contentType, body, htmx)
	if resp.StatusCode != 200 || !strings.Contains(page, `data-testid="own-import-ok"`) || !strings.Contains(page, "1 translated by the mapping, 2 kept untranslated") {
		t.Errorf("own profile upload: %d %s", resp.StatusCode, page)
	}
	// A plain form post gets the whole page, with the outcome in it.
	body, contentType = multipartFile(t, nil, "own.csv", store.OwnProfileHeader+"\nP3,region,NW\n")
	resp, page = a.postRaw(t, "/profiling/own", contentType, body, nil)
	if resp.StatusCode != 200 || !strings.Contains(page, "<html") || !strings.Contains(page, `data-testid="own-import-ok"`) {
		t.Errorf("own profile upload without htmx: %d %.300s", resp.StatusCode, page)
	}

	resp, page = a.do(t, "GET", "/profiling", nil)
	for _, want := range []string{`data-testid="mapping-table"`, `<code>gender</code>`, `data-testid="unmapped-table"`, `Are you...? <span class="muted">(43, en-gb)</span>`,
		`<td><code>region</code></td><td><span class="muted">none on file</span></td><td><ul class="inline-values"><li><code>NW</code> <span class="muted">3</span></li></ul></td>`, `name="_csrf"`, `action="/profiling/own"`} {
		if !strings.Contains(page, want) {
			t.Errorf("GET /profiling: %d, no %s in\n%s", resp.StatusCode, want, page)
		}
	}
}

// TestMappingBeforeALibrary: a mapping before the first refresh is refused
// with a 409 that says why, over the API and on the form.
func TestMappingBeforeALibrary(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	resp, text := a.post(t, "/api/v1/profiles/mapping", "text/csv", store.MappingHeader+"\ndob,,-1,,\n")
	if resp.StatusCode != http.StatusConflict || !strings.Contains(text, "No question library is stored yet") {
		t.Errorf("API mapping before a library: %d %s", resp.StatusCode, text)
	}
	body, contentType := multipartFile(t, nil, "mapping.csv", store.MappingHeader+"\ndob,,-1,,\n")
	resp, page := a.postRaw(t, "/profiling/mapping", contentType, body, map[string]string{"HX-Request": "true"})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(page, `data-testid="mapping-import-error"`) || !strings.Contains(page, "No question library is stored yet") {
		t.Errorf("form mapping before a library: %d %s", resp.StatusCode, page)
	}
	if resp, page := a.do(t, "GET", "/profiling", nil); resp.StatusCode != 200 || !strings.Contains(page, `data-testid="mapping-no-library"`) {
		t.Errorf("GET /profiling before a library: %d", resp.StatusCode)
	}
}
