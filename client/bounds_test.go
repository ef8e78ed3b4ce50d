package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// liveElement is the live-details fixture's first element with fields
// replaced, as written (raw JSON values).
func liveElement(t *testing.T, fields map[string]string) string {
	t.Helper()
	var list []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(liveDetailsJSON), &list); err != nil {
		t.Fatal(err)
	}
	m := list[0]
	for k, v := range fields {
		m[k] = json.RawMessage(v)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// totalAndCell is a subsample's quotas: a total and one hard cell, with
// the remaining counts written as given.
func totalAndCell(totalExcl, totalShared, cellExcl, cellShared string) string {
	return `[{"quotaId": 1, "tableId": 1, "tableName": "Total Quota", "quotaType": "counting", "remainingExclusive": ` + totalExcl +
		`, "remainingShared": ` + totalShared + `, "achievedInterviews": 5, "questions": []},
	  {"quotaId": 2, "tableId": 2, "quotaType": "hard", "remainingExclusive": ` + cellExcl + `, "remainingShared": ` + cellShared +
		`, "questions": [{"id": 43, "operator": "OR", "answers": [{"id": 58}]}]}]`
}

// TestDecodeNumbersAreBounded: every count, id and price is read into the
// range docs/rules.md gives ("What the provider's answers must hold"); a
// value outside it makes its element malformed, as a wrong type does, and
// an integer written with a fraction is that integer.
func TestDecodeNumbersAreBounded(t *testing.T) {
	ctx := context.Background()
	quotas := []struct {
		name, body string
		err        string // "" when read
	}{
		{"the 64-bit maximum as an 'unlimited' remainingExclusive, beside a remainingShared of 10, would overflow their sum",
			totalAndCell("9223372036854775807", "10", "3", "0"), "remainingExclusive 9223372036854775807 is outside -1000000000 to 1000000000"},
		{"both counts at the 64-bit minimum would overflow their sum",
			totalAndCell("-9223372036854775808", "-9223372036854775808", "3", "0"), "remainingExclusive -9223372036854775808 is outside"},
		{"a hard cell's huge remaining is not read as full or open: the quotas are unread",
			totalAndCell("30", "0", "9223372036854775807", "1"), "remainingExclusive 9223372036854775807 is outside"},
		{"a remaining one past the bound", totalAndCell("1000000001", "0", "3", "0"), "remainingExclusive 1000000001 is outside"},
		{"the bounds themselves are read", totalAndCell("1000000000", "-1000000000", "3", "0"), ""},
		{"10.0 is 10", totalAndCell("10.0", "0", "1e1", "0.0"), ""},
		{"10.5 is not a whole number", totalAndCell("10.5", "0", "3", "0"), "remainingExclusive is the number 10.5, not a whole number"},
		{"1e400 is not a whole number of 64 bits", totalAndCell("1e400", "0", "3", "0"), "remainingExclusive"},
		{"a quota id beyond 2^53-1", strings.Replace(totalAndCell("3", "0", "3", "0"), `"quotaId": 2`, `"quotaId": 9007199254740992`, 1), "quotaId 9007199254740992 is outside"},
		{"a rate beyond 100 percent", strings.Replace(totalAndCell("3", "0", "3", "0"), `"achievedInterviews": 5`, `"achievedInterviews": 5, "estimatedIncidence": 1e300`, 1), "estimatedIncidence 1e+300 is outside 0 to 100"},
		{"an LOI beyond a day", strings.Replace(totalAndCell("3", "0", "3", "0"), `"achievedInterviews": 5`, `"achievedInterviews": 5, "estimatedLOI": 1441`, 1), "estimatedLOI 1441 is outside 0 to 1440"},
		{"achieved below 0", strings.Replace(totalAndCell("3", "0", "3", "0"), `"achievedInterviews": 5`, `"achievedInterviews": -1`, 1), "achievedInterviews -1 is outside 0"},
		{"an answer id below 0", strings.Replace(totalAndCell("3", "0", "3", "0"), `{"id": 58}`, `{"id": -58}`, 1), "questions[0].answers[0].id -58 is outside"},
	}
	for _, tt := range quotas {
		t.Run("quotas: "+tt.name, func(t *testing.T) {
			c := serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/quotas", tt.body, nil)
			got, err := c.Quotas(ctx, 90001)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("error %v; want the quotas read", err)
				}
				for _, q := range got {
					if q.Remaining() > domain.MaxCompletes*2 || q.Remaining() < -domain.MaxCompletes*2 {
						t.Errorf("quota %d remaining %d", q.QuotaID, q.Remaining())
					}
				}
				if tt.name == "10.0 is 10" && (got[0].RemainingExclusive != 10 || got[1].RemainingExclusive != 10) {
					t.Errorf("remaining %d and %d, want 10 and 10", got[0].RemainingExclusive, got[1].RemainingExclusive)
				}
				return
			}
			var bad *MalformedListError
			if err == nil || !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v; want a *MalformedListError saying %q", err, tt.err)
			}
		})
	}

	live := []struct {
		name   string
		fields map[string]string
		reason string // "" when read
	}{
		{"a CPI near the float maximum would make EPC infinite", map[string]string{"targetedCPI": "8e306"}, "targetedCPI 8e+306 is outside 0 to 1e+09"},
		{"a negative CPI", map[string]string{"targetedCPI": "-1"}, "targetedCPI -1 is outside"},
		{"an incidence beyond 100 percent", map[string]string{"expectedIncidenceRate": "101"}, "expectedIncidenceRate 101 is outside 0 to 100"},
		{"a research type id beyond 2^53-1", map[string]string{"researchTypeId": "9223372036854775807"}, "researchTypeId 9223372036854775807 is outside"},
		{"an event id written 5001.0 is 5001", map[string]string{"eventId": "5001.0"}, ""},
		{"more locales than the bound", map[string]string{"locales": "[" + strings.TrimSuffix(strings.Repeat(`{"name": "nl-nl", "liveEntryLink": "https://e.example/?id=", "testingEntryLink": ""},`, domain.MaxLocales+1), ",") + "]"},
			"it lists 101 locales, more than 100"},
		{"an entry link longer than the bound is never cut, its element is malformed",
			map[string]string{"locales": `[{"name": "nl-nl", "liveEntryLink": "https://e.example/?` + strings.Repeat("a", domain.MaxLinkBytes) + `", "testingEntryLink": ""}]`},
			"locales[0].liveEntryLink is 8211 bytes long, more than 8192"},
	}
	for _, tt := range live {
		t.Run("live-details: "+tt.name, func(t *testing.T) {
			body := "[" + liveElement(t, tt.fields) + "," + liveElement(t, map[string]string{"subsampleId": "90002"}) + "]"
			c := serveJSON(t, http.MethodPost, "/supplier/v1/event/live-details", body, nil)
			got, malformed, err := c.LiveSubsamples(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if len(got) != 2 || len(malformed) != 0 || got[0].EventID != 5001 {
					t.Fatalf("kept %d, malformed %+v; want both read", len(got), malformed)
				}
				return
			}
			if len(got) != 1 || len(malformed) != 1 || malformed[0].SubsampleID != 90001 || !strings.Contains(malformed[0].Reason, tt.reason) {
				t.Fatalf("kept %d, malformed %+v; want subsample 90001 malformed saying %q, 90002 kept", len(got), malformed, tt.reason)
			}
		})
	}

	t.Run("event/all: a subsample id beyond 2^53-1", func(t *testing.T) {
		body := `[{"subsampleId": 11, "eventId": 1, "subsampleStatus": "Live"}, {"subsampleId": 12, "eventId": 1e17, "subsampleStatus": "Live"}]`
		c := serveJSON(t, http.MethodPost, "/supplier/v1/event/all", body, nil)
		got, malformed, err := c.AllSubsamples(ctx)
		if err != nil || len(got) != 1 || len(malformed) != 1 || malformed[0].SubsampleID != 12 || !strings.Contains(malformed[0].Reason, "eventId 100000000000000000 is outside") {
			t.Fatalf("kept %d, malformed %+v, %v; want subsample 12 malformed", len(got), malformed, err)
		}
	})
}

