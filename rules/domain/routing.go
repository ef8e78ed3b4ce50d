package domain

import "time"

// RoutingDecision is where one click on an invitation link was sent, and
// why: the router's record.
type RoutingDecision struct {
	DecisionID int64          `db:"decision_id"`
	At         time.Time      `db:"at"`
	PanelistID string         `db:"panelist_id"`
	Intended   int64          `db:"intended_subsample"` // the invitation's subsample; 0 when it named none
	Chosen     int64          `db:"chosen_subsample"`   // the subsample sent to; 0 when none
	Outcome    RoutingOutcome `db:"outcome"`
	Reason     string         `db:"reason"` // a sentence
	// Cells are the quota ids (comma-separated) of the cells the
	// panelist was judged to fall in on the chosen subsample, all open
	// then: a quota full there later means the judgement was wrong.
	Cells string `db:"cells"`
	// Hop is the decision's place in a respondent's session: 1 for the
	// send a click or a next-survey answer made, 2 for the survey a
	// return sent them on to, and so on. After is the decision whose
	// return this one followed (0 for a first send).
	Hop   int   `db:"hop"`
	After int64 `db:"after_decision"`
	// ReturnStatus is the status (domain.ReturnComplete, ...) the
	// respondent was returned with from the chosen subsample, 0 while
	// none came back; ReturnedAt when, ReturnFlag a doubt about it
	// (ReturnTooFast) and ReturnVia how it came (ReturnByRedirect or
	// ReturnByPost).
	ReturnStatus int64      `db:"return_status"`
	ReturnedAt   *time.Time `db:"returned_at"`
	ReturnFlag   string     `db:"return_flag"`
	ReturnVia    string     `db:"return_via"`
	// IntendedName and ChosenName are the names the current snapshot gives
	// the two subsamples when the record is read (not kept with the
	// decision): "" for none, and for one no longer in the snapshot.
	IntendedName string `db:"intended_name"`
	ChosenName   string `db:"chosen_name"`
}

// SigningKey is one key invitation tokens are signed with: the store
// keeps them, rules/invite signs and opens tokens with them.
type SigningKey struct {
	ID     int64  `db:"key_id"`
	Secret []byte `db:"secret"`
}

// RoutingOutcome is what became of a click.
type RoutingOutcome string

// The outcomes of a click.
const (
	// RoutedIntended: sent to the subsample the invitation was for.
	RoutedIntended RoutingOutcome = "intended"
	// RoutedNext: sent to the best survey for the panelist instead.
	RoutedNext RoutingOutcome = "next"
	// RoutedNone: no survey would take the panelist now.
	RoutedNone RoutingOutcome = "none"
	// RoutedAnswer: the next-survey API named this subsample first for
	// the panelist (the supplier's router then sends them).
	RoutedAnswer RoutingOutcome = "answer"
	// RoutedOnReturn: a respondent returned from a survey without a
	// complete was sent on to this one at once.
	RoutedOnReturn RoutingOutcome = "return"
)

// RoutingOutcomes are every outcome, in the order pages list them.
var RoutingOutcomes = []RoutingOutcome{RoutedIntended, RoutedNext, RoutedOnReturn, RoutedNone, RoutedAnswer}

// How a return reached Fieldboard.
const (
	// ReturnByRedirect: the respondent's browser came back on a return
	// address.
	ReturnByRedirect = "redirect"
	// ReturnByPost: the provider posted it, server to server.
	ReturnByPost = "post"
)

// ReturnTooFast flags a complete returned sooner than a set share of the
// survey's expected length: recorded, and doubted.
const ReturnTooFast = "too fast"
