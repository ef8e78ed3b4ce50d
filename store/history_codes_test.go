package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestScanHistoryManyCodes: a subsample's rules may list more return codes
// and ids than a statement binds variables (SQLite 32,766, PostgreSQL
// 65,535); the send list reads them all without one variable each, where
// 100,000 codes answered 500.
func TestScanHistoryManyCodes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importPanel(t, s, store.PanelHeader+"\nP1,FR,fr-fr\nP2,FR,fr-fr\n")
		importProfiles(t, s, store.ProfileHeader+"\nP1,43,1\nP2,43,2\n")
		importRecords(t, s, []domain.HistoryRecord{
			{PanelistID: "P1", SubsampleID: 100, StatusID: 100_003, RegisteredAt: day(1), EventID: 1},
			{PanelistID: "P2", SubsampleID: 100, StatusID: 7, RegisteredAt: day(2), EventID: 1}, // status not listed
			{PanelistID: "P2", SubsampleID: 200, StatusID: 99, RegisteredAt: day(3), EventID: 2},
		})
		many := func(from int64) []int64 {
			ids := make([]int64, 100_000)
			for i := range ids {
				ids[i] = from + int64(i)
			}
			return ids
		}
		filter := store.HistoryFilter{Statuses: many(10), SubsampleIDs: append(many(1_000_000), 100),
			AnyOf: append(many(2_000_000), 99), HeldBy: many(3_000_000), EventSubsampleIDs: many(4_000_000)}
		want := []string{"P1: 100", "P2: 200"}
		if got := scan(t, s, []string{"P1", "P2"}, filter); !slices.Equal(got, want) {
			t.Errorf("ScanHistory: %q, want %q", got, want)
		}
		var got []string
		keep := func(string, domain.PanelMember, domain.Profile) bool { return true }
		err := s.ScanPanelistsWithHistory(ctx, []string{"FR"}, false, filter, keep, func(id string, _ domain.PanelMember, recs []domain.HistoryRecord) error {
			call := id + ":"
			for _, r := range recs {
				call += fmt.Sprintf(" %d", r.SubsampleID)
			}
			got = append(got, call)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// P2's record of the hold's status is read where no verdict holds it
		// (ScanHistory) or left out (PostgreSQL's join): either way, P1's
		// record of a listed code on a listed subsample is there.
		if len(got) != 2 || got[0] != "P1: 100" {
			t.Errorf("ScanPanelistsWithHistory: %q, want P1's record on 100, and P2", got)
		}
	})
}