// TestDecodeEligibilityUnread: an eligibility answer that is not the object
// with its four arrays, or has a number outside its range, is unread, and
// nobody is sent: null, {} or a missing array are not "no rules".
func TestDecodeEligibilityUnread(t *testing.T) {
	ctx := context.Background()
	others := `"researchTypes": [], "categories": [], "events": []`
	tests := []struct{ name, body, err string }{
		{"null", `null`, "the answer is null, not the object with the four arrays of rules"},
		{"an empty object", `{}`, "surveys is missing"},
		{"a list", `[]`, "the answer is a list, not the object"},
		{"a string", `"none"`, "the answer is a string, not the object"},
		{"one array missing", `{"surveys": [], "researchTypes": [], "categories": []}`, "events is missing"},
		{"numDays beyond a hundred years", `{"surveys": [{"id": 9, "numDays": 36601, "returnCodes": [3]}], ` + others + `}`,
			"surveys[0].numDays 36601 is outside 0 to 36600"},
		{"numDays below 0", `{"surveys": [{"id": 9, "numDays": -1, "returnCodes": [3]}], ` + others + `}`,
			"surveys[0].numDays -1 is outside"},
		{"a subsample id beyond 2^53-1", `{"surveys": [{"id": 9223372036854775807, "numDays": 0, "returnCodes": [3]}], ` + others + `}`,
			"surveys[0].id 9223372036854775807 is outside"},
		{"a return code below 0", `{"surveys": [{"id": 9, "numDays": 0, "returnCodes": [3, -2]}], ` + others + `}`,
			"surveys[0].returnCodes -2 is outside"},
		{"an array given as null", `{"surveys": [], "researchTypes": null, "categories": [], "events": []}`, "researchTypes is null, not a list"},
		{"an entry with no numDays (an empty object)", `{"surveys": [], "researchTypes": [{}], "categories": [], "events": []}`, "researchTypes[0] has no numDays"},
		{"an entry with numDays null", `{"surveys": [{"id": 9, "numDays": null, "returnCodes": [3]}], ` + others + `}`, "surveys[0] has no numDays"},
		{"an entry that applies with no return codes listed", `{"surveys": [{"id": 9, "numDays": 0, "returnCodes": []}], ` + others + `}`,
			"surveys[0] applies but its returnCodes are empty"},
		{"a category entry that applies with no return codes listed", `{"surveys": [], "researchTypes": [], "categories": [{"mainCategoryId": null, "genericCategoryId": null, "specificCategoryId": 12, "numDays": 30, "returnCodes": [ ]}], "events": []}`,
			"categories[0] applies but its returnCodes are empty"},
		{"more return codes than the bound", `{"surveys": [{"id": 9, "numDays": 0, "returnCodes": [` + strings.Repeat("3,", domain.MaxReturnCodes) + `3]}], ` + others + `}`,
			"surveys[0] has 1001 returnCodes, more than 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/eligibility-rules", tt.body, nil)
			_, err := c.EligibilityRules(ctx, 90001)
			var bad *MalformedListError
			if err == nil || !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v; want a *MalformedListError saying %q", err, tt.err)
			}
		})
	}

	t.Run("an entry that does not apply may list no return codes: read", func(t *testing.T) {
		c := serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/eligibility-rules",
			`{"surveys": [{"id": 0, "numDays": 0, "returnCodes": []}], `+others+`}`, nil)
		if got, err := c.EligibilityRules(ctx, 90001); err != nil || len(got.Surveys) != 1 {
			t.Fatalf("got %s, %v; want the placeholder entry read", mustJSON(t, got), err)
		}
	})

	t.Run("numDays 30.0 and an id 9.0e1 are whole numbers: read", func(t *testing.T) {
		c := serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/eligibility-rules",
			`{"surveys": [{"id": 9.0e1, "numDays": 30.0, "returnCodes": [3.0]}], `+others+`}`, nil)
		got, err := c.EligibilityRules(ctx, 90001)
		if err != nil || len(got.Surveys) != 1 || *got.Surveys[0].ID != 90 || got.Surveys[0].NumDays != 30 || got.Surveys[0].ReturnCodes[0] != 3 {
			t.Fatalf("got %s, %v; want id 90, numDays 30, code 3", mustJSON(t, got), err)
		}
	})
}

