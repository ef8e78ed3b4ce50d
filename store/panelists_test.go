package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestSameIDsOnFile: an id is found in any letter case, on the panel, in
// the profiles or in the history, and an id nobody has finds nothing.
func TestSameIDsOnFile(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importPanel(t, s, panelCSV("P0000042,FR,fr-fr", "ab12cd,DE,", "Abcdefgh1,IT,"))
		if _, err := s.ImportProfilesCSV(ctx, strings.NewReader(store.ProfileHeader+"\nQ77,-1,1985-03-17\n"), func(int64) bool { return true }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ImportHistoryCSV(ctx, strings.NewReader(store.HistoryHeader+"\nh9,1,3,2026-11-01T10:00:00.000,1,0,0\n"), time.UTC); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name, id string
			want     []string
		}{
			{"an id on the panel finds itself", "P0000042", []string{"P0000042"}},
			{"the same id in lower case finds it on the panel", "p0000042", []string{"P0000042"}},
			{"mixed cases of several letters", "AB12Cd", []string{"ab12cd"}},
			{"an id only in the profiles", "q77", []string{"Q77"}},
			{"an id only in the history", "H9", []string{"h9"}},
			{"an id of many letters in lower case finds its capitalised form", "abcdefgh1", []string{"Abcdefgh1"}},
			{"an id nobody has finds nothing", "P9999999", []string{}},
			{"an id of many letters nobody has finds nothing", "zzzzzzzzzz", []string{}},
		} {
			got, err := s.SameIDsOnFile(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: SameIDsOnFile(%q) = %q, want %q", tt.name, tt.id, got, tt.want)
			}
		}
	})
}
