package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"fieldboard/store"
	"fieldboard/views/formats"
)

// apiContract is the OpenAPI document the server serves, ready to check
// requests and answers against.
type apiContract struct {
	model     *v3.Document
	validator validator.Validator
	// loose checks without strict mode, for the document's own answer:
	// no schema could declare every property of an OpenAPI document, and
	// ValidateDocument checks it against the specification's own schema.
	loose   validator.Validator
	options *config.ValidationOptions
	// answered holds the operations ("GET /api/v1/subsamples") of which a
	// successful answer was checked.
	answered map[string]bool
}

// contractOptions check strictly: a property, query parameter or header
// the document does not declare is an error, and so are a status code it
// does not list and a string that breaks its format. The security headers
// every answer carries are left out (TestSecureHeaders checks them).
func contractOptions() []config.Option {
	return []config.Option{
		config.WithStrictMode(),
		config.WithFormatAssertions(),
		config.WithStrictIgnoredHeadersExtra("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy"),
	}
}

// fetchContract reads /api/v1/openapi.json from the server, with the
// bearer token a script would send, and parses it with libopenapi.
func fetchContract(t *testing.T, a *app) *apiContract {
	t.Helper()
	req, _ := http.NewRequest("GET", a.url+"/api/v1/openapi.json", nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /api/v1/openapi.json: %d %q, want 200 with JSON:\n%.300s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	doc, err := libopenapi.NewDocument(body)
	if err != nil {
		t.Fatalf("libopenapi cannot read the document: %v", err)
	}
	if v := doc.GetVersion(); !strings.HasPrefix(v, "3.1") {
		t.Errorf("the document is OpenAPI %q, want 3.1", v)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("libopenapi cannot build the document's model (a $ref that leads nowhere?): %v", err)
	}
	opts := contractOptions()
	v, errs := validator.NewValidator(doc, opts...)
	if len(errs) > 0 {
		t.Fatalf("the validator refuses the document: %v", errs)
	}
	loose, _ := validator.NewValidator(doc)
	return &apiContract{model: &model.Model, validator: v, loose: loose, options: config.NewValidationOptions(opts...), answered: map[string]bool{}}
}

// operations are the document's operations, as "GET /api/v1/subsamples/{id}/targets".
func (c *apiContract) operations() []string {
	var out []string
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			out = append(out, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

// apiRoutes are the server's registered /api/v1 routes, written as the
// document writes them ("GET /api/v1/panelists/{id}/next").
func apiRoutes(a *app) []string {
	param := regexp.MustCompile(`:(\w+)`)
	var out []string
	for _, r := range a.routes {
		if strings.HasPrefix(r.Path, "/api/v1/") {
			out = append(out, r.Method+" "+param.ReplaceAllString(r.Path, "{$1}"))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestOpenAPIDocumentsEveryRoute: the document the server serves at
// /api/v1/openapi.json is a valid OpenAPI 3.1 document (libopenapi-validator
// checks it against the specification's schema, and compiles each of its
// schemas as JSON Schema, which the specification's schema does not look
// into), and it describes exactly the /api/v1 routes the server
// registers: one added to the server and not to the document fails, as
// does one the document names that the server does not have.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := fetchContract(t, a)
	if ok, errs := c.validator.ValidateDocument(); !ok {
		for _, e := range errs {
			t.Errorf("the document does not validate: %s (%s) at line %d: %v", e.Message, e.Reason, e.SpecLine, e.SchemaValidationErrors)
		}
	}
	for name, proxy := range c.model.Components.Schemas.FromOldest() {
		if _, err := schema_validation.CompileSchemaForValidation(proxy.Schema(), schema_validation.SchemaValidationPurposeGeneric, c.options, 3.1); err != nil {
			t.Errorf("schema %s is not valid JSON Schema: %v", name, err)
		}
	}
	// What linters (Redocly's recommended rules) ask of every document: a
	// server to try it on and a license.
	if len(c.model.Servers) == 0 {
		t.Error("the document names no server")
	}
	if c.model.Info.License == nil || c.model.Info.License.Name == "" {
		t.Error("the document names no license")
	}
	routes, documented := apiRoutes(a), c.operations()
	if len(routes) < 12 {
		t.Fatalf("the server registers %d /api/v1 routes, %v; the test reads its routes wrong", len(routes), routes)
	}
	for _, r := range routes {
		if !slices.Contains(documented, r) {
			t.Errorf("the server registers %s, which handlers/openapi.json does not describe", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("handlers/openapi.json describes %s, which the server does not register", d)
		}
	}
}

// exchange is one request of TestOpenAPIMatchesTheAnswers and the answer
// it must get.
type exchange struct {
	method, path string
	contentType  string // of the body
	body         string
	header       map[string]string
	status       int
	// refused says the document itself refuses the request (a value its
	// parameter schema excludes, no token): the server's refusal is then
	// one the document foresees.
	refused bool
	// loose checks the answer without strict mode (apiContract.loose).
	loose bool
}

// check sends x with the test's bearer token (unless x sets its own
// Authorization) and checks the request and its answer against the
// document. It returns the answer's body.
func (c *apiContract) check(t *testing.T, a *app, x exchange) string {
	t.Helper()
	newRequest := func() *http.Request {
		req, err := http.NewRequest(x.method, a.url+x.path, strings.NewReader(x.body))
		if err != nil {
			t.Fatal(err)
		}
		if x.contentType != "" {
			req.Header.Set("Content-Type", x.contentType)
		}
		if _, own := x.header["Authorization"]; !own {
			req.Header.Set("Authorization", "Bearer "+a.token)
		}
		for k, v := range x.header {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		return req
	}
	name := x.method + " " + x.path

	// The request: one the document allows, unless the case says not.
	ok, errs := c.validator.ValidateHttpRequestSync(newRequest())
	switch {
	case !ok && !x.refused:
		t.Errorf("%s: the document refuses this request: %s", name, describe(errs))
	case ok && x.refused:
		t.Errorf("%s: the server refuses it, but the document allows it", name)
	}

	req := newRequest()
	resp, err := a.anonymous.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != x.status {
		t.Errorf("%s: %d, want %d:\n%.500s", name, resp.StatusCode, x.status, body)
		return string(body)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	answers := c.validator
	if x.loose {
		answers = c.loose
	}
	if ok, errs := answers.ValidateHttpResponse(req, resp); !ok {
		t.Errorf("%s: the %d answer does not match the document: %s\n%.500s", name, resp.StatusCode, describe(errs), body)
	}
	if resp.StatusCode < 300 {
		item, _, path := paths.FindPath(req, c.model, c.options)
		if item != nil {
			c.answered[x.method+" "+path] = true
		}
		// A CSV's header line is written in the document.
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") && item != nil {
			op := item.GetOperations().GetOrZero(strings.ToLower(x.method))
			described := op.Responses.Codes.GetOrZero(strconv.Itoa(resp.StatusCode)).Description
			if header := firstLine(string(body)); !strings.Contains(described, "`"+header+"`") {
				t.Errorf("%s: the CSV's header line %q is not in the document's description of the answer: %q", name, header, described)
			}
		}
	}
	return string(body)
}

// describe lists validation errors, with the schema errors under them.
func describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  - %s", e.Error())
	}
	return b.String()
}

// TestOpenAPIMatchesTheAnswers checks real answers of every documented
// operation against the document, its errors included: the document
// cannot drift from the JSON shapes, the status codes or the CSV headers
// without this test failing. Undeclared properties and status codes are
// errors (strict mode), so a field added to an answer must be documented.
func TestOpenAPIMatchesTheAnswers(t *testing.T) {
	t.Parallel()
	a, ids := profiled(t, 300)
	c := fetchContract(t, a)

	var all []formats.SubsampleJSON
	a.getJSON(t, "/api/v1/subsamples", &all)
	target, sibling := sendableSiblings(t, a)
	var held, closed formats.SubsampleJSON // live but not sendable; not live
	for _, s := range all {
		switch {
		case s.Status == "Live" && s.Sendability != "sendable" && held.SubsampleID == 0:
			held = s
		case s.Status != "Live" && s.Status != "Live for testing" && closed.SubsampleID == 0:
			closed = s
		}
	}
	if held.SubsampleID == 0 || closed.SubsampleID == 0 {
		t.Fatalf("the simulator has no live subsample that is not sendable (%d) or no closed one (%d)", held.SubsampleID, closed.SubsampleID)
	}
	// The first panelist took part in the target's event: the answers
	// then carry an exclusion with its history record.
	p := ids[0]
	history, _ := json.Marshal([]map[string]any{{
		"panelistId": p, "subsampleId": sibling.SubsampleID, "statusId": 2, "registeredAt": "2026-01-02T10:00:00.000",
		"eventId": sibling.EventID, "categoryId": 0, "researchTypeId": 0,
	}})
	ids10 := "panelistId\n" + strings.Join(ids[:10], "\n") + "\nnot-on-file\n"
	S, H, X := strconv.FormatInt(target.SubsampleID, 10), strconv.FormatInt(held.SubsampleID, 10), strconv.FormatInt(closed.SubsampleID, 10)
	P := url.PathEscape(p)
	const csvType, jsonType = "text/csv", "application/json"

	for _, x := range []exchange{
		{method: "GET", path: "/api/v1/openapi.json", status: 200, loose: true},
		{method: "GET", path: "/api/v1/panelists/held", status: 200},
		{method: "POST", path: "/api/v1/history", contentType: jsonType, body: string(history), status: 200},
		{method: "POST", path: "/api/v1/history", contentType: csvType, body: store.HistoryHeader + "\nP1,0,2,yesterday,1,0,0\n", status: 400},
		{method: "POST", path: "/api/v1/history", contentType: "text/plain", body: "P1", status: 415, refused: true},
		{method: "POST", path: "/api/v1/returns", contentType: jsonType, body: `[{"panelistId":"` + p + `","status":"screenout"},{"panelistId":"P-nobody","status":3}]`, status: 200},
		{method: "POST", path: "/api/v1/returns", contentType: csvType, body: "panelistId,status\n" + p + ",quotafull\n", status: 200},
		{method: "POST", path: "/api/v1/returns", contentType: "text/plain", body: "P1", status: 415, refused: true},
		{method: "POST", path: "/api/v1/profiles", contentType: csvType, body: store.ProfileHeader + "\nP-new,-1,1990-04-12\n", status: 200},
		{method: "POST", path: "/api/v1/profiles", contentType: jsonType, body: `[{"panelistId":"P-new","questionId":999999,"value":"1"}]`, status: 200},
		{method: "POST", path: "/api/v1/profiles", contentType: jsonType, body: `{"panelistId":"P-new"}`, status: 400, refused: true},
		{method: "POST", path: "/api/v1/panelists", contentType: jsonType, body: `[{"panelistId":"P-new","country":"fr","locale":null},{"panelistId":7,"country":"CA","locale":"fr_CA"}]`, status: 200},
		{method: "POST", path: "/api/v1/profiles/mapping", contentType: csvType, body: store.MappingHeader + "\ndob,,-1,,\n", status: 200},
		{method: "POST", path: "/api/v1/profiles/mapping", contentType: csvType, body: store.MappingHeader + "\ngender,F,999999,1,\n", status: 400},
		{method: "POST", path: "/api/v1/profiles/own", contentType: csvType, body: store.OwnProfileHeader + "\nP-own,hobby,outdoor\n", status: 200},
		{method: "POST", path: "/api/v1/profiles/own", contentType: jsonType, body: `[{"panelistId":"P-own","code":"hobby","value":"indoor"}]`, status: 200},
		{method: "POST", path: "/api/v1/profiles/own", contentType: csvType, body: store.OwnProfileHeader + "\nP-own,,x\n", status: 400},
		{method: "GET", path: "/api/v1/profiles/mapping", status: 200},
		{method: "POST", path: "/api/v1/panelists", contentType: csvType, body: store.PanelHeader + "\nP-new,FRA,\n", status: 400},

		{method: "GET", path: "/api/v1/subsamples", status: 200},
		{method: "GET", path: "/api/v1/subsamples?status=live&sendability=sendable&country=" + target.Country, status: 200},
		{method: "GET", path: "/api/v1/subsamples?sendability=bogus", status: 400, refused: true},
		{method: "GET", path: "/api/v1/subsamples?status=bogus", status: 400},
		{method: "GET", path: "/api/v1/subsamples", header: map[string]string{"Authorization": ""}, status: 401, refused: true},
		{method: "GET", path: "/api/v1/subsamples", header: map[string]string{"Authorization": "Bearer fbt_wrong"}, status: 401},

		{method: "GET", path: "/api/v1/eligibility?panelistId=" + url.QueryEscape(p) + "&subsampleId=" + S, status: 200},
		{method: "GET", path: "/api/v1/eligibility?panelistId=" + url.QueryEscape(ids[1]) + "&subsampleId=" + H, status: 200},
		{method: "GET", path: "/api/v1/eligibility?panelistId=P1&subsampleId=999999999", status: 404},
		{method: "GET", path: "/api/v1/eligibility?panelistId=P1&subsampleId=" + X, status: 404},
		{method: "GET", path: "/api/v1/eligibility?panelistId=P1", status: 400, refused: true},

		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys", status: 200},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?all=true", status: 200},
		{method: "GET", path: "/api/v1/panelists/P-new/surveys?all=true", status: 200}, // no full profile: quota verdicts unknown
		{method: "GET", path: "/api/v1/panelists/nobody/surveys?all=false", status: 200},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?all=maybe", status: 400, refused: true},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?limit=1", status: 200},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?limit=0", status: 400, refused: true},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?limit=101", status: 400, refused: true},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?after=x", status: 400, refused: true},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?all=true&limit=5", status: 400},
		{method: "GET", path: "/api/v1/panelists/" + P + "/surveys?after=999999999", status: 409},
		{method: "GET", path: "/api/v1/panelists/" + url.PathEscape(ids[1]) + "/next", status: 200},
		{method: "GET", path: "/api/v1/panelists/" + url.PathEscape(ids[2]) + "/next?limit=50", status: 200},
		{method: "GET", path: "/api/v1/panelists/nobody/next", status: 404},
		{method: "GET", path: "/api/v1/changes", status: 200},
		{method: "GET", path: "/api/v1/changes?since=3&limit=2", status: 200},
		{method: "GET", path: "/api/v1/changes?limit=0", status: 400, refused: true},
		{method: "GET", path: "/api/v1/panelists/" + P + "/next?limit=0", status: 400, refused: true},

		{method: "GET", path: "/api/v1/subsamples/" + S + "/targets", status: 200},
		{method: "GET", path: "/api/v1/subsamples/" + S + "/targets?limit=3", header: map[string]string{"Accept": jsonType}, status: 200},
		{method: "GET", path: "/api/v1/subsamples/" + H + "/targets", status: 409},
		{method: "GET", path: "/api/v1/subsamples/999999999/targets", status: 404},
		{method: "GET", path: "/api/v1/subsamples/" + S + "/targets?limit=0", status: 400, refused: true},
		{method: "POST", path: "/api/v1/subsamples/" + S + "/eligibility", contentType: csvType, body: ids10, status: 200},
		{method: "POST", path: "/api/v1/subsamples/" + S + "/eligibility", contentType: csvType, body: "id\nP1\n", status: 400},
		{method: "POST", path: "/api/v1/subsamples/999999999/eligibility", contentType: csvType, body: ids10, status: 404},

		{method: "GET", path: "/api/v1/outcomes", status: 200},
		{method: "GET", path: "/api/v1/outcomes?from=2026-01-01&to=2026-01-31", status: 200}, // the first panelist's record
		{method: "GET", path: "/api/v1/outcomes?group=day&from=2026-01-01&to=2026-01-03&country=" + target.Country, status: 200},
		{method: "GET", path: "/api/v1/outcomes?from=2026-01-01&to=2026-01-31&format=csv", status: 200},
		{method: "GET", path: "/api/v1/outcomes?from=2026-01-01&to=2026-01-31&format=csv&totals=true", status: 200},
		{method: "GET", path: "/api/v1/outcomes?totals=true", status: 400},
		{method: "GET", path: "/api/v1/outcomes?from=2026-01-31&to=2026-01-01", status: 400},
		{method: "GET", path: "/api/v1/outcomes?group=planet", status: 400, refused: true},
		{method: "GET", path: "/api/v1/outcomes?group=", status: 400, refused: true},
		{method: "GET", path: "/api/v1/invoice", status: 200},
		{method: "GET", path: "/api/v1/invoice?month=2026-01", status: 200},
		{method: "GET", path: "/api/v1/invoice?month=2026-01&format=csv", status: 200},
		{method: "GET", path: "/api/v1/invoice?month=2026-13", status: 400},
		{method: "GET", path: "/api/v1/invoice?month=2026-1", status: 400, refused: true},
		{method: "GET", path: "/api/v1/profiling", status: 200},
		{method: "GET", path: "/api/v1/profiling?country=" + target.Country, status: 200},
		{method: "GET", path: "/api/v1/profiling?format=csv", status: 200},
		{method: "GET", path: "/api/v1/profiling?country=FRA", status: 400, refused: true},
		{method: "GET", path: "/api/v1/profiling?country=", status: 400, refused: true},

		{method: "GET", path: "/api/v1/refresh", status: 200},
		{method: "POST", path: "/api/v1/refresh?subsample=" + X, status: 409},
		{method: "POST", path: "/api/v1/refresh?subsample=999999999", status: 404},
		{method: "POST", path: "/api/v1/refresh?subsample=first", status: 400, refused: true},
		{method: "POST", path: "/api/v1/refresh", body: strings.Repeat("x", 100<<10), status: 413},
		{method: "POST", path: "/api/v1/refresh", header: map[string]string{"Origin": "https://elsewhere.example"}, status: 403},
		{method: "POST", path: "/api/v1/refresh?subsample=" + S, status: 202},
		{method: "GET", path: "/api/v1/refresh", status: 200},

		// Last: our rules change what the cases above answer.
		{method: "POST", path: "/api/v1/policy", contentType: jsonType, body: `{"rule": "block country ZZ", "why": "none of our panel lives there"}`, status: 201},
		{method: "POST", path: "/api/v1/policy", contentType: jsonType, body: `{"rule": "max-loi twenty"}`, status: 422},
		{method: "POST", path: "/api/v1/policy", contentType: jsonType, body: `{"words": "max-loi 20"}`, status: 400, refused: true},
		{method: "GET", path: "/api/v1/policy", status: 200},
		{method: "POST", path: "/api/v1/policy/999999/remove", contentType: jsonType, body: `{}`, status: 404},
		{method: "POST", path: "/api/v1/policy/1/remove", contentType: jsonType, body: `{"why": "done"}`, status: 200},
		{method: "GET", path: "/api/v1/policy/changes", status: 200},
		{method: "GET", path: "/api/v1/policy/changes?limit=0", status: 400, refused: true},
		{method: "GET", path: "/api/v1/changes?limit=1000", status: 200}, // the policy.changed kinds
	} {
		c.check(t, a, x)
	}

	for _, op := range c.operations() {
		if !c.answered[op] {
			t.Errorf("no successful answer of %s was checked against the document; add a case", op)
		}
	}
}
