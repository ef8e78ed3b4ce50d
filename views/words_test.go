package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"fieldboard/rules"
	"fieldboard/rules/checks/outcomes"
)

// render writes c's HTML, failing the test on an error.
func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOutcomesSayScreenOutsAreNoWrongSends: the totals and a row count the
// wrong sends (quota fulls on cells judged open) and give the screen-outs
// of Fieldboard's sends beside the screen-outs, never among the wrong sends.
func TestOutcomesSayScreenOutsAreNoWrongSends(t *testing.T) {
	row := outcomes.Row{Tally: rules.Tally{Entrants: 9, ScreenOuts: 5, QuotaFulls: 2}, WrongSends: 1, SentScreenOuts: 4}
	card := render(t, outcomeTotalsCard(row))
	for _, want := range []string{
		`(4 of Fieldboard's sends, no wrong sends)`,
		`title="quota fulls on cells Fieldboard judged open when it sent the panelist">Wrong sends</abbr>`,
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the totals card lacks %q:\n%s", want, card)
		}
	}
	if i := strings.Index(card, `data-testid="wrong-sends"`); i < 0 || !strings.HasPrefix(strings.TrimSpace(card[strings.Index(card[i:], ">")+i+1:]), "1") {
		t.Errorf("the totals card's wrong sends are not 1:\n%s", card)
	}
	if r := render(t, outcomeRow(outcomes.BySubsample, row, false)); !strings.Contains(r, `>4 of our sends</div>`) {
		t.Errorf("a row does not give its screen-outs of sends:\n%s", r)
	}
}
