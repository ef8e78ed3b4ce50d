package rules

import (
	"strings"
	"testing"
	"time"

	"fieldboard/rules/domain"
)

// TestParsePolicyRule: every rule the command line, the API and the page
// take is read into its kind and values, and written back in the same
// words (PolicyWords); anything else is refused with a reason.
func TestParsePolicyRule(t *testing.T) {
	for _, tc := range []struct {
		words string
		want  string // PolicyWords of the rule read; "" when refused
		err   string // a part of the refusal
	}{
		{"max-loi 20", "max-loi 20", ""},
		{"MAX-LOI 20.5", "max-loi 20.5", ""},
		{"min-cpi 2.50 eur", "min-cpi 2.5 EUR", ""},
		{"min-epc 0.4 USD", "min-epc 0.4 USD", ""},
		{"min-incidence 15", "min-incidence 15", ""},
		{"devices tablet,mobile,tablet", "devices mobile,tablet", ""},
		{"block country de", "block country DE", ""},
		{"block event 7", "block event 7", ""},
		{"block subsample 012", "block subsample 12", ""}, // the id, however it is written
		{"pause subsample +12", "pause subsample 12", ""},
		{"priority event 007 +1", "priority event 7 +1", ""},
		{"cap subsample 0012 sends 5 per day", "cap subsample 12 sends 5 per day", ""},
		{"block billing-entity Acme", "block billing-entity Acme", ""},
		{"cap subsample 12 sends 50 per hour", "cap subsample 12 sends 50 per hour", ""},
		{"cap subsample 12 completes 5 per day", "cap subsample 12 completes 5 per day", ""},
		{"cap panelist sends 3 per day", "cap panelist sends 3 per day", ""},
		{"priority event 7 +2", "priority event 7 +2", ""},
		{"priority subsample 12 -1", "priority subsample 12 -1", ""},
		{"pause subsample 12", "pause subsample 12", ""},
		{"", "", "a rule is one of"},
		{"max-loi", "", "takes one number"},
		{"max-loi -5", "", "not a number of at least 0"},
		{"max-loi NaN", "", "not a number"},
		{"min-incidence 101", "", "more than 100%"},
		{"min-cpi 2 euro", "", "three-letter code"},
		{"devices phone", "", `device "phone" is not one of`},
		{"block planet mars", "", "one may block a subsample"},
		{"block subsample twelve", "", "not a whole number"},
		{"cap subsample 12 sends 0 per hour", "", "from 1 to"},
		{"cap subsample 12 sends 9223372036854775807 per hour", "", "from 1 to 1000000000"}, // not read as a negative cap
		{"priority event 7 +1001", "", "from -1000 to +1000"},
		{"cap subsample 12 clicks 5 per hour", "", "one may cap sends"},
		{"cap subsample 12 sends 5 per week", "", "per hour or per day"},
		{"cap panelist sends 3 per hour", "", "sends per day"},
		{"priority event 7 2", "", "signed whole number"},
		{"priority event 7 +0", "", "other than 0"},
		{"pause event 7", "", "one may pause a subsample"},
		{"send everyone", "", `"send" is not a rule`},
		{"block billing-entity " + strings.Repeat("x", 201), "", "at most 200 bytes"},
		{"block category \x00", "", "at most 200 bytes of text on one line"},
	} {
		r, err := ParsePolicyRule(strings.Fields(tc.words))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParsePolicyRule(%q) = %+v, %v; want refused with %q", tc.words, r, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("ParsePolicyRule(%q): %v", tc.words, err)
		case tc.err == "" && PolicyWords(r) != tc.want:
			t.Errorf("PolicyWords(ParsePolicyRule(%q)) = %q, want %q", tc.words, PolicyWords(r), tc.want)
		}
	}
}

// TestCapWindow: a cap counts in UTC hours and days, a panelist's apart.
func TestCapWindow(t *testing.T) {
	now := time.Date(2026, 12, 6, 14, 59, 59, 0, time.UTC)
	for _, tc := range []struct {
		rule     domain.PolicyRule
		key      string
		since    time.Time
		panelist string
	}{
		{rule: domain.PolicyRule{Kind: domain.PolicyCap, Scope: "subsample", Per: "hour"}, key: "2026-12-06T14", since: time.Date(2026, 12, 6, 14, 0, 0, 0, time.UTC)},
		{rule: domain.PolicyRule{Kind: domain.PolicyCap, Scope: "subsample", Per: "day"}, key: "2026-12-06", since: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)},
		{rule: domain.PolicyRule{Kind: domain.PolicyCap, Scope: "panelist", Per: "day"}, panelist: "P1", key: "2026-12-06 P1", since: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)},
	} {
		key, since := CapWindow(tc.rule, tc.panelist, now, time.UTC)
		if key != tc.key || !since.Equal(tc.since) {
			t.Errorf("CapWindow(%+v) = %q since %s, want %q since %s", tc.rule, key, since, tc.key, tc.since)
		}
		// A second later is the next hour (and, for 23:59:59, the next day).
		if next, _ := CapWindow(tc.rule, tc.panelist, now.Add(time.Second), time.UTC); tc.rule.Per == "hour" && next == key {
			t.Errorf("CapWindow a second after %s is still %q", now, key)
		}
	}
}

// TestCapReached: a cap's sentence in words a coordinator reads, one or
// many.
func TestCapReached(t *testing.T) {
	now := time.Date(2026, 12, 6, 14, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour)
	for _, tc := range []struct {
		rule  string
		taken int
		want  string
	}{
		{"cap subsample 10 sends 2 per hour", 2, "Our cap of 2 sends an hour on subsample 10 (set by maria on 6 Dec) is reached: 2 this hour."},
		{"cap subsample 10 completes 1 per day", 1, "Our cap of 1 complete a day on subsample 10 (set by maria on 6 Dec) is reached: 1 today."},
		{"cap subsample 10 entrants 40 per day", 41, "Our cap of 40 entrants a day on subsample 10 (set by maria on 6 Dec) is reached: 41 today."},
		{"cap panelist sends 1 per day", 1, "Our cap of 1 send per panelist a day (set by maria on 6 Dec) is reached: the panelist was sent once today."},
		{"cap panelist sends 3 per day", 3, "Our cap of 3 sends per panelist a day (set by maria on 6 Dec) is reached: the panelist was sent 3 times today."},
	} {
		r, err := ParsePolicyRule(strings.Fields(tc.rule))
		if err != nil {
			t.Fatal(err)
		}
		r.SetBy, r.SetAt = "maria", at
		if got := CapReached(r, tc.taken, now); got != tc.want {
			t.Errorf("CapReached(%s, %d) = %q, want %q", tc.rule, tc.taken, got, tc.want)
		}
	}
}
