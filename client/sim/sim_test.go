package sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

// TestEndpointsDecode checks that every endpoint answers JSON that decodes
// into the client's types, with content.
func TestEndpointsDecode(t *testing.T) {
	s, _ := newSim(Options{Seed: 7})
	live := liveDetails(t, s)
	if len(live) == 0 {
		t.Fatal("live-details is empty")
	}
	id := live[0].SubsampleID
	loc := live[0].Locales[0].Name

	tests := []struct {
		method, path string
		into         func() any
		count        func(any) int
	}{
		{"POST", pathAll, func() any { return new([]domain.SubsampleSummary) }, lenOf[domain.SubsampleSummary]},
		{"POST", pathLive, func() any { return new([]domain.LiveSubsample) }, lenOf[domain.LiveSubsample]},
		{"GET", quotasPath(id), func() any { return new([]domain.Quota) }, lenOf[domain.Quota]},
		{"GET", rulesPath(id), func() any { return new(domain.EligibilityRules) }, func(any) int { return 1 }},
		{"GET", "/supplier/v1/locales/" + loc + "/questions", func() any { return new([]domain.Question) }, lenOf[domain.Question]},
		{"GET", answersPath(loc, qGender), func() any { return new([]domain.Answer) }, lenOf[domain.Answer]},
		{"GET", pathCountry, func() any { return new([]domain.Country) }, lenOf[domain.Country]},
		{"GET", pathLocales, func() any { return new([]domain.Locale) }, lenOf[domain.Locale]},
		{"GET", pathStatuses, func() any { return new([]domain.SurveyStatus) }, lenOf[domain.SurveyStatus]},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			rec := do(s, tt.method, tt.path)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			v := tt.into()
			if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
				t.Fatalf("decoding: %v", err)
			}
			if tt.count(v) == 0 {
				t.Errorf("empty answer")
			}
		})
	}
}

func lenOf[T any](v any) int { return len(*v.(*[]T)) }

func TestEventAllAcceptsBodies(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 30})
	for _, body := range []string{"", "{}", `{"createdFrom":"2025-01-01","status":3}`, "not json"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, pathAll, strings.NewReader(body)))
		if rec.Code != http.StatusOK {
			t.Errorf("body %q: status %d", body, rec.Code)
		}
	}
}

func TestWrongMethod(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 30})
	id := summaries(t, s)[0].SubsampleID
	tests := []struct{ method, path string }{
		{"GET", pathAll},
		{"GET", pathLive},
		{"PUT", pathLive},
		{"POST", quotasPath(id)},
		{"DELETE", rulesPath(id)},
		{"POST", "/supplier/v1/locales/en-us/questions"},
		{"POST", answersPath("en-us", qGender)},
		{"POST", pathCountry},
		{"PATCH", pathLocales},
		{"POST", pathStatuses},
	}
	for _, tt := range tests {
		if rec := do(s, tt.method, tt.path); rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: status %d, want 405", tt.method, tt.path, rec.Code)
		}
	}
}

