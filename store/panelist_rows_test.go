package store_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"fieldboard/rules/domain"
	"fieldboard/store"
	"fieldboard/store/storetest"
)

// TestPanelistRowsOfIsTheThreeReads: the one statement a check reads a
// panelist with gives what PanelOf, ProfileOf and HistoryOf give, for a
// panelist with all three, with some and with none, and the snapshot
// version as SnapshotVersion gives it, moved on by a write.
func TestPanelistRowsOfIsTheThreeReads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importPanel(t, s, panelCSV("A,FR,fr-fr", "B,DE,", "AB,US,en-us"))
		importProfiles(t, s, profileCSV("A,43,101", "A,43,102", "A,44,7", "A,-1,1990-01-31", "C,43,103"))
		importRecords(t, s, []domain.HistoryRecord{
			{PanelistID: "A", SubsampleID: 1, StatusID: 3, RegisteredAt: day(2), EventID: 10},
			{PanelistID: "A", SubsampleID: 2, StatusID: 82, RegisteredAt: day(5).Add(1234 * time.Millisecond), EventID: 10, CategoryID: 7, ResearchTypeID: 2},
			{PanelistID: "A", SubsampleID: 3, StatusID: 92, RegisteredAt: day(1), EventID: 11},
			{PanelistID: "AB", SubsampleID: 1, StatusID: 3, RegisteredAt: day(9), EventID: 10},
			{PanelistID: "D", SubsampleID: 4, StatusID: 3, RegisteredAt: day(3), EventID: 12},
		})
		version, err := s.SnapshotVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"A", "AB", "B", "C", "D", "nobody", "a"} {
			got, err := s.PanelistRowsOf(ctx, id)
			if err != nil {
				t.Fatalf("PanelistRowsOf(%s): %v", id, err)
			}
			member, err := s.PanelOf(ctx, id)
			onPanel := err == nil
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatal(err)
			}
			if !onPanel {
				member = domain.PanelMember{PanelistID: id}
			}
			profile, err := s.ProfileOf(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			history, err := s.HistoryOf(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			want := store.PanelistRows{Member: member, OnPanel: onPanel, Profile: profile, History: history, Version: version}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PanelistRowsOf(%s) =\n%+v\nwant the three reads'\n%+v", id, got, want)
			}
		}
		importRecords(t, s, []domain.HistoryRecord{{PanelistID: "B", SubsampleID: 5, StatusID: 3, RegisteredAt: day(4), EventID: 13}})
		got, err := s.PanelistRowsOf(ctx, "B")
		if err != nil {
			t.Fatal(err)
		}
		if now, err := s.SnapshotVersion(ctx); err != nil || got.Version != now || now == version || len(got.History) != 1 {
			t.Errorf("after an import: version %d and %d records, want the store's version %d (%v), not %d, and 1 record", got.Version, len(got.History), now, err, version)
		}
	})
}

// TestPanelistRowsWithKey: the rows of a click carry the routing key its
// token names while InvitationKeys would list it, and none once it is
// retired or when it is not there; the panelist's rows are the same.
func TestPanelistRowsWithKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db storetest.Dialect) {
		ctx := context.Background()
		s := open(t, db)
		importPanel(t, s, panelCSV("A,FR,fr-fr"))
		importRecords(t, s, []domain.HistoryRecord{{PanelistID: "A", SubsampleID: 1, StatusID: 3, RegisteredAt: day(2), EventID: 10}})
		now := time.Now().UTC().Truncate(time.Millisecond)
		first, err := s.SigningKey(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		second, err := s.RotateRoutingKey(ctx, store.NewRoutingSecret(), now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := s.PanelistRowsOf(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name string
			key  int64
			at   time.Time
			want []domain.SigningKey
		}{
			{"the current key", second.ID, now, []domain.SigningKey{second.SigningKey}},
			{"a retiring key within its grace", first.ID, now.Add(59 * time.Minute), []domain.SigningKey{first.SigningKey}},
			{"a retired key", first.ID, now.Add(61 * time.Minute), nil},
			{"no such key", second.ID + 100, now, nil},
		} {
			got, err := s.PanelistRowsWithKey(ctx, "A", tt.key, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			keys, err := s.InvitationKeys(ctx, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			var listed []domain.SigningKey
			for _, k := range keys {
				if k.ID == tt.key {
					listed = append(listed, k)
				}
			}
			if !reflect.DeepEqual(got.Keys, tt.want) || !reflect.DeepEqual(listed, tt.want) {
				t.Errorf("%s: keys %+v (InvitationKeys: %+v), want %+v", tt.name, got.Keys, listed, tt.want)
			}
			got.Keys = nil
			if !reflect.DeepEqual(got, plain) {
				t.Errorf("%s: rows %+v, want PanelistRowsOf's %+v", tt.name, got, plain)
			}
		}
	})
}
