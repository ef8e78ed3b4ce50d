package formats

import (
	"fieldboard/rules"
	"fieldboard/rules/checks"
)

// PostedReturn is one return of POST /api/v1/returns, checked.
type PostedReturn struct {
	PanelistID string
	StatusID   int64
}

// ReturnAnswer is what POST /api/v1/returns says of one return: recorded
// or refused (why, in a sentence), and, for one recorded without a
// complete, the survey the respondent goes on to ("" and 0 for none).
type ReturnAnswer struct {
	PanelistID      string `json:"panelistId"`
	Status          string `json:"status"`
	Recorded        bool   `json:"recorded"`
	Refused         string `json:"refused,omitempty"`
	Why             string `json:"why"`
	TooFast         bool   `json:"tooFast,omitempty"`
	NextSubsampleID int64  `json:"nextSubsampleId,omitempty"`
	NextLink        string `json:"nextLink,omitempty"`
	NextReason      string `json:"nextReason,omitempty"`
}

// NewReturnAnswer is the answer for posted return p, which became res.
func NewReturnAnswer(p PostedReturn, res checks.ReturnResult) ReturnAnswer {
	a := ReturnAnswer{PanelistID: p.PanelistID, Status: rules.ReturnStatusName(p.StatusID), Recorded: res.Refused == "",
		Refused: res.Refused, Why: res.Why, TooFast: res.TooFast}
	if a.Recorded {
		a.NextSubsampleID, a.NextLink, a.NextReason = res.Next.Chosen, res.Next.Link, res.Next.Reason
	}
	return a
}
