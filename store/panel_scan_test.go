package store_test

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// wholePanel scans the whole panel: the profiled panelists visited, with
// their places, and the others counted per place.
func wholePanel(t *testing.T, s *store.Store, during func()) (visited map[string]store.PanelPlace, unprofiled map[store.PanelPlace]int64) {
	t.Helper()
	visited = map[string]store.PanelPlace{}
	unprofiled, err := s.ScanWholePanel(context.Background(), func(id string, m domain.PanelMember, _ domain.Profile) error {
		if during != nil {
			during()
			during = nil
		}
		visited[id] = store.PanelPlace{Country: m.Country, Locale: m.Locale}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return visited, unprofiled
}

func TestScanWholePanel(t *testing.T) {
	t.Parallel()
	type place = store.PanelPlace
	// many is a panel of 3,000 panelists, two in three profiled: three
	// chunks of the scan, the unprofiled ones between them and after the
	// last.
	var manyPanel, manyProfiles []string
	manyWant := map[place]int64{}
	for i := range 3000 {
		country, locale := "FR", []string{"fr-fr", "", "en-fr"}[i%3]
		if i%2 == 0 {
			country, locale = "DE", "de-de"
		}
		manyPanel = append(manyPanel, fmt.Sprintf("P%05d,%s,%s", i, country, locale))
		if i%3 != 0 {
			manyProfiles = append(manyProfiles, fmt.Sprintf("P%05d,12,1", i))
		} else {
			manyWant[place{country, locale}]++
		}
	}
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		tests := []struct {
			name     string
			panel    []string // panel lines
			profiles []string // profile lines
			visited  int
			want     map[place]int64
		}{
			{"an empty panel", nil, nil, 0, map[place]int64{}},
			{"nobody profiled", []string{"P1,FR,fr-fr", "P2,FR,", "P3,DE,de-de"}, nil, 0,
				map[place]int64{{"FR", "fr-fr"}: 1, {"FR", ""}: 1, {"DE", "de-de"}: 1}},
			{"the profiled ones left out, those between and after them counted, a place all profiled absent",
				[]string{"P1,FR,fr-fr", "P2,FR,", "P3,DE,de-de", "P4,FR,fr-fr", "P5,FR,en-fr"}, []string{"P1,12,1", "P3,12,2"}, 2,
				map[place]int64{{"FR", ""}: 1, {"FR", "fr-fr"}: 1, {"FR", "en-fr"}: 1}},
			{"a profile of no panelist is visited and counts nowhere",
				[]string{"P1,FR,fr-fr"}, []string{"X9,12,1"}, 1, map[place]int64{{"FR", "fr-fr"}: 1}},
			{"many chunks", manyPanel, manyProfiles, len(manyProfiles), manyWant},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s := open(t, db)
				if len(tt.panel) > 0 {
					importPanel(t, s, panelCSV(tt.panel...))
				}
				if len(tt.profiles) > 0 {
					importProfiles(t, s, profileCSV(tt.profiles...))
				}
				visited, got := wholePanel(t, s, nil)
				if !maps.Equal(got, tt.want) || len(visited) != tt.visited {
					t.Errorf("ScanWholePanel = %d visited, unprofiled %v; want %d, %v", len(visited), got, tt.visited, tt.want)
				}
			})
		}
	})
}

// TestScanWholePanelOneSnapshot: an import that commits during the scan
// changes neither what it visits nor what it counts: the panelist profiled
// meanwhile is counted once, without a profile, and the one added
// meanwhile not at all.
func TestScanWholePanelOneSnapshot(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		s := open(t, db)
		importPanel(t, s, panelCSV("P1,FR,fr-fr", "P2,FR,fr-fr", "P3,FR,"))
		importProfiles(t, s, profileCSV("P1,12,1"))
		visited, got := wholePanel(t, s, func() {
			importPanel(t, s, panelCSV("P1,FR,fr-fr", "P2,FR,fr-fr", "P3,FR,", "P4,FR,fr-fr"))
			importProfiles(t, s, profileCSV("P1,12,1", "P3,12,2"))
		})
		want := map[store.PanelPlace]int64{{Country: "FR", Locale: "fr-fr"}: 1, {Country: "FR", Locale: ""}: 1}
		if !maps.Equal(got, want) || len(visited) != 1 {
			t.Errorf("during an import: %v visited, unprofiled %v; want P1, %v", visited, got, want)
		}
		if _, after := wholePanel(t, s, nil); !maps.Equal(after, map[store.PanelPlace]int64{{Country: "FR", Locale: "fr-fr"}: 2}) {
			t.Errorf("after the import: unprofiled %v", after)
		}
	})
}
