package store_test

import (
	"context"
	"testing"
	"time"

	"fieldboard/store"
)

func TestStateChangesSincePreviousRefresh(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	save := func(at time.Time, states map[int64]store.SubsampleState) {
		t.Helper()
		snap := snapshotAt(at, 40)
		snap.States = states
		if _, err := s.SaveEvents(ctx, snap, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	live := func(state string) store.SubsampleState {
		return store.SubsampleState{Status: "Live", Sendability: state}
	}
	save(t0, map[int64]store.SubsampleState{1: live("sendable"), 2: live("unknown"), 3: live("sendable"), 4: live("sendable")})
	counts, err := s.ChangeCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts[store.ChangeNew] != 4 {
		t.Errorf("first refresh: %v, want 4 new", counts)
	}
	save(t0.Add(3*time.Minute), map[int64]store.SubsampleState{
		1: live("sendable"), // unchanged
		2: live("sendable"), // became sendable
		3: live("paused"),   // became paused
		// 4 left the event list: closed
		5: {Status: "Complete", Sendability: "not_sendable"}, // new
	})
	counts, err = s.ChangeCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{store.ChangeNew: 1, store.ChangeSendable: 1, store.ChangePaused: 1, store.ChangeClosed: 1}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
	save(t0.Add(6*time.Minute), map[int64]store.SubsampleState{1: {Status: "Complete", Sendability: "not_sendable"}, 2: live("sendable"), 3: live("paused"), 5: {Status: "Complete", Sendability: "not_sendable"}})
	counts, _ = s.ChangeCounts(ctx)
	if counts[store.ChangeClosed] != 1 || counts[store.ChangeNew] != 0 || counts[store.ChangePaused] != 0 {
		t.Errorf("third refresh: %v, want only subsample 1 closed", counts)
	}
}
