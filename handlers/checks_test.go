package handlers

import (
	"testing"

	"fieldboard/rules"
)

func TestWithPanelistMatchesEntryLink(t *testing.T) {
	raws := []string{
		"https://e.test/s?p=abc%2Bdef&rType=2&id=",
		"https://e.test/s?p=abc&id=&rType=3",
		"https://e.test/s?p=abc",
		"https://e.test/s?p=abc&id=#top",
	}
	for _, panelist := range []string{"P1", "P 1/x", "ü&=?"} {
		for _, raw := range raws {
			base, err := rules.EntryLink(raw, true, "")
			if err != nil {
				t.Fatal(err)
			}
			want, _ := rules.EntryLink(raw, true, panelist)
			got := withPanelist([]EntryLinks{{Locale: "en-us", Live: base, Testing: base}}, panelist, func() []EntryLinks {
				return []EntryLinks{{Locale: "en-us", Live: want, Testing: want}}
			})
			if got[0].Live != want || got[0].Testing != want {
				t.Errorf("%s for %q: got %s, EntryLink says %s", raw, panelist, got[0].Live, want)
			}
		}
	}
}
