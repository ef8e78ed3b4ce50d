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

// OwnProfileRecord is one line of a supplier's profile file written in its
// own codes, whose header is panelistId,code,value: the supplier's question
// code and its answer code ("gender", "F"), or for a code the mapping ties
// to the age question, a birth date yyyy-MM-dd. A ProfileMapping says which
// provider question and answer each means.
type OwnProfileRecord struct {
	PanelistID string `json:"panelistId"`
	Code       string `json:"code"`
	Value      string `json:"value"`
}

// MappingRow is one line of the supplier's mapping file, whose header is
// code,value,questionId,answerId,country: the supplier's answer Value of
// its question Code means the provider's answer AnswerID of QuestionID.
// Country is empty for a row that holds in every country; a country's row
// wins over the general one. A row for the age question
// (AgeRangeQuestionID) has no answer (AnswerID 0) and no value: its code's
// values are birth dates.
type MappingRow struct {
	Code       string `json:"code"`
	Value      string `json:"value"`
	QuestionID int64  `json:"questionId"`
	AnswerID   int64  `json:"answerId"`
	Country    string `json:"country"`
}
