package refresh

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// Odd but plausible values from the provider, as a supplier's engineer
// would try them: each costs the subsample it is in, never the refresh,
// another subsample's decision or the pages that read the snapshot.

// rewriting stands between the client and the simulator and, while on,
// hands the answer to path to edit before the client reads it; it counts
// the requests to each path.
type rewriting struct {
	on       atomic.Bool
	mu       sync.Mutex
	edits    map[string]func(body []byte) []byte
	requests map[string]int
}

func (rw *rewriting) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw.mu.Lock()
		if rw.requests == nil {
			rw.requests = map[string]int{}
		}
		rw.requests[r.URL.Path]++
		edit := rw.edits[r.URL.Path]
		rw.mu.Unlock()
		if !rw.on.Load() || edit == nil {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(edit(rec.Body.Bytes()))
	})
}

func (rw *rewriting) set(path string, edit func([]byte) []byte) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.edits == nil {
		rw.edits = map[string]func([]byte) []byte{}
	}
	rw.edits[path] = edit
}

// requestsUnder counts the requests to paths that start with prefix.
func (rw *rewriting) requestsUnder(prefix string) int {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	n := 0
	for p, c := range rw.requests {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// editElement applies edit to the element of a list answer whose
// subsampleId is id, and writes the list back; each of raw's keys is
// replaced in the written body by its value as written (NaN and the like,
// which no JSON encoder writes).
func editElement(t *testing.T, id int64, edit func(m map[string]json.RawMessage), raw map[string]string) func([]byte) []byte {
	return func(body []byte) []byte {
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(body, &list); err != nil {
			t.Errorf("the simulator's answer: %v", err)
			return body
		}
		for _, m := range list {
			if string(m["subsampleId"]) == fmt.Sprint(id) {
				edit(m)
			}
		}
		out, err := json.Marshal(list)
		if err != nil {
			t.Error(err)
		}
		for marker, literal := range raw {
			out = bytes.ReplaceAll(out, []byte(`"`+marker+`"`), []byte(literal))
		}
		return out
	}
}

// TestHostileOddValuesCostTheirSubsample: an "unlimited" remaining of
// 9223372036854775807 beside a remainingShared of 10 on a total quota, both
// counts at the 64-bit minimum, a NaN price and a subsample of 3,000
// locales: the refresh succeeds, that subsample is unknown saying why,
// every other subsample is decided as before, and the live list still
// reads.
func TestHostileOddValuesCostTheirSubsample(t *testing.T) {
	ctx := context.Background()
	rw := &rewriting{}
	f := newHostileFixture(t, rw.wrap)
	sendable := f.view(t).sendable()
	if len(sendable) < 2 {
		t.Fatalf("want two sendable subsamples, have %v", sendable)
	}
	broken := sendable[0]
	totalQuota := func(exclusive, shared string) func([]byte) []byte {
		return func(body []byte) []byte {
			var quotas []map[string]json.RawMessage
			if err := json.Unmarshal(body, &quotas); err != nil {
				t.Errorf("quotas: %v", err)
				return body
			}
			for _, q := range quotas {
				if strings.EqualFold(string(q["tableName"]), `"Total Quota"`) {
					q["remainingExclusive"], q["remainingShared"] = json.RawMessage(exclusive), json.RawMessage(shared)
				}
			}
			out, _ := json.Marshal(quotas)
			return out
		}
	}
	locales := make([]map[string]string, 3000)
	for i := range locales {
		locales[i] = map[string]string{"name": fmt.Sprintf("x%c%c-zz", 'a'+i%26, 'a'+i/26%26), "liveEntryLink": "https://e.example/?id=", "testingEntryLink": ""}
	}
	manyLocales, _ := json.Marshal(locales)
	// The element's own locales and 20 the provider's locales list does
	// not name, read from the simulator's first answer.
	var live []map[string]json.RawMessage
	rec := httptest.NewRecorder()
	f.sim.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, pathLive, strings.NewReader("{}")))
	if err := json.Unmarshal(rec.Body.Bytes(), &live); err != nil {
		t.Fatal(err)
	}
	var unlisted json.RawMessage
	for _, m := range live {
		if string(m["subsampleId"]) == fmt.Sprint(broken) {
			var own []map[string]string
			if err := json.Unmarshal(m["locales"], &own); err != nil {
				t.Fatal(err)
			}
			unlisted, _ = json.Marshal(append(own, locales[:20]...))
		}
	}

	for _, tt := range []struct {
		name, path string
		edit       func([]byte) []byte
		says       string
	}{
		{"an unlimited remaining beside 10", fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", broken),
			totalQuota("9223372036854775807", "10"), "remainingExclusive 9223372036854775807 is outside"},
		{"both counts at the 64-bit minimum", fmt.Sprintf("/supplier/v1/subsamples/%d/quotas", broken),
			totalQuota("-9223372036854775808", "-9223372036854775808"), "remainingExclusive -9223372036854775808 is outside"},
		{"a NaN price", pathLive,
			editElement(t, broken, func(m map[string]json.RawMessage) { m["targetedCPI"] = json.RawMessage(`"NAN-HERE"`) }, map[string]string{"NAN-HERE": "NaN"}),
			"not valid JSON"},
		{"a price near the float maximum", pathLive,
			editElement(t, broken, func(m map[string]json.RawMessage) { m["targetedCPI"] = json.RawMessage(`8e306`) }, nil),
			"targetedCPI 8e+306 is outside"},
		{"20 locales the provider does not list: no library is asked for them", pathLive,
			editElement(t, broken, func(m map[string]json.RawMessage) { m["locales"] = unlisted }, nil), ""},
		{"3,000 locales", pathLive,
			editElement(t, broken, func(m map[string]json.RawMessage) { m["locales"] = manyLocales }, nil),
			"it lists 3000 locales, more than 100"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f.clock.Advance(time.Minute) // a clean refresh first: the last subtest's value is gone
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Fatal(err)
			}
			before := f.view(t)
			rw.set(tt.path, tt.edit)
			rw.on.Store(true)
			defer func() { rw.on.Store(false); rw.set(tt.path, nil) }()
			libraryBefore := rw.requestsUnder("/supplier/v1/locales/")
			f.clock.Advance(10 * time.Minute) // a locale without a library is read even when the library is not due
			if err := f.refresher.Refresh(ctx, Request{}); err != nil {
				t.Fatalf("one subsample's odd value must not fail the refresh: %v", err)
			}
			after := f.view(t) // reads the live list: no overflow, no scan error
			v := after.verdicts[broken]
			if reasons := strings.Join(v.Reasons, " "); tt.says != "" && (v.State != rules.Unknown || !strings.Contains(reasons, tt.says)) {
				t.Errorf("subsample %d: %s %v; want unknown, saying %q", broken, v.State, v.Reasons, tt.says)
			}
			for id, was := range before.verdicts {
				if (id != broken || tt.says == "") && after.verdicts[id].State != was.State {
					t.Errorf("subsample %d went from %s to %s", id, was.State, after.verdicts[id].State)
				}
			}
			if n := rw.requestsUnder("/supplier/v1/locales/x") + rw.requestsUnder("/supplier/v1/locales/y"); n != 0 {
				t.Errorf("%d library requests for locales the provider does not list", n)
			}
			if n := rw.requestsUnder("/supplier/v1/locales/") - libraryBefore; n > 1000 {
				t.Errorf("%d library requests in one refresh", n)
			}
		})
	}
}