// TestDecodeBadLiteralCostsItsElement: a literal JSON does not know (NaN,
// Infinity, a bare word) in one element costs that element, named by its
// subsample when its id comes before the literal, never the whole list.
func TestDecodeBadLiteralCostsItsElement(t *testing.T) {
	ctx := context.Background()
	good := liveElement(t, map[string]string{"subsampleId": "90002"})
	for _, literal := range []string{"NaN", "Infinity", "-Infinity", "undefined", "1.2.3"} {
		t.Run(literal, func(t *testing.T) {
			// The fixture's element, its CPI replaced as written: subsampleId
			// comes before targetedCPI in the marshalled (sorted) keys.
			bad := strings.Replace(liveElement(t, nil), `"targetedCPI":1.75`, `"targetedCPI":`+literal, 1)
			if !strings.Contains(bad, literal) {
				t.Fatal("the fixture has no targetedCPI to replace")
			}
			c := serveJSON(t, http.MethodPost, "/supplier/v1/event/live-details", "["+good+",\n"+bad+"]", nil)
			got, malformed, err := c.LiveSubsamples(ctx)
			if err != nil {
				t.Fatalf("error %v; want one element lost", err)
			}
			if len(got) != 1 || got[0].SubsampleID != 90002 || len(malformed) != 1 || malformed[0].Index != 1 ||
				malformed[0].SubsampleID != 90001 || !strings.Contains(malformed[0].Reason, "it is not valid JSON") {
				t.Fatalf("kept %d, malformed %+v; want 90002 kept, element 2 (subsample 90001) malformed", len(got), malformed)
			}
		})
	}

	t.Run("brackets that do not close fail the call", func(t *testing.T) {
		c := serveJSON(t, http.MethodPost, "/supplier/v1/event/live-details", "["+good+",{", nil)
		if _, _, err := c.LiveSubsamples(ctx); err == nil {
			t.Fatal("a body cut short was read")
		}
	})

	t.Run("a NaN in a quota fails that subsample's quotas, with what was wrong", func(t *testing.T) {
		c := serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/quotas", totalAndCell("NaN", "0", "3", "0"), nil)
		_, err := c.Quotas(ctx, 90001)
		var bad *MalformedListError
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), "quotas element 1 of 2 could not be read: it is not valid JSON") {
			t.Fatalf("error %v; want element 1 malformed", err)
		}
	})
}

