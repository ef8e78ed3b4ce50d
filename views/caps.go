package views

import (
	"fmt"
	"time"

	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// capStateWords says a cap not reached, with its count now: "Our cap of
// 200 sends an hour (set by maria on 6 Dec): 37 this hour."
func capStateWords(c checks.CapState, now time.Time) string {
	when, this := "an hour", "this hour"
	if c.Rule.Per == "day" {
		when, this = "a day", "today"
	}
	return fmt.Sprintf("Our cap of %s %s %s (%s): %d %s.", Itoa(int64(c.Rule.Amount)), c.Rule.Unit, when,
		rules.SetByWords(c.Rule.SetBy, c.Rule.SetAt, now), c.Counted, this)
}

// capReached reports whether any of the caps is reached.
func capReached(caps []checks.CapState) bool {
	for _, c := range caps {
		if c.Reached != "" {
			return true
		}
	}
	return false
}
