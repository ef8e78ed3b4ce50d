package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldboard/client/sim"
	"fieldboard/store"
	"fieldboard/views/formats"
	"fieldboard/web"
	"fieldboard/web/refresh"
)

// formulaWorld is an app reading a simulator whose event, subsample and
// quota names, library texts and panelist ids begin with formulas
// (sim.Options.FormulaNames and FormulaIDs), refreshed, with the panel, profiles and history of n
// panelists imported through the API, and an invitation clicked by each
// of them so the router's record holds their ids. It returns the ids.
func formulaWorld(t *testing.T, n int) (*app, []string) {
	t.Helper()
	a := newAppOn(t, sim.Options{Seed: 3, Subsamples: 120, QuestionsPerLocale: 10, FormulaNames: true, FormulaIDs: true},
		func(s *web.Server) { s.ClickBurst = 100000 })
	ctx := context.Background()
	if err := a.refresher.Refresh(ctx, refresh.Request{Force: true}); err != nil {
		t.Fatal(err)
	}
	ids := a.profile(t, n) // profiles through the API; the panel straight into the store
	var panel strings.Builder
	panel.WriteString(store.PanelHeader + "\n")
	for m := range a.sim.Panel(7, n) {
		fmt.Fprintf(&panel, "%s,%s,%s\n", m.PanelistID, m.Country, m.Locale)
	}
	if resp, body := a.post(t, "/api/v1/panelists", "text/csv", panel.String()); resp.StatusCode != 200 {
		t.Fatalf("panel import: %d %s", resp.StatusCode, body)
	}
	var history strings.Builder
	history.WriteString(store.HistoryHeader + "\n")
	for r := range a.sim.History(7, 4*n, n) {
		fmt.Fprintf(&history, "%s,%d,%d,%s,%d,%d,%d\n", r.PanelistID, r.SubsampleID, r.StatusID,
			r.RegisteredAt.UTC().Format(time.DateTime), r.EventID, r.CategoryID, r.ResearchTypeID)
	}
	if resp, body := a.post(t, "/api/v1/history", "text/csv", history.String()); resp.StatusCode != 200 {
		t.Fatalf("history import: %d %s", resp.StatusCode, body)
	}
	signer, err := newSigner(ctx, a.store, time.Now(), a.url, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		a.click(t, signer.Link(id, 0))
	}
	a.decisions(t, store.RoutingFilter{}, len(ids))
	return a, ids
}

// liveCell says why a cell of a CSV a spreadsheet opens would run as a
// formula, or split into one that does: it begins with = + - @, their
// full-width forms, tab or CR without the writer's neutralising quote
// (formats.Writer), or it holds a ; and was not quoted, so a spreadsheet
// that splits on ; reads what follows as a cell of its own. "" when it is
// safe. raw is the whole answer as written.
func liveCell(cell, raw string) string {
	if startsFormula(cell) {
		return "begins with a formula, not neutralised"
	}
	if strings.Contains(cell, ";") && !strings.Contains(raw, `"`+strings.ReplaceAll(cell, `"`, `""`)+`"`) {
		return "holds a ; and is not quoted"
	}
	return ""
}

// csvCells checks every cell of a CSV answer, counting the neutralised
// ones, and reports each live cell; exempt says which cells may be
// echoed as the caller sent them (row, column).
func csvCells(t *testing.T, what, body string, exempt func(row, col int, cell string) bool) (neutralised int) {
	t.Helper()
	for i, row := range parseCSV(t, body) {
		for j, cell := range row {
			if rest, ok := strings.CutPrefix(cell, "'"); ok && startsFormula(rest) {
				neutralised++
			}
			if why := liveCell(cell, body); why != "" && (exempt == nil || !exempt(i, j, cell)) {
				t.Errorf("%s, line %d, cell %d: %q %s", what, i+1, j+1, cell, why)
			}
		}
	}
	return neutralised
}

// csvParams fills a route's path parameters with real values of the
// world: every value each parameter can take that the test knows of.
type csvParams struct {
	subsamples []string // subsample ids, sendable ones first
	panelists  []string // panelist ids, as they are
	locales    []string
	questions  map[string][]string // question ids by locale
	tables     []string            // reference tables
}

