package formats

import (
	"slices"
	"strings"
	"testing"

	"fieldboard/rules/domain"
)

func TestWriteOwnProfilesCSV(t *testing.T) {
	var b strings.Builder
	records := []domain.OwnProfileRecord{
		{PanelistID: "P0000000", Code: "dob", Value: "1984-03-02"},
		{PanelistID: "P0000000", Code: "gender", Value: "F"},
		{PanelistID: "=1+P0000001", Code: "q20041", Value: "a,3"},
	}
	if err := WriteOwnProfilesCSV(&b, slices.Values(records)); err != nil {
		t.Fatal(err)
	}
	want := "panelistId,code,value\nP0000000,dob,1984-03-02\nP0000000,gender,F\n=1+P0000001,q20041,\"a,3\"\n"
	if b.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteMappingCSV(t *testing.T) {
	var b strings.Builder
	rows := []domain.MappingRow{
		{Code: "dob", QuestionID: -1},
		{Code: "gender", Value: "F", QuestionID: 43, AnswerID: 104},
		{Code: "region", Value: "FR-IDF", QuestionID: 96, AnswerID: 251, Country: "FR"},
	}
	if err := WriteMappingCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "code,value,questionId,answerId,country\ndob,,-1,,\ngender,F,43,104,\nregion,FR-IDF,96,251,FR\n"
	if b.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", b.String(), want)
	}
}