// TestDecodeStringsAreCapped: a provider's string longer than the bound is
// cut, and ends in "…", which says it was.
func TestDecodeStringsAreCapped(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("é", maxTextBytes) // two bytes each
	body := "[" + liveElement(t, map[string]string{"subsampleName": `"` + long + `"`, "primaryProjectManager": `"` + long + `"`,
		"completesAutoIncrementSchedule": `{"interviews": "` + long + `"}`}) + "]"
	c := serveJSON(t, http.MethodPost, "/supplier/v1/event/live-details", body, nil)
	got, malformed, err := c.LiveSubsamples(ctx)
	if err != nil || len(got) != 1 || len(malformed) != 0 {
		t.Fatalf("kept %d, malformed %+v, %v", len(got), malformed, err)
	}
	for name, s := range map[string]string{"subsampleName": got[0].SubsampleName, "primaryProjectManager": *got[0].PrimaryProjectManager} {
		if len(s) > maxTextBytes+len("…") || !strings.HasSuffix(s, "…") || !strings.HasPrefix(long, strings.TrimSuffix(s, "…")) {
			t.Errorf("%s of %d bytes: %d bytes, ends %q; want it cut to %d and an ellipsis", name, len(long), len(s), s[len(s)-8:], maxTextBytes)
		}
	}
	if s := string(got[0].CompletesAutoIncrementSchedule); s != `"(8209 bytes, more than the 4096 kept)"` {
		t.Errorf("a schedule of 8209 bytes kept as %.80q", s)
	}
	if got[0].Locales[0].LiveEntryLink == "" || strings.HasSuffix(got[0].Locales[0].LiveEntryLink, "…") {
		t.Errorf("entry link %q", got[0].Locales[0].LiveEntryLink)
	}

	questions := `[{"type": "Single Punch", "id": 43, "name": "GENDER", "text": "` + long + `"}]`
	c = serveJSON(t, http.MethodGet, "/supplier/v1/locales/nl-nl/questions", questions, nil)
	qs, _, err := c.Questions(ctx, "nl-nl")
	if err != nil || len(qs) != 1 || len(qs[0].Text) > maxTextBytes+len("…") {
		t.Fatalf("a question's text of %d bytes read as %d bytes, %v", len(long), len(qs[0].Text), err)
	}
}