// fill returns the concrete paths of route, each parameter filled with
// each of its values (subsamples' and panelists' ids in turn); ok is
// false when the route has a parameter the test does not know.
func (p csvParams) fill(route string) (paths []string, ok bool) {
	paths = []string{""}
	for _, seg := range strings.Split(strings.TrimPrefix(route, "/"), "/") {
		var values []string
		switch {
		case !strings.HasPrefix(seg, ":"):
			values = []string{seg}
		case seg == ":id" && strings.Contains(route, "/panelists/:id"):
			for _, id := range p.panelists {
				values = append(values, url.PathEscape(id))
			}
		case seg == ":id" && strings.Contains(route, "/subsamples/:id"):
			values = p.subsamples
		case seg == ":locale":
			values = p.locales
		case seg == ":qid":
			values = nil // by locale, below
		case seg == ":table":
			values = p.tables
		default:
			return nil, false
		}
		var next []string
		for _, path := range paths {
			if seg == ":qid" {
				locale := strings.Split(path, "/")[2]
				values = p.questions[locale]
			}
			for _, v := range values {
				next = append(next, path+"/"+v)
			}
		}
		paths = next
	}
	return paths, len(paths) > 0
}

// queriesFor are the queries a CSV route needs to answer rows, by path:
// a route not listed is asked with none.
func queriesFor(route string, panelists []string) []string {
	if route == "/panelists.csv" || route == "/panelists" {
		out := make([]string, len(panelists))
		for i, id := range panelists {
			out[i] = "panelist=" + url.QueryEscape(id)
		}
		return out
	}
	return []string{""}
}

