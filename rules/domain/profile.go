package domain

import "time"

// Profile is what the supplier knows of one panelist, as quota matching
// needs it.
type Profile struct {
	// Answers are the panelist's answer ids per library question id,
	// several for a multi-punch question. A question that is absent, or
	// present with no ids, is not answered.
	Answers map[int64][]int64
	// BirthDate is zero when not known. Only its year, month and day are
	// used, as written, whatever its location.
	BirthDate time.Time
}

// ProfileRecord is one line of a supplier's profile file, whose header is
// panelistId,questionId,value: for a library question, Value is an answer
// id of that question (a multi-punch question has a record per answer);
// for the age question (AgeRangeQuestionID) it is the birth date,
// yyyy-MM-dd.
type ProfileRecord struct {
	PanelistID string `json:"panelistId"`
	QuestionID int64  `json:"questionId"`
	Value      string `json:"value"`
}