// TestDecodeProviderSpellings: a locale the provider writes en_US is the
// panel's en-us (domain.ParseLocale), and a field end given as a date alone
// is the end of that day in the provider's zone, its start the start.
func TestDecodeProviderSpellings(t *testing.T) {
	ctx := context.Background()
	loc := amsterdam(t)
	body := "[" + liveElement(t, map[string]string{
		"locales":        `[{"name": "en_US", "liveEntryLink": "https://e.example/?id=", "testingEntryLink": ""}, {"name": "Klingon", "liveEntryLink": "https://e.example/?id=", "testingEntryLink": ""}]`,
		"fieldStartDate": `"2026-12-01"`, "fieldEndDate": `"2026-12-06"`,
	}) + "]"
	c := serveJSON(t, http.MethodPost, "/supplier/v1/event/live-details", body, loc)
	got, malformed, err := c.LiveSubsamples(ctx)
	if err != nil || len(got) != 1 || len(malformed) != 0 {
		t.Fatalf("kept %d, malformed %+v, %v", len(got), malformed, err)
	}
	if l := got[0].Locales; l[0].Name != "en-us" || l[1].Name != "Klingon" {
		t.Errorf("locales %q and %q; want en-us, and a code not in the language-country form kept as sent", l[0].Name, l[1].Name)
	}
	wantStart := time.Date(2026, 12, 1, 0, 0, 0, 0, loc)
	wantEnd := time.Date(2026, 12, 6, 23, 59, 59, int(999*time.Millisecond), loc)
	if s, e := got[0].FieldStartDate.Time, got[0].FieldEndDate.Time; !s.Equal(wantStart) || !e.Equal(wantEnd) {
		t.Errorf("field %s to %s; want %s to %s", s, e, wantStart, wantEnd)
	}

	summary := `[{"subsampleId": 11, "eventId": 1, "subsampleStatus": "Live", "fieldStartDate": "2026-12-01", "fieldEndDate": "2026-12-06"},
		{"subsampleId": 12, "eventId": 1, "subsampleStatus": "Live", "fieldEndDate": "2026-12-06T10:00:00.000"}]`
	c = serveJSON(t, http.MethodPost, "/supplier/v1/event/all", summary, loc)
	all, _, err := c.AllSubsamples(ctx)
	if err != nil || len(all) != 2 {
		t.Fatal(all, err)
	}
	if e := all[0].FieldEndDate.Time; !e.Equal(wantEnd) || !all[0].FieldStartDate.Time.Equal(wantStart) {
		t.Errorf("event/all field end %s; want %s", e, wantEnd)
	}
	if e := all[1].FieldEndDate.Time; !e.Equal(time.Date(2026, 12, 6, 10, 0, 0, 0, loc)) {
		t.Errorf("an end with a time: %s; want it as given", e)
	}

	c = serveJSON(t, http.MethodGet, "/supplier/v1/locales", `[{"id": 1, "locale": "EN_us", "shortLocale": "en"}]`, nil)
	locales, _, err := c.Locales(ctx)
	if err != nil || len(locales) != 1 || locales[0].Locale != "en-us" {
		t.Errorf("locales %+v, %v; want en-us", locales, err)
	}
}

