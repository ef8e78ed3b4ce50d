package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"fieldboard/views/formats"
)

// TestPolicyCommands: each rule of the grammar is put in force with its
// flags anywhere (a priority's -1 a word, not a flag), set by --by for
// --why; list prints the rules as text, the page's CSV and the API's
// JSON; remove takes an id or the rule's words, resume a pause; changes
// prints the audit; bad input is a usage error (exit 2) naming the reason,
// and nothing of it is stored.
func TestPolicyCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "fb.db")
	policy := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := runPolicy(ctx, append([]string{"--db", db}, args...), &out, &errOut)
		return out.String(), err
	}
	good := []struct {
		args  []string
		words string
	}{
		{[]string{"block", "country", "de", "--why", "no panel", "--by", "maria"}, "block country DE"},
		{[]string{"--by", "maria", "block", "subsample", "12"}, "block subsample 12"},
		{[]string{"min-cpi", "2.50", "EUR", "--by", "maria"}, "min-cpi 2.5 EUR"},
		{[]string{"min-epc", "0.4", "usd", "--by", "maria"}, "min-epc 0.4 USD"},
		{[]string{"max-loi", "20", "--by=maria"}, "max-loi 20"},
		{[]string{"min-incidence", "10", "--by", "maria"}, "min-incidence 10"},
		{[]string{"devices", "tablet,mobile", "--by", "maria"}, "devices mobile,tablet"},
		{[]string{"cap", "subsample", "12", "completes", "50", "per", "day", "--by", "maria"}, "cap subsample 12 completes 50 per day"},
		{[]string{"cap", "panelist", "sends", "3", "per", "day", "--by", "maria"}, "cap panelist sends 3 per day"},
		{[]string{"priority", "event", "7", "-1", "--by", "maria"}, "priority event 7 -1"},
		{[]string{"--by", "maria", "priority", "subsample", "9", "--", "+2"}, "priority subsample 9 +2"},
		{[]string{"pause", "subsample", "12", "--by", "maria", "--why", "client asked"}, "pause subsample 12"},
		{[]string{"block", "billing-entity", "Acme", "Research", "--by", "maria"}, "block billing-entity Acme Research"},
	}
	for _, tt := range good {
		out, err := policy(tt.args...)
		if err != nil || !strings.Contains(out, "in force: "+tt.words+" (") {
			t.Errorf("policy %v: %q, %v; want %q in force", tt.args, out, err, tt.words)
		}
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"min-incidence", "150", "--by", "maria"}, "an incidence of 150% is more than 100%"},
		{[]string{"block", "planet", "Mars", "--by", "maria"}, `block "planet": one may block a subsample`},
		{[]string{"priority", "event", "7", "0", "--by", "maria"}, `priority "0" is not a signed whole number`},
		{[]string{"cap", "panelist", "sends", "3", "per", "hour", "--by", "maria"}, "a panelist's cap counts sends per day"},
		{[]string{"max-loi", "20", "--by", ""}, "--by: say who makes the change"},
		{[]string{"max-loi", "20", "--by", "maria", "--why", strings.Repeat("x", 501)}, "a reason is at most 500 bytes"},
		{[]string{"nap"}, `"nap" is not a rule nor a policy subcommand`},
		{[]string{"remove", "99", "--by", "maria"}, "no rule 99 is in force"},
		{[]string{"remove", "block", "country", "FR", "--by", "maria"}, "our block of country FR is not in force"},
		{[]string{"resume", "subsample", "13", "--by", "maria"}, "our pause of subsample 13 is not in force"},
		{[]string{"list", "extra"}, "policy list takes no argument"},
		{[]string{"list", "--format", "xml"}, `--format: "xml" is none of text, csv, json`},
	}
	for _, tt := range bad {
		_, err := policy(tt.args...)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("policy %v: %v (exit %d); want a usage error saying %q", tt.args, err, exitCode(err), tt.want)
		}
	}

	out, err := policy("list", "--format", "json")
	var p formats.PolicyJSON
	if err != nil || json.Unmarshal([]byte(out), &p) != nil || len(p.Rules) != len(good) || p.Rules[0].Words != "block country DE" || p.Rules[0].SetBy != "maria" || p.Rules[0].Why != "no panel" {
		t.Fatalf("policy list --format json: %v\n%s", err, out)
	}
	out, err = policy("list", "--format", "csv")
	rows, cerr := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || cerr != nil || len(rows) != len(good)+1 || rows[0][8] != "words" || rows[11][8] != "priority subsample 9 +2" || rows[13][3] != "Acme Research" {
		t.Errorf("policy list --format csv: %v %v\n%s", err, cerr, out)
	}

	// Remove by id, by words (the amount not compared), resume a pause.
	if out, err := policy("remove", "1", "--by", "maria", "--why", "panel recruited"); err != nil || out != "removed: block country DE\n" {
		t.Errorf("policy remove 1: %q, %v", out, err)
	}
	if out, err := policy("remove", "max-loi", "45", "--by", "maria"); err != nil || out != "removed: max-loi 20\n" {
		t.Errorf("policy remove max-loi 45: %q, %v", out, err)
	}
	if out, err := policy("resume", "subsample", "12", "--by", "maria"); err != nil || out != "removed: pause subsample 12\n" {
		t.Errorf("policy resume subsample 12: %q, %v", out, err)
	}
	out, _ = policy("list")
	if strings.Contains(out, "block country DE") || strings.Contains(out, "max-loi") || strings.Contains(out, "pause") || !strings.Contains(out, "devices mobile,tablet") {
		t.Errorf("policy list after the removals:\n%s", out)
	}

	out, err = policy("changes", "--format", "json", "--limit", "3")
	var changes formats.PolicyChangesPage
	if err != nil || json.Unmarshal([]byte(out), &changes) != nil || len(changes.Changes) != 3 || changes.Changes[2].Subject != "our block of country DE" ||
		changes.Changes[2].Action != "remove" || changes.Changes[2].Why != "panel recruited" {
		t.Errorf("policy changes --format json --limit 3: %v\n%s", err, out)
	}
	out, _ = policy("changes", "--format", "csv")
	if rows, err := csv.NewReader(strings.NewReader(out)).ReadAll(); err != nil || len(rows) != len(good)+3+1 || rows[0][3] != "action" {
		t.Errorf("policy changes --format csv: %d rows, %v", len(rows), err)
	}
}
