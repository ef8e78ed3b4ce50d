package checks

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"fieldboard/store"
)

// TestPanelistIsDecidedOnDecisionsOfItsVersion: a panelist's rows read
// before a write (the total quota closing) are never decided on the
// decisions after it: the rows are read again until both are of one
// version, and a check whose versions keep moving is refused, not
// decided.
func TestPanelistIsDecidedOnDecisionsOfItsVersion(t *testing.T) {
	s := oneSendable(t)
	ctx := context.Background()
	before, err := s.Store.PanelistRowsOf(ctx, "P1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SaveEvents(ctx, oneSendableSnapshot(time.Now(), 0), time.Hour); err != nil {
		t.Fatal(err)
	}
	reads := 0
	read := func() (store.PanelistRows, error) { reads++; return s.Store.PanelistRowsOf(ctx, "P1") }
	p, err := s.readPanelist(ctx, before, read)
	if err != nil {
		t.Fatal(err)
	}
	if p.rows.Version != p.d.version || p.rows.Version == before.Version {
		t.Errorf("rows of version %d decided on decisions of version %d (read first at %d): want the rows read again at the decisions' version",
			p.rows.Version, p.d.version, before.Version)
	}
	if reads != 1 {
		t.Errorf("the rows were read again %d times, want once", reads)
	}

	reads = 0
	stale := func() (store.PanelistRows, error) { reads++; return before, nil } // a version that never catches up
	if _, err := s.readPanelist(ctx, before, stale); !errors.Is(err, ErrVersionMoving) {
		t.Fatalf("rows whose version never meets the decisions': got %v, want ErrVersionMoving", err)
	}
	if reads != versionTries-1 {
		t.Errorf("the rows were read again %d times before giving up, want %d", reads, versionTries-1)
	}
}

// TestQuotaTracksKeptAnswerAsTheStore: the quota counts a subsample page
// paces on, read once per version and cut for each later view, are what
// the store answers for the same time, even a time a fraction of a
// millisecond after a stored count (SQLite keeps milliseconds, so its
// answer there starts a count earlier).
func TestQuotaTracksKeptAnswerAsTheStore(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	t1 := time.Now().Truncate(time.Millisecond).Add(-time.Hour)
	t0 := t1.Add(-6 * time.Minute)
	for i, at := range []time.Time{t0, t1} {
		if _, err := st.SaveEvents(ctx, oneSendableSnapshot(at, int64(10-i)), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	s := &Service{Store: st, Now: time.Now}
	parts, err := s.Subsample(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	since := t1.Add(400 * time.Microsecond)
	first, err := s.quotaTracks(ctx, parts, since) // read from the store and kept
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.quotaTracks(ctx, parts, since) // cut from what was kept
	if err != nil {
		t.Fatal(err)
	}
	if len(first[1].Points) != 2 || !slices.Equal(first[1].Points, again[1].Points) {
		t.Errorf("since %v: the store answered %v, the kept tracks cut %v: want both the counts at %v and %v",
			since, first[1].Points, again[1].Points, t0, t1)
	}
}