// TestBodyCapPerEndpoint: one subsample's quotas or rules, and the
// reference lists, are read up to caps of their own, far below the event
// lists' (a 60 MiB quota answer raised the process to 470 MB).
func TestBodyCapPerEndpoint(t *testing.T) {
	ctx := context.Background()
	padded := func(n int) string { return "[" + strings.Repeat(" ", n) + "]" }
	c := serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/quotas", padded(maxSubsampleBodyBytes), nil)
	if _, err := c.Quotas(ctx, 90001); err == nil || !strings.Contains(err.Error(), "response larger than 4194304 bytes") {
		t.Errorf("quotas of %d bytes: %v; want the body refused", maxSubsampleBodyBytes+2, err)
	}
	c = serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/eligibility-rules", `{"surveys": [], "researchTypes": [], "categories": [], "events": []`+strings.Repeat(" ", maxSubsampleBodyBytes)+`}`, nil)
	if _, err := c.EligibilityRules(ctx, 90001); err == nil || !strings.Contains(err.Error(), "response larger than") {
		t.Errorf("rules beyond the cap: %v; want the body refused", err)
	}
	c = serveJSON(t, http.MethodGet, "/supplier/v1/countries", padded(maxReferenceBodyBytes), nil)
	if _, _, err := c.Countries(ctx); err == nil || !strings.Contains(err.Error(), "response larger than") {
		t.Errorf("countries beyond the cap: %v; want the body refused", err)
	}
	c = serveJSON(t, http.MethodPost, "/supplier/v1/event/all", padded(maxSubsampleBodyBytes), nil)
	if _, _, err := c.AllSubsamples(ctx); err != nil {
		t.Errorf("an event list of %d bytes: %v; want it read under the general cap", maxSubsampleBodyBytes+2, err)
	}
	c = serveJSON(t, http.MethodGet, "/supplier/v1/subsamples/90001/quotas", padded(maxSubsampleBodyBytes-2), nil)
	if _, err := c.Quotas(ctx, 90001); err != nil {
		t.Errorf("quotas of exactly the cap: %v", err)
	}
}

// TestDecodeReferenceNumbers: the library and reference lists read their
// ids into the same ranges, whole numbers written with a fraction
// included; an id outside its range costs its element, as a wrong type
// does, and a list with nothing else fails.
func TestDecodeReferenceNumbers(t *testing.T) {
	ctx := context.Background()
	c := serveJSON(t, http.MethodGet, "/supplier/v1/locales/nl-nl/questions/43/answers", `[{"id": 58.0, "name": "Male"}, {"id": 6e1, "name": "NULL VALUE"}]`, nil)
	answers, _, err := c.Answers(ctx, "nl-nl", 43)
	if err != nil || len(answers) != 2 || answers[0].ID != 58 || answers[1].ID != 60 {
		t.Errorf("answers %+v, %v; want ids 58 and 60", answers, err)
	}
	c = serveJSON(t, http.MethodGet, "/supplier/v1/locales/nl-nl/questions", `[{"id": -1, "name": "agerange"}, {"id": 100000000000000000, "name": "GENDER"}]`, nil)
	qs, malformed, err := c.Questions(ctx, "nl-nl")
	if err != nil || len(qs) != 1 || len(malformed) != 1 || !strings.Contains(malformed[0].String(), "nl-nl questions element 2: id 100000000000000000 is outside") {
		t.Errorf("questions with an id beyond 2^53-1: kept %+v, dropped %v, %v; want agerange kept and element 2 dropped", qs, malformed, err)
	}
	c = serveJSON(t, http.MethodGet, "/supplier/v1/countries", `[{"id": -5, "code": "NL"}]`, nil)
	if _, _, err := c.Countries(ctx); err == nil || !strings.Contains(err.Error(), "countries element 1 of 1 could not be read: id -5 is outside") {
		t.Errorf("a country id below 0, alone: %v; want the list failed", err)
	}
	c = serveJSON(t, http.MethodGet, "/supplier/v1/survey-statuses", `[{"id": 3.5, "statusName": "Live"}]`, nil)
	if _, _, err := c.SurveyStatuses(ctx); err == nil {
		t.Error("a status id of 3.5 was read")
	}
}

func TestWholeNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`[10.0, 10.5, -3.00, 1e1, 2.50e1, 1.5e-3, 0.0, -0.0]`: `[10, 10.5, -3, 10, 25, 1.5e-3, 0, 0]`,
		`{"a": "10.0", "b\"10.0": 7.0}`:                       `{"a": "10.0", "b\"10.0": 7}`,
		`[9223372036854775807.0, 9223372036854775808.0]`:      `[9223372036854775807, 9223372036854775808.0]`,
		`[1e99999999, 1.0e400, NaN, -Infinity, 12]`:           `[1e99999999, 1.0e400, NaN, -Infinity, 12]`,
		`["unterminated 1.0`:                                  `["unterminated 1.0`,
		`[1., 01.0, 1.0.0, -.0, 01e1]`:                        `[1., 01.0, 1.0.0, -.0, 01e1]`,
	} {
		if got := string(wholeNumbers([]byte(in))); got != want {
			t.Errorf("wholeNumbers(%s) = %s, want %s", in, got, want)
		}
	}
}
