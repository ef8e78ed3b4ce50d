package store_test

import (
	"context"
	"maps"
	"testing"

	"fieldboard/store/storetest"
)

func TestUnprofiledPanel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		tests := []struct {
			name     string
			panel    []string // panel lines
			profiles []string // profile lines
			want     map[string]int64
		}{
			{"an empty panel", nil, nil, map[string]int64{}},
			{"nobody profiled", []string{"P1,FR,fr-fr", "P2,FR,", "P3,DE,de-de"}, nil, map[string]int64{"FR": 2, "DE": 1}},
			{"the profiled ones left out, a country all profiled absent",
				[]string{"P1,FR,fr-fr", "P2,FR,", "P3,DE,de-de"}, []string{"P1,12,1", "P3,12,2"}, map[string]int64{"FR": 1}},
			{"a profile of no panelist counts nowhere",
				[]string{"P1,FR,fr-fr"}, []string{"X9,12,1"}, map[string]int64{"FR": 1}},
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
				got, err := s.UnprofiledPanel(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !maps.Equal(got, tt.want) {
					t.Errorf("UnprofiledPanel = %v, want %v", got, tt.want)
				}
			})
		}
	})
}
