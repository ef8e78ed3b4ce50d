package checks

import (
	"context"
	"errors"
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
	if _, err := s.readPanelist(ctx, before, stale); !errors.Is(err, errVersionMoving) {
		t.Fatalf("rows whose version never meets the decisions': got %v, want errVersionMoving", err)
	}
	if reads != versionTries-1 {
		t.Errorf("the rows were read again %d times before giving up, want %d", reads, versionTries-1)
	}
}