// TestLibraryLocales: the library is read for the locales the provider's
// locales list names, when it was read, and for at most
// maxLibraryLocales.
func TestLibraryLocales(t *testing.T) {
	have := map[string]time.Time{"nl-nl": {}}
	known := map[string]bool{"nl-nl": true, "fr-fr": true}
	if got := libraryLocales([]string{"fr-fr", "xx-yy", "nl-nl", "fr-fr"}, have, known, true); fmt.Sprint(got) != "[fr-fr nl-nl]" {
		t.Errorf("due: %q; want the listed locales, once each", got)
	}
	if got := libraryLocales([]string{"fr-fr", "xx-yy", "nl-nl"}, have, known, false); fmt.Sprint(got) != "[fr-fr]" {
		t.Errorf("not due: %q; want the listed locale without a library", got)
	}
	if got := libraryLocales([]string{"xx-yy"}, nil, nil, true); fmt.Sprint(got) != "[xx-yy]" {
		t.Errorf("no locales list read: %q; want the locale read", got)
	}
	var many []string
	for i := range 3000 {
		many = append(many, fmt.Sprintf("l%04d", i))
	}
	if got := libraryLocales(many, nil, nil, true); len(got) != maxLibraryLocales {
		t.Errorf("%d locales read; want %d", len(got), maxLibraryLocales)
	}
}

// replaceElement writes a list answer back with its element i replaced by
// literal, as written (an id past int64, -Infinity, a list).
func replaceElement(t *testing.T, i int, literal string) func([]byte) []byte {
	return func(body []byte) []byte {
		var raws []json.RawMessage
		if err := json.Unmarshal(body, &raws); err != nil || len(raws) <= i {
			t.Errorf("the simulator's answer: %d elements, %v", len(raws), err)
			return body
		}
		list := make([][]byte, len(raws))
		for j, raw := range raws {
			list[j] = raw
		}
		list[i] = []byte(literal) // json.Marshal would refuse it
		return append(append([]byte("["), bytes.Join(list, []byte(", "))...), ']')
	}
}

