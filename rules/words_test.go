package rules

import (
	"testing"

	"fieldboard/rules/domain"
)

func TestLibraryWords(t *testing.T) {
	tests := []struct {
		name              string
		translation, text string
		want              string
	}{
		{"the translation first", " Vous êtes ? ", "Gender?", "Vous êtes ?"},
		{"a blank translation: the text", "  ", " Gender? ", "Gender?"},
		{"neither: nothing, never the name", "", "", ""},
	}
	for _, tt := range tests {
		q := domain.Question{Name: "GENDER", Text: tt.text, Translation: tt.translation}
		if got := QuestionText(q); got != tt.want {
			t.Errorf("%s: QuestionText = %q, want %q", tt.name, got, tt.want)
		}
		a := domain.Answer{Name: "MALE", Text: tt.text, Translation: tt.translation}
		if got := AnswerText(a); got != tt.want {
			t.Errorf("%s: AnswerText = %q, want %q", tt.name, got, tt.want)
		}
	}
}