// TestEveryCSVNeutralisesEveryCell walks every GET route of the server
// (echo's route list, not a list written here), fills its parameters with
// real values, asks for its CSV (the .csv path itself, or format=csv), and
// fails on any cell a spreadsheet would run as a formula; then the two
// POSTs that answer CSV, the bulk checks. Names and panelist ids begin
// with = + - @, their full-width forms, tab, CR or ;= (tab and CR only in
// names: a panelist id holds no control character). A .csv route the test
// cannot fill fails it, so a CSV route added later is covered without
// anyone remembering to.
func TestEveryCSVNeutralisesEveryCell(t *testing.T) {
	t.Parallel()
	a, ids := formulaWorld(t, 200)
	ctx := context.Background()
	var formulaIDs []string // the ids a spreadsheet would run
	for _, id := range ids {
		if startsFormula(id) || strings.HasPrefix(id, ";") {
			formulaIDs = append(formulaIDs, id)
		}
	}
	params := csvParams{panelists: formulaIDs[:12], questions: map[string][]string{}}
	var sendable, others []string
	var subsamples []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &subsamples)
	for _, s := range subsamples {
		if s.Sendability == "sendable" {
			sendable = append(sendable, strconv.FormatInt(s.SubsampleID, 10))
		} else if len(s.EntryLinks) > 0 {
			others = append(others, strconv.FormatInt(s.SubsampleID, 10))
		}
	}
	params.subsamples = append(sendable, others[:min(3, len(others))]...) // and a few that are not sendable: their quotas, verdicts and links
	locales, err := a.store.LibraryLocales(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for locale := range locales {
		params.locales = append(params.locales, locale)
		questions, err := a.store.Questions(ctx, locale)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range questions[:min(3, len(questions))] {
			params.questions[locale] = append(params.questions[locale], strconv.FormatInt(q.ID, 10))
		}
	}
	_, reference := a.do(t, "GET", "/reference", nil)
	for _, m := range regexp.MustCompile(`href="/reference/([^"/?]+)"`).FindAllStringSubmatch(reference, -1) {
		if !slices.Contains(params.tables, m[1]) {
			params.tables = append(params.tables, m[1])
		}
	}

	neutralisedBy := map[string]int{}
	for _, r := range a.routes {
		if r.Method != http.MethodGet || strings.HasPrefix(r.Path, "/r/") || strings.HasPrefix(r.Path, "/return/") || r.Path == "/metrics" || r.Path == "/healthz" {
			continue // the router's redirects, and the operator's plain-text endpoints, answer no CSV
		}
		paths, ok := params.fill(r.Path)
		if !ok {
			// Any GET route may answer CSV (format=csv, Accept): one the
			// test cannot fill goes unchecked, so it fails the test.
			t.Errorf("GET %s: the test cannot fill its parameters, so a CSV it may answer goes unchecked; teach csvParams.fill", r.Path)
			continue
		}
		answered := 0
		for _, path := range paths {
			for _, query := range queriesFor(r.Path, params.panelists) {
				tries := []string{path + "?" + query}
				if !strings.HasSuffix(path, ".csv") {
					tries = append(tries, path+"?"+strings.TrimPrefix(query+"&format=csv", "&"))
				}
				for _, target := range tries {
					resp, body := a.do(t, "GET", target, map[string]string{"Accept": "text/csv"})
					if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
						continue
					}
					answered++
					neutralisedBy[r.Path] += csvCells(t, "GET "+target, body, nil)
				}
			}
		}
		if answered == 0 && strings.HasSuffix(r.Path, ".csv") {
			t.Errorf("GET %s answered no CSV for any of %d paths filled with the world's values", r.Path, len(paths))
		}
	}

	// Of the other routes, only the two bulk checks answer CSV: a route new
	// to the test fails it until someone says which it is.
	postsCSV := map[string]bool{"/panelists/bulk": true, "/api/v1/subsamples/:id/eligibility": true,
		"/login": false, "/logout": false, "/refresh": false, "/subsamples/:id/refresh": false, "/panelists/history": false,
		"/panelists/profiles": false, "/panelists/panel": false, "/webhooks": false, "/webhooks/:id/remove": false,
		"/webhooks/:id/test": false, "/api/v1/profiles": false, "/api/v1/panelists": false, "/api/v1/history": false, "/api/v1/refresh": false,
		"/profiling/mapping": false, "/profiling/own": false, "/api/v1/profiles/mapping": false, "/api/v1/profiles/own": false,
		"/users": false, "/users/role": false, "/users/tokens": false, "/users/tokens/revoke": false,
		"/api/v1/returns": false, "/panelists/held": false, "/panelists/held/:id/release": false,
		"/policy": false, "/policy/resume": false, "/policy/:id/remove": false, "/api/v1/policy": false, "/api/v1/policy/:id/remove": false} // JSON only, or pages
	for _, r := range a.routes {
		if _, known := postsCSV[r.Path]; r.Method != http.MethodGet && !known {
			t.Errorf("%s %s is new to this test: say in postsCSV whether it answers CSV, and if it does, check its cells below", r.Method, r.Path)
		}
	}

	// The bulk checks: the dashboard's download neutralises the ids it was
	// given; the API echoes them byte for byte (the README's one exception,
	// so scripts join the answer back to their input) and neutralises the
	// rest.
	list := "panelistId\n" + strings.Join(ids, "\n") + "\n"
	for _, id := range params.subsamples[:3] {
		resp, body := a.post(t, "/api/v1/subsamples/"+id+"/eligibility", "text/csv", list)
		if resp.StatusCode != 200 {
			t.Fatalf("bulk check of %s: %d %s", id, resp.StatusCode, body)
		}
		neutralisedBy["POST /api/v1/subsamples/:id/eligibility"] += csvCells(t, "POST /api/v1/subsamples/"+id+"/eligibility", body, func(row, col int, cell string) bool {
			return row > 0 && col == 0 && cell == ids[row-1]
		})
		form, contentType := multipartFile(t, map[string]string{"subsample": id}, "ids.csv", list)
		resp, body = a.postRaw(t, "/panelists/bulk", contentType, form, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("dashboard bulk check of %s: %d %s", id, resp.StatusCode, firstLine(body))
		}
		neutralisedBy["POST /panelists/bulk"] += csvCells(t, "POST /panelists/bulk of "+id, body, nil)
	}

	// Each CSV that carries names or ids had formulas to neutralise: else
	// the walk proved nothing of it.
	for _, route := range []string{"/events.csv", "/live.csv", "/panelists.csv", "/routing.csv", "/subsamples/:id/targets.csv",
		"/api/v1/subsamples/:id/targets", "POST /panelists/bulk", "/subsamples/:id/quotas.csv", "/library.csv",
		"/library/:locale/questions/:qid/answers.csv"} {
		if neutralisedBy[route] == 0 {
			t.Errorf("%s: no cell neutralised; the world gave it no name or id beginning with a formula (%v)", route, neutralisedBy)
		}
	}
	t.Logf("neutralised cells by route: %v", neutralisedBy)
}