// TestHostileReferenceElementsCostThemselves: a country whose id is past
// int64, a survey status that is a list, a question whose id is 1e400, an
// answer whose id is -Infinity and a locale whose id is past its range:
// the refresh succeeds, each list keeps its other elements, each dropped
// element is counted on its run and named, the locales list stored
// before stays whole (it decides default locales and which libraries are
// read), and no subsample's verdict changes.
func TestHostileReferenceElementsCostThemselves(t *testing.T) {
	ctx := context.Background()
	rw := &rewriting{}
	f := newHostileFixture(t, rw.wrap)
	before := f.view(t)
	countries, err := f.store.Countries(ctx)
	if err != nil || len(countries) < 2 {
		t.Fatalf("%d countries, %v", len(countries), err)
	}
	statuses, err := f.store.SurveyStatuses(ctx)
	if err != nil || len(statuses) < 2 {
		t.Fatalf("%d statuses, %v", len(statuses), err)
	}
	locales, err := f.store.Locales(ctx)
	if err != nil || len(locales) < 2 {
		t.Fatalf("%d locales, %v", len(locales), err)
	}
	have, err := f.store.LibraryLocales(ctx)
	if err != nil || len(have) == 0 {
		t.Fatalf("library of %v, %v", have, err)
	}
	var locale string
	for l := range have {
		locale = max(locale, l)
	}
	questions, err := f.store.Questions(ctx, locale)
	if err != nil || len(questions) < 3 {
		t.Fatalf("%d questions of %s, %v", len(questions), locale, err)
	}
	// The provider's first question is dropped below: the answers are
	// those of its last.
	rec := httptest.NewRecorder()
	f.sim.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/supplier/v1/locales/"+locale+"/questions", nil))
	var listed []domain.Question
	if err := json.Unmarshal(rec.Body.Bytes(), &listed); err != nil || len(listed) < 2 {
		t.Fatalf("the simulator's questions of %s: %d, %v", locale, len(listed), err)
	}
	asked := listed[len(listed)-1].ID
	answers, err := f.store.Answers(ctx, locale, asked)
	if err != nil || len(answers) < 2 {
		t.Fatalf("%d answers of question %d, %v", len(answers), asked, err)
	}

	rw.set("/supplier/v1/countries", replaceElement(t, 1, `{"id": 9223372036854775808, "code": "XX", "name": "Overflow"}`))
	rw.set("/supplier/v1/survey-statuses", replaceElement(t, 0, `[1, 2]`))
	rw.set("/supplier/v1/locales", replaceElement(t, 0, `{"id": 100000000000000000, "locale": "xx-xx", "countryDefault": true}`))
	rw.set("/supplier/v1/locales/"+locale+"/questions", replaceElement(t, 0, `{"id": 1e400, "name": "HUGE"}`))
	rw.set(fmt.Sprintf("/supplier/v1/locales/%s/questions/%d/answers", locale, asked), replaceElement(t, 1, `{"id": -Infinity, "name": "MINUS"}`))
	rw.on.Store(true)
	f.clock.Advance(time.Minute)
	if err := f.refresher.Refresh(ctx, Request{Force: true}); err != nil {
		t.Fatalf("a malformed element of a reference list or the library must not fail the refresh: %v", err)
	}

	after := f.view(t)
	for id, v := range before.verdicts {
		if after.verdicts[id].State != v.State {
			t.Errorf("subsample %d went from %s to %s", id, v.State, after.verdicts[id].State)
		}
	}
	if got, _ := f.store.Countries(ctx); len(got) != len(countries)-1 {
		t.Errorf("%d countries stored, %d before; want all but the one with an id past int64", len(got), len(countries))
	}
	if got, _ := f.store.SurveyStatuses(ctx); len(got) != len(statuses)-1 {
		t.Errorf("%d statuses stored, %d before; want all but the one that is a list", len(got), len(statuses))
	}
	if got, _ := f.store.Locales(ctx); fmt.Sprint(got) != fmt.Sprint(locales) {
		t.Errorf("locales stored %v; want the list stored before, whole, as one of its elements was dropped", got)
	}
	if got, _ := f.store.Questions(ctx, locale); len(got) != len(questions)-1 {
		t.Errorf("%d questions of %s stored, %d before; want all but the one with an id of 1e400", len(got), locale, len(questions))
	}
	if got, _ := f.store.Answers(ctx, locale, asked); len(got) != len(answers)-1 {
		t.Errorf("%d answers of question %d stored, %d before; want all but the -Infinity one", len(got), asked, len(answers))
	}

	states, err := f.store.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ref := states[store.DatasetReference]; ref.Failing() || ref.MalformedCount != 3 || !strings.Contains(ref.MalformedFirst, "countries element 2: id is the number 9223372036854775808") {
		t.Errorf("reference dataset = %+v; want it read, counting the country, the status and the locale dropped, the country named first", ref)
	}
	if lib := states[store.DatasetLibrary]; lib.Failing() || lib.MalformedCount != 2 || !strings.Contains(lib.MalformedFirst, "element") {
		t.Errorf("library dataset = %+v; want it read, counting the question and the answer dropped", lib)
	}
	for _, says := range []string{"survey-statuses element 1: it is a list, not an object", "locales element 1: id 100000000000000000 is outside",
		locale + " questions element 1: id is the number 1e400", fmt.Sprintf("answers of %s question %d element 2: it is not valid JSON", locale, asked)} {
		if !strings.Contains(f.logs.String(), says) {
			t.Errorf("the log does not say %q", says)
		}
	}
}
