package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBulkPickerStartsEmpty: the bulk check's subsample picker is
// required, so its first option is an empty choice (HTML: a required
// select's first option must have an empty value); it is the one selected
// until a subsample is, so nobody checks against a subsample they did not
// choose.
func TestBulkPickerStartsEmpty(t *testing.T) {
	subsamples := []SubsampleOption{{ID: 200001, Label: "200001 Snacks (Live)"}, {ID: 200002, Label: "200002 Cars (Live)"}}
	for _, tc := range []struct {
		name     string
		selected int64
		want     string
	}{
		{"nothing chosen yet", 0, `<option value="" selected>Choose a subsample</option>`},
		{"a subsample chosen", 200002, `<option value="200002" selected>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := BulkCheckForm(BulkForm{Subsamples: subsamples, Selected: tc.selected}).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			html := b.String()
			first := strings.Index(html, "<option")
			if first < 0 || !strings.HasPrefix(html[first:], `<option value=""`) {
				t.Errorf("the picker's first option is not the empty choice:\n%s", html)
			}
			if !strings.Contains(html, tc.want) || strings.Count(html, " selected") != 1 {
				t.Errorf("want %s as the one selected option:\n%s", tc.want, html)
			}
		})
	}
}