func TestUnknownAndBadIDs(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 30})
	tests := []struct {
		path string
		code int
	}{
		{quotasPath(1), http.StatusNotFound},
		{rulesPath(999999999), http.StatusNotFound},
		{"/supplier/v1/subsamples/abc/quotas", http.StatusBadRequest},
		{"/supplier/v1/subsamples/12.5/eligibility-rules", http.StatusBadRequest},
		{"/supplier/v1/locales/xx-yy/questions", http.StatusNotFound},
		{"/supplier/v1/locales/ko-kr/questions", http.StatusNotFound}, // known locale without a library
		{answersPath("en-us", 123456789), http.StatusNotFound},
		{answersPath("xx-yy", qGender), http.StatusNotFound},
		{"/supplier/v1/locales/en-us/questions/gender/answers", http.StatusBadRequest},
	}
	for _, tt := range tests {
		rec := do(s, http.MethodGet, tt.path)
		if rec.Code != tt.code {
			t.Errorf("GET %s: status %d, want %d", tt.path, rec.Code, tt.code)
			continue
		}
		var e struct {
			Status  int    `json:"status"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Status != tt.code || e.Message == "" {
			t.Errorf("GET %s: error body %q (%v)", tt.path, rec.Body, err)
		}
	}
}

// allPaths lists a request for every endpoint, several subsamples and
// questions included.
func allPaths(t *testing.T, s *Simulator) [][2]string {
	paths := [][2]string{
		{"POST", pathAll}, {"POST", pathLive}, {"GET", pathCountry}, {"GET", pathLocales}, {"GET", pathStatuses},
	}
	for i, ss := range summaries(t, s) {
		if i%7 == 0 {
			paths = append(paths, [2]string{"GET", quotasPath(ss.SubsampleID)}, [2]string{"GET", rulesPath(ss.SubsampleID)})
		}
	}
	for _, loc := range []string{"en-us", "de-de", "fr-fr"} {
		paths = append(paths, [2]string{"GET", "/supplier/v1/locales/" + loc + "/questions"})
		for _, q := range fetch[[]domain.Question](t, s, "GET", "/supplier/v1/locales/"+loc+"/questions") {
			paths = append(paths, [2]string{"GET", answersPath(loc, q.ID)})
		}
	}
	return paths
}

func TestDeterministic(t *testing.T) {
	a, _ := newSim(Options{Seed: 42})
	b, _ := newSim(Options{Seed: 42})
	for _, p := range allPaths(t, a) {
		ra, rb := do(a, p[0], p[1]), do(b, p[0], p[1])
		if !bytes.Equal(ra.Body.Bytes(), rb.Body.Bytes()) {
			t.Fatalf("%s %s differs between two simulators with the same seed", p[0], p[1])
		}
	}

	c, _ := newSim(Options{Seed: 43})
	for _, p := range [][2]string{{"POST", pathAll}, {"POST", pathLive}, {"GET", "/supplier/v1/locales/en-us/questions"}} {
		if bytes.Equal(do(a, p[0], p[1]).Body.Bytes(), do(c, p[0], p[1]).Body.Bytes()) {
			t.Errorf("%s %s is the same for seeds 42 and 43", p[0], p[1])
		}
	}
}

func TestRequestsCounted(t *testing.T) {
	s, _ := newSim(Options{Seed: 1, Subsamples: 10})
	for range 5 {
		do(s, "GET", pathCountry)
	}
	do(s, "GET", "/nowhere")
	if got := s.Requests(); got != 6 {
		t.Errorf("Requests() = %d, want 6", got)
	}
}

// TestFormulaNamesChangeOnlyNames: Options.FormulaNames starts some event
// and subsample names with a formula, and changes nothing else: with the
// prefixes taken out, every endpoint answers what the default world does.
func TestFormulaNamesChangeOnlyNames(t *testing.T) {
	plain, _ := newSim(Options{Seed: 42})
	formulas, _ := newSim(Options{Seed: 42, FormulaNames: true})
	prefixed := 0
	for _, p := range allPaths(t, plain) {
		want, got := do(plain, p[0], p[1]).Body.String(), do(formulas, p[0], p[1]).Body.String()
		for _, prefix := range formulaPrefixes {
			encoded, _ := json.Marshal(prefix)
			inner := string(encoded[1 : len(encoded)-1])
			prefixed += strings.Count(got, `"`+inner)
			got = strings.ReplaceAll(got, `"`+inner, `"`)
		}
		if got != want {
			t.Errorf("%s %s: with the formula prefixes taken out, the answer differs from the default world's", p[0], p[1])
		}
	}
	if prefixed == 0 {
		t.Fatal("FormulaNames made no name begin with a formula")
	}
	var all []domain.SubsampleSummary
	if err := json.Unmarshal(do(formulas, "POST", pathAll).Body.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range formulaPrefixes {
		found := false
		for _, s := range all {
			found = found || strings.HasPrefix(s.SubsampleName, prefix)
		}
		if !found {
			t.Errorf("no subsample's name begins with %q", prefix)
		}
	}
}
